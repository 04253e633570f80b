/**
 * A household's people, from one of its homes (the household's OWNER, the
 * tenant's ADMIN or platform staff manage them; anyone else is told why):
 * members with their roles (change, remove), pending invitations (resend,
 * withdraw), a new invitation, and guests' stays by reservation key (make
 * or move one, look one up, check out).
 */
import { useState } from "preact/hooks";

import { call, perform, session, type Schemas } from "./api.js";
import { HomeHeader } from "./nav.js";
import {
  Empty,
  Failure,
  FieldProblem,
  Loading,
  ProblemAlert,
  Time,
  count,
  invalid,
  useAction,
  useLoad,
  words,
} from "./ui.js";

type Member = Schemas["Member"];
type Invitation = Schemas["Invitation"];
type GuestStay = Schemas["GuestStay"];
type HouseholdRole = Schemas["HouseholdRole"];

const ROLES: HouseholdRole[] = ["OWNER", "MEMBER", "GUEST"];

/** A `datetime-local` value as an RFC 3339 instant (the browser's zone). */
function instant(local: string): string {
  return new Date(local).toISOString();
}

/** The home (with its household) from the caller's list of homes. */
export async function homeOf(tenantId: string, propertyId: string): Promise<Schemas["Property"]> {
  let cursor: string | undefined;
  do {
    const page = await call((c) =>
      c.GET("/v1/properties", { params: { query: { tenantId, limit: 100, ...(cursor ? { cursor } : {}) } } }),
    );
    const found = page.items.find((p) => p.id === propertyId);
    if (found) return found;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  throw new Error("No such home.");
}

export function PeoplePage(props: { tenantId: string; propertyId: string }) {
  const { tenantId, propertyId } = props;
  const [loaded, error, reload] = useLoad(async () => {
    const property = await homeOf(tenantId, propertyId);
    const clientId = property.clientId;
    const path = { tenantId, clientId };
    const [members, invitations] = await Promise.all([
      call((c) => c.GET("/v1/tenants/{tenantId}/clients/{clientId}/members", { params: { path } })),
      call((c) => c.GET("/v1/tenants/{tenantId}/clients/{clientId}/invitations", { params: { path } })),
    ]);
    return { name: property.name, clientId, members: members.items, invitations: invitations.items };
  }, [tenantId, propertyId]);
  const { fault, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  const path = { tenantId, clientId: loaded.clientId };
  // Nobody removes themselves here (stepping down is another's to do).
  const me = session()?.email.toLowerCase();
  return (
    <main>
      <HomeHeader tenantId={tenantId} propertyId={propertyId} current="people" title={loaded.name} />
      <ProblemAlert problem={fault} />
      <section aria-label="Members">
        <h2>Members</h2>
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">Stay</th>
              <th scope="col">Last seen at home</th>
              <th scope="col"></th>
            </tr>
          </thead>
          <tbody>
            {loaded.members.map((member: Member) => (
              <tr data-user={member.userId}>
                <td data-label="Person">{member.email ?? "(deleted account)"}</td>
                <td data-label="Role">
                  <select
                    aria-label={`Role of ${member.email ?? member.userId}`}
                    value={member.role}
                    onChange={(e) => {
                      const role = e.currentTarget.value as HouseholdRole;
                      act(() =>
                        call((c) =>
                          c.PATCH("/v1/tenants/{tenantId}/clients/{clientId}/members/{userId}", {
                            params: { path: { ...path, userId: member.userId } },
                            body: { role },
                          }),
                        ),
                      );
                    }}
                  >
                    {ROLES.map((r) => (
                      <option value={r}>{words(r)}</option>
                    ))}
                  </select>
                </td>
                <td data-label="Stay">
                  {member.role === "GUEST" ? (
                    <>
                      <Time at={member.startsAt} /> – <Time at={member.expiresAt} />
                    </>
                  ) : (
                    ""
                  )}
                </td>
                <td data-label="Last seen at home">
                  <Time at={member.lastSeen} fallback="–" />
                </td>
                <td data-label="">
                  {member.email?.toLowerCase() === me ? (
                    <span class="value">You</span>
                  ) : (
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      window.confirm(`Remove ${member.email ?? "this person"} from the household?`) &&
                      act(() =>
                        perform((c) =>
                          c.DELETE("/v1/tenants/{tenantId}/clients/{clientId}/members/{userId}", {
                            params: { path: { ...path, userId: member.userId } },
                          }),
                        ),
                      )
                    }
                  >
                    Remove
                  </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-label="Invitations">
        <h2>Invitations</h2>
        {loaded.invitations.length === 0 ? <Empty>No pending invitation: invite someone below.</Empty> : null}
        <ul class="cards">
          {loaded.invitations.map((invitation: Invitation) => (
            <li class="thing" aria-label={invitation.email} data-invitation={invitation.id}>
              <strong>{invitation.email}</strong> · {words(invitation.role)}
              {invitation.reservationKey ? ` · stay ${invitation.reservationKey}` : ""}
              <p class="value">
                sent {count(invitation.sends)}× · the link works until{" "}
                <Time at={invitation.linkExpiresAt} />
              </p>
              <div class="row">
                <button
                  type="button"
                  onClick={() =>
                    act(() =>
                      call((c) =>
                        c.POST("/v1/tenants/{tenantId}/clients/{clientId}/invitations/{invitationId}/resend", {
                          params: { path: { ...path, invitationId: invitation.id } },
                        }),
                      ),
                    )
                  }
                >
                  Resend
                </button>
                <button
                  type="button"
                  class="danger"
                  onClick={() =>
                    act(() =>
                      perform((c) =>
                        c.DELETE("/v1/tenants/{tenantId}/clients/{clientId}/invitations/{invitationId}", {
                          params: { path: { ...path, invitationId: invitation.id } },
                        }),
                      ),
                    )
                  }
                >
                  Withdraw
                </button>
              </div>
            </li>
          ))}
        </ul>
        <Invite path={path} propertyId={propertyId} onChanged={reload} />
      </section>

      <Stays path={path} propertyId={propertyId} onChanged={reload} />
    </main>
  );
}

/** The invitation's fields a problem is shown at. */
const INVITE_FIELDS = ["email", "name", "role", "expiresAt"];

function Invite(props: {
  path: { tenantId: string; clientId: string };
  propertyId: string;
  onChanged: () => void;
}) {
  // The form's own problems, each at its field (the rest above the button).
  const { fault, act } = useAction(props.onChanged);
  const [role, setRole] = useState<HouseholdRole>("MEMBER");
  return (
    <form
      class="create"
      aria-label="Invite someone"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const name = String(form.get("name") ?? "").trim();
        const until = String(form.get("until") ?? "");
        const guest = role === "GUEST";
        const element = e.currentTarget;
        act(async () => {
          await call((c) =>
            c.POST("/v1/tenants/{tenantId}/clients/{clientId}/invitations", {
              params: { path: props.path },
              body: {
                email: String(form.get("email")).trim(),
                role,
                name: name || null,
                propertyId: guest ? props.propertyId : null,
                expiresAt: guest && until ? instant(until) : null,
              },
            }),
          );
          element.reset();
          setRole("MEMBER");
        });
      }}
    >
      <h3>Invite someone</h3>
      <label for="invite-email">Email</label>
      <input id="invite-email" name="email" type="email" required {...invalid(fault, "email", "invite-email")} />
      <FieldProblem problem={fault} field="email" id="invite-email" />
      <label for="invite-name">Name (optional)</label>
      <input id="invite-name" name="name" maxLength={120} {...invalid(fault, "name", "invite-name")} />
      <FieldProblem problem={fault} field="name" id="invite-name" />
      <label for="invite-role">Role</label>
      <select
        id="invite-role"
        value={role}
        onChange={(e) => setRole(e.currentTarget.value as HouseholdRole)}
        {...invalid(fault, "role", "invite-role")}
      >
        {ROLES.map((r) => (
          <option value={r}>{words(r)}</option>
        ))}
      </select>
      <FieldProblem problem={fault} field="role" id="invite-role" />
      {role === "GUEST" ? (
        <>
          <label for="invite-until">Stays until</label>
          <input
            id="invite-until"
            name="until"
            type="datetime-local"
            required
            {...invalid(fault, "expiresAt", "invite-until")}
          />
          <FieldProblem problem={fault} field="expiresAt" id="invite-until" />
        </>
      ) : null}
      <button type="submit">Send invitation</button>
      <ProblemAlert problem={fault} fields={INVITE_FIELDS} />
    </form>
  );
}

/** The stay's fields a problem is shown at. */
const STAY_FIELDS = ["reservationKey", "email", "name", "checkIn", "checkOut"];

/** Guests' stays by reservation key: make or move one, look it up, check
 * out (or, before it begins, cancel). */
function Stays(props: { path: { tenantId: string; clientId: string }; propertyId: string; onChanged: () => void }) {
  const [stay, setStay] = useState<GuestStay | null>(null);
  const { fault, act } = useAction(props.onChanged);
  const keyed = (reservationKey: string) => ({ path: { ...props.path, reservationKey } });
  return (
    <section aria-label="Guest stays">
      <h2>Guest stays</h2>
      <ProblemAlert problem={fault} fields={STAY_FIELDS} />
      <form
        class="create"
        aria-label="A stay by reservation key"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const key = String(form.get("key")).trim();
          act(async () =>
            setStay(
              await call((c) =>
                c.PUT("/v1/tenants/{tenantId}/clients/{clientId}/guests/{reservationKey}", {
                  params: keyed(key),
                  body: {
                    email: String(form.get("email")).trim(),
                    name: String(form.get("name") ?? "").trim() || null,
                    propertyId: props.propertyId,
                    checkIn: instant(String(form.get("checkIn"))),
                    checkOut: instant(String(form.get("checkOut"))),
                  },
                }),
              ),
            ),
          );
        }}
      >
        <label for="stay-key">Reservation key</label>
        <input
          id="stay-key"
          name="key"
          required
          maxLength={100}
          pattern="[A-Za-z0-9._:\-]+"
          {...invalid(fault, "reservationKey", "stay-key")}
        />
        <FieldProblem problem={fault} field="reservationKey" id="stay-key" />
        <label for="stay-email">Guest's email</label>
        <input id="stay-email" name="email" type="email" required {...invalid(fault, "email", "stay-email")} />
        <FieldProblem problem={fault} field="email" id="stay-email" />
        <label for="stay-name">Guest's name (optional)</label>
        <input id="stay-name" name="name" maxLength={120} {...invalid(fault, "name", "stay-name")} />
        <FieldProblem problem={fault} field="name" id="stay-name" />
        <label for="stay-in">Check-in</label>
        <input id="stay-in" name="checkIn" type="datetime-local" required {...invalid(fault, "checkIn", "stay-in")} />
        <FieldProblem problem={fault} field="checkIn" id="stay-in" />
        <label for="stay-out">Check-out</label>
        <input
          id="stay-out"
          name="checkOut"
          type="datetime-local"
          required
          {...invalid(fault, "checkOut", "stay-out")}
        />
        <FieldProblem problem={fault} field="checkOut" id="stay-out" />
        <button type="submit">Save stay</button>
      </form>
      <form
        class="row"
        aria-label="Look up a stay"
        onSubmit={(e) => {
          e.preventDefault();
          const key = String(new FormData(e.currentTarget).get("key")).trim();
          act(async () =>
            setStay(
              await call((c) =>
                c.GET("/v1/tenants/{tenantId}/clients/{clientId}/guests/{reservationKey}", { params: keyed(key) }),
              ),
            ),
          );
        }}
      >
        <label for="stay-lookup">Reservation key</label>
        <input id="stay-lookup" name="key" required />
        <button type="submit">Look up</button>
      </form>
      {stay ? (
        <article class="thing" aria-label={`Stay ${stay.reservationKey}`}>
          <p>
            <strong>{stay.reservationKey}</strong> · {stay.email} ·{" "}
            <span data-stay-state={stay.state}>{words(stay.state)}</span>
          </p>
          <p class="value">
            <Time at={stay.checkIn} /> – <Time at={stay.checkOut} />
          </p>
          {stay.state !== "checked-out" ? (
            <button
              type="button"
              class="danger"
              onClick={() =>
                act(async () =>
                  setStay(
                    await call((c) =>
                      c.DELETE("/v1/tenants/{tenantId}/clients/{clientId}/guests/{reservationKey}", {
                        params: keyed(stay.reservationKey),
                      }),
                    ),
                  ),
                )
              }
            >
              {/* A stay that has not begun is called off, not checked out of. */}
              {Date.parse(stay.checkIn) > Date.now() ? "Cancel the stay" : "Check out"}
            </button>
          ) : null}
        </article>
      ) : null}
    </section>
  );
}
