"""Retrying what is safe to retry: a 429 or 503 (the server refused before
acting, so any method), and a request that got no answer at all when its
method is idempotent (a POST or PATCH may have been applied: never
repeated). Waits grow exponentially with jitter, so many clients refused at
once do not come back at once; a ``Retry-After`` is honoured as sent.

The retries live in an httpx transport, under the client's event hooks: the
hooks see only the final answer.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Optional

import httpx

from .errors import retry_after_seconds

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
# Statuses by which the server refused before acting.
RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    """How to retry. ``retries`` after the first attempt (0: never); waits
    start at ``base_delay`` seconds and double, up to ``max_delay``. A
    request whose ``Retry-After`` asks for more than ``max_delay`` is not
    retried: its error carries ``retry_after``. ``sleep``, ``async_sleep``
    and ``random`` are there for tests."""

    retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    async_sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)
    random: Callable[[], float] = field(default=random.random, compare=False)

    def backoff(self, attempt: int, base: Optional[float] = None) -> float:
        """The wait before retry ``attempt`` (0 for the first): half of
        ``base * 2**attempt`` (capped) fixed, the other half random."""
        ceiling = min(self.max_delay, (self.base_delay if base is None else base) * 2**attempt)
        return ceiling / 2 + ceiling / 2 * self.random()

    def wait_after(self, response: httpx.Response, attempt: int) -> Optional[float]:
        """Seconds to wait before retrying after ``response``, or None: not retried."""
        if response.status_code not in RETRY_STATUSES:
            return None
        asked = retry_after_seconds(response.headers.get("retry-after"))
        if asked is None:
            return self.backoff(attempt)
        # Waiting less than asked would only be refused again.
        return asked if asked <= self.max_delay else None


class RetryTransport(httpx.BaseTransport):
    """``transport`` with the retries of ``policy``."""

    def __init__(self, transport: httpx.BaseTransport, policy: RetryPolicy) -> None:
        self._transport = transport
        self._policy = policy

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            last = attempt >= self._policy.retries
            try:
                response = self._transport.handle_request(request)
            except httpx.TransportError:
                if last or request.method not in IDEMPOTENT_METHODS:
                    raise
                self._policy.sleep(self._policy.backoff(attempt))
            else:
                wait = None if last else self._policy.wait_after(response, attempt)
                if wait is None:
                    return response
                response.close()
                self._policy.sleep(wait)
            attempt += 1

    def close(self) -> None:
        self._transport.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    """The asyncio twin of :class:`RetryTransport`."""

    def __init__(self, transport: httpx.AsyncBaseTransport, policy: RetryPolicy) -> None:
        self._transport = transport
        self._policy = policy

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            last = attempt >= self._policy.retries
            try:
                response = await self._transport.handle_async_request(request)
            except httpx.TransportError:
                if last or request.method not in IDEMPOTENT_METHODS:
                    raise
                await self._policy.async_sleep(self._policy.backoff(attempt))
            else:
                wait = None if last else self._policy.wait_after(response, attempt)
                if wait is None:
                    return response
                await response.aclose()
                await self._policy.async_sleep(wait)
            attempt += 1

    async def aclose(self) -> None:
        await self._transport.aclose()
