"""The SDK as a user installs it, against a running local platform (both set
up by sdks/smoke/run): a developer signs up and in, lists the sandbox's
devices, sends its virtual light a command and sees the result on the event
stream, and verifies a real webhook delivery with the SDK's helper.

sdks/smoke/run copies this file into a directory outside the repository and
runs it with the Python of a fresh venv that installed the built wheel, so
``alyt_sdk`` and ``alyt_client`` can only come from that wheel; the first
check is that they did, at the contract's version. With
ALYT_SMOKE_CREDENTIALS it writes the developer's email, password and key
there (JSON), for the examples that sdks/smoke/run runs next.

    ALYT_SMOKE_URL=http://127.0.0.1:PORT ALYT_SMOKE_OUTBOX=DIR \
        ALYT_SMOKE_CONTRACT_VERSION=X.Y.Z ALYT_SMOKE_REPO=DIR \
        [ALYT_SMOKE_CREDENTIALS=FILE] python -I smoke.py
"""

import importlib.metadata
import json
import os
import sys
import sysconfig
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

import alyt_client
import alyt_sdk
from alyt_client import AuthenticatedClient, Client
from alyt_client.api.developers import (
    create_developer_key,
    create_webhook,
    delete_webhook,
    developer_login,
    developer_sign_up,
    get_developer_me,
)
from alyt_client.api.homes import list_devices, send_device_command
from alyt_client.models import (
    CreateKeyRequest,
    CreateWebhookRequest,
    DeveloperType,
    EventKind,
    LoginRequest,
    Scope,
    SetCommand,
    SetCommandCommand,
    SetCommandPayload,
    SignUpRequest,
)
from alyt_sdk import SIGNATURE_HEADER, EventStream, SignatureError, verify

BASE = os.environ["ALYT_SMOKE_URL"]
OUTBOX = Path(os.environ["ALYT_SMOKE_OUTBOX"])
EMAIL = f"smoke-py-{int(time.time() * 1000)}@example.com"
PASSWORD = "plum tractor season"


def step(what):
    print(f"python smoke: {what}", flush=True)


def check_installed():
    """Both packages come from the venv's site-packages (the installed wheel),
    not the repository, with their PEP 561 markers, at the contract's
    version."""
    assert sys.prefix != sys.base_prefix, "not run in a venv"
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    repo = os.environ.get("ALYT_SMOKE_REPO")
    for package in (alyt_sdk, alyt_client):
        where = Path(package.__file__).resolve()
        step(f"{package.__name__} from {where}")
        assert where.is_relative_to(site), f"{package.__name__} is not installed in {site}"
        assert not repo or not where.is_relative_to(Path(repo).resolve()), f"{package.__name__} is in the repository"
        assert where.with_name("py.typed").is_file(), f"{package.__name__} has no py.typed"
    version = importlib.metadata.version("alyt-sdk")
    assert version == os.environ["ALYT_SMOKE_CONTRACT_VERSION"], f"alyt-sdk {version} is not the contract's version"


def verification_link(to):
    for mail in sorted(OUTBOX.glob("*.eml"), reverse=True):
        text = mail.read_text()
        if f"to: {to}" in text.lower():
            for word in text.split():
                if word.startswith("http") and "verify-email" in word:
                    return word
    raise AssertionError(f"no verification mail to {to}")


class Receiver(BaseHTTPRequestHandler):
    deliveries = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        Receiver.deliveries.append((body, self.headers.get(SIGNATURE_HEADER)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_):
        pass


def main():
    check_installed()
    anonymous = Client(base_url=BASE)
    step("sign up")
    signup = developer_sign_up.sync_detailed(
        client=anonymous,
        body=SignUpRequest(
            email=EMAIL, password=PASSWORD, display_name="SDK Smoke",
            type_=DeveloperType.INDIVIDUAL, bot_token="XXXX.DUMMY.TOKEN.XXXX",
        ),
    )
    assert signup.status_code == 202, signup.content
    assert httpx.get(verification_link(EMAIL)).status_code == 200

    step("sign in")
    login = developer_login.sync_detailed(client=anonymous, body=LoginRequest(email=EMAIL, password=PASSWORD))
    assert login.status_code == 200, login.content
    token = login.parsed.access_token
    api = AuthenticatedClient(base_url=BASE, token=token)
    tenant = get_developer_me.sync(client=api).sandbox_tenant_id
    key = create_developer_key.sync_detailed(
        client=api,
        body=CreateKeyRequest(
            name="smoke",
            scopes=[Scope.DEVICESREAD, Scope.DEVICESCOMMANDS, Scope.EVENTSREAD, Scope.WEBHOOKSWRITE],
        ),
    )
    assert key.status_code == 201, key.content
    if os.environ.get("ALYT_SMOKE_CREDENTIALS"):
        Path(os.environ["ALYT_SMOKE_CREDENTIALS"]).write_text(
            json.dumps({"email": EMAIL, "password": PASSWORD, "key": key.parsed.secret})
        )

    step("list devices")
    devices = list_devices.sync(client=api, tenant_id=tenant, limit=200)
    light = next(d for d in devices.items if "LIGHT" in d.capabilities)

    step("a webhook receiver on loopback")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook = create_webhook.sync_detailed(
        client=api,
        body=CreateWebhookRequest(url=f"http://127.0.0.1:{server.server_port}/hook", events=[EventKind.COMMAND_RESULT]),
    )
    assert hook.status_code == 201, hook.content
    secret = hook.parsed.secret

    step("send the light a command and see its result on the stream")
    results = []

    def listen(stream):
        for event in stream:
            results.append(event)

    stream = EventStream(BASE, token, events=["command.result"])
    threading.Thread(target=listen, args=(stream,), daemon=True).start()
    time.sleep(0.5)
    sent = send_device_command.sync_detailed(
        light.id,
        client=api,
        tenant_id=tenant,
        body=SetCommand(
            command=SetCommandCommand.SET,
            payload=SetCommandPayload(capability="light", key="power", value=True),
        ),
    )
    assert sent.status_code == 202, sent.content
    command_id = str(sent.parsed.command_id)
    deadline = time.time() + 20
    while time.time() < deadline and not any(e.envelope["data"].get("commandId") == command_id for e in results):
        time.sleep(0.1)
    assert any(e.kind == "command.result" and e.envelope["data"].get("commandId") == command_id for e in results), (
        f"no command.result for {command_id} within 20 s"
    )

    step("verify the webhook delivery of that result")
    while time.time() < deadline + 20 and not any(command_id.encode() in b for b, _ in Receiver.deliveries):
        time.sleep(0.1)
    body, signature = next((b, s) for b, s in Receiver.deliveries if command_id.encode() in b)
    verify(body, signature, secret)
    try:
        verify(body.replace(command_id.encode(), b"forged"), signature, secret)
        raise AssertionError("a forged delivery verified")
    except SignatureError:
        pass
    server.shutdown()

    step("remove the webhook endpoint")
    assert delete_webhook.sync_detailed(hook.parsed.id, client=api).status_code == 204
    step("ok")


if __name__ == "__main__":
    main()
