/** A developer's account: sign-up, MFA with a QR code, usage and quota. */
import qrcode from "qrcode-generator";
import { useEffect, useRef, useState } from "preact/hooks";

import { ApiProblem, call, createAnonymous, perform, verifyEmail, type Schemas } from "./api.js";
import { DeveloperNav } from "./developer.js";
import {
  Alert,
  Failure,
  FieldProblem,
  Loading,
  ProblemAlert,
  Time,
  count,
  invalid,
  useAction,
  useLoad,
  useProblem,
  words,
} from "./ui.js";

type DeveloperType = Schemas["DeveloperType"];
const TYPES: DeveloperType[] = ["INDIVIDUAL", "BRAND", "INTEGRATOR"];

/**
 * Turnstile's documented test token: without a site key (the local
 * platform), the page sends it and the local bot check accepts it.
 */
const LOCAL_BOT_TOKEN = "XXXX.DUMMY.TOKEN.XXXX";

/** The Turnstile site key the platform wrote into the page, if any. */
function turnstileSiteKey(): string | null {
  return document.querySelector<HTMLMetaElement>('meta[name="alyt-turnstile-site-key"]')?.content || null;
}

interface TurnstileApi {
  render(element: HTMLElement, options: { sitekey: string; callback: (token: string) => void }): unknown;
}

/** Turnstile's widget: loads its script once, renders, hands over the token. */
function BotCheck(props: { siteKey: string; onToken: (token: string) => void }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const render = () => {
      const api = (window as unknown as { turnstile?: TurnstileApi }).turnstile;
      if (api && holder.current) api.render(holder.current, { sitekey: props.siteKey, callback: props.onToken });
    };
    if ((window as unknown as { turnstile?: TurnstileApi }).turnstile) return render();
    const script = document.createElement("script");
    script.src = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";
    script.async = true;
    script.onload = render;
    document.head.append(script);
  }, [props.siteKey]);
  return <div ref={holder} class="bot-check" aria-label="Bot check" role="group" />;
}

/** Where the mailed verification link lands in a browser: the address is
 * verified when the person presses the button (a mail scanner fetching the
 * link verifies nothing), then the developer is signed in. */
export function VerifyEmail(props: { token: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="narrow">
      <h1>Verify your address</h1>
      <p>Press the button to activate your developer account and your sandbox.</p>
      <Alert message={error} />
      <button
        type="button"
        disabled={busy || !props.token}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await verifyEmail(props.token);
            // Replaced, not pushed: the spent link leaves the history.
            location.replace("#/developer/keys");
          } catch (e) {
            setError(`${(e as Error).message} Sign in, or sign up again for a new link.`);
          } finally {
            setBusy(false);
          }
        }}
      >
        Verify my address
      </button>
    </main>
  );
}

export function SignUp() {
  const [problem, show, clear] = useProblem();
  const [sent, setSent] = useState<string | null>(null);
  const siteKey = turnstileSiteKey();
  const [botToken, setBotToken] = useState<string | null>(siteKey ? null : LOCAL_BOT_TOKEN);
  if (sent) {
    return (
      <main class="narrow">
        <h1>Check your mail</h1>
        <p role="status">
          A verification link is on its way to <strong>{sent}</strong>. Open it, then{" "}
          <a href="#/developer/signin">sign in</a>.
        </p>
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Developer sign up</h1>
      <form
        aria-label="Sign up"
        onSubmit={async (e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const email = String(form.get("email"));
          clear();
          const result = await createAnonymous().POST("/v1/developers/auth/signup", {
            body: {
              email,
              password: String(form.get("password")),
              displayName: String(form.get("displayName")),
              type: String(form.get("type")) as DeveloperType,
              organisation: String(form.get("organisation") ?? "") || null,
              botToken: botToken ?? "",
            },
          });
          if (result.response.ok) {
            setSent(email);
          } else {
            const body = (result.error ?? {}) as { detail?: string; field?: string };
            show(new ApiProblem(result.response.status, body.detail ?? `HTTP ${result.response.status}`, body.field));
          }
        }}
      >
        <label for="su-email">Email</label>
        <input id="su-email" name="email" type="email" autocomplete="email" required {...invalid(problem, "email", "su-email")} />
        <FieldProblem problem={problem} field="email" id="su-email" />
        <label for="su-password">Password (12 characters or more)</label>
        <input
          id="su-password"
          name="password"
          type="password"
          autocomplete="new-password"
          minLength={12}
          required
          {...invalid(problem, "password", "su-password")}
        />
        <FieldProblem problem={problem} field="password" id="su-password" />
        <label for="su-name">Display name</label>
        <input id="su-name" name="displayName" required maxLength={80} {...invalid(problem, "displayName", "su-name")} />
        <FieldProblem problem={problem} field="displayName" id="su-name" />
        <label for="su-type">You are</label>
        <select id="su-type" name="type">
          {TYPES.map((t) => (
            <option value={t}>{words(t)}</option>
          ))}
        </select>
        <label for="su-org">Organisation (optional)</label>
        <input id="su-org" name="organisation" maxLength={120} {...invalid(problem, "organisation", "su-org")} />
        <FieldProblem problem={problem} field="organisation" id="su-org" />
        {siteKey ? <BotCheck siteKey={siteKey} onToken={setBotToken} /> : null}
        <button type="submit" disabled={!botToken}>
          Sign up
        </button>
        <ProblemAlert problem={problem} fields={["email", "password", "displayName", "organisation"]} />
      </form>
      <p>
        <a href="#/developer/signin">Already have an account? Sign in</a>
      </p>
    </main>
  );
}

export function AccountPage() {
  const [loaded, error, reload] = useLoad(
    () =>
      Promise.all([
        call((c) => c.GET("/v1/developers/me")),
        call((c) => c.GET("/v1/developers/usage")),
      ]),
    [],
  );
  if (error) return <Failure message={error} />;
  if (!loaded) return <Loading />;
  const [me, usage] = loaded;
  const kinds = ["REQUESTS", "MQTT_MESSAGES", "VIRTUAL_DEVICES"] as const;
  return (
    <main>
      <DeveloperNav current="account" />
      <h1>Account</h1>
      <p>
        {me.displayName} · {me.email} · {words(me.status)}
      </p>
      <Mfa enabled={me.mfaEnabledAt !== null} onChanged={reload} />
      <table class="stack">
        <caption>
          Usage and quota (read <Time at={usage.at} />)
        </caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Used</th>
            <th scope="col">Ceiling</th>
            <th scope="col">Window</th>
            <th scope="col">Resets</th>
          </tr>
        </thead>
        <tbody>
          {kinds.map((kind) => {
            const u = usage.quotas[kind];
            return (
              <tr data-kind={kind}>
                <td data-label="Kind">{words(kind)}</td>
                <td data-label="Used">{count(u.count)}</td>
                <td data-label="Ceiling">{count(u.ceiling)}</td>
                <td data-label="Window">{words(u.window)}</td>
                <td data-label="Resets">
                  <Time at={u.resetsAt} fallback="–" />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <table>
        <caption>Requests by key on {new Date(`${usage.day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: "UTC" })} (UTC)</caption>
        <tbody>
          {usage.keys.length === 0 ? (
            <tr>
              <td>No key yet: create one under Keys.</td>
            </tr>
          ) : null}
          {usage.keys.map((k) => (
            <tr>
              <td>{k.name}</td>
              <td>{count(k.requests)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

/** MFA: set up (a QR code of the otpauth URI, and the secret to type), then
 * confirm with a code; or turn it off with a code. */
function Mfa(props: { enabled: boolean; onChanged: () => void }) {
  const [setup, setSetup] = useState<{ secret: string; otpauthUri: string } | null>(null);
  const { problem, act } = useAction();
  const confirm = (path: "/v1/developers/auth/mfa/enable" | "/v1/developers/auth/mfa/disable", code: string) =>
    act(async () => {
      await perform((c) => c.POST(path, { body: { code } }));
      setSetup(null);
      props.onChanged();
    });
  const codeForm = (label: string, path: "/v1/developers/auth/mfa/enable" | "/v1/developers/auth/mfa/disable") => (
    <form
      aria-label={label}
      class="row"
      onSubmit={(e) => {
        e.preventDefault();
        confirm(path, String(new FormData(e.currentTarget).get("code")));
      }}
    >
      <label for="mfa-code">Code from your authenticator app</label>
      <input id="mfa-code" name="code" inputmode="numeric" pattern="[0-9]{6}" required autocomplete="one-time-code" />
      <button type="submit">{label}</button>
    </form>
  );
  return (
    <section aria-label="Two-factor authentication" class="endpoint">
      <h2>Two-factor authentication: {props.enabled ? "on" : "off"}</h2>
      <Alert message={problem} />
      {props.enabled ? (
        codeForm("Turn off", "/v1/developers/auth/mfa/disable")
      ) : setup ? (
        <>
          <p>Scan this with your authenticator app, or type the secret.</p>
          <QrCode text={setup.otpauthUri} />
          <p>
            <code data-secret>{setup.secret}</code>
          </p>
          {codeForm("Turn on", "/v1/developers/auth/mfa/enable")}
        </>
      ) : (
        <button
          type="button"
          onClick={() =>
            act(async () => setSetup(await call((c) => c.POST("/v1/developers/auth/mfa/setup"))))
          }
        >
          Set up
        </button>
      )}
    </section>
  );
}

function QrCode(props: { text: string }) {
  const qr = qrcode(0, "M");
  qr.addData(props.text);
  qr.make();
  return <img class="qr" src={qr.createDataURL(4, 4)} alt="QR code of the authenticator secret" data-secret />;
}

