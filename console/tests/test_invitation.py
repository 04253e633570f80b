"""An invitation in the console, opened exactly as the mail carries it: the
page shows what the link offers (a guest's home and stay too), a new person
names themselves and chooses a password (an address with an account gives
its password) and ends signed in to the home; the spent link shows the
API's one sentence for every dead link."""

import re
from datetime import datetime, timedelta, timezone

import pytest
from playwright.sync_api import expect

from conftest import check_page, mailed_link, screenshot

NEW_PASSWORD = "orange kettle harbour"


@pytest.fixture(scope="module")
def household(platform):
    """The demo household, its only home and the owner's session."""
    token = platform.owner_token()
    status, me = platform.call("GET", "/v1/auth/me", token=token)
    assert status == 200, me
    tenant = me["homes"][0]["tenantId"]
    status, homes = platform.call("GET", f"/v1/properties?tenantId={tenant}", token=token)
    assert status == 200, homes
    home = homes["items"][0]
    return {"tenant": tenant, "client": home["clientId"], "home": home, "token": token}


def invite(platform, household, email, **terms):
    """The owner invites `email` through the API; returns the mailed link."""
    status, body = platform.call(
        "POST",
        f"/v1/tenants/{household['tenant']}/clients/{household['client']}/invitations",
        {"email": email, "role": "MEMBER", **terms},
        token=household["token"],
    )
    assert status == 201 and body["status"] == "invited", body
    return mailed_link(platform, email, "/invitation?token=")


def test_a_new_person_opens_the_mailed_link_and_is_signed_in_to_the_home(page, platform, household):
    link = invite(platform, household, "nia.invited@example.com", name="Nia")
    assert link.startswith(platform.url + "/invitation?token="), link

    assert page.goto(link).status == 200
    expect(page.get_by_role("heading", name="Invitation to Demo household")).to_be_visible()
    facts = page.get_by_role("definition")
    expect(facts).to_contain_text(["Every home of Demo household", "o•••@alyt.local", "member", "n•••@example.com"])
    # The token is taken out of the address: it stays in no history.
    assert "token" not in page.url, page.url

    # A refusal is shown at its field, and the link still works.
    form = page.get_by_role("form", name="Accept the invitation")
    form.get_by_label("Your name").fill("Nia")
    form.get_by_label("Choose a password").fill("short")
    form.get_by_role("button", name="Accept and sign in").click()
    password = form.get_by_label("Choose a password")
    expect(password).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#accept-password-problem")).to_be_visible()
    screenshot(page, "household-invitation")

    password.fill(NEW_PASSWORD)
    form.get_by_role("button", name="Accept and sign in").click()
    expect(page.get_by_role("heading", name=household["home"]["name"])).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/#/homes/{household['tenant']}/{household['home']['id']}$"))
    expect(page.locator("header.top")).to_contain_text("nia.invited@example.com")

    # The link is spent: opened again, it shows the API's 410 sentence.
    token = link.split("token=", 1)[1]
    status, dead = platform.call("GET", f"/v1/auth/invitations/{token}")
    assert status == 410, dead
    page.goto(link)
    expect(page.get_by_role("alert")).to_have_text(dead["detail"])
    expect(page.get_by_role("form", name="Accept the invitation")).to_have_count(0)


def test_an_address_with_an_account_accepts_with_its_password(page, platform, household):
    # A developer who has not verified their address has an account that is
    # not added at once: the invitation asks for its password.
    email = "unverified.dev@example.com"
    password = "an unverified developer password"
    status, body = platform.call(
        "POST",
        "/v1/developers/auth/signup",
        {
            "email": email,
            "password": password,
            "displayName": "Unverified Dev",
            "type": "INDIVIDUAL",
            "botToken": "XXXX.DUMMY.TOKEN.XXXX",
        },
    )
    assert status == 202, body
    link = invite(platform, household, email)

    page.goto(link)
    form = page.get_by_role("form", name="Accept the invitation")
    expect(form).to_contain_text("This address has an account")
    expect(form.get_by_label("Your name")).to_have_count(0)
    form.get_by_label("Password").fill("not the password")
    form.get_by_role("button", name="Accept and sign in").click()
    expect(form.get_by_role("alert")).to_be_visible()
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Accept and sign in").click()
    expect(page.get_by_role("heading", name=household["home"]["name"])).to_be_visible()
    expect(page.locator("header.top")).to_contain_text(email)


def test_a_guest_sees_the_home_and_the_stay_and_lands_in_that_home(page, platform, household):
    checkout = datetime.now(timezone.utc) + timedelta(days=2)
    link = invite(
        platform,
        household,
        "gus.guest@example.com",
        role="GUEST",
        propertyId=household["home"]["id"],
        expiresAt=checkout.isoformat(),
    )

    page.goto(link)
    facts = page.get_by_role("definition")
    expect(facts).to_contain_text([household["home"]["name"], "guest", "g•••@example.com"])
    # The stay's end as the browser's locale writes it (its year at least).
    expect(page.get_by_role("term").filter(has_text="Stay")).to_have_count(1)
    expect(facts.nth(3)).to_contain_text(str(checkout.year))
    form = page.get_by_role("form", name="Accept the invitation")
    form.get_by_label("Your name").fill("Gus")
    form.get_by_label("Choose a password").fill(NEW_PASSWORD)
    form.get_by_role("button", name="Accept and sign in").click()
    expect(page.get_by_role("heading", name=household["home"]["name"])).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/#/homes/{household['tenant']}/{household['home']['id']}$"))


def test_the_invitation_page_fits_a_phone(phone, platform, household):
    link = invite(platform, household, "phone.invited@example.com", name="Pip")
    phone.goto(link)
    expect(phone.get_by_role("form", name="Accept the invitation")).to_be_visible()
    check_page(phone, "invitation")


def test_a_forgotten_household_password_is_reset_from_the_mailed_link(page, platform, household):
    email = "rae.forgetful@example.com"
    link = invite(platform, household, email, name="Rae")
    token = link.split("token=", 1)[1]
    status, body = platform.call(
        "POST", f"/v1/auth/invitations/{token}/accept", {"name": "Rae", "password": "the first household password"}
    )
    assert status == 200, body

    page.goto(platform.url + "/")
    page.get_by_role("link", name="Forgot password?").click()
    form = page.get_by_role("form", name="Forgot password")
    form.get_by_label("Email").fill(email)
    form.get_by_role("button", name="Mail me a reset link").click()
    expect(page.get_by_role("status")).to_contain_text(email)

    reset = mailed_link(platform, email, "/reset-password?token=")
    assert reset.startswith(platform.url + "/reset-password?token=") and "developer" not in reset, reset
    assert page.goto(reset).status == 200
    assert "token" not in page.url, page.url
    form = page.get_by_role("form", name="Choose a new password")
    form.get_by_label("New password").fill("a second household password")
    form.get_by_role("button", name="Set the new password").click()
    expect(page.get_by_role("status")).to_contain_text("new password works")
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("a second household password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name=household["home"]["name"]).or_(page.get_by_role("heading", name="Homes"))).to_be_visible()
