"""Typed failures and retries of the client (alyt_sdk.create_client over
the generated alyt_client). Problem bodies, an undocumented status and a
spent rate limit (429 with Retry-After) come from the real local platform;
a stub server stands in where the platform cannot be made to answer so on
demand: a 500 with an HTML body, a 503 with Retry-After, a dropped
connection."""

import asyncio
import email.utils
import time

import httpx
import pytest

from alyt_client.api.auth import get_me, refresh
from alyt_client.api.homes import get_capabilities
from alyt_client.models import RefreshRequest
from alyt_sdk import AlytProblemError, RetryPolicy, create_client, retry_after_seconds
from local_platform import RecordingSleep, local_platform, stub_server


class Recording(httpx.BaseTransport):
    """The network under the retries: every attempt's Retry-After."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.retry_afters = []

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        self.retry_afters.append(response.headers.get("retry-after"))
        return response


@pytest.fixture(scope="module")
def platform():
    with local_platform() as url:
        yield url


def test_a_refused_token_is_a_typed_401_with_the_platforms_problem(platform):
    with pytest.raises(AlytProblemError) as raised:
        get_me.sync_detailed(client=create_client(platform, "not-a-token"))
    error = raised.value
    assert error.status == 401
    assert error.type == "urn:alyt:problem:unauthorized"
    assert error.title == "Authentication required"
    assert "Bearer" in error.detail
    assert len(error.request_id) == 36
    assert error.retry_after is None


def test_a_validation_problem_names_its_field(platform):
    # A body the generated models cannot even build (no password): through
    # the same httpx client the generated operations use.
    api = create_client(platform)
    with pytest.raises(AlytProblemError) as raised:
        api.get_httpx_client().post("/v1/auth/login", json={"email": "x@example.com"})
    assert (raised.value.status, raised.value.type, raised.value.field) == (400, "urn:alyt:problem:validation", "body")
    assert "password" in raised.value.detail


def test_raise_on_error_false_keeps_the_generated_behaviour(platform):
    answer = get_me.sync_detailed(client=create_client(platform, "not-a-token", raise_on_error=False))
    assert answer.status_code == 401


@pytest.fixture(scope="module")
def limited():
    # Three requests per two seconds: the platform's own 429 and Retry-After.
    with local_platform(ALYT_RATE_LIMIT_QUOTA="3", ALYT_RATE_LIMIT_WINDOW_SECONDS="2") as url:
        yield url


def test_a_spent_rate_limit_is_a_typed_429_and_retries_wait_retry_after(limited):
    once = create_client(limited, retry=None)

    def spend():
        for _ in range(20):
            try:
                get_capabilities.sync_detailed(client=once)
            except AlytProblemError as error:
                return error
        raise AssertionError("the rate limit was never spent")

    refused = spend()
    assert (refused.status, refused.type) == (429, "urn:alyt:problem:rate-limited")
    assert refused.retry_after in (1, 2)  # the seconds until the window resets

    # While the limit is spent, the retrying client waits what it is told, for real.
    for round in range(4):
        sleep, network = RecordingSleep(real=5), Recording()
        api = create_client(limited, retry=RetryPolicy(sleep=sleep), httpx_args={"transport": network})
        assert get_capabilities.sync_detailed(client=api).status_code == 200
        if len(network.retry_afters) == 1 and round < 3:
            time.sleep(2)  # the window turned over since spend(): again
            spend()
            continue
        assert 2 <= len(network.retry_afters) <= 4
        asked = [float(seconds) for seconds in network.retry_afters[:-1]]
        assert all(seconds >= 1 for seconds in asked)
        assert sleep.waits == asked, "each wait is the server's Retry-After"
        assert network.retry_afters[-1] is None
        break


def test_a_500_whose_body_is_not_a_problem_keeps_status_and_excerpt_and_is_not_retried():
    def answer(_, reply):
        reply.send(500, b"<html><body>Internal error at the proxy</body></html>", {"content-type": "text/html"})

    with stub_server(answer) as stub:
        with pytest.raises(AlytProblemError) as raised:
            get_capabilities.sync_detailed(client=create_client(stub.url, "t"))
        error = raised.value
        assert (error.status, error.type, error.title) == (500, "about:blank", "Internal Server Error")
        assert "Internal error at the proxy" in error.detail
        assert len(stub.requests) == 1


def test_a_503_is_retried_after_retry_after_a_post_too_with_its_body():
    def answer(request, reply):
        if len(stub.requests) < 3:
            return reply.problem(503, "unavailable", {"retry-after": "2"})
        reply.send(200, b'{"accessToken":"a","refreshToken":"r","expiresIn":900}', {"content-type": "application/json"})

    with stub_server(answer) as stub:
        sleep = RecordingSleep()
        api = create_client(stub.url, retry=RetryPolicy(sleep=sleep))
        pair = refresh.sync(client=api, body=RefreshRequest(refresh_token="rt_1"))
        assert pair.access_token == "a"
        assert sleep.waits == [2, 2]
        assert [r.body for r in stub.requests] == [b'{"refreshToken":"rt_1"}'] * 3


def test_backoff_without_retry_after_then_the_typed_503_and_an_http_date():
    def answer(request, reply):
        at = email.utils.formatdate(time.time() + 5, usegmt=True)
        reply.problem(503, "unavailable", {"retry-after": at} if "dated" in request.path else {})

    with stub_server(answer) as stub:
        sleep = RecordingSleep()
        api = create_client(stub.url, "t", retry=RetryPolicy(sleep=sleep, random=lambda: 0.5))
        with pytest.raises(AlytProblemError) as raised:
            get_capabilities.sync_detailed(client=api)
        assert (raised.value.status, raised.value.request_id) == (503, "stub-1")
        # 0.5 s doubled at each retry, half of it jittered (random 0.5 here).
        assert sleep.waits == [0.375, 0.75, 1.5]
        assert len(stub.requests) == 4

        dated = RecordingSleep()
        api = create_client(stub.url, "t", retry=RetryPolicy(retries=1, sleep=dated))
        with pytest.raises(AlytProblemError):
            api.get_httpx_client().get("/v1/capabilities?dated=1")
        # An HTTP date has whole seconds: 4 to 5 s from the answer.
        assert 3 < dated.waits[0] <= 5


def test_a_retry_after_longer_than_max_delay_is_not_waited_for():
    with stub_server(lambda _, reply: reply.problem(429, "rate-limited", {"retry-after": "120"})) as stub:
        sleep = RecordingSleep()
        api = create_client(stub.url, "t", retry=RetryPolicy(sleep=sleep, max_delay=30))
        with pytest.raises(AlytProblemError) as raised:
            get_capabilities.sync_detailed(client=api)
        assert raised.value.retry_after == 120
        assert sleep.waits == []
        assert len(stub.requests) == 1


def test_a_dropped_connection_retries_a_get_never_a_post():
    def answer(_, reply):
        if len(stub.requests) % 3 != 0:
            return reply.drop()
        reply.send(200, b"{}", {"content-type": "application/json"})

    with stub_server(answer) as stub:
        sleep = RecordingSleep()
        api = create_client(stub.url, "t", retry=RetryPolicy(sleep=sleep))
        api.get_httpx_client().get("/v1/capabilities")
        assert len(stub.requests) == 3
        assert len(sleep.waits) == 2

        # The POST may have been applied: sent once, httpx's error as is.
        with pytest.raises(httpx.TransportError):
            refresh.sync_detailed(client=api, body=RefreshRequest(refresh_token="rt"))
        assert len(stub.requests) == 4

        with pytest.raises(httpx.TransportError):
            create_client(stub.url, "t", retry=None).get_httpx_client().get("/v1/capabilities")
        assert len(stub.requests) == 5


def test_the_asyncio_client_retries_and_raises_alike():
    def answer(_, reply):
        if len(stub.requests) == 1:
            return reply.problem(503, "unavailable", {"retry-after": "1"})
        reply.problem(500, "internal")

    async def call(api):
        with pytest.raises(AlytProblemError) as raised:
            await get_capabilities.asyncio_detailed(client=api)
        return raised.value

    with stub_server(answer) as stub:
        sleep = RecordingSleep()
        error = asyncio.run(call(create_client(stub.url, "t", retry=RetryPolicy(async_sleep=sleep.asleep))))
        assert (error.status, error.type) == (500, "urn:alyt:problem:internal")
        assert sleep.waits == [1]
        assert len(stub.requests) == 2


def test_retry_after_seconds_and_http_dates():
    now = 1_767_225_600  # 2026-01-01T00:00:00Z
    assert retry_after_seconds("7", now) == 7
    assert retry_after_seconds("Thu, 01 Jan 2026 00:00:09 GMT", now) == 9
    assert retry_after_seconds("Wed, 31 Dec 2025 00:00:00 GMT", now) == 0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None, now) is None
