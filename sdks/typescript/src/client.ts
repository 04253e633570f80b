/**
 * The typed client (openapi-fetch over the generated `paths`), apart from
 * the Node-only webhook helpers so a browser bundle (the console) can
 * import it.
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";

import { AlytProblemError } from "./errors.js";
import { type RetryOptions, retryPolicy, retryingFetch } from "./retry.js";
import type { paths } from "./schema.js";

export type AlytClient = Client<paths>;

/** A bearer token, or a function asked for it at every request (or
 * connection) — `expired` is true once the token was refused with a 401. */
export type TokenSource = string | ((expired: boolean) => string | null | undefined | Promise<string | null | undefined>);

export interface AlytClientOptions {
  /**
   * Throw {@link AlytProblemError} for every non-2xx answer (default true).
   * False keeps openapi-fetch's `{ data, error, response }` for failures.
   */
  throwOnError?: boolean;
  /** Retries of 429/503 and of idempotent requests without an answer; `false` (or `{ retries: 0 }`) turns them off. */
  retry?: RetryOptions | false;
  /** The `fetch` to call (default the global one). */
  fetch?: (request: Request, init?: RequestInit) => Promise<Response>;
}

/**
 * A typed client of the API at `baseUrl` (the host, e.g.
 * `http://127.0.0.1:8080`; paths carry `/v1`). `token`, when given, is sent
 * as the bearer token of every request (a session's access token, a key,
 * its app token or a widget token; a function is asked at each request).
 *
 * Calls keep openapi-fetch's typed style (`const { data } = await api.GET(...)`);
 * a failure throws {@link AlytProblemError}, a request without an answer
 * {@link NetworkError}, after the retries of `options.retry`.
 */
export function createAlytClient(baseUrl: string, token?: TokenSource, options: AlytClientOptions = {}): AlytClient {
  const base = options.fetch ?? ((request: Request, init?: RequestInit) => globalThis.fetch(request, init));
  const client = createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    fetch: retryingFetch(base, retryPolicy(options.retry)),
  });
  if (token) {
    client.use({
      async onRequest({ request }) {
        const current = typeof token === "string" ? token : await token(false);
        if (current) request.headers.set("authorization", `Bearer ${current}`);
        return request;
      },
    });
  }
  if (options.throwOnError ?? true) client.use(throwOnProblem);
  return client;
}

/** openapi-fetch middleware: every non-2xx answer throws {@link AlytProblemError}. */
export const throwOnProblem: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await AlytProblemError.fromResponse(response);
    return undefined;
  },
};

/** A signed-in session's tokens (the answer of a login or a refresh). */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
}

export interface SessionTokenOptions {
  baseUrl: string;
  session: SessionTokens;
  /** Whose session: a household person's (`/v1/auth/refresh`, the default) or a developer's (`/v1/developers/auth/refresh`). */
  kind?: "household" | "developer";
  /** Told each new pair: keep the refresh token (it rotates on every refresh). */
  onRefresh?: (session: SessionTokens) => void;
  fetch?: AlytClientOptions["fetch"];
}

/**
 * A token function for {@link eventStream} (or {@link createAlytClient})
 * that keeps a session going: the current access token, and a refreshed one
 * once the old one was refused. It answers null when the platform refuses
 * the refresh (the session was signed out or revoked), which ends a stream
 * with `CredentialRevokedError`; other failures throw (a stream retries).
 */
export function sessionToken(options: SessionTokenOptions): (expired: boolean) => Promise<string | null> {
  let current = { ...options.session };
  let refreshing: Promise<string | null> | undefined;
  const api = createAlytClient(options.baseUrl, undefined, { fetch: options.fetch });
  const refresh = async (): Promise<string | null> => {
    const body = { refreshToken: current.refreshToken };
    try {
      const { data } =
        options.kind === "developer"
          ? await api.POST("/v1/developers/auth/refresh", { body })
          : await api.POST("/v1/auth/refresh", { body });
      if (!data) return null;
      current = { accessToken: data.accessToken, refreshToken: data.refreshToken };
    } catch (error) {
      // Unknown, rotated, revoked or expired: the session is over.
      if (error instanceof AlytProblemError && (error.status === 400 || error.status === 401)) return null;
      throw error;
    }
    options.onRefresh?.({ ...current });
    return current.accessToken;
  };
  return async (expired) => {
    if (!expired) return current.accessToken;
    // One refresh at a time: presenting a rotated refresh token again would
    // revoke the whole session.
    refreshing ??= refresh().finally(() => (refreshing = undefined));
    return refreshing;
  };
}
