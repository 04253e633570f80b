"""The stream helper's reading of server-sent events: ids carried on for
resuming, the server's retry honoured, comments skipped."""

from alyt_sdk.stream import EventStream


def test_events_are_parsed_and_the_last_id_kept_for_resuming():
    stream = EventStream("http://127.0.0.1:1", "token", events=["device.online"])
    lines = [
        "retry: 2500",
        ": connected",
        "",
        "event: device.online",
        "id: 1780315200000000-00000001",
        'data: {"id":"1780315200000000-00000001","type":"device.online","data":{}}',
        "",
        "event: device.online",
        "id: 1780315200000000-00000002",
        'data: {"id":"1780315200000000-00000002",',
        'data: "type":"device.online","data":{"deviceId":"d1"}}',
        "",
    ]
    events = list(stream._events(lines))
    assert [e.id for e in events] == ["1780315200000000-00000001", "1780315200000000-00000002"]
    assert events[1].envelope["data"] == {"deviceId": "d1"}
    assert stream.last_event_id == "1780315200000000-00000002"
    assert stream.retry_seconds == 2.5
    assert stream._headers()["last-event-id"] == "1780315200000000-00000002"
    stream.close()


def test_a_homes_stream_reads_the_homes_path_with_its_tenant():
    stream = EventStream(
        "http://127.0.0.1:1/", "token", events=["thing.state"], property_id="p-1", tenant_id="t-1"
    )
    assert stream._url() == "http://127.0.0.1:1/v1/properties/p-1/events/stream"
    assert stream._params() == {"tenantId": "t-1", "events": "thing.state"}
    stream.close()
    developer = EventStream("http://127.0.0.1:1", "token")
    assert developer._url() == "http://127.0.0.1:1/v1/developers/events/stream"
    assert developer._params() == {}
    developer.close()
