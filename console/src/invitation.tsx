/**
 * Where a mailed invitation link lands (`/invitation?token=…`): what the
 * link offers (the household, a guest's home and stay, who invited, the
 * role, the masked address), then a new person's name and password, or the
 * existing account's password (and its TOTP code once the API asks for
 * one). Accepted, the person is signed in like a household sign-in and
 * lands in the home. A dead link shows the API's one 410 sentence.
 */
import { useState } from "preact/hooks";

import { acceptInvitation, ApiProblem, call, readInvitation, type Schemas } from "./api.js";
import { Alert, Loading, useLoad, when } from "./ui.js";

type Preview = Schemas["InvitationPreview"];

/** The page's path; the link carries its token in the query. */
export const INVITATION_PATH = "/invitation";

/**
 * The token of the link this page was opened with, taken out of the
 * address at once (replaced, not pushed) so that it stays in no history;
 * null on any other page. A reload of the page has no token any more.
 */
export function takeInvitationToken(): string | null {
  if (location.pathname !== INVITATION_PATH) return null;
  const token = new URLSearchParams(location.search).get("token") ?? "";
  history.replaceState(null, "", INVITATION_PATH + location.hash);
  return token;
}

/** The fields of the accept request a problem can be about. */
const FIELDS = ["name", "password", "totp"];

export function InvitationPage(props: { token: string }) {
  const { token } = props;
  const [preview, error] = useLoad(() => (token ? readInvitation(token) : Promise.resolve(null)), [token]);
  // A link that died while the page was open (accepted elsewhere, withdrawn).
  const [dead, setDead] = useState<string | null>(null);
  if (!token) {
    return (
      <main class="narrow">
        <h1>Invitation</h1>
        <p>Open the link in your invitation mail again: this address carries no invitation.</p>
      </main>
    );
  }
  if (error ?? dead) {
    return (
      <main class="narrow">
        <h1>Invitation</h1>
        <Alert message={error ?? dead} />
        <p>
          <a href="/#/signin">Sign in</a>
        </p>
      </main>
    );
  }
  if (!preview) return <Loading />;
  return (
    <main class="narrow">
      <h1>Invitation to {preview.household.name}</h1>
      <dl class="facts" aria-label="The invitation">
        {preview.home ? (
          <>
            <dt>Home</dt>
            <dd>{preview.home.name}</dd>
          </>
        ) : (
          <>
            <dt>Homes</dt>
            <dd>Every home of {preview.household.name}</dd>
          </>
        )}
        <dt>Invited by</dt>
        <dd>{preview.inviter.name}</dd>
        <dt>Role</dt>
        <dd>{preview.role}</dd>
        {preview.stay ? (
          <>
            <dt>Stay</dt>
            <dd>
              {when(preview.stay.startsAt)} – {when(preview.stay.expiresAt)}
            </dd>
          </>
        ) : null}
        <dt>Address</dt>
        <dd>{preview.email}</dd>
      </dl>
      <AcceptForm token={token} preview={preview} onDead={setDead} />
    </main>
  );
}

function AcceptForm(props: { token: string; preview: Preview; onDead: (sentence: string) => void }) {
  const { token, preview } = props;
  const existing = preview.hasAccount;
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  // The API answers with a problem about `totp` when the account has MFA on.
  const [needsCode, setNeedsCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const at = (field: string) => (problem?.field === field ? problem.detail : null);
  const general = problem && !FIELDS.includes(problem.field ?? "") ? problem.detail : null;
  /** The attributes tying a field to its problem, for assistive technology. */
  const described = (field: string) =>
    at(field) ? { "aria-invalid": true, "aria-describedby": `accept-${field}-problem` } : {};
  return (
    <form
      aria-label="Accept the invitation"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const password = String(form.get("password"));
        const body = existing
          ? { password, totp: needsCode ? String(form.get("totp") ?? "") : null }
          : { name: String(form.get("name")), password };
        setBusy(true);
        setProblem(null);
        try {
          const claims = await acceptInvitation(token, body);
          // Replaced, not pushed: the spent link's page leaves the history.
          location.replace(`/${await landing(claims, preview)}`);
        } catch (err) {
          if (err instanceof ApiProblem && err.status === 410) return props.onDead(err.detail);
          if (err instanceof ApiProblem && err.field === "totp") setNeedsCode(true);
          setProblem(err instanceof ApiProblem ? err : new ApiProblem(0, (err as Error).message));
        } finally {
          setBusy(false);
        }
      }}
    >
      {existing ? (
        <p>This address has an account: accept with its password.</p>
      ) : (
        <>
          <label for="accept-name">Your name</label>
          <input id="accept-name" name="name" autocomplete="name" required {...described("name")} />
          <FieldProblem field="name" message={at("name")} />
        </>
      )}
      <label for="accept-password">{existing ? "Password" : "Choose a password"}</label>
      <input
        id="accept-password"
        name="password"
        type="password"
        autocomplete={existing ? "current-password" : "new-password"}
        required
        {...described("password")}
      />
      <FieldProblem field="password" message={at("password")} />
      {needsCode ? (
        <>
          <label for="accept-totp">Authentication code</label>
          <input
            id="accept-totp"
            name="totp"
            inputmode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            required
            {...described("totp")}
          />
          <FieldProblem field="totp" message={at("totp")} />
        </>
      ) : null}
      <button type="submit" disabled={busy}>
        Accept and sign in
      </button>
      <Alert message={general} />
    </form>
  );
}

function FieldProblem(props: { field: string; message: string | null }) {
  return props.message ? (
    <p id={`accept-${props.field}-problem`} class="notice error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/**
 * The page to land on once signed in: the invitation's home (a guest's,
 * or the household's only one), else the list of homes.
 */
async function landing(claims: Schemas["Claims"] | null, preview: Preview): Promise<string> {
  const clientId = preview.household.clientId;
  const grant = claims?.clients[clientId];
  // A guest whose stay has not started has no home in the claims yet.
  if (!grant) return "#/homes";
  const home = grant.propertyId ?? preview.home?.propertyId;
  if (home) return `#/homes/${grant.tenantId}/${home}`;
  try {
    const homes = await call((c) =>
      c.GET("/v1/properties", { params: { query: { tenantId: grant.tenantId, limit: 100 } } }),
    );
    const ours = homes.items.filter((p) => p.clientId === clientId);
    return ours.length === 1 ? `#/homes/${grant.tenantId}/${ours[0]!.id}` : "#/homes";
  } catch {
    return "#/homes";
  }
}
