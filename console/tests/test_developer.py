"""A developer in the console: sign in, a key whose secret is shown once,
a webhook endpoint whose test delivery arrives and is listed with its
response code and signed payload. (Sign-up and verification are made
through the API here: the console's sign-up page comes with the bot-check
widget in a later slice.)"""

import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from playwright.sync_api import expect

from conftest import screenshot, sign_in, stand_in_for_turnstile, verification_link

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
    received = []

    def do_POST(self):
        Receiver.received.append(self.rfile.read(int(self.headers["content-length"])))
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
    delivered = endpoint.locator('tr[data-status="delivered"]')
    for _ in range(50):
        if delivered.count() > 0:
            break
        time.sleep(0.2)
        endpoint.get_by_role("button", name="Refresh deliveries").click()
    expect(delivered).to_have_count(1)
    expect(delivered).to_contain_text("webhook.ping")
    expect(delivered).to_contain_text("200")
    # The payload shown is the body the receiver got, byte for byte.
    delivered.get_by_text("Signed payload").click()
    shown = delivered.locator("pre").text_content()
    assert Receiver.received and Receiver.received[-1].decode() == shown
    screenshot(page, "developer-webhooks")


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
    expect(light.locator("[data-scenario]")).to_have_text("OFFLINE")
    expect(badge).to_have_attribute("data-liveness", "offline", timeout=15000)
    expect(badge).to_have_attribute("data-liveness", "online", timeout=25000)


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
    expect(porch).to_contain_text("SENSOR")
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
    expect(page.get_by_role("table").filter(has_text="Usage and quota")).to_contain_text("VIRTUAL_DEVICES")
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
    expect(row.locator("[data-review-state]")).to_have_text("submitted")

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
    expect(row.locator("[data-review-state]")).to_have_text("changes-requested", timeout=10000)
    expect(row).to_contain_text("Say which bridges work.")
    screenshot(page, "developer-connectors")

    row.get_by_role("button", name="Change 1.0.0").click()
    change = card.get_by_role("form", name="Change 1.0.0")
    change.get_by_label("What households read").fill("Lights on your network (Hue and LIFX bridges).")
    change.get_by_role("button", name="Submit for review").click()
    expect(row.locator("[data-review-state]")).to_have_text("submitted")
    status, body = platform.call("GET", f"/v1/developers/submissions/{version}", token=dev["accessToken"])
    assert body["prose"] == "Lights on your network (Hue and LIFX bridges).", body
