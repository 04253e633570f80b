/** The developer pages: keys and webhooks (with their deliveries). */
import { useEffect, useRef, useState } from "preact/hooks";

import { ApiProblem, call, perform, type Schemas } from "./api.js";
import { EVENT_KINDS, EventsView, useLiveEvents } from "./live.js";
import { DeveloperNav } from "./nav.js";
import { OverviewPage } from "./pages.js";
import { ScriptsPanel } from "./scripts.js";
import {
  Alert,
  CopyButton,
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

type Scope = Schemas["Scope"];
type EventKind = Schemas["EventKind"];
type Key = Schemas["Key"];
type WebhookEndpoint = Schemas["WebhookEndpoint"];
type WebhookRecovery = Schemas["WebhookRecovery"];
type DestinationKind = Schemas["DestinationKind"];
type EventBridgeRequest = Schemas["EventBridgeRequest"];

/** The closed sets, as the contract types them (a value the contract does
 * not have fails the console's type check). */
const SCOPES: Scope[] = [
  "tenant:read",
  "rooms:write",
  "devices:read",
  "devices:write",
  "devices:commands",
  "telemetry:read",
  "things:read",
  "things:control",
  "integrations:read",
  "integrations:write",
  "notifications:read",
  "notifications:write",
  "ai:chat",
  "simulator:write",
  "webhooks:write",
  "events:read",
  "firmware:read",
  "guests:write",
];


/** The tabs live with the rest of the console's navigation. */
export { DeveloperNav } from "./nav.js";

/** The sandbox's home, as its household would see it: the virtual devices
 * as things in their rooms, live from the event stream. */
export function SandboxHome() {
  const [home, error] = useLoad(async () => {
    const me = await call((c) => c.GET("/v1/developers/me"));
    const tenantId = me.sandboxTenantId;
    if (!tenantId) throw new Error("Your sandbox is made when your address is verified.");
    const homes = await call((c) => c.GET("/v1/properties", { params: { query: { tenantId } } }));
    const first = homes.items[0];
    if (!first) throw new Error("Your sandbox has no home.");
    return { tenantId, propertyId: first.id };
  }, []);
  if (error) return <Failure message={error} />;
  if (!home) return <Loading />;
  // The home's page draws the developer's tabs itself (on its every page).
  return <OverviewPage tenantId={home.tenantId} propertyId={home.propertyId} />;
}

export function EventsPage() {
  return (
    <main>
      <DeveloperNav current="events" />
      <h1>Events</h1>
      <EventsView />
    </main>
  );
}

type Scenario = Schemas["Scenario"];
type Profile = Schemas["Profile"];
type VirtualDevice = Schemas["VirtualDevice"];
const SCENARIOS: Scenario[] = ["NORMAL", "OFFLINE", "LOW_BATTERY", "SENSOR_ERROR", "BURST", "FLAPPING", "SLOW"];
const PROFILES: Profile[] = ["LIGHT", "SENSOR", "THERMOSTAT", "SPEAKER", "HUB"];

/** The sandbox's virtual devices: add, remove, scenarios; each device's
 * liveness follows the event stream (online/offline), not a poll. Below
 * them, the scripts and their runs (`scripts.tsx`). */
export function SimulatorPage() {
  const [sandbox, error] = useLoad(async () => {
    const me = await call((c) => c.GET("/v1/developers/me"));
    const tenantId = me.sandboxTenantId;
    if (!tenantId) throw new Error("Your sandbox is made when your address is verified.");
    const homes = await call((c) => c.GET("/v1/properties", { params: { query: { tenantId } } }));
    return { tenantId, homes: homes.items };
  }, []);
  const tenantId = sandbox?.tenantId;
  // Only the device list changes with what happens here.
  const [devices, devicesError, reloadDevices] = useLoad(
    async () =>
      tenantId
        ? (await call((c) => c.GET("/v1/developers/simulator/devices", { params: { query: { tenantId } } }))).items
        : null,
    [tenantId],
  );
  const { problem, act } = useAction(() => reloadDevices());
  useLiveEvents(["device.online", "device.offline"], () => reloadDevices());
  // A scenario set for some seconds ends with no event: redraw then, once.
  const ends = (devices ?? [])
    .map((d) => (d.scenario.until ? Date.parse(d.scenario.until) : NaN))
    .filter((at) => at > Date.now())
    .sort((a, b) => a - b)[0];
  useEffect(() => {
    if (ends === undefined) return;
    const timer = setTimeout(reloadDevices, ends - Date.now() + 500);
    return () => clearTimeout(timer);
  }, [ends]);
  if (error ?? devicesError) return <Failure message={(error ?? devicesError)!} />;
  if (!sandbox || !tenantId || !devices) return <Loading />;
  const loaded = { ...sandbox, devices };

  return (
    <main>
      <DeveloperNav current="simulator" />
      <h1>Simulator</h1>
      <Alert message={problem} />
      {loaded.devices.length === 0 ? <Empty>No virtual device yet: add one below, and it shows in its home.</Empty> : null}
      <div class="things">
        {loaded.devices.map((virtual: VirtualDevice) => (
          <VirtualDeviceCard virtual={virtual} tenantId={tenantId} act={act} />
        ))}
      </div>
      <form
        class="create"
        aria-label="Add a virtual device"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const propertyId = String(form.get("home"));
          const profile = String(form.get("profile")) as Profile;
          const name = String(form.get("name") ?? "").trim();
          act(() =>
            call((c) =>
              c.POST("/v1/developers/simulator/devices", {
                body: { tenantId, propertyId, profile, ...(name ? { name } : {}) },
              }),
            ),
          );
        }}
      >
        <h2>Add a virtual device</h2>
        <label for="vd-profile">Profile</label>
        <select id="vd-profile" name="profile">
          {PROFILES.map((p) => (
            <option value={p}>{words(p)}</option>
          ))}
        </select>
        <label for="vd-home">Home</label>
        <select id="vd-home" name="home">
          {loaded.homes.map((h) => (
            <option value={h.id}>{h.name}</option>
          ))}
        </select>
        <label for="vd-name">Name (optional)</label>
        <input id="vd-name" name="name" maxLength={120} />
        <button type="submit">Add device</button>
      </form>
      <ScriptsPanel tenantId={tenantId} devices={loaded.devices} onDevicesChanged={reloadDevices} />
    </main>
  );
}

function VirtualDeviceCard(props: {
  virtual: VirtualDevice;
  tenantId: string;
  act: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const { virtual, tenantId, act } = props;
  const device = virtual.device;
  const [seconds, setSeconds] = useState("");
  const state = device.liveness?.state;
  const scenario = virtual.scenario;
  return (
    <article class="thing" aria-label={device.name} data-device={device.id}>
      <header>
        <h3>{device.name}</h3>
        <span class={`badge badge-${state ?? "unknown"}`} data-liveness={state ?? "unknown"}>
          {words(state ?? "unknown")}
        </span>
      </header>
      <p class="value">
        {words(virtual.profile)} · {virtual.model} · scenario{" "}
        <strong data-scenario={scenario.effective}>{words(scenario.effective)}</strong>
        {/* A timed scenario that has ended is NORMAL: no "until" is left. */}
        {scenario.until && scenario.effective !== "NORMAL" && Date.parse(scenario.until) > Date.now() ? (
          <>
            {" "}
            until <Time at={scenario.until} />
          </>
        ) : null}
      </p>
      {virtual.runId ? (
        <p class="notice" data-in-run={virtual.runId}>
          <strong>In a script run</strong>: the run plays it until it ends (Runs, below).
        </p>
      ) : virtual.detachedAt ? (
        <p class="notice" data-detached>
          <strong>Detached</strong> <Time at={virtual.detachedAt} />: a client of yours speaks for it.
        </p>
      ) : null}
      <label for={`sec-${device.id}`}>For seconds (empty: until changed)</label>
      <input
        id={`sec-${device.id}`}
        type="number"
        min={1}
        max={86400}
        value={seconds}
        onInput={(e) => setSeconds(e.currentTarget.value)}
      />
      <div class="row" role="group" aria-label="Scenarios">
        {SCENARIOS.map((s) => (
          <button
            type="button"
            aria-pressed={scenario.effective === s ? "true" : "false"}
            onClick={() =>
              act(() =>
                call((c) =>
                  c.POST("/v1/developers/simulator/devices/{deviceId}/scenario", {
                    params: { path: { deviceId: device.id } },
                    body: { tenantId, scenario: s, ...(seconds ? { seconds: Number(seconds) } : {}) },
                  }),
                ),
              )
            }
          >
            {words(s)}
          </button>
        ))}
      </div>
      <button
        type="button"
        class="danger"
        onClick={() =>
          window.confirm(`Remove ${device.name}?`) &&
          act(() =>
            perform((c) =>
              c.DELETE("/v1/developers/simulator/devices/{deviceId}", {
                params: { path: { deviceId: device.id }, query: { tenantId } },
              }),
            ),
          )
        }
      >
        Remove
      </button>
    </article>
  );
}

/** A secret shown once: copy it now, it is never shown again. With
 * `unused`, why there is nothing to store (it is shown all the same). */
export function SecretOnce(props: { what: string; secret: string; onDone: () => void; unused?: string }) {
  return (
    <section class="secret" role="region" aria-label="New secret">
      {props.unused ? (
        <p data-secret-unused>
          The {props.what}'s secret, shown <strong>this once</strong>, is <strong>unused</strong>: {props.unused}
        </p>
      ) : (
        <p>
          The {props.what}'s secret, shown <strong>this once</strong>: store it now.
        </p>
      )}
      <code data-secret>{props.secret}</code>
      <div class="row">
        <CopyButton text={props.secret} />
        <button type="button" onClick={props.onDone}>
          {props.unused ? "Dismiss" : "I have stored it"}
        </button>
      </div>
    </section>
  );
}

function Checkboxes<T extends string>(props: {
  name: string;
  legend: string;
  values: T[];
  /** The values checked at first. */
  checked?: string[];
  invalid?: ReturnType<typeof invalid>;
}) {
  return (
    <fieldset class="checks" {...(props.invalid ?? {})}>
      <legend>{props.legend}</legend>
      {props.values.map((value) => (
        <label>
          <input type="checkbox" name={props.name} value={value} defaultChecked={props.checked?.includes(value)} />{" "}
          {value}
        </label>
      ))}
    </fieldset>
  );
}

export function KeysPage() {
  const [keys, error, reload] = useLoad(() => call((c) => c.GET("/v1/developers/keys")), []);
  const [secret, setSecret] = useState<string | null>(null);
  const { fault, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!keys) return <Loading />;
  const fields = ["name", "scopes"];

  return (
    <main>
      <DeveloperNav current="keys" />
      <h1>Keys</h1>
      {secret ? <SecretOnce what="key" secret={secret} onDone={() => setSecret(null)} /> : null}
      <ProblemAlert problem={fault} fields={fields} />
      {keys.items.length === 0 ? (
        <Empty>No key yet: create one below (a webhook endpoint speaks for a DEV key).</Empty>
      ) : (
        <table class="stack">
          <caption>Your keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.items.map((key: Key) => (
              <tr data-key={key.id}>
                <td data-label="Name">{key.name}</td>
                <td data-label="Kind">{key.kind}</td>
                <td data-label="Prefix">
                  <code>{key.prefix}…</code>
                </td>
                <td data-label="Scopes">{key.scopes.join(", ")}</td>
                <td data-label="Last used">
                  <Time at={key.lastUsedAt} fallback="never" />
                </td>
                <td data-label="State">
                  {key.revokedAt ? (
                    "revoked"
                  ) : key.expiresAt ? (
                    <>
                      expires <Time at={key.expiresAt} />
                    </>
                  ) : (
                    "active"
                  )}
                </td>
                <td class="row" data-label="Actions">
                  {key.revokedAt ? null : (
                    <>
                      <button
                        type="button"
                        aria-label={`Rotate ${key.name}`}
                        onClick={() =>
                          window.confirm(`Rotate ${key.name}? The old secret stops working.`) &&
                          act(async () => {
                            const rotated = await call((c) =>
                              c.POST("/v1/developers/keys/{keyId}/rotate", { params: { path: { keyId: key.id } } }),
                            );
                            setSecret(rotated.secret);
                          })
                        }
                      >
                        Rotate
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Revoke ${key.name}`}
                        onClick={() =>
                          window.confirm(`Revoke ${key.name}? It stops working at once.`) &&
                          act(() =>
                            perform((c) =>
                              c.DELETE("/v1/developers/keys/{keyId}", { params: { path: { keyId: key.id } } }),
                            ),
                          )
                        }
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        class="create"
        aria-label="Create a key"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const target = e.currentTarget;
          const scopes = form.getAll("scope").map(String) as Scope[];
          act(async () => {
            const created = await call((c) =>
              c.POST("/v1/developers/keys", { body: { name: String(form.get("name")), scopes } }),
            );
            setSecret(created.secret);
            target.reset();
          });
        }}
      >
        <h2>Create a key</h2>
        <label for="key-name">Name</label>
        <input id="key-name" name="name" required maxLength={80} {...invalid(fault, "name", "key-name")} />
        <FieldProblem problem={fault} field="name" id="key-name" />
        <Checkboxes name="scope" legend="Scopes" values={SCOPES} invalid={invalid(fault, "scopes", "key-scopes")} />
        <FieldProblem problem={fault} field="scopes" id="key-scopes" />
        <button type="submit">Create key</button>
      </form>
    </main>
  );
}

export function WebhooksPage() {
  const [loaded, error, reload] = useLoad(
    () =>
      Promise.all([
        call((c) => c.GET("/v1/developers/webhooks")),
        call((c) => c.GET("/v1/developers/keys")),
      ]),
    [],
  );
  const [secret, setSecret] = useState<{ secret: string; kind: DestinationKind } | null>(null);
  const [kind, setKind] = useState<DestinationKind>("webhook");
  const [busBy, setBusBy] = useState<BusBy>("arn");
  const { fault, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  const [endpoints, keys] = loaded;
  // An endpoint speaks for one key: the active ones it may be bound to.
  const usable = keys.items.filter((k: Key) => k.kind === "DEV" && !k.revokedAt);
  // The fields the form shows a problem at (the others' go in the alert).
  const fields = [kind === "webhook" ? "url" : "eventBridge", "events", "keyId", "description"];

  return (
    <main>
      <DeveloperNav current="webhooks" />
      <h1>Webhooks</h1>
      {secret ? (
        <SecretOnce
          what={secret.kind === "eventbridge" ? "EventBridge destination" : "endpoint"}
          secret={secret.secret}
          onDone={() => setSecret(null)}
          unused={secret.kind === "eventbridge" ? UNSIGNED : undefined}
        />
      ) : null}
      <ProblemAlert problem={fault} fields={fields} />
      {endpoints.items.length === 0 ? (
        <Empty>No endpoint yet: add one below, then send it a test.</Empty>
      ) : null}
      {endpoints.items.map((endpoint: WebhookEndpoint) => (
        <Endpoint
          key={endpoint.id}
          endpoint={endpoint}
          act={act}
          reload={reload}
          onSecret={(rotated) => setSecret({ secret: rotated, kind: endpoint.kind })}
        />
      ))}
      <form
        class="create"
        aria-label="Add an endpoint"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const target = e.currentTarget;
          const events = form.getAll("event").map(String) as EventKind[];
          const keyId = String(form.get("key") ?? "") || null;
          const description = String(form.get("description") ?? "").trim() || null;
          const text = (name: string) => String(form.get(name) ?? "").trim();
          const destination =
            kind === "webhook"
              ? { kind, url: String(form.get("url")) }
              : {
                  kind,
                  eventBridge: {
                    accountId: text("accountId"),
                    region: text("region"),
                    ...(busBy === "arn" ? { eventBusArn: text("eventBusArn") } : { eventSourceName: text("eventSourceName") }),
                  } satisfies EventBridgeRequest,
                };
          act(async () => {
            const created = await call((c) =>
              c.POST("/v1/developers/webhooks", { body: { ...destination, events, keyId, description } }),
            );
            setSecret({ secret: created.secret, kind: created.kind });
            target.reset();
            setKind("webhook");
            setBusBy("arn");
          });
        }}
      >
        <h2>Add an endpoint</h2>
        <DestinationFields fault={fault} kind={kind} onKind={setKind} busBy={busBy} onBusBy={setBusBy} />
        <EndpointFields fault={fault} usable={usable} />
        <button type="submit">Add endpoint</button>
      </form>
    </main>
  );
}

/** What an EventBridge destination's secret is (not) for. */
const UNSIGNED =
  "EventBridge entries are not signed (the bus's policy is what lets the platform put events on it), so there is nothing to store.";

/** How an EventBridge bus is named: its ARN, or a partner-style event
 * source name (the bus of that name in the account). */
type BusBy = "arn" | "source";

/** Whether a problem is about `field` itself (not one of its members):
 * `eventBridge` as a whole (the bus refused the test event), unlike
 * `eventBridge.accountId`. */
function exactly(problem: ApiProblem | null, field: string): boolean {
  return problem?.field === field;
}

/** Where deliveries go: a webhook URL, or an EventBridge bus (account,
 * region, and its ARN or a partner event source name), each field with its
 * problem; a problem about the bus as a whole (it refused the test event,
 * or is named twice or not at all) shows at the bus's name. (The fields
 * are the form's own, not a nested group's: the form lays them out.) */
function DestinationFields(props: {
  fault: ApiProblem | null;
  kind: DestinationKind;
  onKind: (kind: DestinationKind) => void;
  busBy: BusBy;
  onBusBy: (busBy: BusBy) => void;
}) {
  const { fault, kind, busBy } = props;
  // The bus's name input: its own problem, else the bus's as a whole.
  const [nameId, nameField] =
    busBy === "arn"
      ? ["webhook-bus-arn", "eventBridge.eventBusArn"]
      : ["webhook-event-source", "eventBridge.eventSourceName"];
  const nameInvalid = exactly(fault, "eventBridge")
    ? { "aria-invalid": true as const, "aria-describedby": "webhook-eventbridge-problem" }
    : invalid(fault, nameField, nameId);
  return (
    <>
      <fieldset class="row" role="radiogroup" aria-label="Destination">
        <legend>Destination</legend>
        <label>
          <input
            type="radio"
            name="kind"
            value="webhook"
            defaultChecked
            checked={kind === "webhook"}
            onChange={() => props.onKind("webhook")}
          />{" "}
          Webhook (signed HTTPS POSTs)
        </label>
        <label>
          <input
            type="radio"
            name="kind"
            value="eventbridge"
            checked={kind === "eventbridge"}
            onChange={() => props.onKind("eventbridge")}
          />{" "}
          Amazon EventBridge
        </label>
      </fieldset>
      {kind === "webhook" ? (
        <>
          <label for="webhook-url">URL</label>
          <input id="webhook-url" name="url" type="url" required {...invalid(fault, "url", "webhook-url")} />
          <FieldProblem problem={fault} field="url" id="webhook-url" />
        </>
      ) : (
        <>
          <p class="notice" id="webhook-eventbridge-about">
            Each event is put on your bus with PutEvents: its kind as <code>detail-type</code>, the envelope as{" "}
            <code>detail</code>. The bus's policy must let the platform's account put events: a test event is put on
            it before the destination is added.
          </p>
          <label for="webhook-account">AWS account ID</label>
          <input
            id="webhook-account"
            name="accountId"
            required
            inputMode="numeric"
            autoComplete="off"
            placeholder="123456789012"
            {...invalid(fault, "eventBridge.accountId", "webhook-account")}
          />
          <FieldProblem problem={fault} field="eventBridge.accountId" id="webhook-account" />
          <label for="webhook-region">Region</label>
          <input
            id="webhook-region"
            name="region"
            required
            autoComplete="off"
            placeholder="eu-west-1"
            {...invalid(fault, "eventBridge.region", "webhook-region")}
          />
          <FieldProblem problem={fault} field="eventBridge.region" id="webhook-region" />
          <fieldset class="row" role="radiogroup" aria-label="Name the bus by">
            <legend>Name the bus by</legend>
            <label>
              <input
                type="radio"
                name="busBy"
                value="arn"
                defaultChecked
                checked={busBy === "arn"}
                onChange={() => props.onBusBy("arn")}
              />{" "}
              Its ARN
            </label>
            <label>
              <input
                type="radio"
                name="busBy"
                value="source"
                checked={busBy === "source"}
                onChange={() => props.onBusBy("source")}
              />{" "}
              A partner event source name (the bus of that name in the account)
            </label>
          </fieldset>
          {busBy === "arn" ? (
            <label for={nameId}>Event bus ARN</label>
          ) : (
            <label for={nameId}>Event source name</label>
          )}
          <input
            // A new input when the way of naming changes (not the other's value).
            key={nameId}
            id={nameId}
            name={busBy === "arn" ? "eventBusArn" : "eventSourceName"}
            required
            autoComplete="off"
            placeholder={
              busBy === "arn" ? "arn:aws:events:eu-west-1:123456789012:event-bus/alyt" : "aws.partner/alyt/my-home"
            }
            {...nameInvalid}
          />
          <FieldProblem problem={fault} field={nameField} id={nameId} />
          {exactly(fault, "eventBridge") ? (
            <p id="webhook-eventbridge-problem" class="notice error" role="alert">
              {fault!.detail}
            </p>
          ) : null}
        </>
      )}
    </>
  );
}

/** The key, events and description of an endpoint, each with its problem. */
function EndpointFields(props: { fault: ApiProblem | null; usable: Key[] }) {
  const { fault, usable } = props;
  return (
    <>
      <label for="webhook-key">Key it speaks for</label>
      {usable.length === 0 ? (
        <p class="notice" id="webhook-key">
          An endpoint is bound to a DEV key: <a href="#/developer/keys">create one first</a>.
        </p>
      ) : (
        <select id="webhook-key" name="key" {...invalid(fault, "keyId", "webhook-key")}>
          {usable.map((k: Key) => (
            <option value={k.id}>
              {k.name} ({k.prefix}…)
            </option>
          ))}
        </select>
      )}
      <FieldProblem problem={fault} field="keyId" id="webhook-key" />
      <Checkboxes name="event" legend="Events" values={EVENT_KINDS} invalid={invalid(fault, "events", "webhook-events")} />
      <FieldProblem problem={fault} field="events" id="webhook-events" />
      <label for="webhook-description">Description (optional)</label>
      <input
        id="webhook-description"
        name="description"
        maxLength={200}
        {...invalid(fault, "description", "webhook-description")}
      />
      <FieldProblem problem={fault} field="description" id="webhook-description" />
    </>
  );
}

/** Why an endpoint is disabled, in words. */
function disabledWhy(endpoint: WebhookEndpoint): string {
  return endpoint.disabledReason === "manual" ? "by you" : words(endpoint.disabledReason ?? "unknown").toLowerCase();
}

function Endpoint(props: {
  endpoint: WebhookEndpoint;
  act: (work: () => Promise<unknown>) => Promise<void>;
  reload: () => void;
  /** Shows a rotated secret once. */
  onSecret: (secret: string) => void;
}) {
  const { endpoint, act } = props;
  // An EventBridge destination's entries are not signed: no secret to
  // rotate, no grace period to tell of.
  const bus = endpoint.kind === "eventbridge" ? endpoint.eventBridge : null;
  const signed = endpoint.kind === "webhook";
  const graceEnds = endpoint.secretGraceEndsAt;
  const inGrace = graceEnds !== null && Date.parse(graceEnds) > Date.now();
  const path = { webhookId: endpoint.id };
  const [shown, setShown] = useState(0);
  const [editing, setEditing] = useState(false);
  const [recoverOnEnable, setRecoverOnEnable] = useState(false);
  const [recovery, recoveryError, showRecovery] = useRecovery(endpoint.id, !!endpoint.disabledAt);
  // A recovery that ends has queued deliveries again: read the log anew.
  const status = recovery?.status;
  const was = useRef(status);
  useEffect(() => {
    if (was.current === "running" && status !== "running") setShown((n) => n + 1);
    was.current = status;
  }, [status]);
  return (
    <article class="endpoint" aria-label={endpoint.url} data-endpoint={endpoint.id} data-kind={endpoint.kind}>
      <header>
        <h3>
          {signed ? null : (
            <>
              <span class="badge" data-kind-label>
                EventBridge
              </span>{" "}
            </>
          )}
          {/* An EventBridge destination's URL is its bus's ARN. */}
          <code data-bus-arn={bus ? bus.eventBusArn : undefined}>{endpoint.url}</code>
        </h3>
        <span class={`badge ${endpoint.disabledAt ? "badge-offline" : "badge-online"}`} data-status={endpoint.status}>
          {endpoint.disabledAt ? `Disabled (${disabledWhy(endpoint)})` : "Active"}
        </span>
      </header>
      <p class="value">
        {endpoint.events.join(", ")} · {count(endpoint.consecutiveFailures)} failures in a row · added{" "}
        <Time at={endpoint.createdAt} />
      </p>
      {bus ? (
        <p class="value" data-event-bridge>
          Amazon EventBridge · account <span data-account>{bus.accountId}</span> · region{" "}
          <span data-region>{bus.region}</span> ·{" "}
          {bus.eventSourceName ? (
            <>
              event source <code>{bus.eventSourceName}</code>
            </>
          ) : (
            <>
              source <code>alyt</code>
            </>
          )}{" "}
          · entries are not signed (the bus's policy lets the platform put events)
        </p>
      ) : null}
      {endpoint.description ? <p class="value">{endpoint.description}</p> : null}
      {signed && inGrace && graceEnds ? (
        <p class="value" data-grace-ends={graceEnds}>
          The replaced secret also signs deliveries until <Time at={graceEnds} />: switch your receiver to the new one
          before then.
        </p>
      ) : null}
      {editing ? (
        <EditEndpoint endpoint={endpoint} done={() => setEditing(false)} reload={props.reload} />
      ) : null}
      <div class="row">
        <button
          type="button"
          onClick={() =>
            act(async () => {
              await call((c) => c.POST("/v1/developers/webhooks/{webhookId}/test", { params: { path } }));
              setShown((n) => n + 1);
            })
          }
        >
          Send a test
        </button>
        {signed ? (
          <button
            type="button"
            aria-label={`Rotate the secret of ${endpoint.url}`}
            onClick={() =>
              act(async () => {
                const rotated = await call((c) =>
                  c.POST("/v1/developers/webhooks/{webhookId}/rotate-secret", { params: { path }, body: {} }),
                );
                props.onSecret(rotated.secret);
              })
            }
          >
            Rotate secret
          </button>
        ) : null}
        <button
          type="button"
          aria-label={`Edit ${endpoint.url}`}
          aria-expanded={editing}
          onClick={() => setEditing((open) => !open)}
        >
          Edit
        </button>
        {endpoint.disabledAt ? (
          <>
            <button
              type="button"
              aria-label={`Enable ${endpoint.url}`}
              onClick={() =>
                act(async () => {
                  const enabled = await call((c) =>
                    c.POST("/v1/developers/webhooks/{webhookId}/enable", {
                      params: { path },
                      body: recoverOnEnable ? { recover: true } : {},
                    }),
                  );
                  if (enabled.recovery) showRecovery(enabled.recovery);
                  setRecoverOnEnable(false);
                })
              }
            >
              Enable
            </button>
            <label>
              <input
                type="checkbox"
                checked={recoverOnEnable}
                onChange={(e) => setRecoverOnEnable(e.currentTarget.checked)}
              />{" "}
              Also recover what it missed
            </label>
          </>
        ) : (
          <button
            type="button"
            aria-label={`Disable ${endpoint.url}`}
            onClick={() =>
              act(() => call((c) => c.POST("/v1/developers/webhooks/{webhookId}/disable", { params: { path } })))
            }
          >
            Disable
          </button>
        )}
        <button
          type="button"
          class="danger"
          aria-label={`Delete ${endpoint.url}`}
          onClick={() =>
            window.confirm(`Delete the endpoint ${endpoint.url}? Its deliveries stop.`) &&
            act(() => perform((c) => c.DELETE("/v1/developers/webhooks/{webhookId}", { params: { path } })))
          }
        >
          Delete
        </button>
      </div>
      {endpoint.disabledAt ? null : (
        <RecoverForm endpoint={endpoint} running={status === "running"} onStarted={showRecovery} />
      )}
      {recoveryError ? <p class="notice error">{recoveryError}</p> : null}
      {recovery ? <RecoveryProgress recovery={recovery} /> : null}
      <Deliveries
        webhookId={endpoint.id}
        signed={signed}
        version={shown}
        replay={(deliveryId) =>
          act(async () => {
            await call((c) =>
              c.POST("/v1/developers/webhooks/{webhookId}/deliveries/{deliveryId}/replay", {
                params: { path: { webhookId: endpoint.id, deliveryId } },
              }),
            );
            setShown((n) => n + 1);
          })
        }
      />
    </article>
  );
}

/** How often a running recovery's progress is read again. */
const RECOVERY_POLL_MS = 1500;

/** The endpoint's latest recovery (null: never recovered), read when it is
 * shown and again every RECOVERY_POLL_MS while it runs, unless `paused` (a
 * disabled endpoint's recovery waits until it is enabled); `show` puts one
 * the API just answered (a start) in its place. A read begun before a
 * `show` is dropped: it could only be older. */
function useRecovery(
  webhookId: string,
  paused: boolean,
): [WebhookRecovery | null, string | null, (r: WebhookRecovery) => void] {
  const [recovery, setRecovery] = useState<WebhookRecovery | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Reads asked for, and reads answered (either way).
  const [reads, setReads] = useState(0);
  const [answered, setAnswered] = useState(0);
  const shown = useRef(0);
  useEffect(() => {
    let live = true;
    const at = shown.current;
    call((c) => c.GET("/v1/developers/webhooks/{webhookId}/recovery", { params: { path: { webhookId } } })).then(
      (read) => {
        if (!live) return;
        if (at === shown.current) {
          setRecovery(read);
          setError(null);
        }
        setAnswered((n) => n + 1);
      },
      (e) => {
        if (!live) return;
        if (at === shown.current) {
          // Never recovered: nothing to show.
          const never = e instanceof ApiProblem && e.status === 404;
          if (never) setRecovery(null);
          setError(never ? null : (e as Error).message);
        }
        setAnswered((n) => n + 1);
      },
    );
    return () => {
      live = false;
    };
  }, [webhookId, reads]);
  // Read again while it runs (a failed read too); not once it has ended,
  // nor after the endpoint is no longer shown.
  const running = recovery?.status === "running" && !paused;
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => setReads((n) => n + 1), RECOVERY_POLL_MS);
    return () => clearTimeout(timer);
  }, [running, answered, recovery]);
  const show = (started: WebhookRecovery) => {
    shown.current += 1;
    setRecovery(started);
    setError(null);
  };
  return [recovery, error, show];
}

/** A value for a datetime-local input: `at` in the person's time zone. */
function localInput(at: Date): string {
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** Starts a recovery of an active endpoint: every event since a time that
 * it did not get is sent again. A refusal shows at the time (a bad range)
 * or under the form (a recovery already running). */
function RecoverForm(props: {
  endpoint: WebhookEndpoint;
  running: boolean;
  onStarted: (recovery: WebhookRecovery) => void;
}) {
  const { endpoint } = props;
  const { fault, act } = useAction();
  // A day back by default: within the seven days the event log keeps.
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3600_000)));
  const id = `recover-${endpoint.id}`;
  return (
    <form
      class="row"
      aria-label={`Recover ${endpoint.url}`}
      onSubmit={(e) => {
        e.preventDefault();
        act(async () => {
          // The input has the person's local time; the API takes an instant.
          const at = new Date(since);
          if (Number.isNaN(at.getTime())) throw new ApiProblem(0, "Choose the time to recover from.", "since");
          const started = await call((c) =>
            c.POST("/v1/developers/webhooks/{webhookId}/recover", {
              params: { path: { webhookId: endpoint.id } },
              body: { since: at.toISOString() },
            }),
          );
          props.onStarted(started);
        });
      }}
    >
      <label for={id}>Recover what it missed since</label>
      <input
        id={id}
        type="datetime-local"
        required
        value={since}
        onInput={(e) => setSince(e.currentTarget.value)}
        {...invalid(fault, "since", id)}
      />
      <button type="submit" aria-label={`Recover ${endpoint.url}`} disabled={props.running}>
        Recover
      </button>
      <FieldProblem problem={fault} field="since" id={id} />
      <ProblemAlert problem={fault} fields={["since"]} />
    </form>
  );
}

/** How far a recovery got: what its range matched, what was sent again,
 * what had been delivered already (left alone). */
function RecoveryProgress(props: { recovery: WebhookRecovery }) {
  const { recovery } = props;
  return (
    <p class="value" role="status" data-recovery={recovery.status}>
      Recovery <strong>{words(recovery.status).toLowerCase()}</strong>: matched {count(recovery.matched)}, resent{" "}
      {count(recovery.queued)}, already delivered {count(recovery.skipped)} ·{" "}
      {recovery.finishedAt ? (
        <>
          finished <Time at={recovery.finishedAt} />
        </>
      ) : (
        <>
          started <Time at={recovery.startedAt} />
        </>
      )}
    </p>
  );
}

/** An endpoint's URL (a webhook's: an EventBridge destination's bus is
 * fixed), events and description, edited in place (the secret and key
 * stay); each refusal is shown at its field. */
function EditEndpoint(props: { endpoint: WebhookEndpoint; done: () => void; reload: () => void }) {
  const { endpoint } = props;
  const { fault, act } = useAction(props.reload);
  const id = `edit-${endpoint.id}`;
  const webhook = endpoint.kind === "webhook";
  return (
    <form
      class="edit"
      aria-label={`Edit ${endpoint.url}`}
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const events = form.getAll("event").map(String) as EventKind[];
        // Empty removes it.
        const description = String(form.get("description") ?? "").trim() || null;
        act(async () => {
          await call((c) =>
            c.PATCH("/v1/developers/webhooks/{webhookId}", {
              params: { path: { webhookId: endpoint.id } },
              body: webhook ? { url: String(form.get("url")), events, description } : { events, description },
            }),
          );
          props.done();
        });
      }}
    >
      {webhook ? (
        <>
          <label for={`${id}-url`}>URL</label>
          <input
            id={`${id}-url`}
            name="url"
            type="url"
            required
            defaultValue={endpoint.url}
            {...invalid(fault, "url", `${id}-url`)}
          />
          <FieldProblem problem={fault} field="url" id={`${id}-url`} />
        </>
      ) : null}
      <Checkboxes
        name="event"
        legend="Events"
        values={EVENT_KINDS}
        checked={endpoint.events}
        invalid={invalid(fault, "events", `${id}-events`)}
      />
      <FieldProblem problem={fault} field="events" id={`${id}-events`} />
      <label for={`${id}-description`}>Description (optional)</label>
      <input
        id={`${id}-description`}
        name="description"
        maxLength={200}
        defaultValue={endpoint.description ?? ""}
        {...invalid(fault, "description", `${id}-description`)}
      />
      <FieldProblem problem={fault} field="description" id={`${id}-description`} />
      <ProblemAlert problem={fault} fields={webhook ? ["url", "events", "description"] : ["events", "description"]} />
      <div class="row">
        <button type="submit">Save</button>
        <button type="button" onClick={props.done}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** How soon to read the deliveries again while one is on its way: the
 * delivery worker raises no event when it delivers, so the list is read
 * again while a delivery is pending (soon) or retrying (at its next
 * attempt), and not at all once every delivery has settled. */
function nextRead(deliveries: Schemas["WebhookDelivery"][], reads: number): number | null {
  const waits = deliveries.flatMap((d) => {
    if (d.status === "pending") return [Math.min(500 * 2 ** reads, 10_000)];
    if (d.status === "retrying" && d.nextAttemptAt) return [Math.max(Date.parse(d.nextAttemptAt) - Date.now() + 500, 500)];
    return [];
  });
  return waits.length ? Math.min(...waits) : null;
}

/** The deliveries the API lists (its last fifty, newest first), each with
 * its payload (signed, for a webhook; an EventBridge entry's `detail`);
 * read again while one is on its way. */
function Deliveries(props: {
  webhookId: string;
  signed: boolean;
  version: number;
  replay: (deliveryId: string) => Promise<void>;
}) {
  const [deliveries, error, reload] = useLoad(
    () =>
      call((c) =>
        c.GET("/v1/developers/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId: props.webhookId } },
        }),
      ),
    [props.webhookId, props.version],
  );
  // Reads since a delivery was last seen settling (the pause grows while
  // one stays pending).
  const [reads, setReads] = useState(0);
  useEffect(() => setReads(0), [props.version]);
  const wait = deliveries ? nextRead(deliveries.items, reads) : null;
  useEffect(() => {
    if (wait === null) return;
    const timer = setTimeout(() => {
      setReads((n) => n + 1);
      reload();
    }, wait);
    return () => clearTimeout(timer);
  }, [deliveries, wait]);
  if (error) return <p class="notice error">{error}</p>;
  if (!deliveries) return <p aria-busy="true">Loading deliveries…</p>;
  if (deliveries.items.length === 0) return <Empty>No deliveries yet: send a test to see one arrive.</Empty>;
  return (
    <table class="deliveries stack">
      <caption>Deliveries</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Response</th>
          <th scope="col">Created</th>
          <th scope="col">Payload</th>
          <th scope="col">Send again</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.items.map((d) => (
          <tr data-delivery={d.id} data-status={d.status}>
            <td data-label="Event">{d.eventType}</td>
            <td data-label="Status">{words(d.status)}</td>
            <td data-label="Attempts">{count(d.attempts)}</td>
            <td data-label="Response">{d.responseCode ?? d.lastError ?? "–"}</td>
            <td data-label="Created">
              <Time at={d.createdAt} />
            </td>
            <td data-label="Payload">
              {props.signed ? (
                <details>
                  <summary>Signed payload</summary>
                  <pre>{d.payload}</pre>
                  <p>
                    <code>{d.signature ?? "not sent yet"}</code>
                  </p>
                </details>
              ) : (
                <details>
                  <summary>Entry detail</summary>
                  <pre>{d.payload}</pre>
                  <p>Not signed: the bus's policy lets the platform put events.</p>
                </details>
              )}
            </td>
            <td data-label="Send again">
              <button
                type="button"
                aria-label={`Replay ${d.eventType} ${d.eventId}`}
                disabled={d.status === "pending"}
                onClick={() => props.replay(d.id)}
              >
                Replay
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
