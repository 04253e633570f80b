/**
 * A home's routines: each with its triggers, on/off, run now (with what
 * each step did), its recent runs, a dashboard pin and removal; and a new
 * routine made of a room action, run by hand or at a time on chosen days.
 */
import { useState } from "preact/hooks";

import { call, perform, type Schemas } from "./api.js";
import { usePins } from "./dashboard.js";
import { HomeHeader } from "./nav.js";
import {
  Alert,
  Empty,
  Failure,
  FieldProblem,
  Loading,
  ProblemAlert,
  Time,
  invalid,
  useAction,
  useLoad,
} from "./ui.js";

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
  const { fault, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  return (
    <main>
      <HomeHeader tenantId={tenantId} propertyId={propertyId} current="routines" title={loaded.overview.property.name} />
      <h2>Routines</h2>
      <ProblemAlert problem={fault} />
      {loaded.routines.length === 0 ? (
        <Empty>No routine yet: make one below (a name, what it does, and when).</Empty>
      ) : null}
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
      <NewRoutine tenantId={tenantId} propertyId={propertyId} rooms={loaded.overview.rooms} onCreated={reload} />
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
        {routine.nextDue ? (
          <>
            {" "}
            · next <Time at={routine.nextDue} />
          </>
        ) : null}
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
          {runs.length === 0 ? <li>No run yet: run it now, or wait for its time.</li> : null}
          {runs.slice(0, 5).map((run) => (
            <li>
              <Time at={run.startedAt} /> · {run.cause.kind} · {run.state}
              <RunOutcome run={run} />
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}

/** The new routine's fields a problem is shown at. */
const ROUTINE_FIELDS = ["name", "do", "triggers"];

/** A new routine of one room action (the toggles a room offers: on or off). */
function NewRoutine(props: {
  tenantId: string;
  propertyId: string;
  rooms: Schemas["RoomView"][];
  onCreated: () => void;
}) {
  // The form's own problems, each at its field (the rest above the button).
  const { fault, act } = useAction(props.onCreated);
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
        act(async () => {
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
      <input id="routine-name" name="name" required maxLength={80} {...invalid(fault, "name", "routine-name")} />
      <FieldProblem problem={fault} field="name" id="routine-name" />
      <label for="routine-step">Does</label>
      {choices.length === 0 ? (
        <p class="notice" id="routine-step">
          Nothing to add under Does yet: a step switches a room's lights or plugs, and no room of this home has one.
          Add a light to a room first.
        </p>
      ) : (
        <select id="routine-step" name="step" required {...invalid(fault, "do", "routine-step")}>
          {choices.map((c) => (
            <option value={c.key}>{c.label}</option>
          ))}
        </select>
      )}
      <FieldProblem problem={fault} field="do" id="routine-step" />
      <label for="routine-at">At (empty: by hand only)</label>
      <input id="routine-at" name="at" type="time" {...invalid(fault, "triggers", "routine-at")} />
      <FieldProblem problem={fault} field="triggers" id="routine-at" />
      <fieldset class="checks">
        <legend>Days</legend>
        {DAYS.map((d) => (
          <label>
            <input type="checkbox" name={`day-${d}`} /> {d}
          </label>
        ))}
      </fieldset>
      {choices.length === 0 ? (
        <p class="notice" id="routine-save-why">
          Save waits for a step: add a step under Does.
        </p>
      ) : null}
      <button
        type="submit"
        disabled={choices.length === 0}
        aria-describedby={choices.length === 0 ? "routine-save-why" : undefined}
      >
        Save routine
      </button>
      <ProblemAlert problem={fault} fields={ROUTINE_FIELDS} />
    </form>
  );
}
