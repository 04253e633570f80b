/**
 * A forgotten password: the request for a reset mail (either sign-in's
 * "Forgot password?"), and the page the mailed link opens
 * (`/reset-password?token=…`, `&side=developer` from the developer's mail),
 * which takes the new password. The token is taken out of the address at
 * once, like an invitation's.
 */
import { useState } from "preact/hooks";

import { ApiProblem, createAnonymous, type SessionKind } from "./api.js";
import { FieldProblem, ProblemAlert, invalid, useProblem } from "./ui.js";

/** The page's path; the link carries its token (and side) in the query. */
export const RESET_PATH = "/reset-password";

/** The reset link this page was opened with (taken out of the address,
 * replaced, not pushed); null on any other page. */
export function takeResetLink(): { token: string; kind: SessionKind } | null {
  if (location.pathname !== RESET_PATH) return null;
  const query = new URLSearchParams(location.search);
  const kind: SessionKind = query.get("side") === "developer" ? "developer" : "household";
  history.replaceState(null, "", RESET_PATH + location.hash);
  return { token: query.get("token") ?? "", kind };
}

/** The problem of an answer that is not ok. */
function problemOf(result: { error?: unknown; response: Response }): ApiProblem {
  const body = (result.error ?? {}) as { detail?: string; title?: string; field?: string };
  return new ApiProblem(result.response.status, body.detail ?? body.title ?? `HTTP ${result.response.status}`, body.field);
}

const signInOf = (kind: SessionKind) => (kind === "developer" ? "#/developer/signin" : "#/signin");

export function ForgotPassword(props: { kind: SessionKind }) {
  const developer = props.kind === "developer";
  const [problem, show, clear] = useProblem();
  const [sent, setSent] = useState<string | null>(null);
  if (sent) {
    return (
      <main class="narrow">
        <h1>Check your mail</h1>
        <p role="status">
          If <strong>{sent}</strong> has {developer ? "a developer account" : "an account"}, a reset link is on its way
          (it works once, for an hour). Open it to choose a new password.
        </p>
        <p>
          <a href={signInOf(props.kind)}>Back to sign in</a>
        </p>
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>{developer ? "Reset your developer password" : "Reset your password"}</h1>
      <form
        aria-label="Forgot password"
        onSubmit={async (e) => {
          e.preventDefault();
          const email = String(new FormData(e.currentTarget).get("email")).trim();
          clear();
          const client = createAnonymous();
          const result = developer
            ? await client.POST("/v1/developers/auth/forgot-password", { body: { email } })
            : await client.POST("/v1/auth/forgot-password", { body: { email } });
          if (result.response.ok) setSent(email);
          else show(problemOf(result));
        }}
      >
        <label for="forgot-email">Email</label>
        <input id="forgot-email" name="email" type="email" autocomplete="username" required {...invalid(problem, "email", "forgot-email")} />
        <FieldProblem problem={problem} field="email" id="forgot-email" />
        <button type="submit">Mail me a reset link</button>
        <ProblemAlert problem={problem} fields={["email"]} />
      </form>
      <p>
        <a href={signInOf(props.kind)}>Back to sign in</a>
      </p>
    </main>
  );
}

export function ResetPassword(props: { token: string; kind: SessionKind }) {
  const { token, kind } = props;
  const [problem, show, clear] = useProblem();
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  if (done) {
    return (
      <main class="narrow">
        <h1>Password changed</h1>
        <p role="status">Your new password works now; every session of the account was signed out.</p>
        <p>
          <a href={`/${signInOf(kind)}`}>Sign in</a>
        </p>
      </main>
    );
  }
  if (!token) {
    return (
      <main class="narrow">
        <h1>Choose a new password</h1>
        <p>
          Open the link in your reset mail again: this address carries no reset. Or{" "}
          <a href={`/${kind === "developer" ? "#/developer/forgot" : "#/forgot"}`}>ask for a new link</a>.
        </p>
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Choose a new password</h1>
      <form
        aria-label="Choose a new password"
        onSubmit={async (e) => {
          e.preventDefault();
          const password = String(new FormData(e.currentTarget).get("password"));
          setBusy(true);
          clear();
          const client = createAnonymous();
          const body = { token, password };
          const result =
            kind === "developer"
              ? await client.POST("/v1/developers/auth/reset-password", { body })
              : await client.POST("/v1/auth/reset-password", { body });
          setBusy(false);
          if (result.response.ok) setDone(true);
          else show(problemOf(result));
        }}
      >
        <label for="reset-password">New password</label>
        <input
          id="reset-password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          {...invalid(problem, "password", "reset-password")}
        />
        <FieldProblem problem={problem} field="password" id="reset-password" />
        <button type="submit" disabled={busy}>
          Set the new password
        </button>
        <ProblemAlert problem={problem} fields={["password"]} />
        {problem && problem.status === 410 ? (
          <p>
            <a href={`/${kind === "developer" ? "#/developer/forgot" : "#/forgot"}`}>Ask for a new link</a>
          </p>
        ) : null}
      </form>
    </main>
  );
}
