"""The SDK's typed failures.

Every platform error is a problem body (RFC 9457: ``type``, ``title``,
``status``, ``detail``, ``field``, ``requestId``, sent as
``application/problem+json``); :class:`AlytProblemError` carries it, and
also stands for answers that are not problems (a proxy's HTML page, an
undocumented status): the status is kept and ``detail`` is a body excerpt.

A request that got no answer raises httpx's own ``httpx.TransportError``
(``ConnectError``, ``ReadError``, ``RemoteProtocolError``...), as is.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Mapping, Optional

import httpx

UNTYPED_PROBLEM = "about:blank"
_EXCERPT_CHARS = 500


class AlytProblemError(Exception):
    """A non-2xx answer of the platform.

    ``type`` is a stable identifier of the kind of problem (e.g.
    ``urn:alyt:problem:rate-limited``); ``field`` the request field at fault;
    ``request_id`` the request's id in the platform's logs; ``retry_after``
    the seconds the server asked to wait (``Retry-After``), or None; ``body``
    the parsed body (extra members such as ``location`` included) or its text.
    """

    def __init__(
        self,
        status: int,
        type: str = UNTYPED_PROBLEM,
        title: Optional[str] = None,
        detail: str = "",
        field: Optional[str] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        body: Any = None,
    ) -> None:
        self.status = status
        self.type = type
        self.title = title or f"HTTP {status}"
        self.detail = detail
        self.field = field
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body
        super().__init__(f"{status} {self.title}" + (f": {detail}" if detail else ""))

    @classmethod
    def from_parts(
        cls, status: int, headers: Mapping[str, str], text: str, reason: str = ""
    ) -> "AlytProblemError":
        """The problem of an answer, from its status, headers and body text."""
        request_id = headers.get("x-request-id")
        retry_after = retry_after_seconds(headers.get("retry-after"))
        try:
            body: Any = json.loads(text)
        except ValueError:
            body = text
        if not _is_problem(body):
            excerpt = text.strip()[:_EXCERPT_CHARS]
            return cls(status, title=reason or None, detail=excerpt, request_id=request_id,
                       retry_after=retry_after, body=body)
        return cls(
            status,
            type=body["type"],
            title=body["title"],
            detail=str(body.get("detail", "")),
            field=body.get("field"),
            request_id=body.get("requestId") or request_id,
            retry_after=retry_after,
            body=body,
        )

    @classmethod
    def from_response(cls, response: httpx.Response) -> "AlytProblemError":
        """The problem of a (non-2xx) response whose body was read."""
        return cls.from_parts(response.status_code, response.headers, response.text, response.reason_phrase)


def _is_problem(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and isinstance(body.get("type"), str)
        and isinstance(body.get("title"), str)
        and isinstance(body.get("status"), int)
    )


class StreamEndedError(Exception):
    """An event stream stopped for good: ``problem`` is the platform's
    answer when it gave one; resume later from ``last_event_id``."""

    def __init__(
        self,
        message: str,
        problem: Optional[AlytProblemError] = None,
        last_event_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.problem = problem
        self.last_event_id = last_event_id


class CredentialRevokedError(StreamEndedError):
    """The stream's credential no longer works (a 401 that a fresh token did
    not cure, or a 403): sign in again, or issue a new key."""


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` in seconds from ``now``: delta-seconds or an HTTP date
    (never negative); None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if at.tzinfo is None:
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))
