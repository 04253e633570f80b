"""A developer in the console: sign in, a key whose secret is shown once,
a webhook endpoint whose test delivery arrives and is listed with its
response code and signed payload. (The shared developer is signed up and
verified through the API; the console's own sign-up page, with its bot-check
widget, and MFA have a test of their own.)"""

import json
import threading
import time
import urllib.request
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from playwright.sync_api import expect

from conftest import (
    AWS_ACCOUNT,
    AWS_REGION,
    OWNER,
    OWNER_PASSWORD,
    check_page,
    mailed_link,
    screenshot,
    sign_in,
    stand_in_for_turnstile,
    verification_link,
)

EMAIL = "console.dev@example.com"
PASSWORD = "a console developer password"


@pytest.fixture(scope="module")
def developer(platform):
    status, body = platform.call(
        "POST",
        "/v1/developers/auth/signup",
        {
            "email": EMAIL,
            "password": PASSWORD,
            "displayName": "Console Dev",
            "type": "INDIVIDUAL",
            "botToken": "XXXX.DUMMY.TOKEN.XXXX",
        },
    )
    assert status == 202, body
    with urllib.request.urlopen(verification_link(platform, EMAIL)) as response:
        assert response.status == 200
    return EMAIL


class Receiver(BaseHTTPRequestHandler):
    # The bodies it answered 200 to, in order.
    received = []
    # Paths it is down at (answers 503 to, keeping nothing).
    down = set()

    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        if self.path in Receiver.down:
            self.send_response(503)
            self.end_headers()
            return
        Receiver.received.append(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_):
        pass


@pytest.fixture(scope="module")
def receiver():
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hooks"
    server.shutdown()


def developer_sign_in(page, platform):
    page.goto(platform.url + "/#/developer/signin")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Keys").wait_for()


def test_a_new_key_shows_its_secret_once(page, platform, developer):
    developer_sign_in(page, platform)
    form = page.get_by_role("form", name="Create a key")
    form.get_by_label("Name").fill("console key")
    form.get_by_label("devices:read").check()
    form.get_by_label("events:read").check()
    form.get_by_role("button", name="Create key").click()
    secret = page.get_by_role("region", name="New secret").locator("[data-secret]")
    expect(secret).to_contain_text("svc_dev_")
    value = secret.text_content()
    assert value.startswith("svc_dev_"), value
    row = page.get_by_role("row").filter(has_text="console key")
    expect(row).to_contain_text("devices:read, events:read")
    screenshot(page, "developer-keys")

    # The secret works, and is never shown again.
    status, me = platform.call("GET", "/v1/developers/whoami", token=value)
    assert status == 200, me
    page.get_by_role("button", name="I have stored it").click()
    expect(page.get_by_role("region", name="New secret")).to_have_count(0)
    page.reload()
    page.get_by_role("heading", name="Keys").wait_for()
    assert value not in page.content()

    # Revoked: the secret stops working.
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Revoke console key").click()
    for _ in range(50):
        status, _ = platform.call("GET", "/v1/developers/whoami", token=value)
        if status == 401:
            break
        time.sleep(0.1)
    assert status == 401
    expect(row).to_contain_text("revoked")
    expect(page.get_by_role("alert")).to_have_count(0)


def test_a_webhook_test_is_delivered_and_listed(page, platform, developer, receiver):
    developer_sign_in(page, platform)
    keys = page.get_by_role("form", name="Create a key")
    keys.get_by_label("Name").fill("hooks key")
    keys.get_by_label("webhooks:write").check()
    keys.get_by_role("button", name="Create key").click()
    page.get_by_role("button", name="I have stored it").click()

    page.get_by_role("link", name="Webhooks").click()
    form = page.get_by_role("form", name="Add an endpoint")
    expect(form.get_by_label("Key it speaks for")).to_contain_text("hooks key")
    form.get_by_label("URL").fill(receiver)
    form.get_by_label("webhook.ping").check()
    form.get_by_role("button", name="Add endpoint").click()
    secret = page.get_by_role("region", name="New secret").locator("[data-secret]")
    expect(secret).to_contain_text("whsec_")
    page.get_by_role("button", name="I have stored it").click()

    endpoint = page.get_by_role("article", name=receiver)
    endpoint.get_by_role("button", name="Send a test").click()
    # The delivery shows pending, then delivered with no reload and no
    # button pressed: the list is read again while one is on its way.
    delivered = endpoint.locator('tr[data-status="delivered"]')
    expect(delivered).to_have_count(1, timeout=15000)
    expect(delivered).to_contain_text("webhook.ping")
    expect(delivered).to_contain_text("200")
    # The payload shown is the body the receiver got, byte for byte.
    delivered.get_by_text("Signed payload").click()
    shown = delivered.locator("pre").text_content()
    assert Receiver.received and Receiver.received[-1].decode() == shown
    screenshot(page, "developer-webhooks")


def test_an_endpoint_secret_is_rotated_and_a_delivery_replayed(page, platform, developer, receiver):
    status, session = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    assert status == 200, session
    token = session["accessToken"]
    status, key = platform.call("POST", "/v1/developers/keys", {"name": "rotation key", "scopes": ["webhooks:write"]}, token=token)
    assert status == 201, key
    url = receiver + "/rotate"
    status, created = platform.call(
        "POST", "/v1/developers/webhooks", {"url": url, "events": ["webhook.ping"], "keyId": key["id"]}, token=token
    )
    assert status == 201, created

    developer_sign_in(page, platform)
    page.get_by_role("navigation", name="Developer").get_by_role("link", name="Webhooks").click()
    endpoint = page.get_by_role("article", name=url)
    # Rotated: the new secret shown once, and until when the old one still signs.
    endpoint.get_by_role("button", name=f"Rotate the secret of {url}").click()
    secret = page.get_by_role("region", name="New secret").locator("[data-secret]")
    expect(secret).to_contain_text("whsec_")
    assert secret.text_content() != created["secret"]
    page.get_by_role("button", name="I have stored it").click()
    expect(endpoint.locator("[data-grace-ends]")).to_contain_text("also signs deliveries until")

    # A delivery sent again from the log: the same body, a second attempt.
    endpoint.get_by_role("button", name="Send a test").click()
    delivered = endpoint.locator('tr[data-status="delivered"]')
    expect(delivered).to_have_count(1, timeout=15000)
    expect(delivered.locator('td[data-label="Attempts"]')).to_have_text("1")
    before = len(Receiver.received)
    delivered.get_by_role("button", name="Replay webhook.ping", exact=False).click()
    expect(delivered.locator('td[data-label="Attempts"]')).to_have_text("2", timeout=15000)
    expect(page.get_by_role("alert")).to_have_count(0)
    assert len(Receiver.received) == before + 1
    assert Receiver.received[-1] == Receiver.received[-2]
    screenshot(page, "developer-webhook-rotated")


def test_an_endpoint_that_was_down_is_recovered_and_re_enabled_with_a_recovery(page, platform, developer, receiver):
    """A receiver that was down misses an event (its delivery waits 30 s
    for a retry); a recovery started in the console sends it again at once,
    and its progress is read until done. A time in the future is refused
    at the field, in the API's words; a re-enable can recover too. (A test
    ping is not in the event log, so the event is a command's result.)"""
    status, session = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    assert status == 200, session
    token = session["accessToken"]
    status, key = platform.call(
        "POST", "/v1/developers/keys", {"name": "recovery key", "scopes": ["webhooks:write", "devices:commands"]}, token=token
    )
    assert status == 201, key
    url = receiver + "/recover"
    status, created = platform.call(
        "POST", "/v1/developers/webhooks", {"url": url, "events": ["command.result"], "keyId": key["id"]}, token=token
    )
    assert status == 201, created
    webhook_id = created["id"]

    def deliveries():
        status, body = platform.call("GET", f"/v1/developers/webhooks/{webhook_id}/deliveries", token=token)
        assert status == 200, body
        return body["items"]

    # The receiver is down when the sandbox hub answers a command.
    status, me = platform.call("GET", "/v1/developers/me", token=token)
    assert status == 200, me
    tenant = me["sandboxTenantId"]
    status, devices = platform.call("GET", f"/v1/developers/simulator/devices?tenantId={tenant}", token=token)
    assert status == 200, devices
    hub = next(d["device"]["id"] for d in devices["items"] if d["profile"] == "HUB")
    Receiver.down.add("/hooks/recover")
    try:
        status, sent = platform.call(
            "POST", f"/v1/devices/{hub}/commands?tenantId={tenant}", {"command": "dance"}, token=key["secret"]
        )
        assert status == 202, sent
        for _ in range(150):
            if [d["status"] for d in deliveries()] == ["retrying"]:
                break
            time.sleep(0.1)
        assert [d["status"] for d in deliveries()] == ["retrying"], deliveries()

        developer_sign_in(page, platform)
        page.get_by_role("navigation", name="Developer").get_by_role("link", name="Webhooks").click()
        endpoint = page.get_by_role("article", name=url)
        since = endpoint.get_by_label("Recover what it missed since")
        expect(since).to_be_visible()
        # Never recovered: no progress is shown.
        expect(endpoint.locator("[data-recovery]")).to_have_count(0)
        # A time in the future: refused at the field, in the API's words.
        since.fill((datetime.now() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M"))
        endpoint.get_by_role("button", name=f"Recover {url}").click()
        expect(endpoint.get_by_role("alert")).to_contain_text("since is in the future")
        expect(since).to_have_attribute("aria-invalid", "true")
        expect(page.get_by_role("alert")).to_have_count(1)
        expect(endpoint.locator("[data-recovery]")).to_have_count(0)
    finally:
        Receiver.down.discard("/hooks/recover")

    # Up again: recovered since an hour ago, the missed event is sent at
    # once (not at its retry), and the progress is read until done.
    before = len(Receiver.received)
    since.fill((datetime.now() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"))
    endpoint.get_by_role("button", name=f"Recover {url}").click()
    expect(page.get_by_role("alert")).to_have_count(0)
    progress = endpoint.locator("[data-recovery]")
    expect(progress).to_have_attribute("data-recovery", "done", timeout=15000)
    expect(progress).to_contain_text("Recovery done: matched 1, resent 1, already delivered 0")
    expect(progress).to_contain_text("finished")
    delivered = endpoint.locator('tr[data-status="delivered"]')
    expect(delivered).to_have_count(1, timeout=15000)
    expect(delivered).to_contain_text("command.result")
    assert len(Receiver.received) == before + 1
    assert json.loads(Receiver.received[-1])["type"] == "command.result"
    status, recovery = platform.call("GET", f"/v1/developers/webhooks/{webhook_id}/recovery", token=token)
    assert status == 200, recovery
    assert (recovery["status"], recovery["matched"], recovery["queued"], recovery["skipped"]) == ("done", 1, 1, 0), recovery
    screenshot(page, "developer-webhook-recovered")

    # Disabled, then enabled with a recovery of what it missed: from the
    # last event it got, which it is not sent again.
    endpoint.get_by_role("button", name=f"Disable {url}").click()
    expect(endpoint.locator("header [data-status]")).to_have_text("Disabled (by you)")
    expect(endpoint.get_by_label("Recover what it missed since")).to_have_count(0)
    endpoint.get_by_label("Also recover what it missed").check()
    endpoint.get_by_role("button", name=f"Enable {url}").click()
    expect(endpoint.locator("header [data-status]")).to_have_text("Active")
    expect(progress).to_contain_text("Recovery done: matched 1, resent 0, already delivered 1", timeout=15000)
    expect(endpoint.get_by_label("Also recover what it missed")).to_have_count(0)
    status, again = platform.call("GET", f"/v1/developers/webhooks/{webhook_id}/recovery", token=token)
    assert status == 200, again
    started = [datetime.fromisoformat(r["startedAt"]) for r in (recovery, again)]
    assert started[1] > started[0], (again, recovery)
    assert len(Receiver.received) == before + 1, "nothing arrives twice"
    expect(page.get_by_role("alert")).to_have_count(0)


def bus_with_queue(aws, name):
    """A bus on moto whose every entry lands in a queue of its own (a rule
    matching any source, targeting the queue): the bus's ARN and the queue's
    URL."""
    events, sqs = aws("events"), aws("sqs")
    bus = events.create_event_bus(Name=name)["EventBusArn"]
    queue = sqs.create_queue(QueueName=name)["QueueUrl"]
    events.put_rule(Name="everything", EventBusName=name, EventPattern=json.dumps({"source": [{"prefix": ""}]}))
    events.put_targets(
        Rule="everything",
        EventBusName=name,
        Targets=[{"Id": "queue", "Arn": f"arn:aws:sqs:{AWS_REGION}:{AWS_ACCOUNT}:{name}"}],
    )
    return bus, queue


def bus_entries(aws, queue, want=1):
    """The EventBridge entries that reached `queue` (at least `want`, waiting
    up to 10 s for them), taken off it."""
    sqs = aws("sqs")
    entries = []
    for _ in range(100):
        for message in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", []):
            entries.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
        if len(entries) >= want:
            break
        time.sleep(0.1)
    return entries


def test_an_eventbridge_destination_is_verified_on_the_bus_and_listed(page, platform, developer, aws):
    """An EventBridge destination added in the console (the platform's
    EventBridge being moto's): a malformed account is refused at its field,
    a bus that does not exist at the bus's fields in the API's words; the
    bus it names gets the test event before it is listed, with its kind,
    bus, account and region, no URL to edit and no secret to rotate."""
    bus, queue = bus_with_queue(aws, "console-bus")
    status, session = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    assert status == 200, session
    token = session["accessToken"]
    status, key = platform.call(
        "POST", "/v1/developers/keys", {"name": "eventbridge key", "scopes": ["webhooks:write"]}, token=token
    )
    assert status == 201, key

    developer_sign_in(page, platform)
    page.get_by_role("navigation", name="Developer").get_by_role("link", name="Webhooks").click()
    form = page.get_by_role("form", name="Add an endpoint")
    form.get_by_label("Key it speaks for").select_option(key["id"])
    destination = form.get_by_role("radiogroup", name="Destination")
    expect(destination.get_by_role("radio", name="Webhook")).to_be_checked()
    destination.get_by_role("radio", name="Amazon EventBridge").check()
    # A bus, not a URL.
    expect(form.get_by_label("URL", exact=True)).to_have_count(0)
    expect(form.get_by_role("radio", name="Its ARN")).to_be_checked()
    # Or named by a partner event source name, in an input of its own.
    form.get_by_role("radio", name="A partner event source name").check()
    expect(form.get_by_label("Event source name", exact=True)).to_be_visible()
    expect(form.get_by_label("Event bus ARN")).to_have_count(0)
    form.get_by_role("radio", name="Its ARN").check()
    account = form.get_by_label("AWS account ID")
    arn = form.get_by_label("Event bus ARN")
    account.fill("12345")
    form.get_by_label("Region").fill(AWS_REGION)
    arn.fill(bus)
    form.get_by_label("webhook.ping").check()
    form.get_by_label("Description (optional)").fill("Console bus")

    # A malformed account: at the account's field, in the API's words.
    form.get_by_role("button", name="Add endpoint").click()
    expect(account).to_have_attribute("aria-invalid", "true")
    expect(form.locator("#webhook-account-problem")).to_contain_text("12 digits")
    expect(page.get_by_role("alert")).to_have_count(1)

    # A bus that does not exist refuses the test event: at the bus's ARN,
    # in the API's words (naming the bus), and nothing is added.
    account.fill(AWS_ACCOUNT)
    arn.fill(f"arn:aws:events:{AWS_REGION}:{AWS_ACCOUNT}:event-bus/no-such-bus")
    form.get_by_role("button", name="Add endpoint").click()
    problem = form.locator("#webhook-eventbridge-problem")
    expect(problem).to_contain_text("no-such-bus")
    expect(arn).to_have_attribute("aria-invalid", "true")
    expect(arn).to_have_attribute("aria-describedby", "webhook-eventbridge-problem")
    expect(account).not_to_have_attribute("aria-invalid", "true")
    expect(form.locator("#webhook-account-problem")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(1)
    status, listed = platform.call("GET", "/v1/developers/webhooks", token=token)
    assert [e for e in listed["items"] if e["kind"] == "eventbridge"] == [], listed
    screenshot(page, "developer-eventbridge-refused")

    # The bus that exists: added, its secret said to be unused.
    arn.fill(bus)
    form.get_by_role("button", name="Add endpoint").click()
    secret = page.get_by_role("region", name="New secret")
    expect(secret).to_contain_text("unused")
    expect(secret).to_contain_text("not signed")
    secret.get_by_role("button", name="Dismiss").click()
    expect(page.get_by_role("alert")).to_have_count(0)
    # The form is back to a webhook's.
    expect(destination.get_by_role("radio", name="Webhook")).to_be_checked()
    expect(form.get_by_label("URL", exact=True)).to_be_visible()

    card = page.get_by_role("article", name=bus)
    expect(card).to_have_attribute("data-kind", "eventbridge")
    expect(card.locator("[data-kind-label]")).to_have_text("EventBridge")
    expect(card.locator("[data-bus-arn]")).to_have_text(bus)
    expect(card.locator("[data-account]")).to_have_text(AWS_ACCOUNT)
    expect(card.locator("[data-region]")).to_have_text(AWS_REGION)
    expect(card).to_contain_text("Console bus")
    expect(card.get_by_role("button", name=f"Rotate the secret of {bus}")).to_have_count(0)
    webhook_id = card.get_attribute("data-endpoint")

    # The test event was on the bus before the destination was stored.
    entries = bus_entries(aws, queue)
    assert [e["detail-type"] for e in entries] == ["webhook.ping"], entries
    assert entries[0]["source"] == "alyt", entries
    assert entries[0]["detail"]["data"]["endpointId"] == webhook_id, entries

    # Edited: its events and description; its bus is not an edit's.
    card.get_by_role("button", name=f"Edit {bus}").click()
    edit = card.get_by_role("form", name=f"Edit {bus}")
    expect(edit.get_by_label("URL", exact=True)).to_have_count(0)
    expect(edit.get_by_label("Description (optional)")).to_have_value("Console bus")
    edit.get_by_label("Description (optional)").fill("Console bus, edited")
    edit.get_by_label("device.online").check()
    edit.get_by_role("button", name="Save").click()
    expect(edit).to_have_count(0)
    expect(card).to_contain_text("Console bus, edited")
    expect(card.get_by_text("device.online, webhook.ping")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)
    status, listed = platform.call("GET", "/v1/developers/webhooks", token=token)
    stored = next(e for e in listed["items"] if e["id"] == webhook_id)
    assert (stored["url"], stored["eventBridge"]["eventBusArn"]) == (bus, bus), stored
    assert stored["description"] == "Console bus, edited", stored

    # A test sent from the card is put on the bus and logged, unsigned.
    card.get_by_role("button", name="Send a test").click()
    delivered = card.locator('tr[data-status="delivered"]')
    expect(delivered).to_have_count(1, timeout=15000)
    expect(delivered).to_contain_text("webhook.ping")
    delivered.get_by_text("Entry detail").click()
    expect(delivered).to_contain_text("Not signed")
    entries = bus_entries(aws, queue)
    assert [e["detail-type"] for e in entries] == ["webhook.ping"], entries
    assert json.loads(delivered.locator("pre").text_content())["id"] == entries[0]["detail"]["id"]
    screenshot(page, "developer-eventbridge")


def test_a_scenario_takes_a_virtual_device_offline_and_back(page, platform, developer):
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Simulator").click()
    light = page.get_by_role("article").filter(has=page.get_by_text("LIGHT ·"))
    expect(light).to_have_count(1)
    badge = light.locator("[data-liveness]")
    expect(badge).to_have_attribute("data-liveness", "online", timeout=15000)
    screenshot(page, "developer-simulator")

    # OFFLINE for 8 s: the light goes quiet, the heartbeat window (3 s) passes and
    # the page hears device.offline on the event stream; NORMAL again after
    # the seconds, and device.online brings the badge back.
    # (Long enough that the offline state lasts seconds on a loaded machine.)
    light.get_by_label("For seconds").fill("8")
    light.get_by_role("button", name="OFFLINE").click()
    expect(light.locator("[data-scenario]")).to_have_attribute("data-scenario", "OFFLINE")
    expect(light.locator("[data-scenario]")).to_have_text("Offline")
    expect(light.locator("p.value")).to_contain_text("until")
    expect(badge).to_have_attribute("data-liveness", "offline", timeout=15000)
    expect(badge).to_have_attribute("data-liveness", "online", timeout=25000)
    # The scenario has ended: NORMAL, with no "until" left.
    expect(light.locator("[data-scenario]")).to_have_attribute("data-scenario", "NORMAL")
    expect(light.locator("p.value")).not_to_contain_text("until")


def test_the_event_stream_view_filters_and_resumes(page, platform, developer):
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Events").click()
    events = page.get_by_role("list", name="Events")
    # Only telemetry: the virtual devices report every second.
    kinds = page.get_by_role("group", name="Kinds")
    expect(kinds.get_by_role("checkbox")).to_have_count(11)  # rendered (all() does not wait)
    for box in kinds.get_by_role("checkbox").all():
        box.uncheck()
    kinds.get_by_label("device.telemetry").check()
    expect(events.locator('[data-event="device.telemetry"]').first).to_be_visible(timeout=15000)
    expect(events.locator("li:not([data-event='device.telemetry'])")).to_have_count(0)
    screenshot(page, "developer-events")

    # Paused, nothing arrives; resumed, it continues after the last event
    # it showed (Last-Event-ID), so what was missed arrives too.
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("status").filter(has_text="paused")).to_be_visible()
    time.sleep(0.5)  # an event already on its way when the stream stopped
    count = events.locator("li").count()
    time.sleep(2.5)
    assert events.locator("li").count() == count
    page.get_by_role("button", name="Resume").click()
    expect(events.locator("li")).not_to_have_count(count, timeout=10000)
    assert events.locator("li").count() >= count + 2, "the events of the pause arrive on resume"


def test_a_virtual_device_is_added_and_removed(page, platform, developer):
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Simulator").click()
    form = page.get_by_role("form", name="Add a virtual device")
    form.get_by_label("Profile").select_option("SENSOR")
    form.get_by_label("Name (optional)").fill("Porch sensor")
    form.get_by_role("button", name="Add device").click()
    porch = page.get_by_role("article", name="Porch sensor")
    expect(porch).to_contain_text("Sensor")
    page.once("dialog", lambda dialog: dialog.accept())
    porch.get_by_role("button", name="Remove").click()
    expect(porch).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(0)


def totp(secret, at=None):
    """RFC 6238 (SHA-1, 30 s, 6 digits), as authenticator apps compute it."""
    import base64
    import hashlib
    import hmac
    import struct

    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((at or time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    code = (struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
    return f"{code:06d}"


def test_a_developer_signs_up_verifies_and_turns_on_mfa(page, platform):
    email = "signup.dev@example.com"
    password = "a brand new developer password"
    stand_in_for_turnstile(page)
    page.goto(platform.url + "/#/developer/signin")
    page.get_by_role("link", name="Sign up as a developer").click()
    form = page.get_by_role("form", name="Sign up")
    # The platform wrote its site key into the page: the widget is shown,
    # and sign-up waits for its answer.
    expect(form.get_by_role("group", name="Bot check")).to_contain_text("passed")
    form.get_by_label("Email").fill(email)
    form.get_by_label("Password (12 characters or more)").fill(password)
    form.get_by_label("Display name").fill("Sign-up Dev")
    form.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("status")).to_contain_text(email)

    # The link in the mail (the local outbox) opens the console's page, which
    # verifies when pressed (a scanner fetching the link verifies nothing),
    # and signs the developer in.
    assert page.goto(verification_link(platform, email)).status == 200
    expect(page.get_by_role("heading", name="Verify your address")).to_be_visible()
    assert "token=" not in page.url.split("#")[0], "the token stays out of what is sent to servers"
    page.get_by_role("button", name="Verify my address").click()
    expect(page.get_by_role("heading", name="Keys")).to_be_visible()
    # A second press of the spent link says so.
    page.goto(verification_link(platform, email))
    page.get_by_role("button", name="Verify my address").click()
    expect(page.get_by_role("alert")).to_contain_text("sign up again")

    page.goto(platform.url + "/#/developer/signin")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Account").click()
    mfa = page.get_by_role("region", name="Two-factor authentication")
    expect(mfa).to_contain_text("off")
    mfa.get_by_role("button", name="Set up").click()
    expect(mfa.get_by_role("img", name="QR code of the authenticator secret")).to_be_visible()
    secret = mfa.locator("code[data-secret]").text_content()
    mfa.get_by_label("Code from your authenticator app").fill(totp(secret))
    mfa.get_by_role("button", name="Turn on").click()
    expect(mfa).to_contain_text("on")
    expect(page.get_by_role("table").filter(has_text="Usage and quota")).to_contain_text("Virtual devices")
    screenshot(page, "developer-account")

    # From now on a password alone is refused; with the code it signs in.
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_be_visible()
    # A code is accepted once: the app's next one (the platform allows a
    # step of clock skew), as a person would wait for.
    page.get_by_label("Authentication code (if MFA is on)").fill(totp(secret, time.time() + 30))
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Keys").wait_for()


def test_the_sandbox_light_answers_its_room_tile(page, platform, developer):
    """The developer's sandbox home as its household sees it: the lights
    tile of the virtual light's room sends the command, the light applies
    it and reports back, and the tile shows the reported state (the page
    redraws on the event stream's command.result, no polling)."""
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Sandbox home").click()
    tiles = page.get_by_role("region", name="Rooms")
    # The sandbox puts its virtual light in the Kitchen.
    kitchen = tiles.get_by_role("article", name="Kitchen")
    expect(kitchen).to_be_visible()
    lights = kitchen.get_by_role("switch", name="Lights")
    before = lights.get_attribute("aria-checked")
    lights.click()
    expect(kitchen.get_by_role("list", name="Outcome")).to_contain_text("Virtual light: applied")
    wanted = "false" if before == "true" else "true"
    expect(lights).to_have_attribute("aria-checked", wanted, timeout=10000)
    screenshot(page, "developer-sandbox-home")


def test_a_household_session_follows_its_home_live(page, platform, developer):
    """A household person's room page follows the home's event stream: the
    developer's own account owns its sandbox's household, so signed in as a
    household person it sees the sandbox home; its virtual light going
    offline and coming back (a scenario set through the API, as another
    client would) shows on the open page with no reload and no polling."""
    status, dev = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    assert status == 200, dev
    status, me = platform.call("GET", "/v1/developers/me", token=dev["accessToken"])
    tenant = me["sandboxTenantId"]
    status, devices = platform.call(
        "GET", f"/v1/developers/simulator/devices?tenantId={tenant}", token=dev["accessToken"]
    )
    light = next(d for d in devices["items"] if d["profile"] == "LIGHT")

    sign_in(page, platform, email=EMAIL, password=PASSWORD)
    page.get_by_role("link", name="Sandbox home").click()
    page.get_by_role("link", name="Kitchen").click()
    card = page.get_by_role("article", name=light["device"]["name"])
    badge = card.locator("[data-liveness]")
    expect(badge).to_have_attribute("data-liveness", "online", timeout=15000)
    loads = []
    page.on("request", lambda r: loads.append(r.url) if "/v1/rooms/" in r.url else None)

    status, body = platform.call(
        "POST",
        f"/v1/developers/simulator/devices/{light['device']['id']}/scenario",
        {"tenantId": tenant, "scenario": "OFFLINE", "seconds": 8},
        token=dev["accessToken"],
    )
    assert status == 200, body
    expect(badge).to_have_attribute("data-liveness", "offline", timeout=15000)
    expect(badge).to_have_attribute("data-liveness", "online", timeout=25000)
    # The page redrew from the stream's events: a load per event heard, not
    # a timer's worth.
    assert 2 <= len(loads) <= 12, loads
    screenshot(page, "household-room-live")


def test_a_connector_version_goes_through_review(page, platform, developer):
    """A connector made in the console, a version submitted, sent back by a
    reviewer with a note (the page hears submission.state on the developer
    stream), changed and submitted again."""
    developer_sign_in(page, platform)
    page.get_by_role("navigation", name="Developer").get_by_role("link", name="Connectors").click()
    form = page.get_by_role("form", name="New connector")
    form.get_by_label("Slug").fill("console-lights")
    form.get_by_label("Name").fill("Console lights")
    form.get_by_label("Server URL").fill("http://127.0.0.1:9/bridge")
    form.get_by_role("button", name="Create connector").click()
    secret = page.get_by_role("region", name="New secret")
    expect(secret.locator("[data-secret]")).not_to_be_empty()
    secret.get_by_role("button", name="I have stored it").click()

    card = page.get_by_role("region", name="Console lights")
    submit = card.get_by_role("form", name="Submit a version")
    submit.get_by_label("What households read").fill("Lights on your network.")
    submit.get_by_role("button", name="Submit version").click()
    row = card.get_by_role("table", name="Versions").get_by_role("row").filter(has_text="1.0.0")
    expect(row.locator("[data-review-state]")).to_have_text("Submitted")

    # A reviewer (platform staff) sends it back with a note.
    status, dev = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    status, connectors = platform.call("GET", "/v1/developers/connectors", token=dev["accessToken"])
    connector = next(c for c in connectors["items"] if c["slug"] == "console-lights")
    status, versions = platform.call(
        "GET", f"/v1/developers/submissions?connectorId={connector['id']}", token=dev["accessToken"]
    )
    version = versions["items"][0]["versionId"]
    status, body = platform.call(
        "POST",
        f"/v1/developers/admin/submissions/{version}/request-changes",
        {"note": "Say which bridges work."},
        token=platform.owner_token(),
    )
    assert status == 200, body
    expect(row.locator("[data-review-state]")).to_have_text("Changes requested", timeout=10000)
    expect(row).to_contain_text("Say which bridges work.")
    screenshot(page, "developer-connectors")

    row.get_by_role("button", name="Change 1.0.0").click()
    change = card.get_by_role("form", name="Change 1.0.0")
    change.get_by_label("What households read").fill("Lights on your network (Hue and LIFX bridges).")
    change.get_by_role("button", name="Submit for review").click()
    expect(row.locator("[data-review-state]")).to_have_text("Submitted")
    status, body = platform.call("GET", f"/v1/developers/submissions/{version}", token=dev["accessToken"])
    assert body["prose"] == "Lights on your network (Hue and LIFX bridges).", body


def new_developer(platform, email, password):
    """A developer signed up and verified through the API (its sandbox made)."""
    status, body = platform.call(
        "POST",
        "/v1/developers/auth/signup",
        {
            "email": email,
            "password": password,
            "displayName": "Another Dev",
            "type": "INDIVIDUAL",
            "botToken": "XXXX.DUMMY.TOKEN.XXXX",
        },
    )
    assert status == 202, body
    with urllib.request.urlopen(verification_link(platform, email)) as response:
        assert response.status == 200
    status, session = platform.call("POST", "/v1/developers/auth/login", {"email": email, "password": password})
    assert status == 200, session
    return session["accessToken"]


def test_webhook_refusals_show_at_their_field_and_an_endpoint_is_edited_disabled_and_deleted(page, platform, developer, receiver):
    developer_sign_in(page, platform)
    page.get_by_role("navigation", name="Developer").get_by_role("link", name="Webhooks").click()
    form = page.get_by_role("form", name="Add an endpoint")
    expect(form.get_by_label("Key it speaks for")).to_be_visible()
    # No event kind: refused, at the events.
    form.get_by_label("URL").fill(receiver + "/second")
    form.get_by_role("button", name="Add endpoint").click()
    expect(page.locator("#webhook-events-problem")).to_contain_text("at least one")
    expect(form.get_by_role("group", name="Events")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert")).to_have_count(1)
    # A URL the platform does not send to: at the URL, and the events'
    # problem is gone (one at a time).
    form.get_by_label("URL").fill("ftp://example.com/hooks")
    form.get_by_label("webhook.ping").check()
    form.get_by_role("button", name="Add endpoint").click()
    expect(form.get_by_label("URL")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#webhook-url-problem")).to_be_visible()
    expect(page.locator("#webhook-events-problem")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(1)
    # Fixed: added, and no problem is left.
    form.get_by_label("URL").fill(receiver + "/second")
    form.get_by_role("button", name="Add endpoint").click()
    page.get_by_role("button", name="I have stored it").click()
    expect(page.get_by_role("alert")).to_have_count(0)

    second = page.get_by_role("article", name=receiver + "/second")
    expect(second.locator("[data-status]")).to_have_text("Active")
    webhook_id = second.get_attribute("data-endpoint")
    status, body = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    token = body["accessToken"]

    def stored():
        status, endpoint = platform.call("GET", "/v1/developers/webhooks", token=token)
        assert status == 200, endpoint
        return next(e for e in endpoint["items"] if e["id"] == webhook_id)

    # Edited in place: each refusal at its field, one at a time.
    second.get_by_role("button", name=f"Edit {receiver}/second").click()
    edit = second.get_by_role("form", name=f"Edit {receiver}/second")
    expect(edit.get_by_label("URL")).to_have_value(receiver + "/second")
    expect(edit.get_by_label("webhook.ping")).to_be_checked()
    edit.get_by_label("URL").fill("ftp://example.com/hooks")
    edit.get_by_role("button", name="Save").click()
    expect(edit.get_by_label("URL")).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#edit-{webhook_id}-url-problem")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(1)
    edit.get_by_label("URL").fill(receiver + "/edited")
    edit.get_by_label("webhook.ping").uncheck()
    edit.get_by_role("button", name="Save").click()
    expect(page.locator(f"#edit-{webhook_id}-events-problem")).to_contain_text("at least one")
    expect(edit.get_by_role("group", name="Events")).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#edit-{webhook_id}-url-problem")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(1)
    assert stored()["url"] == receiver + "/second", "a refused edit changes nothing"
    edit.get_by_label("device.online").check()
    edit.get_by_label("device.offline").check()
    edit.get_by_role("button", name="Save").click()
    edited = page.get_by_role("article", name=receiver + "/edited")
    expect(edited).to_be_visible()
    expect(edited.get_by_role("form", name=f"Edit {receiver}/edited")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(edited.get_by_text("device.online, device.offline")).to_be_visible()
    endpoint = stored()
    assert endpoint["url"] == receiver + "/edited", endpoint
    assert endpoint["events"] == ["device.online", "device.offline"], endpoint

    # Disabled by hand, then enabled again.
    edited.get_by_role("button", name=f"Disable {receiver}/edited").click()
    expect(edited.locator("[data-status]")).to_have_text("Disabled (by you)")
    endpoint = stored()
    assert (endpoint["status"], endpoint["disabledReason"]) == ("disabled", "manual"), endpoint
    edited.get_by_role("button", name=f"Enable {receiver}/edited").click()
    expect(edited.locator("[data-status]")).to_have_text("Active")
    expect(edited.get_by_role("button", name=f"Disable {receiver}/edited")).to_be_visible()
    endpoint = stored()
    assert (endpoint["status"], endpoint["disabledReason"]) == ("active", None), endpoint

    page.once("dialog", lambda dialog: dialog.accept())
    edited.get_by_role("button", name=f"Delete {receiver}/edited").click()
    expect(edited).to_have_count(0)
    status, endpoints = platform.call("GET", "/v1/developers/webhooks", token=token)
    assert [e["id"] for e in endpoints["items"] if e["id"] == webhook_id] == [], endpoints


def test_a_household_account_is_sent_to_the_household_sign_in(page, platform):
    page.goto(platform.url + "/#/developer/signin")
    page.get_by_label("Email").fill(OWNER)
    page.get_by_label("Password").fill(OWNER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_be_visible()
    page.get_by_role("link", name="household sign-in").click()
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_visible()
    page.get_by_label("Email").fill(OWNER)
    page.get_by_label("Password").fill(OWNER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Homes").wait_for()


def test_a_forgotten_developer_password_is_reset_from_the_mailed_link(page, platform):
    email = "forgetful.dev@example.com"
    new_developer(platform, email, "the first developer password")
    page.goto(platform.url + "/#/developer/signin")
    page.get_by_role("link", name="Forgot password?").click()
    form = page.get_by_role("form", name="Forgot password")
    form.get_by_label("Email").fill(email)
    form.get_by_role("button", name="Mail me a reset link").click()
    expect(page.get_by_role("status")).to_contain_text(email)

    # The mailed link opens the console's page, which takes the token out
    # of the address and the new password in.
    link = mailed_link(platform, email, "/reset-password?token=")
    assert link.startswith(platform.url + "/reset-password?token=") and "side=developer" in link, link
    assert page.goto(link).status == 200
    assert "token" not in page.url, page.url
    form = page.get_by_role("form", name="Choose a new password")
    form.get_by_label("New password").fill("short")
    form.get_by_role("button", name="Set the new password").click()
    expect(form.get_by_label("New password")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#reset-password-problem")).to_be_visible()
    form.get_by_label("New password").fill("a second developer password")
    form.get_by_role("button", name="Set the new password").click()
    expect(page.get_by_role("status")).to_contain_text("new password works")
    page.get_by_role("link", name="Sign in").click()
    expect(page.get_by_role("heading", name="Developer sign in")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("a second developer password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Keys").wait_for()


def test_an_empty_sandbox_says_what_to_do_next(page, platform):
    """A sandbox whose virtual devices are all removed: its home, a room,
    its routines and its security each say what to do next, and the
    developer's tabs stay on every page of the home."""
    email = "empty.dev@example.com"
    password = "an empty sandbox password"
    token = new_developer(platform, email, password)
    status, me = platform.call("GET", "/v1/developers/me", token=token)
    tenant = me["sandboxTenantId"]
    status, devices = platform.call("GET", f"/v1/developers/simulator/devices?tenantId={tenant}", token=token)
    for virtual in devices["items"]:
        status, body = platform.call(
            "DELETE", f"/v1/developers/simulator/devices/{virtual['device']['id']}?tenantId={tenant}", token=token
        )
        assert status == 204, body

    page.goto(platform.url + "/#/developer/signin")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Keys").wait_for()
    expect(page.locator(".empty")).to_contain_text("No key yet")
    developer_tabs = page.get_by_role("navigation", name="Developer")
    developer_tabs.get_by_role("link", name="Sandbox home").click()
    expect(page.locator(".empty").first).to_contain_text("Nothing in this home yet")
    expect(page.locator(".empty").first.get_by_role("link", name="simulator")).to_be_visible()

    home_tabs = page.get_by_role("navigation", name="Home")
    page.get_by_role("region", name="Rooms").get_by_role("link", name="Kitchen").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Kitchen")
    expect(page.locator(".empty")).to_contain_text("Add a virtual device")
    expect(developer_tabs.get_by_role("link", name="Sandbox home")).to_have_attribute("aria-current", "page")
    expect(home_tabs).to_be_visible()

    home_tabs.get_by_role("link", name="Routines").click()
    form = page.get_by_role("form", name="New routine")
    save = form.get_by_role("button", name="Save routine")
    expect(save).to_be_disabled()
    expect(form).to_contain_text("add a step under Does")
    expect(developer_tabs).to_be_visible()

    home_tabs.get_by_role("link", name="Security").click()
    expect(page.get_by_role("heading", level=1)).not_to_have_text("Security")
    expect(page.locator(".empty").first).to_contain_text("motion or contact sensor")
    expect(page.get_by_role("group", name="Modes")).to_have_count(0)
    expect(developer_tabs).to_be_visible()

    developer_tabs.get_by_role("link", name="Simulator").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Simulator")
    expect(page.locator(".empty").first).to_contain_text("No virtual device yet")
    scripts = page.get_by_role("region", name="Scripts")
    expect(scripts.locator(".empty")).to_have_text(
        ["No script yet: add a sample below, then run it.", "No run yet: run a script above."]
    )
    developer_tabs.get_by_role("link", name="Webhooks").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Webhooks")
    expect(page.locator(".empty")).to_contain_text("No endpoint yet")
    developer_tabs.get_by_role("link", name="Connectors").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Connectors")
    expect(page.locator(".empty")).to_contain_text("No connector yet")


def sandbox_devices(platform):
    """The shared developer's token, sandbox tenant and virtual devices (as
    the API lists them)."""
    status, session = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    assert status == 200, session
    token = session["accessToken"]
    status, me = platform.call("GET", "/v1/developers/me", token=token)
    assert status == 200, me
    tenant = me["sandboxTenantId"]
    status, devices = platform.call("GET", f"/v1/developers/simulator/devices?tenantId={tenant}", token=token)
    assert status == 200, devices
    return token, tenant, devices["items"]


def test_a_sample_script_runs_with_its_progress_and_is_stopped(page, platform, developer):
    """The door-at-night sample stored with one click and run on the
    sandbox's sensor and light (chosen at first): the run plays, its
    progress read every second, its devices marked; a second run wanting
    the same sensor is refused at its role; Stop ends it STOPPED and the
    devices come back."""
    _, _, devices = sandbox_devices(platform)
    free = [d for d in devices if not d["detachedAt"] and not d["runId"]]
    sensor = next(d["device"]["id"] for d in free if d["profile"] == "SENSOR")
    light = next(d["device"]["id"] for d in free if d["profile"] == "LIGHT")
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Simulator").click()
    scripts = page.get_by_role("region", name="Scripts")
    samples = scripts.get_by_role("list", name="Sample scripts")
    expect(samples.get_by_role("listitem")).to_have_count(4)
    expect(samples.locator('[data-sample="door-at-night"]')).to_contain_text("A door sensor opens and closes twice")
    samples.get_by_role("button", name="Add door-at-night").click()
    script = scripts.get_by_role("article", name="A door at night")
    expect(script.locator("[data-roles]")).to_contain_text("door (Sensor), hall (Light)")

    script.get_by_role("button", name="Run A door at night").click()
    form = script.get_by_role("form", name="Run A door at night")
    expect(form.get_by_label("door (Sensor)")).to_have_value(sensor)
    expect(form.get_by_label("hall (Light)")).to_have_value(light)
    form.get_by_label("Seed").fill("42")
    form.get_by_role("button", name="Start run").click()
    expect(form).to_have_count(0)

    run = scripts.locator("tr[data-run]").first
    expect(run).to_contain_text("A door at night")
    expect(run.locator('td[data-label="Seed"]')).to_have_text("42")
    expect(run).to_have_attribute("data-status", "RUNNING", timeout=15000)
    expect(run.locator('td[data-label="Status"]')).to_have_text("Running")
    # The first step plays 2 s in: the progress moves without a reload.
    expect(run.locator("[data-played]")).not_to_have_attribute("data-played", "0", timeout=15000)
    assert int(run.locator("progress").get_attribute("value")) >= 1
    expect(page.locator(f'[data-device="{sensor}"] [data-in-run]')).to_contain_text("In a script run")
    expect(page.locator(f'[data-device="{light}"] [data-in-run]')).to_be_visible()

    # The sensor plays in this run: another run wanting it is refused at
    # its role, in the API's words.
    script.get_by_role("button", name="Run A door at night").click()
    door = form.get_by_label("door (Sensor)")
    expect(door).to_have_value("")
    door.select_option(sensor)
    form.get_by_role("button", name="Start run").click()
    expect(door).to_have_attribute("aria-invalid", "true")
    expect(form.get_by_role("alert")).to_contain_text("plays in script run")
    form.get_by_role("button", name="Cancel").click()
    expect(scripts.locator("tr[data-run]")).to_have_count(1)
    screenshot(page, "developer-simulator-scripts")

    run.get_by_role("button", name="Stop").click()
    expect(run).to_have_attribute("data-status", "STOPPED")
    expect(run.locator('td[data-label="Reason"]')).to_have_text("stopped by its developer")
    expect(run.get_by_role("button", name="Stop")).to_have_count(0)
    expect(run.locator('td[data-label="Ended"] time')).to_be_visible()
    expect(page.locator("[data-in-run]")).to_have_count(0)


def test_a_run_refused_shows_the_refusal_at_its_field(page, platform, developer):
    """A seed out of range is refused at the seed, in the API's words, and
    no run starts; the script is deleted after."""
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Simulator").click()
    scripts = page.get_by_role("region", name="Scripts")
    runs = scripts.locator("tr[data-run]")
    scripts.get_by_role("button", name="Add overheat-alert").click()
    script = scripts.get_by_role("article", name="Overheat alert")
    expect(script.locator("[data-roles]")).to_contain_text("thermostat (Thermostat)")
    before = runs.count()

    script.get_by_role("button", name="Run Overheat alert").click()
    form = script.get_by_role("form", name="Run Overheat alert")
    seed = form.get_by_label("Seed")
    seed.fill("9007199254740992")
    form.get_by_role("button", name="Start run").click()
    expect(seed).to_have_attribute("aria-invalid", "true")
    problem = form.get_by_role("alert")
    expect(problem).to_have_count(1)
    expect(problem).to_contain_text("0 to 9007199254740991")
    assert seed.get_attribute("aria-describedby") == problem.get_attribute("id")
    expect(form.get_by_label("thermostat (Thermostat)")).not_to_have_attribute("aria-invalid", "true")
    assert runs.count() == before

    # Not a number at all: said at the seed before anything is sent.
    seed.fill("soon")
    form.get_by_role("button", name="Start run").click()
    expect(problem).to_contain_text("A whole number")
    assert runs.count() == before

    page.once("dialog", lambda dialog: dialog.accept())
    script.get_by_role("button", name="Delete Overheat alert").click()
    expect(script).to_have_count(0)


def test_pressed_is_drawn_unlike_focus(page, platform, developer):
    developer_sign_in(page, platform)
    page.get_by_role("link", name="Simulator").click()
    card = page.get_by_role("article").filter(has=page.get_by_text("Light ·"))
    scenarios = card.first.get_by_role("group", name="Scenarios")
    pressed = scenarios.locator('button[aria-pressed="true"]')
    expect(pressed).to_have_count(1)
    # Focus as a keyboard moves it (what :focus-visible draws): from the
    # pressed button to the next one.
    pressed.focus()
    page.keyboard.press("Tab")
    other = scenarios.locator('button[aria-pressed="false"]:focus')
    expect(other).to_have_count(1)
    style = "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineColor, s.boxShadow, s.backgroundColor]; }"
    focused = other.evaluate(style)
    drawn = pressed.evaluate(style)
    focus_colour = "rgb(255, 159, 28)"
    assert focused[0] != "none" and focused[1] == focus_colour, focused
    assert drawn[0] == "none" and focus_colour not in drawn[2], drawn
    assert drawn[3] != focused[3], (drawn, focused)


def test_every_developer_page_fits_a_phone_and_reads_its_values(phone, platform, developer):
    page = phone
    for path, ready, what in [
        ("/#/developer/signin", lambda: page.get_by_role("heading", name="Developer sign in"), "sign-in"),
        ("/#/developer/forgot", lambda: page.get_by_role("form", name="Forgot password"), "forgot password"),
        ("/#/developer/signup", lambda: page.get_by_role("form", name="Sign up"), "sign-up"),
        ("/reset-password?token=a-reset-token-of-the-right-form", lambda: page.get_by_role("form", name="Choose a new password"), "reset"),
    ]:
        page.goto(platform.url + path)
        expect(ready()).to_be_visible()
        check_page(page, what)

    developer_sign_in(page, platform)
    tabs = page.get_by_role("navigation", name="Developer")
    for tab, ready in [
        ("Keys", lambda: page.get_by_role("form", name="Create a key")),
        ("Webhooks", lambda: page.get_by_role("form", name="Add an endpoint")),
        ("Simulator", lambda: page.get_by_role("list", name="Sample scripts")),
        ("Events", lambda: page.get_by_role("group", name="Kinds")),
        ("Connectors", lambda: page.get_by_role("form", name="New connector")),
        ("Sandbox home", lambda: page.get_by_role("region", name="Rooms")),
        ("Account", lambda: page.get_by_role("region", name="Two-factor authentication")),
    ]:
        tabs.get_by_role("link", name=tab).click()
        expect(ready()).to_be_visible()
        if tab == "Events":
            expect(page.get_by_role("list", name="Events").locator("li").first).to_be_visible(timeout=15000)
        if tab == "Webhooks":
            expect(page.locator("tr[data-delivery]").first).to_be_visible()
        check_page(page, tab)
        # The tabs wrap: the last one is on the screen.
        box = tabs.get_by_role("link", name="Account").bounding_box()
        assert box["x"] + box["width"] <= 390, box
    screenshot(page, "developer-phone")
