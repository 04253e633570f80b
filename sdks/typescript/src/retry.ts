/**
 * Retrying what is safe to retry: a 429 or 503 (the server refused before
 * acting, so any method), and a request that got no answer at all when its
 * method is idempotent (a POST or PATCH may have been applied: never
 * repeated). Waits grow exponentially with jitter, so many clients refused
 * at once do not come back at once; a `Retry-After` is honoured as sent.
 *
 * No Node-only APIs here: the console bundles this for the browser.
 */
import { NetworkError, parseRetryAfter } from "./errors.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  retries?: number;
  /** The first backoff wait, doubled at each retry (default 500 ms). */
  baseDelayMs?: number;
  /** The longest wait (default 30 s). A request whose `Retry-After` asks for more is not retried: its error carries `retryAfter`. */
  maxDelayMs?: number;
  /** How to wait (a test passes a fake one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
}

export type RetryPolicy = Required<RetryOptions>;

export const RETRY_DEFAULTS = { retries: 3, baseDelayMs: 500, maxDelayMs: 30_000 } as const;

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  const given = options === false ? { retries: 0 } : (options ?? {});
  return {
    retries: given.retries ?? RETRY_DEFAULTS.retries,
    baseDelayMs: given.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs,
    maxDelayMs: given.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs,
    sleep: given.sleep ?? sleep,
    random: given.random ?? Math.random,
  };
}

/** The wait before retry `attempt` (0 for the first): half of
 * `base * 2^attempt` (capped) fixed, the other half random. */
export function backoffMs(attempt: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs" | "random">): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (ceiling / 2) * policy.random());
}

export const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
/** Statuses by which the server refused before acting. */
export const RETRY_STATUSES = new Set([429, 503]);

/**
 * `fetch` with the retries of `policy` (openapi-fetch calls it with a
 * `Request`). A request that got no answer throws {@link NetworkError};
 * an abort passes through as is.
 */
export function retryingFetch(
  base: (request: Request, init?: RequestInit) => Promise<Response>,
  policy: RetryPolicy,
): (request: Request, init?: RequestInit) => Promise<Response> {
  return async (request, init) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.retries;
      // A body can be sent once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await base(sent, init);
      } catch (error) {
        if (request.signal.aborted || isAbort(error)) throw error;
        if (last || !IDEMPOTENT_METHODS.has(request.method)) {
          throw new NetworkError(`${request.method} ${request.url}: no answer (${describe(error)})`, { cause: error });
        }
        await policy.sleep(backoffMs(attempt, policy), request.signal);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const asked = parseRetryAfter(response.headers.get("retry-after"));
      // Waiting less than asked would only be refused again.
      if (asked !== undefined && asked > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await policy.sleep(asked ?? backoffMs(attempt, policy), request.signal);
      if (request.signal.aborted) throw request.signal.reason;
    }
  };
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function describe(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return cause?.code ?? cause?.message ?? message;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}
