/**
 * Alyt's TypeScript SDK: the client generated from the OpenAPI contract
 * (types by openapi-typescript in `schema.ts`, calls by openapi-fetch) and
 * the helpers a generator cannot write: webhook signature verification and
 * the resumable event stream.
 */
export type { components, operations, paths } from "./schema.js";
export { SIGNATURE_HEADER, SignatureError, TOLERANCE_SECONDS, sign, verify } from "./webhooks.js";
export type { VerifyOptions } from "./webhooks.js";
export { STREAM_PATH, eventStream, homeStreamPath } from "./stream.js";
export { createAlytClient } from "./client.js";
export type { AlytClient } from "./client.js";
export type { EventEnvelope, StreamEvent, StreamOptions } from "./stream.js";

/** The contract version this SDK was generated from. */
export const CONTRACT_VERSION = "0.4.0";
