"""A newcomer's first minutes: the first start's demo home has things to
control and to arm with, driven by the simulator. The new owner switches the
kitchen light, arms the home, the simulated motion sensor trips the alarm
(its BURST scenario, set through the simulator API as a developer would),
and the owner turns it off in the console."""

from playwright.sync_api import expect

from conftest import screenshot, sign_in


def demo_home(platform):
    token = platform.owner_token()
    status, me = platform.call("GET", "/v1/auth/me", token=token)
    assert status == 200, me
    tenant = me["homes"][0]["tenantId"]
    status, homes = platform.call("GET", f"/v1/properties?tenantId={tenant}", token=token)
    assert status == 200, homes
    prop = homes["items"][0]
    status, overview = platform.call("GET", f"/v1/properties/{prop['id']}/overview?tenantId={tenant}", token=token)
    assert status == 200, overview
    rooms = {room["name"]: room["id"] for room in overview["rooms"]}
    status, devices = platform.call("GET", f"/v1/devices?tenantId={tenant}", token=token)
    assert status == 200, devices
    return {
        "token": token,
        "tenant": tenant,
        "property": prop["id"],
        "rooms": rooms,
        "devices": {d["name"]: d["id"] for d in devices["items"]},
    }


def test_a_new_owner_switches_the_demo_light(page, demo_platform):
    home = demo_home(demo_platform)
    sign_in(page, demo_platform)
    page.goto(f"{demo_platform.url}/#/homes/{home['tenant']}/{home['property']}/rooms/{home['rooms']['Kitchen']}")
    light = page.get_by_role("article", name="Kitchen light")
    power = light.locator('[data-primitive="toggle"]').get_by_role("switch").first
    # The virtual light reports that it is off, then switches on when told.
    expect(power).to_have_attribute("aria-checked", "false", timeout=15000)
    power.click()
    expect(power).to_have_attribute("aria-checked", "true", timeout=15000)
    screenshot(page, "household-demo-room")
    page.goto(f"{demo_platform.url}/#/homes/{home['tenant']}/{home['property']}")
    expect(page.get_by_role("article", name="Kitchen")).to_be_visible()
    screenshot(page, "household-demo-overview")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    screenshot(page, "household-demo-overview-phone")


def test_the_demo_home_arms_the_simulated_sensor_trips_it_and_the_owner_turns_it_off(page, demo_platform):
    home = demo_home(demo_platform)
    # A one-second exit delay (settings through the API, as in the
    # household's security test).
    status, body = demo_platform.call(
        "PATCH",
        f"/v1/home-security/{home['property']}/settings",
        {"tenantId": home["tenant"], "exitDelaySeconds": 1},
        token=home["token"],
    )
    assert status == 200, body
    sign_in(page, demo_platform)
    page.goto(f"{demo_platform.url}/#/homes/{home['tenant']}/{home['property']}/security")
    modes = page.get_by_role("group", name="Modes")
    arm = modes.get_by_role("button", name="Arm away")
    expect(arm).to_have_attribute("data-ready", "true", timeout=15000)
    arm.click()
    expect(page.locator("[data-confirmed-mode]")).to_have_text("away", timeout=10000)

    # Someone walks about the living room: the sensor's BURST for 3 s.
    status, body = demo_platform.call(
        "POST",
        f"/v1/developers/simulator/devices/{home['devices']['Living room motion']}/scenario",
        {"tenantId": home["tenant"], "scenario": "BURST", "seconds": 3},
        token=home["token"],
    )
    assert status < 300, body
    # The page hears the incident and says so.
    expect(page.get_by_role("heading", name="Incident 1")).to_be_visible(timeout=15000)
    expect(page.locator("[data-incident-state]")).to_be_visible()
    screenshot(page, "household-demo-alarm")

    modes.get_by_role("button", name="Off").click()
    expect(page.locator("[data-confirmed-mode]")).to_have_text("off", timeout=10000)
    status, body = demo_platform.call(
        "GET", f"/v1/home-security/{home['property']}?tenantId={home['tenant']}", token=home["token"]
    )
    assert status == 200 and body["confirmedMode"] == "off", body


def test_a_new_owner_builds_a_routine_in_the_demo_home_and_runs_it(page, demo_platform):
    home = demo_home(demo_platform)
    light = home["devices"]["Kitchen light"]
    # Off first (another test may have switched it on), seen in the room.
    status, body = demo_platform.call(
        "POST",
        f"/v1/devices/{light}/commands?tenantId={home['tenant']}",
        {"command": "set", "payload": {"capability": "light", "key": "power", "value": False}},
        token=home["token"],
    )
    assert status == 202, body
    sign_in(page, demo_platform)
    room = f"{demo_platform.url}/#/homes/{home['tenant']}/{home['property']}/rooms/{home['rooms']['Kitchen']}"
    page.goto(room)
    power = page.get_by_role("article", name="Kitchen light").locator('[data-primitive="toggle"]').get_by_role("switch").first
    expect(power).to_have_attribute("aria-checked", "false", timeout=15000)
    page.goto(f"{demo_platform.url}/#/homes/{home['tenant']}/{home['property']}/routines")
    form = page.get_by_role("form", name="New routine")
    form.get_by_label("Name").fill("Kitchen on")
    # The demo's things give the editor its steps at once.
    options = form.get_by_label("Does").locator("option").all_text_contents()
    turn_on = next(o for o in options if o.startswith("Kitchen: ") and o.endswith(" on"))
    form.get_by_label("Does").select_option(label=turn_on)
    form.get_by_role("button", name="Save routine").click()
    card = page.get_by_role("article", name="Kitchen on")
    card.get_by_role("button", name="Run Kitchen on").click()
    expect(card.get_by_role("list", name="Run outcome")).to_contain_text("Kitchen light: applied")
    # The virtual light did it: it reports power on.
    page.goto(room)
    expect(power).to_have_attribute("aria-checked", "true", timeout=15000)
