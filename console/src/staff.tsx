/**
 * The staff area (platform OWNER and STAFF; everyone else never sees it, and
 * the API answers them as if it did not exist): the review queue of
 * connector versions, a version's page (its descriptor as households will
 * see it, its prose, and the review moves its state allows), and the
 * developers with their quotas and the staff verification.
 */
import { useState } from "preact/hooks";

import { call, session, type Schemas } from "./api.js";
import { CatalogueCard, descriptorName, type Descriptor } from "./catalogue.js";
import { Alert, Failure, Loading, useAction, useLoad } from "./ui.js";

type PlatformRole = Schemas["PlatformRole"];
type ReviewState = Schemas["ReviewState"];
type Reviewed = Schemas["ReviewedSubmission"];
type Developer = Schemas["Developer"];
type QuotaKind = Schemas["QuotaKind"];
type QuotaWindow = Schemas["QuotaWindow"];
type EffectiveQuota = Schemas["EffectiveQuotaView"];

/** The platform roles the staff area is for (SUPPORT may read through the
 * API, but makes no move here). */
const STAFF: PlatformRole[] = ["OWNER", "STAFF"];
const PAGE_SIZE = 20;
const KINDS: QuotaKind[] = ["REQUESTS", "VIRTUAL_DEVICES", "MQTT_MESSAGES"];
const WINDOWS: QuotaWindow[] = ["day", "month"];

// ---------------------------------------------------------------------------
// Who is staff

/** The platform role of this tab's household session (null: none), read
 * once per session from the claims of `GET /v1/auth/me`. */
let known: { key: string; role: Promise<{ role: PlatformRole | null }> } | null = null;

function platformRole(): Promise<{ role: PlatformRole | null }> {
  const current = session();
  if (current?.kind !== "household") return Promise.resolve({ role: null });
  const key = `${current.email} ${current.refreshToken}`;
  if (known?.key !== key) {
    const role = call((c) => c.GET("/v1/auth/me")).then((me) => ({ role: me.claims.platformRole ?? null }));
    // A failed read is tried again next time.
    role.catch(() => {
      if (known?.role === role) known = null;
    });
    known = { key, role };
  }
  return known.role;
}

/** Whether this tab's person is platform staff (null while it is read). */
function useStaff(): [boolean | null, string | null] {
  const [read, error] = useLoad(platformRole, [session()?.accessToken]);
  return [read ? read.role !== null && STAFF.includes(read.role) : null, error];
}

/** The header's link to the staff area, for platform staff only. */
export function StaffLink() {
  const [staff] = useStaff();
  return staff ? (
    <nav aria-label="Platform" class="platform-nav">
      <a href="#/staff">Staff</a>
    </nav>
  ) : null;
}

// ---------------------------------------------------------------------------
// Shared pieces

/** An instant as people read it: relative ("3 minutes ago"), the local date
 * and time in the title. */
export function Moment(props: { at: string | null | undefined }) {
  if (!props.at) return <span>–</span>;
  const date = new Date(props.at);
  return (
    <time dateTime={props.at} title={date.toLocaleString()}>
      {relative(date)}
    </time>
  );
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

function relative(date: Date): string {
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, "second");
}

type Tab = "review" | "developers";

function StaffNav(props: { current: Tab | null }) {
  const link = (tab: Tab, href: string, label: string) => (
    <a href={href} aria-current={props.current === tab ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <nav class="tabs" aria-label="Staff">
      {link("review", "#/staff", "Review queue")}
      {link("developers", "#/staff/developers", "Developers")}
    </nav>
  );
}

interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}

/** A list read a page at a time: the cursors of the pages before this one
 * are kept, so the person can go back. */
function usePaged<T>(load: (cursor: string | undefined) => Promise<Page<T>>, deps: unknown[]) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [page, error, reload] = useLoad(() => load(cursor), [...deps, cursor]);
  const next = page?.nextCursor ?? null;
  return {
    page,
    error,
    reload,
    // Shown once there is more than one page.
    pager: cursors.length === 1 && !next ? null : (
      <nav class="row pager" aria-label="Pages">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
          Next page
        </button>
      </nav>
    ),
  };
}

/** The staff area's pages: `#/staff` (the queue), `#/staff/versions?
 * developerId=…|connectorId=…`, `#/staff/versions/{id}`,
 * `#/staff/developers`. */
export function StaffArea(props: { parts: string[]; query: URLSearchParams }) {
  const [staff, error] = useStaff();
  if (error) return <Failure message={error} />;
  if (staff === null) return <Loading />;
  if (!staff) return <Failure message="The staff area is for platform staff." />;
  const [first, second] = props.parts;
  if (first === "developers") return <DevelopersPage />;
  if (first === "versions" && second) return <VersionPage versionId={second} />;
  if (first === "versions") {
    const developerId = props.query.get("developerId") ?? undefined;
    const connectorId = props.query.get("connectorId") ?? undefined;
    return <VersionsPage key={`${developerId}-${connectorId}`} developerId={developerId} connectorId={connectorId} />;
  }
  return <VersionsPage />;
}

// ---------------------------------------------------------------------------
// The review queue, or every version of one developer or connector

function VersionsPage(props: { developerId?: string; connectorId?: string }) {
  const { developerId, connectorId } = props;
  const queue = !developerId && !connectorId;
  const { page, error, pager } = usePaged(
    (cursor) =>
      call((c) =>
        c.GET("/v1/developers/admin/submissions", {
          params: { query: { developerId, connectorId, cursor, limit: PAGE_SIZE } },
        }),
      ),
    [developerId, connectorId],
  );
  const title = queue ? "Review queue" : developerId ? "The developer's versions" : "The connector's versions";
  return (
    <main>
      <StaffNav current={queue ? "review" : null} />
      <h1>{title}</h1>
      {queue ? <p>Connector versions submitted for review, the longest waiting first.</p> : null}
      <Alert message={error} />
      {!page && !error ? <p aria-busy="true">Loading…</p> : null}
      {page && page.items.length === 0 ? <p>{queue ? "Nothing waits for review." : "No version yet."}</p> : null}
      {page && page.items.length > 0 ? (
        <table aria-label={title}>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">State</th>
              <th scope="col">AI declaration</th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((version) => (
              <tr data-version={version.versionId}>
                <td>
                  <a href={`#/staff/versions/${version.versionId}`}>
                    {version.slug} {version.semver}
                  </a>
                </td>
                <td>
                  <span data-review-state>{version.state}</span>
                </td>
                <td>{version.aiDeclaration}</td>
                <td>
                  <Moment at={version.submittedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {pager}
    </main>
  );
}

// ---------------------------------------------------------------------------
// One version: as households will see it, and the review moves

type Move = "approve" | "request-changes" | "reject" | "publish" | "deprecate";

/** The moves staff may make from each state (the API's rules,
 * `alyt_domain::submission::decide`); the API still decides. */
const MOVES: Record<ReviewState, Move[]> = {
  draft: [],
  submitted: ["approve", "request-changes", "reject"],
  "changes-requested": [],
  approved: ["publish"],
  rejected: [],
  published: ["deprecate"],
  deprecated: [],
};

const MOVE_LABELS: Record<Move, string> = {
  approve: "Approve",
  "request-changes": "Request changes",
  reject: "Reject",
  publish: "Publish",
  deprecate: "Deprecate",
};

/** Moves that cannot be taken back: asked again before they are sent. */
const CONFIRM: Partial<Record<Move, string>> = {
  reject: "Reject this version for good?",
  deprecate: "Deprecate this version? Households that installed it are told.",
};

function VersionPage(props: { versionId: string }) {
  const { versionId } = props;
  const [version, error, reload] = useLoad(
    () => call((c) => c.GET("/v1/developers/admin/submissions/{versionId}", { params: { path: { versionId } } })),
    [versionId],
  );
  if (error) return <Failure message={error} />;
  if (!version) return <Loading />;
  const descriptor = version.descriptor as Descriptor;
  return (
    <main>
      <StaffNav current={null} />
      <p>
        <a href="#/staff">← Review queue</a>
      </p>
      <h1>
        {descriptorName(descriptor) ?? version.slug} {version.semver}
      </h1>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span data-review-state>{version.state}</span>
        </dd>
        <dt>Connector</dt>
        <dd>
          <a href={`#/staff/versions?connectorId=${version.connectorId}`}>{version.slug}: every version</a>
        </dd>
        <dt>Developer</dt>
        <dd>
          <a href={`#/staff/versions?developerId=${version.developerId}`}>every version of this developer</a>
        </dd>
        <dt>AI declaration</dt>
        <dd>{version.aiDeclaration}</dd>
        <dt>Submitted</dt>
        <dd>
          <Moment at={version.submittedAt} />
        </dd>
        <dt>Changed</dt>
        <dd>
          <Moment at={version.updatedAt} />
        </dd>
        {version.publishedAt ? (
          <>
            <dt>Published</dt>
            <dd>
              <Moment at={version.publishedAt} />
            </dd>
          </>
        ) : null}
        {version.note ? (
          <>
            <dt>Note to the developer</dt>
            <dd data-note>{version.note}</dd>
          </>
        ) : null}
      </dl>
      <ReviewMoves version={version} onMoved={reload} />
      <CatalogueCard descriptor={descriptor} prose={version.prose} />
      <details>
        <summary>Descriptor JSON</summary>
        <pre>{JSON.stringify(version.descriptor, null, 2)}</pre>
      </details>
    </main>
  );
}

function ReviewMoves(props: { version: Reviewed; onMoved: () => void }) {
  const { version } = props;
  const moves = MOVES[version.state] ?? [];
  const [note, setNote] = useState("");
  const { problem, act } = useAction(props.onMoved);
  const versionId = version.versionId;
  const move = (m: Move) => {
    if (CONFIRM[m] && !window.confirm(CONFIRM[m])) return;
    const trimmed = note.trim();
    const body = trimmed ? { note: trimmed } : {};
    const params = { path: { versionId } };
    return act(async () => {
      switch (m) {
        case "approve":
          await call((c) => c.POST("/v1/developers/admin/submissions/{versionId}/approve", { params, body }));
          break;
        case "request-changes":
          await call((c) => c.POST("/v1/developers/admin/submissions/{versionId}/request-changes", { params, body }));
          break;
        case "reject":
          await call((c) => c.POST("/v1/developers/admin/submissions/{versionId}/reject", { params, body }));
          break;
        case "publish":
          await call((c) => c.POST("/v1/developers/admin/submissions/{versionId}/publish", { params, body }));
          break;
        case "deprecate":
          await call((c) => c.POST("/v1/developers/admin/submissions/{versionId}/deprecate", { params, body }));
          break;
      }
      setNote("");
    });
  };
  return (
    <section class="endpoint" aria-label="Review">
      <h2>Review</h2>
      {moves.length === 0 ? (
        <p>No review move is open to a version that is {version.state}.</p>
      ) : (
        <form aria-label="Review moves" onSubmit={(e) => e.preventDefault()}>
          <label for="review-note">
            Note to the developer{moves.includes("reject") ? " (needed to reject or request changes)" : " (optional)"}
          </label>
          <textarea id="review-note" rows={3} maxLength={4000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
          <div class="row">
            {moves.map((m) => (
              <button
                type="button"
                class={m === "reject" || m === "deprecate" ? "danger" : undefined}
                onClick={() => move(m)}
              >
                {MOVE_LABELS[m]}
              </button>
            ))}
          </div>
        </form>
      )}
      <Alert message={problem} />
    </section>
  );
}

// ---------------------------------------------------------------------------
// Developers: status, verification, quotas

function DevelopersPage() {
  const { page, error, reload, pager } = usePaged(
    (cursor) =>
      call((c) => c.GET("/v1/developers/admin/developers", { params: { query: { cursor, limit: PAGE_SIZE } } })),
    [],
  );
  return (
    <main>
      <StaffNav current="developers" />
      <h1>Developers</h1>
      <Alert message={error} />
      {!page && !error ? <p aria-busy="true">Loading…</p> : null}
      {page && page.items.length === 0 ? <p>No developer yet.</p> : null}
      {page && page.items.length > 0 ? (
        <table aria-label="Developers">
          <thead>
            <tr>
              <th scope="col">Developer</th>
              <th scope="col">Status</th>
              <th scope="col">Signed up</th>
              <th scope="col">Verified</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((developer) => (
              <DeveloperRow developer={developer} onChanged={reload} />
            ))}
          </tbody>
        </table>
      ) : null}
      {pager}
    </main>
  );
}

const STATUS_WORDS: Record<string, string> = {
  PENDING_EMAIL: "address not verified",
  ACTIVE: "active",
  SUSPENDED: "suspended",
};

function DeveloperRow(props: { developer: Developer; onChanged: () => void }) {
  const { developer } = props;
  const [open, setOpen] = useState(false);
  const { problem, act } = useAction(props.onChanged);
  const name = developer.displayName;
  return (
    <>
      <tr data-developer={developer.id} aria-label={name}>
        <td>
          <strong>{name}</strong>
          <br />
          <span class="value">
            {developer.email}
            {developer.organisation ? ` · ${developer.organisation}` : ""} · {developer.type.toLowerCase()}
          </span>
        </td>
        <td>
          <span data-status={developer.status}>{STATUS_WORDS[developer.status] ?? developer.status}</span>
        </td>
        <td>
          <Moment at={developer.createdAt} />
        </td>
        <td>
          <Moment at={developer.verifiedAt} />
        </td>
        <td>
          <div class="row">
            {developer.status === "PENDING_EMAIL" ? (
              <button
                type="button"
                aria-label={`Verify ${name}`}
                onClick={() =>
                  act(() =>
                    call((c) =>
                      c.POST("/v1/developers/admin/developers/{developerId}/verify", {
                        params: { path: { developerId: developer.id } },
                      }),
                    ),
                  )
                }
              >
                Verify
              </button>
            ) : null}
            <button type="button" aria-expanded={open ? "true" : "false"} aria-label={`Quota of ${name}`} onClick={() => setOpen(!open)}>
              Quota
            </button>
            <a href={`#/staff/versions?developerId=${developer.id}`}>Versions</a>
          </div>
          <Alert message={problem} />
        </td>
      </tr>
      {open ? (
        <tr>
          <td colSpan={5}>
            <Quota developer={developer} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

function Quota(props: { developer: Developer }) {
  const developerId = props.developer.id;
  const [quota, error, reload] = useLoad(
    () => call((c) => c.GET("/v1/developers/admin/developers/{developerId}/quota", { params: { path: { developerId } } })),
    [developerId],
  );
  const [kind, setKind] = useState<QuotaKind>("REQUESTS");
  const { problem, act } = useAction(reload);
  if (error) return <Alert message={error} />;
  if (!quota) return <p aria-busy="true">Loading…</p>;
  const current: EffectiveQuota = quota[kind];
  const name = props.developer.displayName;
  return (
    <section aria-label={`Quota of ${name}`}>
      <table aria-label={`Quotas of ${name}`}>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Ceiling</th>
            <th scope="col">Window</th>
            <th scope="col">Burst per minute</th>
            <th scope="col">Set by</th>
          </tr>
        </thead>
        <tbody>
          {KINDS.map((k) => {
            const q = quota[k];
            return (
              <tr data-kind={k}>
                <td>{k}</td>
                <td>{q.ceiling.toLocaleString()}</td>
                <td>{k === "VIRTUAL_DEVICES" ? "held at once" : `a ${q.window}`}</td>
                <td>{q.burstPerMinute ?? "–"}</td>
                <td>{q.source === "override" ? "staff" : "platform default"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <form
        class="row"
        aria-label={`Set a quota of ${name}`}
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const burst = String(form.get("burst") ?? "").trim();
          act(() =>
            call((c) =>
              c.PUT("/v1/developers/admin/developers/{developerId}/quota", {
                params: { path: { developerId } },
                body: {
                  kind,
                  ceiling: Number(form.get("ceiling")),
                  window: String(form.get("window")) as QuotaWindow,
                  burstPerMinute: burst ? Number(burst) : null,
                },
              }),
            ),
          );
        }}
      >
        <label for={`quota-kind-${developerId}`}>Kind</label>
        <select id={`quota-kind-${developerId}`} value={kind} onChange={(e) => setKind(e.currentTarget.value as QuotaKind)}>
          {KINDS.map((k) => (
            <option value={k}>{k}</option>
          ))}
        </select>
        {/* Keyed by kind and value: the fields start from the quota in force. */}
        <span class="row" key={`${kind}-${current.ceiling}-${current.window}-${current.burstPerMinute}`}>
          <label for={`quota-ceiling-${developerId}`}>Ceiling</label>
          <input id={`quota-ceiling-${developerId}`} name="ceiling" type="number" min={0} step={1} required defaultValue={String(current.ceiling)} />
          <label for={`quota-window-${developerId}`}>Window</label>
          <select id={`quota-window-${developerId}`} name="window">
            {WINDOWS.map((w) => (
              <option value={w} selected={w === current.window}>
                {w}
              </option>
            ))}
          </select>
          <label for={`quota-burst-${developerId}`}>Burst per minute (optional)</label>
          <input
            id={`quota-burst-${developerId}`}
            name="burst"
            type="number"
            min={1}
            step={1}
            defaultValue={current.burstPerMinute === undefined ? "" : String(current.burstPerMinute)}
          />
        </span>
        <button type="submit">Set quota</button>
      </form>
      <Alert message={problem} />
    </section>
  );
}
