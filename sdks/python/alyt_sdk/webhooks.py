"""Verifying Alyt webhook deliveries.

Every delivery carries ``X-SVC-Signature: t=<unix seconds>,v1=<hex>[,v1=...]``
(several ``v1`` while an endpoint's secret is being rotated): the hex is
HMAC-SHA256 keyed with the endpoint's secret (``whsec_...``, shown once when
the endpoint was made) over ``"<t>.<raw body>"``. A delivery is genuine when
one ``v1`` matches, compared in constant time, and ``t`` is within the
tolerance (five minutes) of now, so an old delivery cannot be replayed.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Optional, Sequence, Union

SIGNATURE_HEADER = "X-SVC-Signature"
TOLERANCE_SECONDS = 5 * 60
_MAX_HEADER_BYTES = 4096


class SignatureError(ValueError):
    """The delivery is not to be trusted; the message says why."""


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The header value Alyt sends for ``body`` at ``timestamp`` (for tests)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(
    body: Union[bytes, str],
    header: Optional[str],
    secret: Union[str, Sequence[str]],
    tolerance_seconds: int = TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> int:
    """Checks a delivery's raw ``body`` against its ``X-SVC-Signature`` header.

    Returns the signed timestamp; raises :class:`SignatureError` when the
    header is missing or malformed, no signature matches, or the timestamp
    is outside ``tolerance_seconds`` of ``now``. Pass the body exactly as
    received (before any JSON parsing). ``secret`` may be several: during a
    rotation's grace period a receiver may hold the new and the replaced
    one, and a delivery verifies when any of them signed it.
    """
    if isinstance(body, str):
        body = body.encode()
    if not header:
        raise SignatureError("no signature header")
    if len(header) > _MAX_HEADER_BYTES:
        raise SignatureError("the signature header is too long")
    timestamp: Optional[int] = None
    signatures = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            if not value.isdigit():
                raise SignatureError("the signature header's timestamp is not a number")
            timestamp = int(value)
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not signatures:
        raise SignatureError("the signature header is malformed")
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise SignatureError("no secret to verify with")
    # Every candidate is compared with every secret's MAC, in constant time,
    # whatever matched first.
    matched = False
    for key in secrets:
        expected = sign(key, timestamp, body).split("v1=", 1)[1]
        for candidate in signatures:
            matched |= hmac.compare_digest(candidate.encode(), expected.encode())
    if not matched:
        raise SignatureError("no signature matches this body and secret")
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_seconds:
        raise SignatureError("the signature is outside the tolerance (a replay?)")
    return timestamp
