/**
 * The simulator's scripts: the sandbox's stored scripts (run one against
 * chosen virtual devices, delete one), the sample library (store a sample
 * with one click), and the sandbox's runs with their progress, each that
 * plays read again every second until it ends (a run raises no event), and
 * stopped from here.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

import { ApiProblem, call, perform, type Schemas } from "./api.js";
import {
  Alert,
  Empty,
  FieldProblem,
  ProblemAlert,
  Time,
  count,
  invalid,
  useAction,
  useLoad,
  words,
} from "./ui.js";

type Profile = Schemas["Profile"];
type ScriptRun = Schemas["ScriptRun"];
type SimulationScript = Schemas["SimulationScript"];
type VirtualDevice = Schemas["VirtualDevice"];

/** A role of a script: the virtual device of its profile plays it. */
interface Role {
  name: string;
  profile: Profile;
}

/** A script's roles (`script.roles`: the API checked them when it stored
 * the script). */
function rolesOf(script: SimulationScript): Role[] {
  const roles = script.script.roles;
  return Array.isArray(roles) ? (roles as Role[]) : [];
}

/** A run that has not ended (a player has not taken it yet, or plays it). */
function playing(run: ScriptRun): boolean {
  return run.status === "PENDING" || run.status === "RUNNING";
}

/** Every item of a paged list, the pages read in turn. */
async function everyPage<T>(
  read: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** How often a run that plays is read again (the platform writes its
 * progress at most once a second). */
const RUN_POLL_MS = 1000;

/**
 * The sandbox's runs, oldest first as the API lists them (every page),
 * each one that plays read again every RUN_POLL_MS until none does; `put`
 * puts a run the API just answered (a start, a stop) in its place. A read
 * under way when the list changes is dropped: it could only be older.
 */
function useRuns(tenantId: string): [ScriptRun[] | null, string | null, (run: ScriptRun) => void] {
  const [runs, setRuns] = useState<ScriptRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Failed reads: each one schedules the next.
  const [failures, setFailures] = useState(0);
  useEffect(() => {
    let live = true;
    everyPage((cursor) =>
      call((c) =>
        c.GET("/v1/developers/simulator/runs", {
          params: { query: { tenantId, limit: 200, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    ).then(
      (read) => live && (setRuns(read), setError(null)),
      (e) => live && setError((e as Error).message),
    );
    return () => {
      live = false;
    };
  }, [tenantId]);
  useEffect(() => {
    const active = (runs ?? []).filter(playing);
    if (active.length === 0) return;
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const read = await Promise.all(
          active.map((run) =>
            call((c) =>
              c.GET("/v1/developers/simulator/runs/{runId}", {
                params: { path: { runId: run.id }, query: { tenantId } },
              }),
            ),
          ),
        );
        if (!live) return;
        setRuns((current) => current && current.map((run) => read.find((r) => r.id === run.id) ?? run));
        setError(null);
      } catch (e) {
        if (!live) return;
        setError((e as Error).message);
        setFailures((n) => n + 1);
      }
    }, RUN_POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [runs, failures]);
  const put = (answered: ScriptRun) =>
    setRuns((current) =>
      current?.some((run) => run.id === answered.id)
        ? current.map((run) => (run.id === answered.id ? answered : run))
        : [...(current ?? []), answered],
    );
  return [runs, error, put];
}

/**
 * The Scripts section of the simulator page. `devices` are the sandbox's
 * virtual devices (a run's roles are played by them); `onDevicesChanged`
 * is called when a run starts or ends, which takes devices from the
 * simulator or gives them back.
 */
export function ScriptsPanel(props: { tenantId: string; devices: VirtualDevice[]; onDevicesChanged: () => void }) {
  const { tenantId, devices } = props;
  const [scripts, scriptsError, reloadScripts] = useLoad(
    () =>
      everyPage((cursor) =>
        call((c) =>
          c.GET("/v1/developers/simulator/scripts", {
            params: { query: { tenantId, limit: 200, ...(cursor ? { cursor } : {}) } },
          }),
        ),
      ),
    [tenantId],
  );
  const [samples, samplesError] = useLoad(
    async () => (await call((c) => c.GET("/v1/developers/simulator/sample-scripts"))).items,
    [],
  );
  const [runs, runsError, putRun] = useRuns(tenantId);
  const [running, setRunning] = useState<string | null>(null);
  const scriptAction = useAction(() => reloadScripts());
  const runAction = useAction();

  // A run that starts or ends takes devices or gives them back.
  const playingIds = (runs ?? []).filter(playing).map((run) => run.id).join();
  const was = useRef<string | null>(null);
  useEffect(() => {
    if (runs === null) return;
    if (was.current !== null && was.current !== playingIds) props.onDevicesChanged();
    was.current = playingIds;
  }, [playingIds, runs === null]);

  const loadError = scriptsError ?? samplesError;
  if (loadError) {
    return (
      <section aria-label="Scripts">
        <h2>Scripts</h2>
        <Alert message={loadError} />
      </section>
    );
  }
  if (!scripts || !samples || (!runs && !runsError)) {
    return (
      <section aria-label="Scripts">
        <h2>Scripts</h2>
        <p aria-busy="true">Loading scripts…</p>
      </section>
    );
  }

  return (
    <section aria-label="Scripts">
      <h2>Scripts</h2>
      <p class="notice">
        A script plays timed traffic as chosen virtual devices: they leave the simulator for the run and come back at its
        end. The same seed plays the same traffic, byte for byte.
      </p>
      <ProblemAlert problem={scriptAction.fault} />
      {scripts.length === 0 ? <Empty>No script yet: add a sample below, then run it.</Empty> : null}
      {scripts.map((script) => (
        <ScriptCard
          key={script.id}
          script={script}
          open={running === script.id}
          onRun={() => setRunning((open) => (open === script.id ? null : script.id))}
          onDelete={() =>
            window.confirm(`Delete the script ${script.name}? Its runs stay listed.`) &&
            scriptAction.act(() =>
              perform((c) =>
                c.DELETE("/v1/developers/simulator/scripts/{scriptId}", {
                  params: { path: { scriptId: script.id }, query: { tenantId } },
                }),
              ),
            )
          }
        >
          {running === script.id ? (
            <RunForm
              script={script}
              tenantId={tenantId}
              devices={devices}
              onStarted={(run) => {
                putRun(run);
                setRunning(null);
              }}
              onCancel={() => setRunning(null)}
            />
          ) : null}
        </ScriptCard>
      ))}

      <h3>Add a sample</h3>
      <ul class="samples" aria-label="Sample scripts">
        {samples.map((sample) => (
          <li data-sample={sample.slug}>
            <div>
              <code>{sample.slug}</code>
              <p class="value">{sample.description}</p>
            </div>
            <button
              type="button"
              aria-label={`Add ${sample.slug}`}
              onClick={() =>
                scriptAction.act(() =>
                  call((c) => c.POST("/v1/developers/simulator/scripts", { body: { tenantId, script: sample.script } })),
                )
              }
            >
              Add
            </button>
          </li>
        ))}
      </ul>

      <h3>Runs</h3>
      <ProblemAlert problem={runAction.fault} />
      {runsError ? <p class="notice error">{runsError}</p> : null}
      {runs ? (
        <Runs
          runs={runs}
          devices={devices}
          stop={(run) =>
            runAction.act(async () =>
              putRun(
                await call((c) =>
                  c.POST("/v1/developers/simulator/runs/{runId}/stop", {
                    params: { path: { runId: run.id }, query: { tenantId } },
                  }),
                ),
              ),
            )
          }
        />
      ) : null}
    </section>
  );
}

/** A stored script: its name and roles, Run (opens the run form below it)
 * and Delete. */
function ScriptCard(props: {
  script: SimulationScript;
  open: boolean;
  onRun: () => void;
  onDelete: () => void;
  children: ComponentChildren;
}) {
  const { script } = props;
  return (
    <article class="endpoint" aria-label={script.name} data-script={script.id}>
      <header>
        <h3>{script.name}</h3>
      </header>
      <p class="value" data-roles>
        Roles:{" "}
        {rolesOf(script)
          .map((role) => `${role.name} (${words(role.profile)})`)
          .join(", ")}{" "}
        · added <Time at={script.createdAt} />
      </p>
      <div class="row">
        <button type="button" aria-label={`Run ${script.name}`} aria-expanded={props.open} onClick={props.onRun}>
          Run
        </button>
        <button type="button" class="danger" aria-label={`Delete ${script.name}`} onClick={props.onDelete}>
          Delete
        </button>
      </div>
      {props.children}
    </article>
  );
}

/** Why a device cannot play a role now, if it cannot. */
function busy(virtual: VirtualDevice): string | null {
  if (virtual.runId) return "in a script run";
  if (virtual.detachedAt) return "detached";
  return null;
}

/**
 * Starts a run of `script`: each role mapped to a virtual device of its
 * profile (the first one free, neither detached nor in a run, chosen at
 * first), and an optional seed. Each refusal shows at its role or at the
 * seed; another (the sandbox plays five runs already) under the form.
 */
function RunForm(props: {
  script: SimulationScript;
  tenantId: string;
  devices: VirtualDevice[];
  onStarted: (run: ScriptRun) => void;
  onCancel: () => void;
}) {
  const { script, tenantId, devices } = props;
  const roles = rolesOf(script);
  const { fault, act } = useAction();
  // The devices chosen by hand; a role not chosen (or whose device is gone)
  // has its first free device.
  const [picked, setPicked] = useState<Record<string, string>>({});
  const [seed, setSeed] = useState("");
  const id = `run-${script.id}`;
  const fields = [...roles.map((role) => `devices.${role.name}`), "seed"];
  const candidates = (role: Role) => devices.filter((d) => d.profile === role.profile);
  const chosen = (role: Role): string => {
    const options = candidates(role);
    const mine = options.find((d) => d.device.id === picked[role.name]) ?? options.find((d) => !busy(d));
    return mine?.device.id ?? "";
  };

  return (
    <form
      class="run"
      aria-label={`Run ${script.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        act(async () => {
          const text = seed.trim();
          if (text && !/^\d+$/.test(text)) {
            throw new ApiProblem(0, "A whole number from 0, or empty for a random seed.", "seed");
          }
          const run = await call((c) =>
            c.POST("/v1/developers/simulator/runs", {
              body: {
                tenantId,
                scriptId: script.id,
                devices: Object.fromEntries(roles.map((role) => [role.name, chosen(role)])),
                ...(text ? { seed: Number(text) } : {}),
              },
            }),
          );
          props.onStarted(run);
        });
      }}
    >
      {roles.map((role) => {
        const field = `devices.${role.name}`;
        const inputId = `${id}-${role.name}`;
        const options = candidates(role);
        const value = chosen(role);
        return (
          <>
            <label for={inputId}>
              {role.name} ({words(role.profile)})
            </label>
            <select
              id={inputId}
              value={value}
              onChange={(e) => setPicked({ ...picked, [role.name]: e.currentTarget.value })}
              {...invalid(fault, field, inputId)}
            >
              {value === "" ? (
                <option value="">
                  {options.length === 0
                    ? `No ${words(role.profile).toLowerCase()} virtual device: add one above`
                    : `Choose a ${words(role.profile).toLowerCase()} device`}
                </option>
              ) : null}
              {options.map((d) => (
                <option value={d.device.id}>
                  {d.device.name}
                  {busy(d) ? ` (${busy(d)})` : ""}
                </option>
              ))}
            </select>
            <FieldProblem problem={fault} field={field} id={inputId} />
          </>
        );
      })}
      <label for={`${id}-seed`}>Seed (optional: empty picks one)</label>
      <input
        id={`${id}-seed`}
        inputMode="numeric"
        autoComplete="off"
        value={seed}
        onInput={(e) => setSeed(e.currentTarget.value)}
        {...invalid(fault, "seed", `${id}-seed`)}
      />
      <FieldProblem problem={fault} field="seed" id={`${id}-seed`} />
      <ProblemAlert problem={fault} fields={fields} />
      <div class="row">
        <button type="submit">Start run</button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A run's status as a badge: playing is drawn like online, failed like
 * offline. */
function statusClass(run: ScriptRun): string {
  if (playing(run)) return "badge badge-online";
  return run.status === "FAILED" ? "badge badge-offline" : "badge";
}

/** The sandbox's runs, newest first: status, progress, seed, devices,
 * times and why one ended early; Stop while one has not ended. */
function Runs(props: { runs: ScriptRun[]; devices: VirtualDevice[]; stop: (run: ScriptRun) => void }) {
  const { runs, devices } = props;
  if (runs.length === 0) return <Empty>No run yet: run a script above.</Empty>;
  const name = (deviceId: string) => devices.find((d) => d.device.id === deviceId)?.device.name ?? deviceId;
  return (
    <table class="runs stack">
      <caption>The sandbox's runs, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Script</th>
          <th scope="col">Status</th>
          <th scope="col">Progress</th>
          <th scope="col">Seed</th>
          <th scope="col">Devices</th>
          <th scope="col">Started</th>
          <th scope="col">Ended</th>
          <th scope="col">Reason</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {[...runs].reverse().map((run) => (
          <tr key={run.id} data-run={run.id} data-status={run.status}>
            <td data-label="Script">
              {run.scriptName} <span class="value">({count(Math.round(run.durationMs / 1000))} s)</span>
            </td>
            <td data-label="Status">
              <span class={statusClass(run)}>{words(run.status)}</span>
            </td>
            <td data-label="Progress" data-played={run.played}>
              <progress
                max={Math.max(run.total, 1)}
                value={run.played}
                aria-label={`Progress of ${run.scriptName}`}
              />{" "}
              {count(run.played)} / {count(run.total)} messages
            </td>
            <td data-label="Seed">
              <code>{String(run.seed)}</code>
            </td>
            <td data-label="Devices">
              {Object.entries(run.devices)
                .map(([role, deviceId]) => `${role}: ${name(deviceId)}`)
                .join(", ")}
            </td>
            <td data-label="Started">
              <Time at={run.startedAt} fallback="waiting for a player" />
            </td>
            <td data-label="Ended">
              <Time at={run.endedAt} fallback="–" />
            </td>
            <td data-label="Reason">{run.reason ?? "–"}</td>
            <td data-label="Actions">
              {playing(run) ? (
                <button type="button" class="danger" aria-label={`Stop ${run.scriptName}`} onClick={() => props.stop(run)}>
                  Stop
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
