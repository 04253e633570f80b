"""The console in a real browser: Debian's Chromium driven by Playwright,
against the local platform (the workspace's `alyt` binary on free ports and
a fresh data directory), over real HTTP."""

import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
OWNER = "owner@alyt.local"
OWNER_PASSWORD = "console owner password"
CHROMIUM = os.environ.get("ALYT_CHROMIUM", "/usr/bin/chromium")


class Platform:
    def __init__(self, url, data, mqtt):
        self.url = url
        self.data = data
        # (host, port) of the embedded MQTT broker.
        self.mqtt = mqtt

    def call(self, method, path, body=None, token=None):
        """One API call; returns (status, JSON body)."""
        request = urllib.request.Request(
            self.url + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        if token:
            request.add_header("authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def owner_token(self):
        status, body = self.call("POST", "/v1/auth/login", {"email": OWNER, "password": OWNER_PASSWORD})
        assert status == 200, body
        return body["accessToken"]


# moto's account and region: where the tests' EventBridge buses are.
AWS_ACCOUNT = "123456789012"
AWS_REGION = "us-east-1"


@pytest.fixture(scope="session")
def moto():
    """moto's server mode (every AWS service on one port), for the
    platform's EventBridge destinations: its URL. Stopped at the end."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # The test venv's moto_server, beside the interpreter running the tests.
    binary = pathlib.Path(sys.executable).parent / "moto_server"
    if not binary.exists():
        binary = ROOT / "target" / "alyt-venv" / "bin" / "moto_server"
    with tempfile.TemporaryFile() as log:

        def output():
            log.seek(0)
            return log.read().decode(errors="replace")

        process = subprocess.Popen(
            [str(binary), "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT
        )
        try:
            for _ in range(300):
                assert process.poll() is None, output()
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    time.sleep(0.1)
            else:
                raise AssertionError(f"moto did not listen on {port}: {output()}")
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="session")
def aws(moto):
    """boto3 clients of moto (`aws("events")`), with its test credentials."""
    import boto3

    def client(service):
        return boto3.client(
            service,
            region_name=AWS_REGION,
            endpoint_url=moto,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    return client


@pytest.fixture(scope="session")
def platform(moto):
    # The suites' own fixture household: the demo's four rooms, empty; its
    # EventBridge destinations' events go to moto.
    yield from run_platform(
        ALYT_DEMO="empty",
        ALYT_EVENTBRIDGE_ENDPOINT_URL=moto,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
    )


@pytest.fixture(scope="module")
def demo_platform():
    """A platform as a newcomer's first start makes it: the demo home with
    things in its rooms, driven by the simulator."""
    yield from run_platform()


def run_platform(**extra_env):
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "debug" / "alyt"
    if not binary.exists():
        subprocess.run(["cargo", "build", "--quiet", "--bin", "alyt"], cwd=ROOT, check=True)
    data = tempfile.mkdtemp(prefix="alyt-console-")
    env = dict(
        os.environ,
        ALYT_DATA_DIR=data,
        ALYT_HTTP_ADDR="127.0.0.1:0",
        ALYT_MQTT_ADDR="127.0.0.1:0",
        ALYT_OWNER_PASSWORD=OWNER_PASSWORD,
        RUST_LOG="warn",
        # Virtual devices beat every second (a 3 s heartbeat window): a
        # scenario shows within seconds.
        ALYT_SIMULATOR="fast",
        # Turnstile's always-passing test site key: the sign-up page shows
        # the widget (the tests stand in for Cloudflare's script, which this
        # machine cannot reach; the local bot check takes its test token).
        ALYT_TURNSTILE_SITE_KEY="1x00000000000000000000AA",
        **extra_env,
    )
    stdout = open(f"{data}/stdout", "w")
    process = subprocess.Popen([str(binary)], env=env, stdout=stdout, stderr=subprocess.STDOUT)
    url = mqtt = None
    for _ in range(300):
        lines = pathlib.Path(f"{data}/stdout").read_text().splitlines()
        found = [line.split()[2] for line in lines if "HTTP API" in line]
        broker = [line.split()[2] for line in lines if "MQTT broker" in line]
        if found and broker:
            url = found[0].removesuffix("/v1")
            host, port = broker[0].removeprefix("mqtt://").rsplit(":", 1)
            mqtt = (host, int(port))
            break
        assert process.poll() is None, pathlib.Path(f"{data}/stdout").read_text()
        time.sleep(0.1)
    assert url, "alyt printed no HTTP address"
    yield Platform(url, data, mqtt)
    process.send_signal(2)
    process.wait(timeout=20)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert errors == [], f"the page threw: {errors}"


FAKE_TURNSTILE = """
window.turnstile = {
  render(element, options) {
    element.textContent = "Turnstile (test stand-in): passed";
    setTimeout(() => options.callback("XXXX.DUMMY.TOKEN.XXXX"), 50);
  },
};
"""


def stand_in_for_turnstile(page):
    """Cloudflare's widget script cannot be fetched here: a stand-in that
    answers like its test site key (a test double for an outside service)."""
    page.route(
        "https://challenges.cloudflare.com/turnstile/**",
        lambda route: route.fulfill(content_type="text/javascript", body=FAKE_TURNSTILE),
    )


def mailed_link(platform, email, marker):
    """The newest link containing `marker` mailed to `email` (the local
    outbox), exactly as the mail carries it."""
    for _ in range(50):
        links = [
            word
            for mail in sorted(pathlib.Path(platform.data, "outbox").glob("*.eml"))
            if f"to: {email}" in (text := mail.read_text()).lower()
            for word in text.split()
            if word.startswith("http") and marker in word
        ]
        if links:
            return links[-1]
        time.sleep(0.1)
    raise AssertionError(f"no mail to {email} with a {marker} link")


def verification_link(platform, email):
    """The link of the verification mail to `email` in the local outbox."""
    return mailed_link(platform, email, "verify-email")


def screenshot(page, name):
    """Kept under the target dir; ALYT_UPDATE_SCREENSHOTS=1 also writes
    docs/console/<name>.png (the README links them)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "console-screenshots"
    target.mkdir(parents=True, exist_ok=True)
    # Secrets shown once are masked: a picture is no place for one, even
    # a throwaway platform's.
    mask = [page.locator("[data-secret]")]
    page.screenshot(path=str(target / f"{name}.png"), full_page=True, mask=mask)
    if os.environ.get("ALYT_UPDATE_SCREENSHOTS"):
        docs = ROOT / "docs" / "console"
        docs.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(docs / f"{name}.png"), full_page=True, mask=mask)


def sign_in(page, platform, email=OWNER, password=OWNER_PASSWORD, refused=False):
    """Signs in through the form; waits for the homes page unless refused."""
    page.goto(platform.url + "/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    if not refused:
        page.get_by_role("heading", name="Homes").wait_for()


PHONE = {"width": 390, "height": 844}

# An instant as the API writes it (RFC 3339): never shown to a person as is.
ISO_INSTANT = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}"


@pytest.fixture
def phone(browser):
    """A page at a phone's width (390 px), failing on any page error."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert errors == [], f"the page threw: {errors}"


def assert_fits(page, what):
    """The page scrolls no way but down: the document is no wider than the
    viewport."""
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{what}: the document is {width} px wide in a {inner} px viewport"


def raw_instants(page):
    """The text nodes showing an RFC 3339 instant as is (a signed payload,
    shown byte for byte in a <pre> or <code>, is data, not a value to read)."""
    return page.evaluate(
        """(pattern) => {
          const found = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement.closest("pre, code, [hidden]")) continue;
            if (new RegExp(pattern).test(node.textContent)) found.push(node.textContent);
          }
          return found;
        }""",
        ISO_INSTANT,
    )


def check_page(page, what):
    """A page at a phone's width: fits it, and reads its values (no raw
    instants)."""
    assert_fits(page, what)
    assert raw_instants(page) == [], what


def switch_names(page):
    """The accessible names of the page's switches, as the browser computes
    them (from its accessibility tree)."""
    import re

    return re.findall(r'- switch "([^"]*)"', page.locator("main").aria_snapshot())
