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
   * `expired` true when the stream answers 401 (refresh the session there).
   */
  token: string | ((expired: boolean) => Promise<string | null>);
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
}

/** Yields every event, reconnecting with `Last-Event-ID` until `signal` aborts. */
export async function* eventStream(options: StreamOptions): AsyncGenerator<StreamEvent> {
  const path = options.home ? homeStreamPath(options.home.propertyId) : STREAM_PATH;
  let url = options.baseUrl.replace(/\/+$/, "") + path;
  const params = new URLSearchParams();
  if (options.home) params.set("tenantId", options.home.tenantId);
  if (options.events?.length) params.set("events", options.events.join(","));
  const query = params.size ? `?${params}` : "";
  const tokenFor = async (expired: boolean) =>
    typeof options.token === "string" ? (expired ? null : options.token) : options.token(expired);
  let lastEventId = options.lastEventId;
  let retryMs = 1000;
  let failures = 0;
  let expired = false;
  const maxReconnects = options.maxReconnects ?? 10;
  while (!options.signal?.aborted) {
    const token = await tokenFor(expired);
    if (!token) throw new Error("the stream answered 401: no valid token");
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: "text/event-stream",
    };
    if (lastEventId) headers["last-event-id"] = lastEventId;
    let response: Response;
    try {
      response = await fetch(url + query, { headers, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) return;
      if (++failures > maxReconnects) throw error;
      await sleep(retryMs, options.signal);
      continue;
    }
    if (response.status === 421) {
      // Another host streams (a hosted stack's function URL).
      const problem = (await response.json()) as { location?: string };
      url = (problem.location ?? url).split("?")[0] ?? url;
      continue;
    }
    if (response.status === 401 && !expired && typeof options.token !== "string") {
      // An expired token: ask for a fresh one, once.
      expired = true;
      continue;
    }
    if (response.status !== 200 || !response.body) {
      throw new Error(`the stream answered ${response.status}: ${await response.text()}`);
    }
    expired = false;
    failures = 0;
    try {
      for await (const event of parse(response.body, (ms) => (retryMs = ms))) {
        lastEventId = event.id;
        yield event;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (++failures > maxReconnects) throw error;
    }
    await sleep(retryMs, options.signal);
  }
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

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
