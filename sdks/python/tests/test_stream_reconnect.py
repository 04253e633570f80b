"""The event stream helper across reconnects. The real local platform (one
stream per caller, ALYT_STREAMS_PER_CALLER=1) produces the stream cap's 429,
a 401 for a token it does not accept, a revoked session (sign-out ends the
open stream within its recheck) and a 400; its demo home's event history
gives real ids to resume from. A stub server stands in where the platform
cannot be made to act on demand: a connection dropped mid-way, a 500 or
503, a token that expires during a stream, a 403."""

import json
import time

import httpx
import pytest

from alyt_sdk import (
    AlytProblemError,
    CredentialRevokedError,
    EventStream,
    RetryPolicy,
    SessionToken,
    StreamEndedError,
)
from local_platform import RecordingSleep, local_platform, sign_in_owner, stub_server


def take(stream, n):
    """The first ``n`` events of ``stream``, which is closed after them."""
    events, iterator = [], iter(stream)
    try:
        for event in iterator:
            events.append(event)
            if len(events) == n:
                break
    finally:
        iterator.close()
        stream.close()
    return events


def ids(events):
    return [event.id for event in events]


def owner_streams(url):
    """The owner's home stream on the platform at ``url``, with ``options``."""
    owner = sign_in_owner(url)

    def stream(**options):
        options.setdefault("token", owner.access_token)
        # A stream closed just before may hold its slot a moment: no 30 s waits here.
        options.setdefault("retry", RetryPolicy(sleep=lambda seconds: time.sleep(min(seconds, 0.2))))
        return EventStream(url, property_id=owner.property_id, tenant_id=owner.tenant_id, **options)

    return stream


@pytest.fixture(scope="module")
def platform():
    with local_platform() as url:
        yield url, owner_streams(url)


@pytest.fixture(scope="module")
def one_stream_each():
    with local_platform(ALYT_STREAMS_PER_CALLER="1") as url:
        yield url, owner_streams(url)


def test_it_resumes_after_the_last_id_it_handed_out(platform):
    _, stream = platform
    reference = take(stream(), 8)
    first = take(stream(), 3)
    rest = take(stream(last_event_id=first[-1].id), 5)
    assert ids(first + rest) == ids(reference)
    assert len(set(ids(reference))) == 8


def test_the_stream_caps_429_is_waited_out_and_the_stream_starts_when_a_slot_frees(one_stream_each):
    _, stream = one_stream_each
    reference = take(stream(), 5)
    holder = stream()
    holding = iter(holder)
    next(holding)

    def let_go():
        holding.close()
        holder.close()
        time.sleep(0.1)

    retry_afters = []
    client = httpx.Client(
        timeout=httpx.Timeout(30, read=None),
        event_hooks={"response": [lambda response: retry_afters.append(response.headers.get("retry-after"))]},
    )
    sleep = RecordingSleep(then=let_go)
    events = take(stream(client=client, retry=RetryPolicy(sleep=sleep)), 5)
    assert ids(events) == ids(reference)
    refused = [float(seconds) for seconds in retry_afters if seconds is not None]
    assert refused and all(seconds >= 1 for seconds in refused)
    # The platform asks for when the slot frees at the latest; the helper waits at most 30 s.
    assert sleep.waits == [min(seconds, 30) for seconds in refused]


def test_a_refused_token_is_refreshed_through_the_refresh_endpoint(platform):
    url, stream = platform
    session = sign_in_owner(url)
    asked, refreshed = [], []
    # As after its expiry: a token the platform does not accept.
    tokens = SessionToken(url, session.access_token[:-4] + "AAAA", session.refresh_token,
                          on_refresh=lambda access, refresh: refreshed.append(refresh))

    def token(expired):
        asked.append(expired)
        return tokens(expired)

    sleep = RecordingSleep()
    assert len(take(stream(token=token, retry=RetryPolicy(sleep=sleep)), 3)) == 3
    assert asked == [False, True]
    assert len(refreshed) == 1 and refreshed[0] != session.refresh_token, "the refresh token rotated"
    assert sleep.waits == [], "a refresh is not a failure: no wait"


def test_a_revoked_session_ends_the_stream_typed_not_in_a_reconnect_loop(platform):
    url, stream = platform
    session = sign_in_owner(url)
    events = stream(token=SessionToken(url, session.access_token, session.refresh_token))
    iterator = iter(events)
    next(iterator)
    signed_out = httpx.post(f"{url}/v1/auth/logout", headers={"authorization": f"Bearer {session.access_token}"})
    assert signed_out.status_code == 204
    started = time.time()
    # The platform checks an open stream's caller every 5 s and ends it; the
    # reconnect is refused, and so is the refresh.
    with pytest.raises(CredentialRevokedError) as raised:
        for _ in iterator:
            pass
    assert isinstance(raised.value.problem, AlytProblemError)
    assert raised.value.problem.status == 401
    assert raised.value.last_event_id, "says where to resume"
    assert time.time() - started < 15
    events.close()

    # A fixed token: the first 401 is the end.
    sleep = RecordingSleep()
    with pytest.raises(CredentialRevokedError) as raised:
        take(stream(token=session.access_token, retry=RetryPolicy(sleep=sleep)), 1)
    assert raised.value.problem.type == "urn:alyt:problem:unauthorized"
    assert sleep.waits == []


def test_a_wrong_parameter_ends_the_stream_with_the_problem(platform):
    _, stream = platform
    sleep = RecordingSleep()
    with pytest.raises(StreamEndedError) as raised:
        take(stream(events=["no.such.kind"], retry=RetryPolicy(sleep=sleep)), 1)
    assert not isinstance(raised.value, CredentialRevokedError)
    assert (raised.value.problem.status, raised.value.problem.field) == (400, "events")
    assert sleep.waits == []


def test_a_connection_dropped_or_ended_is_resumed_from_the_last_id():
    # The platform never drops a connection on demand; the stub does.
    def answer(request, reply):
        reply.open_stream(retry_ms=250)
        if len(stub.requests) == 1:
            reply.events(1, 3)
            reply.drop()  # no last chunk: the body breaks off
        elif len(stub.requests) == 2:
            reply.events(4, 6)
            reply.end()
        else:
            reply.events(7, 9)
            reply.hold()

    with stub_server(answer) as stub:
        sleep = RecordingSleep()
        events = take(EventStream(stub.url, "t", retry=RetryPolicy(sleep=sleep, random=lambda: 0.5)), 9)
        assert ids(events) == [str(n) for n in range(1, 10)]
        assert [r.headers.get("last-event-id") for r in stub.requests] == [None, "3", "6"]
        # A dropped connection: a backoff from the stream's `retry:` (0.25 s,
        # jittered); a clean end: `retry:` itself.
        assert sleep.waits == [0.1875, 0.25]


def test_a_500_then_a_503_with_retry_after_are_waited_out():
    def answer(request, reply):
        n = len(stub.requests)
        if n == 1:
            reply.open_stream()
            reply.events(1, 2)
            return reply.end()
        if n == 2:
            return reply.problem(500, "internal")
        if n == 3:
            return reply.problem(503, "unavailable", {"retry-after": "3"})
        reply.open_stream()
        reply.events(int(request.headers["last-event-id"]) + 1, 4)
        reply.hold()

    with stub_server(answer) as stub:
        sleep = RecordingSleep()
        events = take(EventStream(stub.url, "t", retry=RetryPolicy(sleep=sleep, random=lambda: 0.5)), 4)
        assert ids(events) == ["1", "2", "3", "4"]
        # `retry:` after the clean end, a backoff after the 500, Retry-After after the 503.
        assert sleep.waits == [0.25, 0.1875, 3]
        assert stub.requests[-1].headers["last-event-id"] == "2"


def test_a_token_that_expires_during_the_stream_is_refreshed_at_the_reconnect():
    # The platform ends a session's stream when its access token expires
    # (15 minutes); the stub does it after two events.
    expired = []

    def answer(request, reply):
        token = request.headers["authorization"]
        if token == "Bearer t1" and expired:
            return reply.problem(401, "unauthorized")
        reply.open_stream()
        if token == "Bearer t1":
            reply.events(1, 2)
            expired.append(True)
            return reply.end()
        reply.events(int(request.headers["last-event-id"]) + 1, 4)
        reply.hold()

    asked, current = [], ["t1"]

    def token(refresh):
        asked.append(refresh)
        if refresh:
            current[0] = "t2"
        return current[0]

    with stub_server(answer) as stub:
        events = take(EventStream(stub.url, token, retry=RetryPolicy(sleep=RecordingSleep())), 4)
        assert ids(events) == ["1", "2", "3", "4"]
        assert asked == [False, False, True]
        assert [(r.headers["authorization"], r.headers.get("last-event-id")) for r in stub.requests] == [
            ("Bearer t1", None), ("Bearer t1", "2"), ("Bearer t2", "2"),
        ]


def test_a_token_function_without_arguments_is_asked_again_at_each_connection():
    def answer(request, reply):
        if request.headers["authorization"] != "Bearer fresh":
            return reply.problem(401, "unauthorized")
        reply.open_stream()
        reply.events(1, 1)
        reply.hold()

    tokens = iter(["stale", "fresh"])
    with stub_server(answer) as stub:
        assert ids(take(EventStream(stub.url, lambda: next(tokens)), 1)) == ["1"]
        assert len(stub.requests) == 2


def test_a_421_is_followed_to_the_host_its_location_names():
    # A hosted stack's HTTP API answers the stream with 421; no local platform does.
    def answer(request, reply):
        if not request.path.startswith("/streams/"):
            elsewhere = f"{stub.url}/streams/v1/developers/events/stream?events=device.online"
            body = {"type": "urn:alyt:problem:misdirected", "title": "Misdirected", "status": 421,
                    "detail": "elsewhere", "location": elsewhere}
            return reply.send(421, json.dumps(body).encode(), {"content-type": "application/problem+json"})
        reply.open_stream()
        reply.events(1, 1)
        reply.hold()

    with stub_server(answer) as stub:
        assert ids(take(EventStream(stub.url, "t", events=["device.online"]), 1)) == ["1"]
        assert [r.path for r in stub.requests] == [
            "/v1/developers/events/stream?events=device.online",
            "/streams/v1/developers/events/stream?events=device.online",
        ]


def test_after_max_reconnects_failures_in_a_row_the_stream_ends_typed():
    with stub_server(lambda _, reply: reply.problem(503, "unavailable")) as stub:
        sleep = RecordingSleep()
        with pytest.raises(StreamEndedError) as raised:
            take(EventStream(stub.url, "t", max_reconnects=2, retry=RetryPolicy(sleep=sleep, random=lambda: 0)), 1)
        assert raised.value.problem.status == 503
        assert len(stub.requests) == 3
        assert sleep.waits == [0.5, 1.0]  # doubling from the stream's 1 s (random 0: the fixed half)


def test_a_403_ends_the_stream_at_once():
    with stub_server(lambda _, reply: reply.problem(403, "forbidden")) as stub:
        with pytest.raises(CredentialRevokedError) as raised:
            take(EventStream(stub.url, lambda expired: "t"), 1)
        assert raised.value.problem.status == 403
        assert len(stub.requests) == 1
