/**
 * The event streams, resumed across disconnects.
 *
 * `GET /v1/developers/events/stream` (and a home's,
 * `GET /v1/properties/{propertyId}/events/stream`) answers server-sent events whose data
 * is an event envelope; each carries an `id`. A connection ends (the hosted
 * stream after about 15 minutes, or any network fault); this helper
 * connects again with `Last-Event-ID` set to the last id it handed out, so
 * no event is lost or repeated, and waits what the server's `retry:` asks.
 */
import type { TokenSource } from "./client.js";
import { AlytProblemError, CredentialRevokedError, NetworkError, StreamEndedError } from "./errors.js";
import { type RetryOptions, backoffMs, retryPolicy } from "./retry.js";
import type { components } from "./schema.js";

export const STREAM_PATH = "/v1/developers/events/stream";

/** A home's stream: only the events about that home's things. */
export function homeStreamPath(propertyId: string): string {
  return `/v1/properties/${encodeURIComponent(propertyId)}/events/stream`;
}

/** A platform event, as the stream and webhook deliveries carry it: its
 * `type` says which `data` it has (the contract's `EventEnvelope`). */
export type EventEnvelope = components["schemas"]["EventEnvelope"];

export interface StreamEvent {
  id: string;
  kind: string;
  envelope: EventEnvelope;
}

export interface StreamOptions {
  /** The stream's host: locally the platform's own; hosted, the stack's EventStreamUrl (a 421 from the HTTP API is followed). */
  baseUrl: string;
  /**
   * A developer session's access token or a key with `events:read` (a home's
   * stream: anyone who sees the home, a key with `things:read`). A function
   * is asked for the token at every connection, and once more with
   * `expired` true when the stream answers 401 (refresh the session there,
   * e.g. with {@link sessionToken}; null means there is none).
   */
  token: TokenSource;
  /** The home's stream instead of the developer stream. */
  home?: { tenantId: string; propertyId: string };
  /** Only these event kinds. */
  events?: string[];
  /** Resume after this event. */
  lastEventId?: string;
  /** Stops the stream. */
  signal?: AbortSignal;
  /** Failed connections in a row before giving up (default 10). */
  maxReconnects?: number;
  /**
   * The waits after a failed connection: doubling from the server's
   * `retry:` (1 s), with jitter, up to `maxDelayMs` (30 s); a `Retry-After`
   * is waited as sent, up to `maxDelayMs`.
   */
  retry?: Omit<RetryOptions, "retries">;
  /** The `fetch` to call (default the global one). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/**
 * Yields every event, reconnecting with `Last-Event-ID` until `signal`
 * aborts. A connection the server ends is resumed after its `retry:`; a
 * 429, a 5xx or a network fault after a backoff. It throws
 * {@link CredentialRevokedError} when the credential stops working (a 401 a
 * fresh token did not cure, a 403), {@link StreamEndedError} on another
 * refusal (a 400: a wrong parameter) or after `maxReconnects` failures.
 */
export async function* eventStream(options: StreamOptions): AsyncGenerator<StreamEvent> {
  const path = options.home ? homeStreamPath(options.home.propertyId) : STREAM_PATH;
  let url = options.baseUrl.replace(/\/+$/, "") + path;
  const params = new URLSearchParams();
  if (options.home) params.set("tenantId", options.home.tenantId);
  if (options.events?.length) params.set("events", options.events.join(","));
  const query = params.size ? `?${params}` : "";
  const fetchStream = options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  const policy = retryPolicy({ ...options.retry, retries: Infinity });
  const { signal } = options;
  const tokenFor = async (expired: boolean) =>
    typeof options.token === "string" ? (expired ? null : options.token) : options.token(expired);
  let lastEventId = options.lastEventId;
  let retryMs = options.retry?.baseDelayMs ?? 1000;
  let failures = 0;
  // The 401 that asked for a fresh token (until a connection succeeds): a
  // second one means the credential is gone.
  let refused: AlytProblemError | undefined;
  let askFresh = false;
  const maxReconnects = options.maxReconnects ?? 10;

  /** Counts a failed connection and waits before the next, or gives up. */
  const failed = async (error: unknown, waitMs?: number) => {
    if (++failures > maxReconnects) {
      const problem = error instanceof AlytProblemError ? error : undefined;
      throw new StreamEndedError(`the stream failed ${failures} times in a row: ${describe(error)}`, {
        problem,
        lastEventId,
        cause: error,
      });
    }
    const wait = waitMs ?? backoffMs(failures - 1, { ...policy, baseDelayMs: retryMs });
    await policy.sleep(Math.min(wait, policy.maxDelayMs), signal);
  };

  while (!signal?.aborted) {
    let token: string | null | undefined;
    try {
      token = await tokenFor(askFresh);
    } catch (error) {
      // The refresh itself failed (network, 5xx): try again later.
      await failed(error);
      continue;
    }
    askFresh = false;
    if (!token) {
      throw new CredentialRevokedError("the stream's credential was refused and no fresh token is at hand", {
        problem: refused,
        lastEventId,
      });
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: "text/event-stream",
    };
    if (lastEventId) headers["last-event-id"] = lastEventId;
    let response: Response;
    try {
      response = await fetchStream(url + query, { headers, signal });
    } catch (error) {
      if (signal?.aborted) return;
      await failed(new NetworkError(`the stream got no answer (${describe(error)})`, { cause: error }));
      continue;
    }
    if (response.status === 200 && response.body) {
      refused = undefined;
      failures = 0;
      try {
        for await (const event of parse(response.body, (ms) => (retryMs = ms))) {
          lastEventId = event.id;
          yield event;
        }
      } catch (error) {
        if (signal?.aborted) return;
        await failed(error);
        continue;
      }
      // The server ended the connection (its time limit, a new token due):
      // back after what its `retry:` asked.
      await policy.sleep(retryMs, signal);
      continue;
    }
    const problem = await AlytProblemError.fromResponse(response);
    const location = (problem.body as { location?: unknown } | undefined)?.location;
    const elsewhere = typeof location === "string" ? location.split("?")[0] : undefined;
    if (response.status === 421 && elsewhere && elsewhere !== url) {
      // Another host streams (a hosted stack's function URL).
      url = elsewhere;
      continue;
    }
    if (response.status === 401 && refused === undefined && typeof options.token !== "string") {
      // An expired token: ask for a fresh one, once, at once.
      refused = problem;
      askFresh = true;
      continue;
    }
    if (response.status === 401 || response.status === 403) {
      throw new CredentialRevokedError(`the stream's credential was refused: ${problem.message}`, {
        problem,
        lastEventId,
      });
    }
    if (response.status === 429 || response.status >= 500) {
      await failed(problem, problem.retryAfter === undefined ? undefined : problem.retryAfter * 1000);
      continue;
    }
    throw new StreamEndedError(`the stream was refused: ${problem.message}`, { problem, lastEventId });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function* parse(
  body: ReadableStream<Uint8Array>,
  retry: (ms: number) => void,
): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let kind: string | undefined;
  let id: string | undefined;
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (data.length > 0 && id !== undefined) {
          yield { id, kind: kind ?? "message", envelope: JSON.parse(data.join("\n")) as EventEnvelope };
        }
        kind = undefined;
        id = undefined;
        data = [];
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") kind = value;
        else if (field === "id") id = value;
        else if (field === "data") data.push(value);
        else if (field === "retry" && /^\d+$/.test(value)) retry(Number(value));
      }
    }
  }
}
