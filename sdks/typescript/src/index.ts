/**
 * Alyt's TypeScript SDK: the client generated from the OpenAPI contract
 * (types by openapi-typescript in `schema.ts`, calls by openapi-fetch) and
 * the helpers a generator cannot write: webhook signature verification and
 * the resumable event stream.
 */
import createClient, { type Client } from "openapi-fetch";

import type { paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";
export { SIGNATURE_HEADER, SignatureError, TOLERANCE_SECONDS, sign, verify } from "./webhooks.js";
export type { VerifyOptions } from "./webhooks.js";
export { STREAM_PATH, eventStream } from "./stream.js";
export type { EventEnvelope, StreamEvent, StreamOptions } from "./stream.js";

/** The contract version this SDK was generated from. */
export const CONTRACT_VERSION = "1.1.1";

export type AlytClient = Client<paths>;

/**
 * A typed client of the API at `baseUrl` (the host, e.g.
 * `http://127.0.0.1:8080`; paths carry `/v1`). `token`, when given, is sent
 * as the bearer token of every request (a session's access token, a key,
 * its app token or a widget token).
 */
export function createAlytClient(baseUrl: string, token?: string): AlytClient {
  const client = createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, "") });
  if (token) {
    client.use({
      onRequest({ request }) {
        request.headers.set("authorization", `Bearer ${token}`);
        return request;
      },
    });
  }
  return client;
}
