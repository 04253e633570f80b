/**
 * A home's security: the mode in force and the one asked for, arming with
 * the revision and generation the person reviewed (a fresh request id per
 * request) and the blockers each mode has (bypassed for that armed period
 * when chosen), the things security uses with their selection, the open
 * incident (acknowledge) and the incident history. It redraws from the
 * home's event stream. The platform offers no emergency dispatch.
 */
import { useEffect, useState } from "preact/hooks";

import { call, session, type Schemas } from "./api.js";
import { HOME_VIEW_KINDS, useLiveEvents } from "./live.js";
import { HomeHeader } from "./nav.js";
import { homeOf } from "./people.js";
import { Alert, Empty, Failure, Loading, Time, useAction, useLoad, words } from "./ui.js";

type Mode = Schemas["Mode"];
type SecurityStatus = Schemas["SecurityStatus"];
type Selection = Schemas["Selection"];
type PinnedThing = Schemas["PinnedThing"];

const ARMED: Exclude<Mode, "off">[] = ["away", "home", "sleep"];
/** How often an armed home's page reads its status again. */
const WATCH_EVERY_MS = 2000;
const SELECTIONS: Selection[] = ["auto", "include", "exclude"];

export function SecurityPage(props: { tenantId: string; propertyId: string }) {
  const { tenantId, propertyId } = props;
  const params = { path: { propertyId }, query: { tenantId } };
  // The home's name, read once (security's events do not change it).
  const [home, homeError] = useLoad(() => homeOf(tenantId, propertyId), [tenantId, propertyId]);
  const [loaded, error, reload] = useLoad(async () => {
    const [status, incidents] = await Promise.all([
      call((c) => c.GET("/v1/home-security/{propertyId}", { params })),
      call((c) => c.GET("/v1/home-security/{propertyId}/incidents", { params })),
    ]);
    return { status, incidents: incidents.items };
  }, [tenantId, propertyId]);
  const { problem, act } = useAction(() => reload());
  const [bypass, setBypass] = useState<PinnedThing[]>([]);
  useLiveEvents(HOME_VIEW_KINDS, () => reload(), true, {
    tenantId,
    propertyId,
  });
  // The exit countdown and an entry delay end at known instants, when the
  // mode in force or the incident changes with no event: redraw then, once.
  const deadline = [loaded?.status.exitUntil, loaded?.status.incident?.alarmAt]
    .filter((at): at is string => !!at)
    .map((at) => Date.parse(at))
    .filter((at) => at > Date.now())
    .sort((a, b) => a - b)[0];
  useEffect(() => {
    if (deadline === undefined) return;
    const timer = setTimeout(reload, deadline - Date.now() + 500);
    return () => clearTimeout(timer);
  }, [deadline]);
  // A detection opens an incident with no event on the home's stream (its
  // notification is the household's, not the home's): while the home is
  // armed, or an incident is open, read it again every few seconds.
  const armedOrIncident =
    !!loaded && (loaded.status.confirmedMode !== "off" || loaded.status.requestedMode !== "off" || !!loaded.status.incident);
  useEffect(() => {
    if (!armedOrIncident) return;
    const timer = setInterval(reload, WATCH_EVERY_MS);
    return () => clearInterval(timer);
  }, [armedOrIncident]);
  if (error ?? homeError) return <Failure message={(error ?? homeError)!} />;
  if (!loaded || !home) return <Loading />;
  const status: SecurityStatus = loaded.status;
  // Arming needs something that detects: a motion or contact sensor (or
  // another detector) enrolled. Without one the API refuses every arming.
  const watching = status.things.some((t) => t.enrolled.length > 0);

  function request(mode: Mode) {
    return act(async () => {
      await call((c) =>
        c.POST("/v1/home-security/{propertyId}/mode", {
          params: { path: { propertyId } },
          body: {
            tenantId,
            mode,
            requestId: crypto.randomUUID(),
            revision: status.revision,
            generation: status.generation,
            bypass: mode === "off" ? [] : bypass,
          },
        }),
      );
      setBypass([]);
    });
  }
  const bypassed = (thingId: string) => bypass.some((b) => b.id === thingId);
  const kindOf = (thingId: string) => status.things.find((t) => t.thing.id === thingId)?.thing.kind ?? "endpoint";

  return (
    <main>
      <HomeHeader tenantId={tenantId} propertyId={propertyId} current="security" title={home.name} />
      <h2>Security</h2>
      <Alert message={problem} />
      <section aria-label="Mode">
        <p>
          In force: <strong data-confirmed-mode>{status.confirmedMode}</strong>
          {status.requestedMode !== status.confirmedMode ? ` (asked: ${status.requestedMode})` : ""}
          {status.armedSince ? (
            <>
              {" "}
              · armed since <Time at={status.armedSince} />
            </>
          ) : null}
          {status.exitUntil ? (
            <>
              {" "}
              · exit countdown until <Time at={status.exitUntil} />
            </>
          ) : null}
        </p>
        {status.degraded ? <p class="notice error">Part of the protection cannot be reached.</p> : null}
        {status.runtimeUnavailable ? <p class="notice error">The hub that protects this home is away.</p> : null}
        {status.restorationPending ? <p class="notice">The last alarm's lights and speakers are being restored.</p> : null}
        <p class="notice">Alyt calls no one: there is no emergency dispatch.</p>
        {status.access === "see" ? (
          <p class="notice">You can see this home's security but not change it.</p>
        ) : !watching && status.confirmedMode === "off" && status.requestedMode === "off" ? (
          <Empty>
            Nothing in this home can watch for an intruder yet, so it cannot be armed: security arms with a motion or
            contact sensor.{" "}
            {session()?.kind === "developer" ? (
              <>
                Add a virtual sensor in the <a href="#/developer/simulator">simulator</a>
              </>
            ) : (
              <>Add a motion or contact sensor to a room</>
            )}
            ; once it reports what it detects, it shows below and arming is offered here.
          </Empty>
        ) : (
          <div class="row" role="group" aria-label="Modes">
            <button type="button" onClick={() => request("off")} aria-pressed={status.requestedMode === "off" ? "true" : "false"}>
              Off
            </button>
            {ARMED.map((mode) => (
              <button
                type="button"
                onClick={() => request(mode)}
                aria-pressed={status.requestedMode === mode ? "true" : "false"}
                data-ready={status.readiness[mode].ready ? "true" : "false"}
              >
                Arm {mode}
              </button>
            ))}
          </div>
        )}
        {ARMED.map((mode) =>
          status.readiness[mode].blockers.length === 0 ? null : (
            <fieldset class="checks" aria-label={`Before arming ${mode}`}>
              <legend>Before arming {mode}</legend>
              {status.readiness[mode].blockers.map((b) => (
                <label>
                  <input
                    type="checkbox"
                    checked={bypassed(b.thingId)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      setBypass((list) =>
                        on
                          ? [...list, { kind: kindOf(b.thingId), id: b.thingId }]
                          : list.filter((x) => x.id !== b.thingId),
                      );
                    }}
                  />
                  Bypass {b.name} ({b.signal}: {b.why})
                </label>
              ))}
            </fieldset>
          ),
        )}
      </section>

      {status.incident ? (
        <section aria-label="Incident" class="thing">
          <h2>Incident {status.incident.number}</h2>
          <p>
            {status.incident.signal} ·{" "}
            <span data-incident-state={status.incident.state}>{words(status.incident.state)}</span> · opened{" "}
            <Time at={status.incident.openedAt} />
            {status.incident.acknowledgedBy ? ` · acknowledged` : ""}
          </p>
          {status.incident.acknowledgedBy ? null : (
            <button
              type="button"
              onClick={() =>
                act(() =>
                  call((c) =>
                    c.POST("/v1/home-security/{propertyId}/incidents/{number}/acknowledge", {
                      params: { path: { propertyId, number: status.incident!.number } },
                      body: { tenantId },
                    }),
                  ),
                )
              }
            >
              Acknowledge
            </button>
          )}
        </section>
      ) : null}

      <section aria-label="Things">
        <h2>What security uses</h2>
        {status.things.length === 0 ? (
          <Empty>Nothing yet: sensors, locks, lights and speakers in the home's rooms show here.</Empty>
        ) : null}
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Thing</th>
              <th scope="col">Detects</th>
              <th scope="col">Outputs</th>
              <th scope="col">Not ready</th>
              <th scope="col">Selection</th>
            </tr>
          </thead>
          <tbody>
            {status.things.map((t) => (
              <tr data-thing={t.thing.id}>
                <td data-label="Thing">
                  {t.name}
                  {t.lock ? " (lock)" : ""}
                  {t.camera ? " (camera)" : ""}
                </td>
                <td data-label="Detects">{t.enrolled.join(", ")}</td>
                <td data-label="Outputs">{t.outputs.join(", ")}</td>
                <td data-label="Not ready">{t.notReady.map((n) => `${n.signal}: ${n.why}`).join(", ")}</td>
                <td data-label="Selection">
                  <select
                    aria-label={`Selection of ${t.name}`}
                    value={t.selection}
                    disabled={status.access !== "configure"}
                    onChange={(e) => {
                      const selection = e.currentTarget.value as Selection;
                      act(() =>
                        call((c) =>
                          c.PUT("/v1/home-security/{propertyId}/devices/{kind}/{thingId}", {
                            params: { path: { propertyId, kind: t.thing.kind, thingId: t.thing.id } },
                            body: { tenantId, selection },
                          }),
                        ),
                      );
                    }}
                  >
                    {SELECTIONS.map((s) => (
                      <option value={s}>{words(s)}</option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-label="Incidents">
        <h2>Incident history</h2>
        {loaded.incidents.length === 0 ? <p>No incident.</p> : null}
        <ul>
          {loaded.incidents.map((i) => (
            <li>
              {i.number} · {i.signal ?? `keypad disarm (${i.source?.kind === "device" ? "the lock" : "a connector's lock"})`} ·{" "}
              {words(i.state).toLowerCase()} · <Time at={i.openedAt} />
              {i.alarmed ? " · alarm sounded" : ""}
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
