/**
 * A developer's connectors and their versions in review: create a connector
 * (its runtime token shown once), submit a version (descriptor, prose, AI
 * declaration; or keep it a draft), see each version's review state and the
 * reviewer's note, and change a draft or a version sent back for changes
 * and submit it again. Review moves arrive on the developer stream
 * (`submission.state`), so the page follows them without polling.
 */
import { useState } from "preact/hooks";

import { call, type Schemas } from "./api.js";
import { SecretOnce } from "./developer.js";
import { useLiveEvents } from "./live.js";
import { DeveloperNav } from "./nav.js";
import { Alert, Empty, Failure, FieldProblem, Loading, ProblemAlert, Time, invalid, useAction, useLoad, words } from "./ui.js";

type Connector = Schemas["Connector"];
type Submission = Schemas["Submission"];
type AiDeclaration = Schemas["AiDeclaration"];

const AI: AiDeclaration[] = ["none", "svc", "own_cloud", "own_local"];
const EDITABLE = ["draft", "changes-requested"];

/** A starting connector descriptor for a new version. */
function template(connector: Connector, semver: string): string {
  return JSON.stringify(
    {
      kind: connector.slug.toUpperCase().replaceAll("-", "_"),
      name: connector.name,
      icon: "lightbulb-group",
      promise: `${connector.name} in your rooms`,
      connectivity: "local",
      brings: ["light"],
      connect: { method: "form", fields: [{ key: "host", label: "Address", kind: "text", secret: false, required: true }] },
      discovery: { verb: "Find devices" },
      disconnect: { consequence: "Its devices leave your rooms." },
      author: { kind: "maker", name: connector.name },
      version: semver,
      source: "installed",
      visibility: "public",
      verification: { level: "declared" },
      listed: true,
    },
    null,
    2,
  );
}

/** The descriptor text as JSON, or a problem naming the field. */
function parsed(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`descriptor: not JSON (${(e as Error).message})`);
  }
}

export function ConnectorsPage() {
  const [connectors, error, reload] = useLoad(
    async () => (await call((c) => c.GET("/v1/developers/connectors"))).items,
    [],
  );
  const [token, setToken] = useState<string | null>(null);
  const { fault, act } = useAction(() => reload());
  if (error) return <Failure message={error} />;
  if (!connectors) return <Loading />;
  return (
    <main>
      <DeveloperNav current="connectors" />
      <h1>Connectors</h1>
      <ProblemAlert problem={fault} fields={["slug", "name", "serverUrl"]} />
      {token ? <SecretOnce what="connector runtime token" secret={token} onDone={() => setToken(null)} /> : null}
      {connectors.length === 0 ? (
        <Empty>No connector yet: create one below, then submit its first version for review.</Empty>
      ) : null}
      {connectors.map((connector) => (
        <ConnectorCard connector={connector} />
      ))}
      <form
        class="create"
        aria-label="New connector"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const element = e.currentTarget;
          act(async () => {
            const created = await call((c) =>
              c.POST("/v1/developers/connectors", {
                body: {
                  slug: String(form.get("slug")).trim(),
                  name: String(form.get("name")).trim(),
                  serverUrl: String(form.get("serverUrl")).trim(),
                },
              }),
            );
            setToken(created.runtimeToken);
            element.reset();
          });
        }}
      >
        <h2>New connector</h2>
        <label for="connector-slug">Slug</label>
        <input
          id="connector-slug"
          name="slug"
          required
          pattern="[a-z][a-z0-9\-]{1,39}"
          {...invalid(fault, "slug", "connector-slug")}
        />
        <FieldProblem problem={fault} field="slug" id="connector-slug" />
        <label for="connector-name">Name</label>
        <input id="connector-name" name="name" required maxLength={80} {...invalid(fault, "name", "connector-name")} />
        <FieldProblem problem={fault} field="name" id="connector-name" />
        <label for="connector-url">Server URL</label>
        <input id="connector-url" name="serverUrl" type="url" required {...invalid(fault, "serverUrl", "connector-url")} />
        <FieldProblem problem={fault} field="serverUrl" id="connector-url" />
        <button type="submit">Create connector</button>
      </form>
    </main>
  );
}

function ConnectorCard(props: { connector: Connector }) {
  const { connector } = props;
  const [versions, error, reload] = useLoad(
    async () =>
      (await call((c) => c.GET("/v1/developers/submissions", { params: { query: { connectorId: connector.id } } })))
        .items,
    [connector.id],
  );
  useLiveEvents(["submission.state"], () => reload());
  const { problem, act } = useAction(() => reload());
  return (
    <section class="thing" aria-label={connector.name} data-connector={connector.id}>
      <header>
        <h2>{connector.name}</h2>
        <span class="badge">{connector.published ? "Published" : "Sandbox only"}</span>
      </header>
      <p class="value">
        {connector.slug} · {connector.serverUrl}
      </p>
      <Alert message={error ?? problem} />
      {(versions ?? []).length === 0 ? <Empty>No version yet: submit one below.</Empty> : null}
      <table aria-label="Versions" class="stack">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">Reviewer's note</th>
            <th scope="col">Submitted</th>
          </tr>
        </thead>
        <tbody>
          {(versions ?? []).map((version) => (
            <VersionRow version={version} act={act} />
          ))}
        </tbody>
      </table>
      <SubmitVersion connector={connector} act={act} />
    </section>
  );
}

function VersionRow(props: { version: Submission; act: (work: () => Promise<unknown>) => Promise<void> }) {
  const { version, act } = props;
  const [editing, setEditing] = useState(false);
  return (
    <>
      <tr data-version={version.versionId}>
        <td data-label="Version">{version.semver}</td>
        <td data-label="State">
          <span data-review-state={version.state}>{words(version.state)}</span>
        </td>
        <td data-label="Reviewer's note">{version.note ?? ""}</td>
        <td data-label="Submitted">
          <Time at={version.submittedAt} fallback="not yet" />
          {EDITABLE.includes(version.state) && !editing ? (
            <button type="button" onClick={() => setEditing(true)}>
              Change {version.semver}
            </button>
          ) : null}
        </td>
      </tr>
      {editing ? (
        <tr>
          <td colSpan={4}>
            <form
              aria-label={`Change ${version.semver}`}
              onSubmit={(e) => {
                e.preventDefault();
                const form = new FormData(e.currentTarget);
                act(async () => {
                  await call((c) =>
                    c.PATCH("/v1/developers/submissions/{versionId}", {
                      params: { path: { versionId: version.versionId } },
                      body: {
                        descriptor: parsed(String(form.get("descriptor"))),
                        prose: String(form.get("prose")),
                        submit: true,
                      },
                    }),
                  );
                  setEditing(false);
                });
              }}
            >
              <label for={`prose-${version.versionId}`}>What households read</label>
              <textarea id={`prose-${version.versionId}`} name="prose" required rows={3}>
                {version.prose}
              </textarea>
              <label for={`descriptor-${version.versionId}`}>Descriptor (JSON)</label>
              <textarea id={`descriptor-${version.versionId}`} name="descriptor" required rows={8} class="code">
                {JSON.stringify(version.descriptor, null, 2)}
              </textarea>
              <button type="submit">Submit for review</button>
            </form>
          </td>
        </tr>
      ) : null}
    </>
  );
}

function SubmitVersion(props: { connector: Connector; act: (work: () => Promise<unknown>) => Promise<void> }) {
  const [semver, setSemver] = useState("1.0.0");
  const [descriptor, setDescriptor] = useState(() => template(props.connector, "1.0.0"));
  const id = props.connector.id;
  return (
    <form
      class="create"
      aria-label="Submit a version"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        props.act(() =>
          call((c) =>
            c.POST("/v1/developers/submissions", {
              body: {
                connectorId: id,
                semver,
                descriptor: parsed(descriptor),
                prose: String(form.get("prose")),
                aiDeclaration: String(form.get("ai")) as AiDeclaration,
                draft: form.get("draft") !== null,
              },
            }),
          ),
        );
      }}
    >
      <h3>Submit a version</h3>
      <label for={`semver-${id}`}>Version</label>
      <input
        id={`semver-${id}`}
        value={semver}
        required
        onInput={(e) => {
          // The descriptor's version says the same as the version's.
          const next = e.currentTarget.value;
          setSemver(next);
          setDescriptor((text) => text.replace(/"version": "[^"]*"/, `"version": ${JSON.stringify(next)}`));
        }}
      />
      <label for={`prose-new-${id}`}>What households read</label>
      <textarea id={`prose-new-${id}`} name="prose" required rows={3} />
      <label for={`ai-${id}`}>AI declaration</label>
      <select id={`ai-${id}`} name="ai">
        {AI.map((a) => (
          <option value={a}>{a}</option>
        ))}
      </select>
      <label for={`descriptor-new-${id}`}>Descriptor (JSON)</label>
      <textarea
        id={`descriptor-new-${id}`}
        rows={10}
        class="code"
        value={descriptor}
        onInput={(e) => setDescriptor(e.currentTarget.value)}
      />
      <label class="row">
        <input type="checkbox" name="draft" /> Keep as a draft
      </label>
      <button type="submit">Submit version</button>
    </form>
  );
}
