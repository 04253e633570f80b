/**
 * Verifying Alyt webhook deliveries.
 *
 * Every delivery carries `X-SVC-Signature: t=<unix seconds>,v1=<hex>[,v1=...]`
 * (several `v1` while an endpoint's secret is being rotated): the hex is
 * HMAC-SHA256 keyed with the endpoint's secret (`whsec_...`, shown once when
 * the endpoint was made) over `"<t>.<raw body>"`. A delivery is genuine when
 * one `v1` matches, compared in constant time, and `t` is within the
 * tolerance (five minutes) of now, so an old delivery cannot be replayed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-SVC-Signature";
export const TOLERANCE_SECONDS = 5 * 60;
const MAX_HEADER_BYTES = 4096;

/** The delivery is not to be trusted; the message says why. */
export class SignatureError extends Error {
  override name = "SignatureError";
}

function mac(secret: string, timestamp: number, body: Uint8Array): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
}

/** The header value Alyt sends for `body` at `timestamp` (for tests). */
export function sign(secret: string, timestamp: number, body: Uint8Array | string): string {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return `t=${timestamp},v1=${mac(secret, timestamp, bytes).toString("hex")}`;
}

export interface VerifyOptions {
  /** The raw body exactly as received (before any JSON parsing). */
  body: Uint8Array | string;
  /** The `X-SVC-Signature` header. */
  header: string | null | undefined;
  /** The endpoint's secret (`whsec_...`), or several: during a rotation's
   * grace period a receiver may hold the new and the replaced one, and a
   * delivery verifies when any of them signed it. */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** Unix seconds; defaults to now. */
  now?: number;
}

/**
 * Checks a delivery; returns the signed timestamp, or throws
 * {@link SignatureError} when the header is missing or malformed, no
 * signature matches, or the timestamp is outside the tolerance.
 */
export function verify(options: VerifyOptions): number {
  const { header, secret } = options;
  const body = typeof options.body === "string" ? Buffer.from(options.body) : options.body;
  const tolerance = options.toleranceSeconds ?? TOLERANCE_SECONDS;
  if (!header) throw new SignatureError("no signature header");
  if (header.length > MAX_HEADER_BYTES) throw new SignatureError("the signature header is too long");
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value = ""] = part.trim().split("=", 2) as [string, string?];
    if (key === "t") {
      if (!/^\d+$/.test(value)) throw new SignatureError("the signature header's timestamp is not a number");
      timestamp = Number(value);
    } else if (key === "v1") {
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new SignatureError("the signature header is malformed");
  }
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0) throw new SignatureError("no secret to verify with");
  // Every candidate is compared with every secret's MAC, in constant time,
  // whatever matched first.
  let matched = false;
  for (const key of secrets) {
    const expected = Buffer.from(mac(key, timestamp, body).toString("hex"));
    for (const candidate of signatures) {
      const given = Buffer.from(candidate);
      matched = (given.length === expected.length && timingSafeEqual(given, expected)) || matched;
    }
  }
  if (!matched) throw new SignatureError("no signature matches this body and secret");
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new SignatureError("the signature is outside the tolerance (a replay?)");
  }
  return timestamp;
}
