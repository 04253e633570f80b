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
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, Optional
from urllib.parse import quote

import httpx

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
    session's access token or a key with ``events:read``. With
    ``property_id`` and ``tenant_id`` it reads that home's stream instead
    (anyone who sees the home; a key with ``things:read``).
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        events: Optional[Iterable[str]] = None,
        last_event_id: Optional[str] = None,
        max_reconnects: int = 10,
        timeout: float = 30.0,
        client: Optional[httpx.Client] = None,
        property_id: Optional[str] = None,
        tenant_id: Optional[str] = None,
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
        self._client = client or httpx.Client(timeout=httpx.Timeout(timeout, read=None))
        self._closed = False

    def close(self) -> None:
        self._closed = True
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

    def _headers(self) -> Dict[str, str]:
        headers = {"authorization": f"Bearer {self.token}", "accept": "text/event-stream"}
        if self.last_event_id:
            headers["last-event-id"] = self.last_event_id
        return headers

    def __iter__(self) -> Iterator[StreamEvent]:
        failures = 0
        url = self._url()
        while not self._closed:
            try:
                with self._client.stream(
                    "GET", url, params=self._params(), headers=self._headers()
                ) as response:
                    if response.status_code == 421:
                        # Another host streams (a hosted stack's function URL).
                        location = response.json().get("location", "")
                        url = location.split("?", 1)[0]
                        continue
                    if response.status_code != 200:
                        response.read()
                        raise httpx.HTTPStatusError(
                            f"the stream answered {response.status_code}: {response.text}",
                            request=response.request,
                            response=response,
                        )
                    failures = 0
                    for event in self._events(response.iter_lines()):
                        yield event
            except (httpx.TransportError, httpx.RemoteProtocolError):
                failures += 1
                if failures > self.max_reconnects:
                    raise
            if not self._closed:
                time.sleep(self.retry_seconds)

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
