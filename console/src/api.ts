/**
 * The API as the console calls it: the generated SDK's typed client
 * (sdks/typescript), the session kept for this tab, and problem bodies
 * turned into errors a page can show.
 */
import { createAlytClient, type AlytClient } from "../../sdks/typescript/src/client.js";
import type { components } from "../../sdks/typescript/src/schema.js";

export type Schemas = components["schemas"];

/** The SDK's client, answering failures as results (this module turns
 * them into ApiProblem itself, after refreshing a session on a 401). */
function client(token?: string): AlytClient {
  return createAlytClient(location.origin, token, { throwOnError: false });
}
export type Thing = Schemas["Thing"];
export type RoomView = Schemas["RoomView"];
export type Control = Schemas["Control"];
export type CapabilityDescriptor = Schemas["CapabilityDescriptor"];

/** A problem body (RFC 9457) the API answered with; `field` names the
 * request's field it is about, when it is about one. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly field?: string,
  ) {
    super(detail);
  }
}

/** Whose session: a household person's or a developer's (each has its own
 * sign-in and refresh operations). */
export type SessionKind = "household" | "developer";

interface Session {
  kind: SessionKind;
  accessToken: string;
  refreshToken: string;
  email: string;
}

const SESSION_KEY = "alyt.session";

/** The signed-in person of this tab (sessionStorage: gone with the tab). */
export function session(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** Signs the session out on the server too (its refresh family is revoked,
 * so a copied token stops working), then forgets it here. The page is
 * signed out even when the server cannot be reached. */
export async function logOut(): Promise<void> {
  const current = session();
  if (current) {
    const client = api();
    try {
      if (current.kind === "developer") {
        await client.POST("/v1/developers/auth/logout");
      } else {
        await client.POST("/v1/auth/logout");
      }
    } catch {
      // Offline: the tokens expire on their own.
    }
  }
  signOut();
}

/** The session's access token for a stream connection; when `expired`
 * (the stream answered 401), the session is refreshed first. */
export async function streamToken(expired: boolean): Promise<string | null> {
  if (expired && !(await refresh())) return null;
  return session()?.accessToken ?? null;
}

/** A client without a session (sign-up, sign-in). */
export function createAnonymous(): AlytClient {
  return client();
}

/** A client of the API this page was served by. */
export function api(): AlytClient {
  return client(session()?.accessToken);
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * Makes a request with the session's client, once more after refreshing an
 * expired session; returns the data or throws the API's problem.
 */
export async function call<T>(request: (client: AlytClient) => Promise<Answer<T>>): Promise<T> {
  let result = await request(api());
  if (result.response.status === 401 && (await refresh())) {
    result = await request(api());
  }
  if (!result.response.ok || result.data === undefined) {
    throw problemOf(result);
  }
  return result.data;
}

/** A request whose success has no body (204 No Content). */
export async function perform(request: (client: AlytClient) => Promise<Answer<unknown>>): Promise<void> {
  await call(async (client) => {
    const result = await request(client);
    return { ...result, data: result.response.ok ? (result.data ?? null) : undefined };
  });
}

function problemOf(result: Answer<unknown>): ApiProblem {
  const problem = (result.error ?? {}) as { detail?: string; title?: string; field?: string };
  return new ApiProblem(
    result.response.status,
    problem.detail ?? problem.title ?? `HTTP ${result.response.status}`,
    problem.field,
  );
}

async function refresh(): Promise<boolean> {
  const current = session();
  if (!current) return false;
  const anonymous = client();
  const body = { refreshToken: current.refreshToken };
  const { data, response } =
    current.kind === "developer"
      ? await anonymous.POST("/v1/developers/auth/refresh", { body })
      : await anonymous.POST("/v1/auth/refresh", { body });
  if (!response.ok || !data) {
    signOut();
    return false;
  }
  keep({ ...current, accessToken: data.accessToken, refreshToken: data.refreshToken });
  return true;
}

function keep(current: Session) {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(current));
}

/** Signs in; throws the API's problem when refused. A developer with MFA
 * on gives the current code as `totp`. */
export async function signIn(kind: SessionKind, email: string, password: string, totp?: string): Promise<void> {
  const anonymous = client();
  const result =
    kind === "developer"
      ? await anonymous.POST("/v1/developers/auth/login", { body: { email, password, totp: totp || null } })
      : await anonymous.POST("/v1/auth/login", { body: { email, password } });
  const data = result.data;
  if (!result.response.ok || !data) {
    throw problemOf(result);
  }
  keep({ kind, accessToken: data.accessToken, refreshToken: data.refreshToken, email });
}

/** Verifies a developer's address with the token of the mailed link and
 * signs the developer in; throws the API's problem (410: used or expired). */
export async function verifyEmail(token: string): Promise<void> {
  const anonymous = client();
  const result = await anonymous.POST("/v1/developers/auth/verify-email", { body: { token } });
  const data = result.data;
  if (!result.response.ok || !data) {
    throw problemOf(result);
  }
  const me = await client(data.accessToken).GET("/v1/developers/me");
  keep({ kind: "developer", accessToken: data.accessToken, refreshToken: data.refreshToken, email: me.data?.email ?? "" });
}

/** What an invitation link offers (no session needed); throws the API's
 * problem (410, one sentence for every dead link). */
export async function readInvitation(token: string): Promise<Schemas["InvitationPreview"]> {
  const result = await createAnonymous().GET("/v1/auth/invitations/{token}", { params: { path: { token } } });
  if (!result.response.ok || !result.data) {
    throw problemOf(result);
  }
  return result.data;
}

/** Accepts an invitation and keeps the session it answers, like a
 * household sign-in; returns the person's claims (null when they could not
 * be read: the session stands). Throws the API's problem. */
export async function acceptInvitation(
  token: string,
  body: Schemas["AcceptInvitationRequest"],
): Promise<Schemas["Claims"] | null> {
  const result = await createAnonymous().POST("/v1/auth/invitations/{token}/accept", {
    params: { path: { token } },
    body,
  });
  const data = result.data;
  if (!result.response.ok || !data) {
    throw problemOf(result);
  }
  const me = await client(data.accessToken).GET("/v1/auth/me");
  const claims = me.data?.claims ?? null;
  keep({ kind: "household", accessToken: data.accessToken, refreshToken: data.refreshToken, email: claims?.email ?? "" });
  return claims;
}
