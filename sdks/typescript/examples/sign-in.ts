/**
 * Signing in: the two credentials a program can call Alyt with.
 *
 * 1. A developer key (`svc_dev_...`, made in the console's Keys page): sent as
 *    `Authorization: Bearer <key>`, it works until it is revoked, for what its
 *    scopes allow. What a server-side program uses.
 * 2. A developer session (email and password): a short-lived access token and
 *    a refresh token that renews it (a new pair each time: keep the newest).
 *    `sessionToken` holds the pair and refreshes it when asked.
 *
 *   ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... \
 *   ALYT_EMAIL=you@example.com ALYT_PASSWORD='...' node sign-in.js
 */
import { AlytProblemError, type components, createAlytClient, sessionToken } from "@alyt/sdk";

const base = process.env.ALYT_BASE_URL ?? "http://127.0.0.1:8080";

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`set ${name} (see the top of this file)`);
    process.exit(2);
  }
  return value;
}

// 1. A developer key. The client throws AlytProblemError for every failure,
// so when a call returns, its `data` is there.
const api = createAlytClient(base, env("ALYT_KEY"));
const caller = (await api.GET("/v1/developers/whoami")).data!;
console.log(`key ${caller.keyId} (${caller.keyKind}): scopes ${caller.scopes.join(", ")}; sandbox ${caller.tenants[0]}`);

// 2. A session: sign in with email and password.
let session: components["schemas"]["DeveloperSession"];
try {
  session = (await createAlytClient(base).POST("/v1/developers/auth/login", {
    body: { email: env("ALYT_EMAIL"), password: env("ALYT_PASSWORD") },
  })).data!;
} catch (error) {
  // A refusal is a problem: status, detail, and the request's id for support.
  if (!(error instanceof AlytProblemError)) throw error;
  console.error(`sign-in refused: ${error.status} ${error.detail} (request ${error.requestId})`);
  process.exit(1);
}
console.log(`signed in: the access token lives ${session.expiresIn} s`);

// The token function answers the current access token, and a refreshed one
// when asked with `expired` true; keep each new pair (the refresh token rotates).
const token = sessionToken({
  baseUrl: base,
  kind: "developer",
  session,
  onRefresh: (pair) => {
    session = { ...session, ...pair }; // your store: the old refresh token no longer works
    console.log("refreshed: the new pair is stored");
  },
});
const developer = createAlytClient(base, token);
const me = (await developer.GET("/v1/developers/me")).data!;
console.log(`session of ${me.email}: sandbox ${me.sandboxTenantId}`);

// When a call answers 401 (the access token expired), refresh and call again.
// eventStream does this by itself; here a refresh is forced to show it.
if (!(await token(true))) {
  console.error("the session is over: sign in again");
  process.exit(1);
}
const again = (await developer.GET("/v1/developers/me")).data!;
console.log(`still ${again.email} with the refreshed token`);
