"""The event streams, resumed across disconnects.

``GET /v1/developers/events/stream`` (and a home's,
``GET /v1/properties/{propertyId}/events/stream``) answers server-sent events whose data
is an event envelope; each carries an ``id``. A connection ends (the hosted
stream after about 15 minutes, or any network fault); this helper connects
again with ``Last-Event-ID`` set to the last id it handed out, so no event
is lost or repeated, and waits what the server's ``retry:`` asks between
attempts.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, Optional
from urllib.parse import quote

import httpx

from .client import TokenSource, call_token
from .errors import AlytProblemError, CredentialRevokedError, StreamEndedError
from .retry import RetryPolicy

STREAM_PATH = "/v1/developers/events/stream"


def home_stream_path(property_id: str) -> str:
    """A home's stream: only the events about that home's things."""
    return f"/v1/properties/{quote(property_id, safe='')}/events/stream"


@dataclass
class StreamEvent:
    id: str
    kind: str
    envelope: Dict[str, Any]


class EventStream:
    """Iterates the events of the stream, reconnecting as needed.

    ``base_url`` is the stream's host (locally the platform's own; hosted,
    the stack's EventStreamUrl: the HTTP API answers this path with 421 and
    a ``location``, which is followed once). ``token`` is a developer
    session's access token or a key with ``events:read``, or a function
    answering one, asked at every connection and once more with ``expired``
    True (when it takes an argument) after a 401: refresh the session there,
    e.g. with :class:`SessionToken`; None means there is none. With
    ``property_id`` and ``tenant_id`` it reads that home's stream instead
    (anyone who sees the home; a key with ``things:read``).

    A connection the server ends is resumed after its ``retry:``; a 429, a
    5xx or a network fault after a backoff (doubling from ``retry:``, with
    jitter, up to ``retry.max_delay``; a ``Retry-After`` as sent, up to
    that). Iterating raises :class:`CredentialRevokedError` when the
    credential stops working (a 401 a fresh token did not cure, a 403) and
    :class:`StreamEndedError` on another refusal (a 400) or after
    ``max_reconnects`` failed connections in a row.
    """

    def __init__(
        self,
        base_url: str,
        token: TokenSource,
        events: Optional[Iterable[str]] = None,
        last_event_id: Optional[str] = None,
        max_reconnects: int = 10,
        timeout: float = 30.0,
        client: Optional[httpx.Client] = None,
        property_id: Optional[str] = None,
        tenant_id: Optional[str] = None,
        retry: Optional[RetryPolicy] = None,
    ) -> None:
        if (property_id is None) != (tenant_id is None):
            raise ValueError("a home's stream needs both property_id and tenant_id")
        self.base_url = base_url.rstrip("/")
        self.property_id = property_id
        self.tenant_id = tenant_id
        self.token = token
        self.events = list(events) if events else None
        self.last_event_id = last_event_id
        self.max_reconnects = max_reconnects
        self.retry_seconds = 1.0
        self._policy = retry or RetryPolicy()
        # The default sleep wakes up at close().
        self._closing = threading.Event()
        self._sleep: Callable[[float], Any] = (
            self._closing.wait if self._policy.sleep is time.sleep else self._policy.sleep
        )
        self._client = client or httpx.Client(timeout=httpx.Timeout(timeout, read=None))
        self._closed = False

    def close(self) -> None:
        self._closed = True
        self._closing.set()
        self._client.close()

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _url(self) -> str:
        if self.property_id is not None:
            return self.base_url + home_stream_path(self.property_id)
        return self.base_url + STREAM_PATH

    def _params(self) -> Dict[str, str]:
        params = {"tenantId": self.tenant_id} if self.tenant_id is not None else {}
        if self.events:
            params["events"] = ",".join(self.events)
        return params

    def _headers(self, token: Optional[str] = None) -> Dict[str, str]:
        if token is None:
            token = call_token(self.token, False)
        headers = {"authorization": f"Bearer {token}", "accept": "text/event-stream"}
        if self.last_event_id:
            headers["last-event-id"] = self.last_event_id
        return headers

    def __iter__(self) -> Iterator[StreamEvent]:
        url = self._url()
        self._failures = 0
        # The 401 that asked for a fresh token (until a connection
        # succeeds): a second one means the credential is gone.
        refused: Optional[AlytProblemError] = None
        ask_fresh = False
        while not self._closed:
            try:
                token = call_token(self.token, ask_fresh)
            except (httpx.TransportError, AlytProblemError) as error:
                self._failed(error)  # the refresh itself failed: try again later
                continue
            ask_fresh = False
            if not token:
                raise CredentialRevokedError(
                    "the stream's credential was refused and no fresh token is at hand",
                    problem=refused,
                    last_event_id=self.last_event_id,
                )
            problem: Optional[AlytProblemError] = None
            try:
                with self._client.stream("GET", url, params=self._params(), headers=self._headers(token)) as response:
                    if response.status_code == 200:
                        refused, self._failures = None, 0
                        yield from self._events(response.iter_lines())
                    else:
                        response.read()
                        problem = AlytProblemError.from_response(response)
            except httpx.TransportError as error:
                if self._closed:
                    return
                self._failed(error)
                continue
            if problem is None:
                # The server ended the connection (its time limit, a new
                # token due): back after what its ``retry:`` asked.
                self._sleep(self.retry_seconds)
            elif problem.status == 421 and self._elsewhere(problem) not in (None, url):
                url = self._elsewhere(problem)  # another host streams (a hosted stack's function URL)
            elif problem.status == 401 and refused is None and not isinstance(self.token, str):
                refused, ask_fresh = problem, True  # an expired token: ask for a fresh one, once, at once
            elif problem.status in (401, 403):
                raise CredentialRevokedError(
                    f"the stream's credential was refused: {problem}", problem, self.last_event_id
                )
            elif problem.status == 429 or problem.status >= 500:
                self._failed(problem, problem.retry_after)
            else:
                raise StreamEndedError(f"the stream was refused: {problem}", problem, self.last_event_id)

    @staticmethod
    def _elsewhere(problem: AlytProblemError) -> Optional[str]:
        location = problem.body.get("location") if isinstance(problem.body, dict) else None
        return location.split("?", 1)[0] if isinstance(location, str) and location else None

    def _failed(self, error: Exception, wait: Optional[float] = None) -> None:
        """Counts a failed connection and waits before the next, or gives up."""
        self._failures += 1
        if self._failures > self.max_reconnects:
            problem = error if isinstance(error, AlytProblemError) else None
            raise StreamEndedError(
                f"the stream failed {self._failures} times in a row: {error}", problem, self.last_event_id
            ) from error
        if wait is None:
            wait = self._policy.backoff(self._failures - 1, base=self.retry_seconds)
        self._sleep(min(wait, self._policy.max_delay))

    def _events(self, lines: Iterable[str]) -> Iterator[StreamEvent]:
        kind, event_id, data = None, None, []
        for line in lines:
            if line == "":
                if data and event_id is not None:
                    self.last_event_id = event_id
                    yield StreamEvent(event_id, kind or "message", json.loads("\n".join(data)))
                kind, event_id, data = None, None, []
            elif line.startswith(":"):
                continue  # a comment (keep-alive)
            else:
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "event":
                    kind = value
                elif field == "id":
                    event_id = value
                elif field == "data":
                    data.append(value)
                elif field == "retry" and value.isdigit():
                    self.retry_seconds = int(value) / 1000
