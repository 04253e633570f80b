/** The developer pages: keys and webhooks (with their deliveries). */
import { useState } from "preact/hooks";

import { call, perform, type Schemas } from "./api.js";
import { EVENT_KINDS, EventsView, useLiveEvents } from "./live.js";
import { OverviewPage } from "./pages.js";
import { Alert, Failure, Loading, useAction, useLoad } from "./ui.js";

type Scope = Schemas["Scope"];
type EventKind = Schemas["EventKind"];
type Key = Schemas["Key"];
type WebhookEndpoint = Schemas["WebhookEndpoint"];

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


const TABS = [
  ["keys", "Keys"],
  ["webhooks", "Webhooks"],
  ["simulator", "Simulator"],
  ["events", "Events"],
  ["connectors", "Connectors"],
  ["home", "Sandbox home"],
  ["account", "Account"],
] as const;

export function DeveloperNav(props: { current: (typeof TABS)[number][0] }) {
  return (
    <nav class="tabs" aria-label="Developer">
      {TABS.map(([tab, label]) => (
        <a href={`#/developer/${tab}`} aria-current={props.current === tab ? "page" : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}

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
  return (
    <>
      <div class="sub">
        <DeveloperNav current="home" />
      </div>
      <OverviewPage tenantId={home.tenantId} propertyId={home.propertyId} />
    </>
  );
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
 * liveness follows the event stream (online/offline), not a poll. */
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
  if (error ?? devicesError) return <Failure message={(error ?? devicesError)!} />;
  if (!sandbox || !tenantId || !devices) return <Loading />;
  const loaded = { ...sandbox, devices };

  return (
    <main>
      <DeveloperNav current="simulator" />
      <h1>Simulator</h1>
      <Alert message={problem} />
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
            <option value={p}>{p}</option>
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
          {state?.replaceAll("_", " ") ?? "unknown"}
        </span>
      </header>
      <p class="value">
        {virtual.profile} · {virtual.model} · scenario <strong data-scenario>{scenario.effective}</strong>
        {scenario.until ? ` until ${scenario.until}` : ""}
      </p>
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
            {s}
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

/** A secret shown once: copy it now, it is never shown again. */
export function SecretOnce(props: { what: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="secret" role="region" aria-label="New secret">
      <p>
        The {props.what}'s secret, shown <strong>this once</strong>: store it now.
      </p>
      <code data-secret>{props.secret}</code>
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(props.secret).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

function Checkboxes<T extends string>(props: { name: string; legend: string; values: T[] }) {
  return (
    <fieldset class="checks">
      <legend>{props.legend}</legend>
      {props.values.map((value) => (
        <label>
          <input type="checkbox" name={props.name} value={value} /> {value}
        </label>
      ))}
    </fieldset>
  );
}

export function KeysPage() {
  const [keys, error, reload] = useLoad(() => call((c) => c.GET("/v1/developers/keys")), []);
  const [secret, setSecret] = useState<string | null>(null);
  const { problem, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!keys) return <Loading />;

  return (
    <main>
      <DeveloperNav current="keys" />
      <h1>Keys</h1>
      {secret ? <SecretOnce what="key" secret={secret} onDone={() => setSecret(null)} /> : null}
      <Alert message={problem} />
      <table>
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
              <td>{key.name}</td>
              <td>{key.kind}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.scopes.join(", ")}</td>
              <td>{key.lastUsedAt ?? "never"}</td>
              <td>{key.revokedAt ? "revoked" : key.expiresAt ? `expires ${key.expiresAt}` : "active"}</td>
              <td class="row">
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
                      perform((c) => c.DELETE("/v1/developers/keys/{keyId}", { params: { path: { keyId: key.id } } })),
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
        <input id="key-name" name="name" required maxLength={80} />
        <Checkboxes name="scope" legend="Scopes" values={SCOPES} />
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
  const [secret, setSecret] = useState<string | null>(null);
  const { problem, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  const [endpoints, keys] = loaded;
  // An endpoint speaks for one key: the active ones it may be bound to.
  const usable = keys.items.filter((k: Key) => k.kind === "DEV" && !k.revokedAt);

  return (
    <main>
      <DeveloperNav current="webhooks" />
      <h1>Webhooks</h1>
      {secret ? <SecretOnce what="endpoint" secret={secret} onDone={() => setSecret(null)} /> : null}
      <Alert message={problem} />
      {endpoints.items.map((endpoint: WebhookEndpoint) => (
        <Endpoint endpoint={endpoint} act={act} />
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
          act(async () => {
            const created = await call((c) =>
              c.POST("/v1/developers/webhooks", { body: { url: String(form.get("url")), events, keyId } }),
            );
            setSecret(created.secret);
            target.reset();
          });
        }}
      >
        <h2>Add an endpoint</h2>
        <label for="webhook-url">URL</label>
        <input id="webhook-url" name="url" type="url" required />
        <label for="webhook-key">Key it speaks for</label>
        {usable.length === 0 ? (
          <p class="notice" id="webhook-key">
            An endpoint is bound to a DEV key: <a href="#/developer/keys">create one first</a>.
          </p>
        ) : (
          <select id="webhook-key" name="key">
            {usable.map((k: Key) => (
              <option value={k.id}>
                {k.name} ({k.prefix}…)
              </option>
            ))}
          </select>
        )}
        <Checkboxes name="event" legend="Events" values={EVENT_KINDS} />
        <button type="submit">Add endpoint</button>
      </form>
    </main>
  );
}

function Endpoint(props: { endpoint: WebhookEndpoint; act: (work: () => Promise<unknown>) => Promise<void> }) {
  const { endpoint, act } = props;
  const path = { webhookId: endpoint.id };
  const [shown, setShown] = useState(0);
  return (
    <article class="endpoint" aria-label={endpoint.url} data-endpoint={endpoint.id}>
      <header>
        <h3>
          <code>{endpoint.url}</code>
        </h3>
        <span class={`badge ${endpoint.disabledAt ? "badge-offline" : "badge-online"}`}>
          {endpoint.disabledAt ? `disabled (${endpoint.disabledReason ?? "unknown"})` : "active"}
        </span>
      </header>
      <p class="value">
        {endpoint.events.join(", ")} · {endpoint.consecutiveFailures} failures in a row
      </p>
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
        {endpoint.disabledAt ? (
          <button
            type="button"
            onClick={() =>
              act(() => call((c) => c.POST("/v1/developers/webhooks/{webhookId}/enable", { params: { path } })))
            }
          >
            Enable
          </button>
        ) : null}
        <button type="button" onClick={() => setShown((n) => n + 1)}>
          Refresh deliveries
        </button>
      </div>
      <Deliveries webhookId={endpoint.id} version={shown} />
    </article>
  );
}

/** The deliveries the API lists (its last fifty, newest first), each with
 * its signed payload. */
function Deliveries(props: { webhookId: string; version: number }) {
  const [deliveries, error] = useLoad(
    () =>
      call((c) =>
        c.GET("/v1/developers/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId: props.webhookId } },
        }),
      ),
    [props.webhookId, props.version],
  );
  if (error) return <p class="notice error">{error}</p>;
  if (!deliveries) return <p aria-busy="true">Loading deliveries…</p>;
  if (deliveries.items.length === 0) return <p class="value">No deliveries yet.</p>;
  return (
    <table class="deliveries">
      <caption>Deliveries</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Response</th>
          <th scope="col">Created</th>
          <th scope="col">Payload</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.items.map((d) => (
          <tr data-delivery={d.id} data-status={d.status}>
            <td>{d.eventType}</td>
            <td>{d.status}</td>
            <td>{d.attempts}</td>
            <td>{d.responseCode ?? d.lastError ?? "–"}</td>
            <td>{d.createdAt}</td>
            <td>
              <details>
                <summary>Signed payload</summary>
                <pre>{d.payload}</pre>
                <p>
                  <code>{d.signature ?? "not sent yet"}</code>
                </p>
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
