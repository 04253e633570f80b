/**
 * A home's routines: each with its triggers, on/off, run now (with what
 * each step did), its recent runs, a dashboard pin and removal; and a new
 * routine made of a room action, run by hand or at a time on chosen days.
 */
import { useState } from "preact/hooks";

import { call, perform, type Schemas } from "./api.js";
import { usePins } from "./dashboard.js";
import { HomeNav } from "./nav.js";
import { Alert, Failure, Loading, useAction, useLoad, when } from "./ui.js";

type Routine = Schemas["Routine"];
type RoutineRun = Schemas["RoutineRun"];
type Trigger = Schemas["Trigger"];
type Weekday = Schemas["Weekday"];

const DAYS: Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

export function RoutinesPage(props: { tenantId: string; propertyId: string }) {
  const { tenantId, propertyId } = props;
  const [loaded, error, reload] = useLoad(async () => {
    const [routines, overview] = await Promise.all([
      call((c) =>
        c.GET("/v1/properties/{propertyId}/routines", { params: { path: { propertyId }, query: { tenantId } } }),
      ),
      call((c) =>
        c.GET("/v1/properties/{propertyId}/overview", { params: { path: { propertyId }, query: { tenantId } } }),
      ),
    ]);
    return { routines: routines.items, overview };
  }, [tenantId, propertyId]);
  const pins = usePins(tenantId, propertyId);
  const { problem, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  return (
    <main>
      <h1>{loaded.overview.property.name}</h1>
      <HomeNav tenantId={tenantId} propertyId={propertyId} current="routines" />
      <h2>Routines</h2>
      <Alert message={problem} />
      {loaded.routines.length === 0 ? <p>No routine yet.</p> : null}
      <div class="things">
        {loaded.routines.map((routine) => (
          <RoutineCard
            routine={routine}
            tenantId={tenantId}
            pinned={pins.routinePinned(routine.id)}
            onPin={() => act(() => pins.toggleRoutine(routine.id))}
            act={act}
          />
        ))}
      </div>
      <NewRoutine tenantId={tenantId} propertyId={propertyId} rooms={loaded.overview.rooms} act={act} />
    </main>
  );
}

function describe(trigger: Trigger): string {
  return trigger.kind === "time" ? `at ${trigger.at} on ${trigger.days.join(", ") || "no day"}` : "by hand";
}

/** What a run did, step by step (and per thing for room and thing steps). */
export function RunOutcome(props: { run: RoutineRun }) {
  return (
    <ol class="steps" aria-label="Run outcome">
      {props.run.steps.map((step) => (
        <li data-outcome={step.outcome}>
          {step.kind}
          {step.detail ? ` ${step.detail}` : ""}: {step.outcome}
          {step.reason ? ` (${step.reason})` : ""}
          {step.things?.length ? ` — ${step.things.map((t) => `${t.name}: ${t.outcome}`).join(", ")}` : ""}
        </li>
      ))}
    </ol>
  );
}

/** Runs a routine now and shows what its steps did. */
export function RunButton(props: { routine: Routine; tenantId: string }) {
  const [run, setRun] = useState<RoutineRun | null>(null);
  const { problem, act } = useAction();
  return (
    <>
      <button
        type="button"
        onClick={() =>
          act(async () =>
            setRun(
              await call((c) =>
                c.POST("/v1/routines/{routineId}/run", {
                  params: { path: { routineId: props.routine.id }, query: { tenantId: props.tenantId } },
                }),
              ),
            ),
          )
        }
      >
        Run {props.routine.name}
      </button>
      <Alert message={problem} />
      {run ? <RunOutcome run={run} /> : null}
    </>
  );
}

function RoutineCard(props: {
  routine: Routine;
  tenantId: string;
  pinned: boolean;
  onPin: () => void;
  act: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const { routine, tenantId, act } = props;
  const params = { path: { routineId: routine.id }, query: { tenantId } };
  const [runs, setRuns] = useState<RoutineRun[] | null>(null);
  return (
    <article class="thing" aria-label={routine.name} data-routine={routine.id}>
      <header>
        <h3>{routine.name}</h3>
        <button type="button" class="pin" aria-pressed={props.pinned ? "true" : "false"} onClick={props.onPin}>
          {props.pinned ? "Unpin" : "Pin"}
        </button>
      </header>
      <p class="value">
        {(routine.triggers.length ? routine.triggers : [{ kind: "manual" } as Trigger]).map(describe).join("; ")}
        {routine.nextDue ? ` · next ${when(routine.nextDue)}` : ""}
      </p>
      <label class="row">
        <input
          type="checkbox"
          checked={routine.enabled}
          onChange={(e) => {
            const enabled = e.currentTarget.checked;
            act(() => call((c) => c.PATCH("/v1/routines/{routineId}", { params, body: { enabled } })));
          }}
        />
        Enabled
      </label>
      <div class="row">
        <RunButton routine={routine} tenantId={tenantId} />
        <button
          type="button"
          onClick={() =>
            act(async () => setRuns((await call((c) => c.GET("/v1/routines/{routineId}/runs", { params }))).items))
          }
        >
          Recent runs
        </button>
        <button
          type="button"
          class="danger"
          onClick={() =>
            window.confirm(`Remove ${routine.name}?`) &&
            act(() => perform((c) => c.DELETE("/v1/routines/{routineId}", { params })))
          }
        >
          Remove
        </button>
      </div>
      {runs ? (
        <ul aria-label="Recent runs">
          {runs.length === 0 ? <li>No run yet.</li> : null}
          {runs.slice(0, 5).map((run) => (
            <li>
              {when(run.startedAt)} · {run.cause.kind} · {run.state}
              <RunOutcome run={run} />
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}

/** A new routine of one room action (the toggles a room offers: on or off). */
function NewRoutine(props: {
  tenantId: string;
  propertyId: string;
  rooms: Schemas["RoomView"][];
  act: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const choices = props.rooms.flatMap((room) =>
    room.availableActions
      .filter((a) => a.primitive === "toggle")
      .flatMap((a) =>
        [true, false].map((value) => ({
          key: `${room.id}|${a.capability}|${a.action}|${value}`,
          label: `${room.name}: ${a.label} ${value ? "on" : "off"}`,
          step: { kind: "room" as const, roomId: room.id, capability: a.capability, action: a.action, value },
        })),
      ),
  );
  return (
    <form
      class="create"
      aria-label="New routine"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const chosen = choices.find((c) => c.key === form.get("step"));
        if (!chosen) return;
        const at = String(form.get("at") ?? "");
        const days = DAYS.filter((d) => form.get(`day-${d}`));
        const triggers: Trigger[] = at ? [{ kind: "time", at, days }] : [];
        const element = e.currentTarget;
        props.act(async () => {
          await call((c) =>
            c.POST("/v1/properties/{propertyId}/routines", {
              params: { path: { propertyId: props.propertyId }, query: { tenantId: props.tenantId } },
              body: { name: String(form.get("name")).trim(), do: [chosen.step], triggers },
            }),
          );
          element.reset();
        });
      }}
    >
      <h2>New routine</h2>
      <label for="routine-name">Name</label>
      <input id="routine-name" name="name" required maxLength={80} />
      <label for="routine-step">Does</label>
      <select id="routine-step" name="step" required>
        {choices.map((c) => (
          <option value={c.key}>{c.label}</option>
        ))}
      </select>
      <label for="routine-at">At (empty: by hand only)</label>
      <input id="routine-at" name="at" type="time" />
      <fieldset class="checks">
        <legend>Days</legend>
        {DAYS.map((d) => (
          <label>
            <input type="checkbox" name={`day-${d}`} /> {d}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={choices.length === 0}>
        Save routine
      </button>
    </form>
  );
}
