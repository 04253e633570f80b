"""The staff area in the console: the platform owner reviews a connector
version (its descriptor drawn as households will see it), approves and
publishes it, after which a household can install the connector; sends a
version back with a note and rejects one; sets a developer's quota and
verifies a pending developer. A household member without a platform role
never sees the area. Developers, connectors and versions are made through
the API, as a developer's tools would."""

import json
import threading
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from playwright.sync_api import expect

from conftest import mailed_link, screenshot, sign_in, verification_link

EMAIL = "staff.reviewed@example.com"
PASSWORD = "a reviewed developer password"


def sign_up(platform, email, name):
    status, body = platform.call(
        "POST",
        "/v1/developers/auth/signup",
        {
            "email": email,
            "password": PASSWORD,
            "displayName": name,
            "type": "INDIVIDUAL",
            "botToken": "XXXX.DUMMY.TOKEN.XXXX",
        },
    )
    assert status == 202, body


@pytest.fixture(scope="module")
def developer(platform):
    """A verified developer's session token."""
    sign_up(platform, EMAIL, "Reviewed Dev")
    with urllib.request.urlopen(verification_link(platform, EMAIL)) as response:
        assert response.status == 200
    status, body = platform.call("POST", "/v1/developers/auth/login", {"email": EMAIL, "password": PASSWORD})
    assert status == 200, body
    return body["accessToken"]


class FakeConnector(BaseHTTPRequestHandler):
    """A connector server (the connector protocol's connect and discover):
    it connects whatever it is given and finds nothing yet."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.endswith("/v1/connect"):
            answer = {"status": "connected", "config": {}}
        elif self.path.endswith("/v1/discover"):
            answer = {"things": []}
        else:
            answer = {}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


@pytest.fixture(scope="module")
def connector_server():
    server = HTTPServer(("127.0.0.1", 0), FakeConnector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/bridge"
    server.shutdown()


@pytest.fixture(scope="module")
def household(platform):
    """The owner's household home (the owner is also the platform OWNER)."""
    token = platform.owner_token()
    status, me = platform.call("GET", "/v1/auth/me", token=token)
    assert status == 200, me
    tenant = me["homes"][0]["tenantId"]
    status, homes = platform.call("GET", f"/v1/properties?tenantId={tenant}", token=token)
    assert status == 200, homes
    home = homes["items"][0]
    return {"tenant": tenant, "client": home["clientId"], "home": home}


def descriptor(slug, name, semver):
    return {
        "kind": slug.upper().replace("-", "_"),
        "name": name,
        "icon": "lightbulb-group",
        "promise": f"{name} in every room",
        "connectivity": "local",
        "brings": ["light", "sensor"],
        "connect": {
            "method": "form",
            "fields": [
                {"key": "host", "label": "Bridge address", "kind": "text", "secret": False, "required": True},
                {"key": "key", "label": "Bridge key", "kind": "password", "secret": True, "required": False},
            ],
        },
        "discovery": {"verb": "Find lights"},
        "disconnect": {"consequence": "Its lights leave your rooms."},
        "author": {"kind": "maker", "name": "Reviewed Dev"},
        "version": semver,
        "source": "installed",
        "visibility": "public",
        "verification": {"level": "declared"},
        "listed": True,
    }


def submit(platform, token, slug, name, server_url="http://127.0.0.1:9/bridge"):
    """A connector and its version 1.0.0 submitted for review; returns
    (connector, version id)."""
    status, created = platform.call(
        "POST", "/v1/developers/connectors", {"slug": slug, "name": name, "serverUrl": server_url}, token=token
    )
    assert status == 201, created
    connector = created["connector"]
    status, version = platform.call(
        "POST",
        "/v1/developers/submissions",
        {
            "connectorId": connector["id"],
            "semver": "1.0.0",
            "descriptor": descriptor(slug, name, "1.0.0"),
            "prose": f"{name} joins your home's lights and sensors over your network.",
            "aiDeclaration": "none",
            "draft": False,
        },
        token=token,
    )
    assert status == 201, version
    assert version["state"] == "submitted", version
    return connector, version["versionId"]


def open_staff(page, platform):
    """The platform owner signs in and opens the staff area from the header."""
    sign_in(page, platform)
    page.get_by_role("navigation", name="Platform").get_by_role("link", name="Staff").click()
    expect(page.get_by_role("heading", name="Review queue")).to_be_visible()


def open_version(page, slug):
    queue = page.get_by_role("table", name="Review queue")
    queue.get_by_role("link", name=f"{slug} 1.0.0").click()
    expect(page.get_by_role("heading", name="1.0.0")).to_be_visible()


def connect(platform, household, connector_id):
    """A household connects the connector to its home: (status, body)."""
    return platform.call(
        "POST",
        "/v1/integrations",
        {
            "connectorId": connector_id,
            "tenantId": household["tenant"],
            "propertyId": household["home"]["id"],
            "input": {"host": "192.168.1.20"},
        },
        token=platform.owner_token(),
    )


def test_an_approved_and_published_version_is_installable(page, platform, developer, connector_server, household):
    connector, version = submit(platform, developer, "staff-lights", "Staff lights", connector_server)
    # Not in the catalogue yet: no household can connect it.
    status, catalogue = platform.call("GET", f"/v1/catalogue/definitions?tenantId={household['tenant']}", token=platform.owner_token())
    assert status == 200, catalogue
    assert "staff-lights" not in [d["slug"] for d in catalogue["items"]]
    status, body = connect(platform, household, connector["id"])
    assert status == 404, body

    open_staff(page, platform)
    open_version(page, "staff-lights")
    expect(page.get_by_role("heading", name="Staff lights 1.0.0")).to_be_visible()
    state = page.locator("dl [data-review-state]")
    expect(state).to_have_text("submitted")

    # The descriptor as a household will see it: the catalogue card with the
    # prose, the connect form, and a thing of each category it brings drawn
    # with the household's controls (read only here).
    preview = page.get_by_role("region", name="As households will see it")
    card = preview.get_by_role("article", name="Staff lights")
    expect(card).to_contain_text("Staff lights in every room")
    expect(card).to_contain_text("By Reviewed Dev")
    expect(card).to_contain_text("Works on your home network")
    expect(card).to_contain_text("joins your home's lights and sensors")
    expect(card.get_by_role("list", name="What it brings")).to_contain_text("Light")
    form = preview.get_by_role("form", name="Connect form (preview)")
    expect(form.get_by_label("Bridge address (required)")).to_be_disabled()
    expect(form.get_by_label("Bridge key")).to_have_attribute("type", "password")
    expect(form.get_by_role("button", name="Find lights")).to_be_disabled()
    expect(preview).to_contain_text("Disconnecting: Its lights leave your rooms.")
    light = preview.get_by_role("article", name="Light (example)")
    expect(light.get_by_role("switch", name="Power")).to_be_disabled()
    expect(preview.get_by_role("article", name="Sensor (example)")).to_be_visible()
    screenshot(page, "staff-review")

    review = page.get_by_role("region", name="Review")
    review.get_by_role("button", name="Approve").click()
    expect(state).to_have_text("approved")
    expect(review.get_by_role("button", name="Approve")).to_have_count(0)
    review.get_by_role("button", name="Publish").click()
    expect(state).to_have_text("published")
    expect(review.get_by_role("button", name="Deprecate")).to_be_visible()
    expect(review.get_by_role("alert")).to_have_count(0)

    # Households find it in the catalogue and can connect it.
    status, catalogue = platform.call("GET", f"/v1/catalogue/definitions?tenantId={household['tenant']}", token=platform.owner_token())
    listed = [d for d in catalogue["items"] if d["slug"] == "staff-lights"]
    assert len(listed) == 1 and listed[0]["semver"] == "1.0.0", catalogue
    status, body = connect(platform, household, connector["id"])
    assert status in (200, 201), body
    assert body["status"] == "connected", body
    status, mine = platform.call("GET", f"/v1/developers/submissions/{version}", token=developer)
    assert mine["state"] == "published", mine

    # It left the queue.
    page.get_by_role("navigation", name="Staff").get_by_role("link", name="Review queue").click()
    expect(page.get_by_role("heading", name="Review queue")).to_be_visible()
    expect(page.get_by_role("link", name="staff-lights 1.0.0")).to_have_count(0)


def test_changes_are_requested_with_a_note_and_a_version_is_rejected(page, platform, developer):
    connector, version = submit(platform, developer, "staff-notes", "Staff notes")
    open_staff(page, platform)
    open_version(page, "staff-notes")
    state = page.locator("dl [data-review-state]")
    review = page.get_by_role("region", name="Review")

    # Without a note the API refuses; its problem is shown at the moves.
    review.get_by_role("button", name="Request changes").click()
    expect(review.get_by_role("alert")).to_contain_text("note")
    expect(state).to_have_text("submitted")

    review.get_by_label("Note to the developer").fill("Name the bridges it supports.")
    review.get_by_role("button", name="Request changes").click()
    expect(state).to_have_text("changes-requested")
    expect(page.locator("[data-note]")).to_have_text("Name the bridges it supports.")
    expect(review).to_contain_text("No review move is open")
    # The note reaches the developer.
    status, mine = platform.call("GET", f"/v1/developers/submissions/{version}", token=developer)
    assert status == 200, mine
    assert mine["state"] == "changes-requested" and mine["note"] == "Name the bridges it supports.", mine

    # Changed and submitted again, then rejected for good.
    status, body = platform.call(
        "PATCH",
        f"/v1/developers/submissions/{version}",
        {"prose": "Staff notes, for Hue bridges.", "submit": True},
        token=developer,
    )
    assert status == 200 and body["state"] == "submitted", body
    page.reload()
    expect(state).to_have_text("submitted")
    expect(page.get_by_role("region", name="As households will see it")).to_contain_text("for Hue bridges")
    review.get_by_label("Note to the developer").fill("A connector we cannot list.")
    page.once("dialog", lambda dialog: dialog.accept())
    review.get_by_role("button", name="Reject").click()
    expect(state).to_have_text("rejected")
    status, mine = platform.call("GET", f"/v1/developers/submissions/{version}", token=developer)
    assert mine["state"] == "rejected" and mine["note"] == "A connector we cannot list.", mine


def test_a_quota_is_set_and_a_pending_developer_verified(page, platform, developer):
    pending = "staff.pending@example.com"
    sign_up(platform, pending, "Pending Dev")
    open_staff(page, platform)
    page.get_by_role("navigation", name="Staff").get_by_role("link", name="Developers").click()
    developers = page.get_by_role("table", name="Developers")

    # Verified by staff: the developer can sign in and has a sandbox.
    row = developers.get_by_role("row", name="Pending Dev")
    expect(row.locator("[data-status]")).to_have_text("address not verified")
    row.get_by_role("button", name="Verify Pending Dev").click()
    expect(row.locator("[data-status]")).to_have_text("active")
    expect(row.get_by_role("button", name="Verify Pending Dev")).to_have_count(0)
    status, body = platform.call("POST", "/v1/developers/auth/login", {"email": pending, "password": PASSWORD})
    assert status == 200, body
    status, me = platform.call("GET", "/v1/developers/me", token=body["accessToken"])
    assert me["status"] == "ACTIVE" and me["sandboxTenantId"], me

    # The quota in force, then a staff override of it.
    row = developers.get_by_role("row", name="Reviewed Dev")
    row.get_by_role("button", name="Quota of Reviewed Dev").click()
    quotas = page.get_by_role("table", name="Quotas of Reviewed Dev")
    requests = quotas.locator('tr[data-kind="REQUESTS"]')
    expect(requests).to_contain_text("platform default")
    form = page.get_by_role("form", name="Set a quota of Reviewed Dev")
    form.get_by_label("Kind").select_option("REQUESTS")
    form.get_by_label("Ceiling").fill("900")
    form.get_by_label("Window").select_option("month")
    form.get_by_label("Burst per minute (optional)").fill("30")
    form.get_by_role("button", name="Set quota").click()
    expect(requests).to_contain_text("staff")
    expect(requests).to_contain_text("900")
    expect(requests).to_contain_text("a month")
    expect(requests).to_contain_text("30")
    screenshot(page, "staff-developers")
    status, quota = platform.call("GET", "/v1/developers/quota", token=developer)
    assert quota["REQUESTS"] == {
        "kind": "REQUESTS",
        "ceiling": 900,
        "window": "month",
        "burstPerMinute": 30,
        "source": "override",
    }, quota

    # A value the API refuses is shown at the form (no burst on a standing count).
    form.get_by_label("Kind").select_option("VIRTUAL_DEVICES")
    form.get_by_label("Ceiling").fill("5")
    form.get_by_label("Burst per minute (optional)").fill("3")
    form.get_by_role("button", name="Set quota").click()
    expect(page.get_by_role("region", name="Quota of Reviewed Dev").get_by_role("alert")).to_be_visible()
    expect(quotas.locator('tr[data-kind="VIRTUAL_DEVICES"]')).to_contain_text("platform default")

    # Read back from the API after a reload.
    page.reload()
    row = page.get_by_role("table", name="Developers").get_by_role("row", name="Reviewed Dev")
    row.get_by_role("button", name="Quota of Reviewed Dev").click()
    expect(page.get_by_role("table", name="Quotas of Reviewed Dev").locator('tr[data-kind="REQUESTS"]')).to_contain_text("900")


def test_a_household_member_does_not_see_the_staff_area(page, platform, household):
    email = "staff.member@example.com"
    status, body = platform.call(
        "POST",
        f"/v1/tenants/{household['tenant']}/clients/{household['client']}/invitations",
        {"email": email, "role": "MEMBER"},
        token=platform.owner_token(),
    )
    assert status == 201, body
    link = mailed_link(platform, email, "/invitation?token=")
    token = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["token"][0]
    password = "plum tractor season"
    status, body = platform.call(
        "POST", f"/v1/auth/invitations/{token}/accept", {"name": "Member", "password": password}
    )
    assert status == 200, body
    status, refused = platform.call("GET", "/v1/developers/admin/submissions", token=body["accessToken"])
    assert status == 404, refused

    sign_in(page, platform, email=email, password=password)
    # Opened by its address, the area says it is not theirs (the role was
    # read), and the header never offers it.
    page.goto(platform.url + "/#/staff")
    expect(page.get_by_role("alert")).to_have_text("The staff area is for platform staff.")
    expect(page.get_by_role("navigation", name="Platform")).to_have_count(0)
    expect(page.get_by_role("table", name="Review queue")).to_have_count(0)

    # The owner, signed in on the same page, is offered it.
    # Sign-out ends the session on the server before the page forgets it:
    # reloading before the sign-in form shows would reopen the member's.
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Email")).to_be_visible()
    open_staff(page, platform)
