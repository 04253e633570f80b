/** The household pages: sign in, homes, a home's overview, a room. */
import { useState } from "preact/hooks";

import { call, logOut, session, signIn, type Schemas, type SessionKind, type Thing } from "./api.js";
import { ThingCard } from "./controls.js";
import { usePins, type Pins } from "./dashboard.js";
import { AddDevice, mayRegister } from "./devices.js";
import { HOME_VIEW_KINDS, useLiveEvents } from "./live.js";
import { HomeHeader } from "./nav.js";
import { RunButton } from "./routines.js";
import { StaffLink } from "./staff.js";
import { Icon } from "./icons.js";
import { ActionTile } from "./tiles.js";
import { Empty, Failure, FieldProblem, Loading, ProblemAlert, invalid, useLoad, useProblem } from "./ui.js";

type Overview = Schemas["Overview"];
type RoomView = Schemas["RoomView"];
type Property = Schemas["Property"];


export function navigate(hash: string) {
  location.hash = hash;
}

/** A thing's pin toggle for its card. */
function pinOf(pins: Pins, thing: Thing) {
  return { pinned: pins.thingPinned(thing), toggle: () => pins.toggleThing(thing) };
}

export function SignIn(props: { kind: SessionKind }) {
  const [problem, show, clear] = useProblem();
  const [busy, setBusy] = useState(false);
  const developer = props.kind === "developer";
  const field = (name: string) => invalid(problem, name, name);
  return (
    <main class="narrow">
      <h1>{developer ? "Developer sign in" : "Sign in"}</h1>
      <form
        aria-label="Sign in"
        onSubmit={async (e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          setBusy(true);
          clear();
          try {
            await signIn(
              props.kind,
              String(form.get("email")),
              String(form.get("password")),
              developer ? String(form.get("totp") ?? "") : undefined,
            );
            navigate(developer ? "#/developer/keys" : "#/homes");
          } catch (err) {
            show(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required {...field("email")} />
        <FieldProblem problem={problem} field="email" id="email" />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          {...field("password")}
        />
        <FieldProblem problem={problem} field="password" id="password" />
        {developer ? (
          <>
            <label for="totp">Authentication code (if MFA is on)</label>
            <input
              id="totp"
              name="totp"
              inputmode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              {...field("totp")}
            />
            <FieldProblem problem={problem} field="totp" id="totp" />
          </>
        ) : null}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <ProblemAlert problem={problem} fields={["email", "password", "totp"]} />
        {developer && problem?.status === 401 && problem.field !== "totp" ? (
          // The developer sign-in answers a household account as it answers
          // a wrong password (it tells no one who has an account).
          <p class="notice" data-hint="household">
            A household account (one you were invited to a home with) signs in on the{" "}
            <a href="#/signin">household sign-in</a>.
          </p>
        ) : null}
      </form>
      <p>
        <a href={developer ? "#/developer/forgot" : "#/forgot"}>Forgot password?</a>
      </p>
      <p>
        {developer ? (
          <>
            <a href="#/developer/signup">Sign up as a developer</a> · <a href="#/signin">Household sign in</a>
          </>
        ) : (
          <a href="#/developer/signin">Developer sign in</a>
        )}
      </p>
    </main>
  );
}

export function Homes() {
  const [homes, error] = useLoad(async () => {
    const me = await call((c) => c.GET("/v1/auth/me"));
    const tenants = [...new Set(me.homes.filter((h) => h.status === "active").map((h) => h.tenantId))];
    const lists = await Promise.all(
      tenants.map((tenantId) => call((c) => c.GET("/v1/properties", { params: { query: { tenantId } } }))),
    );
    return lists.flatMap((list) => list.items);
  }, []);
  if (error) return <Failure message={error} />;
  if (!homes) return <Loading />;
  return (
    <main>
      <h1>Homes</h1>
      {homes.length === 0 ? (
        <Empty>
          No home yet. A household's owner adds you to their home with an invitation: open the link in its mail.
        </Empty>
      ) : null}
      <ul class="cards">
        {homes.map((home: Property) => (
          <li>
            <a class="card" href={`#/homes/${home.tenantId}/${home.id}`}>
              <Icon token="home" />
              <span>{home.name}</span>
            </a>
          </li>
        ))}
      </ul>
    </main>
  );
}

export function OverviewPage(props: { tenantId: string; propertyId: string }) {
  const { tenantId, propertyId } = props;
  const params = { path: { propertyId }, query: { tenantId } };
  // The things change with the home's events; the routines (for pinned
  // ones) do not, so they are read once.
  const [overview, error, reload] = useLoad(
    () => call((c) => c.GET("/v1/properties/{propertyId}/overview", { params })),
    [tenantId, propertyId],
  );
  const [routines, routinesError] = useLoad(
    async () => (await call((c) => c.GET("/v1/properties/{propertyId}/routines", { params }))).items,
    [tenantId, propertyId],
  );
  // Whether to offer "Add your own device" (read once; null until known).
  const [registers] = useLoad(() => mayRegister(tenantId), [tenantId]);
  const pins = usePins(tenantId, propertyId);
  useLiveEvents(HOME_VIEW_KINDS, () => reload(), true, { tenantId, propertyId });
  if (error ?? routinesError) return <Failure message={(error ?? routinesError)!} />;
  if (!overview || !routines) return <Loading />;
  const everything: Thing[] = overview.rooms.flatMap((r) => r.things).concat(overview.unassigned);
  const available = overview.rooms.flatMap((r) => r.availableActions);
  // The pins in the order saved; a pin whose thing or routine is gone is not drawn.
  const pinned = pins.pins.flatMap((pin) => {
    if (pin.kind === "thing") {
      const thing = everything.find((t) => t.id === pin.thing.id);
      return thing ? [<ThingCard thing={thing} tenantId={tenantId} onChanged={reload} pin={pinOf(pins, thing)} />] : [];
    }
    const routine = routines.find((r) => r.id === pin.routineId);
    return routine
      ? [
          <article class="thing" aria-label={routine.name} data-routine={routine.id}>
            <header>
              <h3>{routine.name}</h3>
            </header>
            <RunButton routine={routine} tenantId={tenantId} />
          </article>,
        ]
      : [];
  });
  return (
    <main>
      <HomeHeader tenantId={tenantId} propertyId={propertyId} current="overview" title={overview.property.name} />
      {everything.length === 0 ? (
        <Empty>
          Nothing in this home yet. <AddThings ownDevice={registers === true} />
        </Empty>
      ) : null}
      {pinned.length > 0 ? (
        <section aria-label="Pinned">
          <h2>Pinned</h2>
          <div class="things">{pinned}</div>
        </section>
      ) : null}
      <section class="tiles" aria-label="Rooms">
        <ActionTile
          target={{ kind: "house", propertyId }}
          tenantId={tenantId}
          title="All the house"
          icon="home"
          primary={overview.house.primaryActions}
          values={overview.house.actionValues}
          available={available}
          things={everything}
          onRan={reload}
        />
        {overview.rooms.map((room: RoomView) => (
          <ActionTile
            target={{ kind: "room", roomId: room.id }}
            tenantId={tenantId}
            title={room.name}
            icon={room.icon}
            href={`#/homes/${tenantId}/${propertyId}/rooms/${room.id}`}
            primary={room.primaryActions}
            values={room.actionValues}
            available={room.availableActions}
            things={room.things}
            onRan={reload}
          />
        ))}
      </section>
      {overview.unassigned.length > 0 ? (
        <section aria-label="Not in a room">
          <h2>Not in a room</h2>
          <div class="things">
            {overview.unassigned.map((thing) => (
              <ThingCard thing={thing} tenantId={tenantId} onChanged={reload} pin={pinOf(pins, thing)} />
            ))}
          </div>
        </section>
      ) : null}
      {registers ? (
        <AddDevice tenantId={tenantId} propertyId={propertyId} rooms={overview.rooms} onAdded={reload} />
      ) : null}
    </main>
  );
}

export function RoomPage(props: { tenantId: string; propertyId: string; roomId: string }) {
  const { tenantId, propertyId, roomId } = props;
  const [room, error, reload] = useLoad(
    () =>
      call((c) =>
        c.GET("/v1/rooms/{roomId}", {
          params: { path: { roomId }, query: { tenantId } },
        }),
      ),
    [tenantId, roomId],
  );
  const pins = usePins(tenantId, propertyId);
  useLiveEvents(HOME_VIEW_KINDS, () => reload(), true, { tenantId, propertyId });
  if (error) return <Failure message={error} />;
  if (!room) return <Loading />;
  return (
    <main>
      <HomeHeader
        tenantId={tenantId}
        propertyId={propertyId}
        title={
          <>
            <Icon token={room.icon} /> {room.name}
          </>
        }
      />
      {room.things.length === 0 ? (
        <Empty>
          Nothing in this room yet. <AddThings />
        </Empty>
      ) : null}
      <div class="things">
        {room.things.map((thing) => (
          <ThingCard thing={thing} tenantId={tenantId} onChanged={reload} pin={pinOf(pins, thing)} />
        ))}
      </div>
    </main>
  );
}

/** How things come to a home: a developer's sandbox gets virtual devices
 * from the simulator; a household connects its devices' connector. With
 * `ownDevice`, the page offers "Add your own device" below. */
function AddThings(props: { ownDevice?: boolean }) {
  const own = props.ownDevice ? (
    <> A board you program yourself is added with “Add your own device” below.</>
  ) : null;
  return session()?.kind === "developer" ? (
    <>
      Add a virtual device in the <a href="#/developer/simulator">simulator</a>: it shows here in its room.
      {own}
    </>
  ) : (
    <>
      Connect a connector (an integration such as your lights' bridge) to bring its devices here: the console
      does not connect one yet, so connect it through the API's integrations (<code>POST /v1/integrations</code>).
      {own}
    </>
  );
}

export function Header() {
  const current = session();
  return (
    <header class="top">
      <a href={current?.kind === "developer" ? "#/developer/keys" : "#/homes"} class="brand">
        Alyt
      </a>
      {current?.kind === "household" ? <StaffLink /> : null}
      {current ? (
        <span class="who">
          {current.email}{" "}
          <button
            type="button"
            onClick={async () => {
              await logOut();
              navigate(current.kind === "developer" ? "#/developer/signin" : "#/signin");
            }}
          >
            Sign out
          </button>
        </span>
      ) : null}
    </header>
  );
}

