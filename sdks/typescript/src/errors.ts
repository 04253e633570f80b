/**
 * The SDK's typed failures. Every platform error is a problem body
 * (RFC 9457: `type`, `title`, `status`, `detail`, `field`, `requestId`,
 * sent as `application/problem+json`); {@link AlytProblemError} carries it,
 * and also stands for answers that are not problems (a proxy's HTML page, an
 * undocumented status): the status is kept and `detail` is a body excerpt.
 *
 * No Node-only APIs here: the console bundles this for the browser.
 */
import type { components } from "./schema.js";

export type Problem = components["schemas"]["Problem"];

/** The `type` of an answer that is not a problem body (RFC 9457's default). */
export const UNTYPED_PROBLEM = "about:blank";
const EXCERPT_CHARS = 500;

export interface ProblemInit {
  status: number;
  type?: string;
  title?: string;
  detail?: string;
  field?: string;
  requestId?: string;
  retryAfter?: number;
  body?: unknown;
}

/** A non-2xx answer of the platform. */
export class AlytProblemError extends Error {
  override name = "AlytProblemError";
  readonly status: number;
  /** A stable identifier of the kind of problem, e.g. `urn:alyt:problem:rate-limited`. */
  readonly type: string;
  readonly title: string;
  /** What is wrong, for a person to read (a body excerpt when the body was not a problem). */
  readonly detail: string;
  /** The request field at fault, when the problem is about one. */
  readonly field?: string;
  /** The request's id, as in the platform's logs: quote it in a support request. */
  readonly requestId?: string;
  /** Seconds the server asked to wait before trying again (`Retry-After`), when it did. */
  readonly retryAfter?: number;
  /** The parsed body (extra members such as `location` or `quota` included), or its text. */
  readonly body: unknown;

  constructor(init: ProblemInit) {
    const title = init.title ?? `HTTP ${init.status}`;
    const detail = init.detail ?? "";
    super(`${init.status} ${title}${detail ? `: ${detail}` : ""}`);
    this.status = init.status;
    this.type = init.type ?? UNTYPED_PROBLEM;
    this.title = title;
    this.detail = detail;
    this.field = init.field;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** The problem of an answer, from its status, headers and body text. */
  static fromParts(status: number, headers: Headers, text: string, statusText = ""): AlytProblemError {
    const retryAfterMs = parseRetryAfter(headers.get("retry-after"));
    const common = {
      status,
      requestId: headers.get("x-request-id") ?? undefined,
      retryAfter: retryAfterMs === undefined ? undefined : retryAfterMs / 1000,
    };
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: described by its excerpt below.
    }
    if (isProblem(body)) {
      return new AlytProblemError({
        ...common,
        type: body.type,
        title: body.title,
        detail: body.detail,
        field: body.field ?? undefined,
        requestId: body.requestId ?? common.requestId,
        body,
      });
    }
    const excerpt = text.trim().slice(0, EXCERPT_CHARS);
    return new AlytProblemError({ ...common, title: statusText || undefined, detail: excerpt, body });
  }

  /** The problem of a (non-2xx) response; reads its body. */
  static async fromResponse(response: Response): Promise<AlytProblemError> {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // The body broke off: the status alone says what happened.
    }
    return AlytProblemError.fromParts(response.status, response.headers, text, response.statusText);
  }
}

function isProblem(body: unknown): body is Problem {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.type === "string" && typeof b.title === "string" && typeof b.status === "number";
}

/** The request never got an answer (DNS, refused or reset connection,
 * TLS); `cause` is the runtime's own error. */
export class NetworkError extends Error {
  override name = "NetworkError";
}

/** An event stream stopped for good: `problem` is the platform's answer
 * when it gave one; resume later from `lastEventId`. */
export class StreamEndedError extends Error {
  override name = "StreamEndedError";
  readonly problem?: AlytProblemError;
  readonly lastEventId?: string;

  constructor(message: string, options: { problem?: AlytProblemError; lastEventId?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause ?? options.problem });
    this.problem = options.problem;
    this.lastEventId = options.lastEventId;
  }
}

/** The stream's credential no longer works (a 401 that a fresh token did
 * not cure, or a 403): sign in again, or issue a new key. */
export class CredentialRevokedError extends StreamEndedError {
  override name = "CredentialRevokedError";
}

/**
 * `Retry-After` in milliseconds from `now`: delta-seconds or an HTTP date
 * (never negative); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
