/**
 * Alyt's TypeScript SDK: the client generated from the OpenAPI contract
 * (types by openapi-typescript in `schema.ts`, calls by openapi-fetch) and
 * the helpers a generator cannot write: webhook signature verification,
 * the resumable event stream, typed failures and retries.
 */
export type { components, operations, paths } from "./schema.js";
export { SIGNATURE_HEADER, SignatureError, TOLERANCE_SECONDS, sign, verify } from "./webhooks.js";
export type { VerifyOptions } from "./webhooks.js";
export { STREAM_PATH, eventStream, homeStreamPath } from "./stream.js";
export { createAlytClient, sessionToken, throwOnProblem } from "./client.js";
export type { AlytClient, AlytClientOptions, SessionTokenOptions, SessionTokens, TokenSource } from "./client.js";
export {
  AlytProblemError,
  CredentialRevokedError,
  NetworkError,
  StreamEndedError,
  UNTYPED_PROBLEM,
  parseRetryAfter,
} from "./errors.js";
export type { Problem } from "./errors.js";
export { IDEMPOTENT_METHODS, RETRY_DEFAULTS, RETRY_STATUSES, backoffMs } from "./retry.js";
export type { RetryOptions } from "./retry.js";
export type { EventEnvelope, StreamEvent, StreamOptions } from "./stream.js";

/** The contract version this SDK was generated from. */
export const CONTRACT_VERSION = "0.7.1";
