/** The developer pages: keys and webhooks (with their deliveries). */
import { useState } from "preact/hooks";

import { call, type Schemas } from "./api.js";
import { Failure, Loading, useLoad } from "./pages.js";

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
const EVENT_KINDS: EventKind[] = [
  "device.online",
  "device.offline",
  "device.telemetry",
  "command.result",
  "thing.state",
  "notification.raised",
  "submission.state",
  "webhook.ping",
  "guest.invited",
  "guest.checked_in",
  "guest.checked_out",
];

export function DeveloperNav(props: { current: "keys" | "webhooks" }) {
  return (
    <nav class="tabs" aria-label="Developer">
      <a href="#/developer/keys" aria-current={props.current === "keys" ? "page" : undefined}>
        Keys
      </a>
      <a href="#/developer/webhooks" aria-current={props.current === "webhooks" ? "page" : undefined}>
        Webhooks
      </a>
    </nav>
  );
}

/** A secret shown once: copy it now, it is never shown again. */
function SecretOnce(props: { what: string; secret: string; onDone: () => void }) {
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
  const [problem, setProblem] = useState<string | null>(null);
  if (error) return <Failure message={error} />;
  if (!keys) return <Loading />;

  async function act(work: () => Promise<unknown>) {
    setProblem(null);
    try {
      await work();
    } catch (e) {
      setProblem((e as Error).message);
    }
    reload();
  }

  return (
    <main>
      <DeveloperNav current="keys" />
      <h1>Keys</h1>
      {secret ? <SecretOnce what="key" secret={secret} onDone={() => setSecret(null)} /> : null}
      {problem ? (
        <p class="notice error" role="alert">
          {problem}
        </p>
      ) : null}
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
                      call((c) => c.DELETE("/v1/developers/keys/{keyId}", { params: { path: { keyId: key.id } } })),
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
  const [problem, setProblem] = useState<string | null>(null);
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  const [endpoints, keys] = loaded;
  // An endpoint speaks for one key: the active ones it may be bound to.
  const usable = keys.items.filter((k: Key) => k.kind === "DEV" && !k.revokedAt);

  async function act(work: () => Promise<unknown>) {
    setProblem(null);
    try {
      await work();
    } catch (e) {
      setProblem((e as Error).message);
    }
    reload();
  }

  return (
    <main>
      <DeveloperNav current="webhooks" />
      <h1>Webhooks</h1>
      {secret ? <SecretOnce what="endpoint" secret={secret} onDone={() => setSecret(null)} /> : null}
      {problem ? (
        <p class="notice error" role="alert">
          {problem}
        </p>
      ) : null}
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
