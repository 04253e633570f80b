"""Test support (no tests here): the real local platform, started on free
ports with a fresh data directory as sdks/smoke/run does, and a stub HTTP
server for what the platform cannot be made to do on demand."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

import httpx

REPO = Path(__file__).resolve().parents[3]
OWNER_EMAIL = "owner@alyt.local"
OWNER_PASSWORD = "sdk tests owner password"


@contextmanager
def local_platform(**env: str) -> Iterator[str]:
    """The ``alyt`` binary on free ports with ``env`` (built first when
    missing); yields its URL (the host, without ``/v1``)."""
    binary = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug" / "alyt"
    if not binary.exists():
        subprocess.run(["cargo", "build", "--quiet", "--bin", "alyt"], cwd=REPO, check=True)
    data = tempfile.mkdtemp(prefix="alyt-sdk-test-")
    environment = {
        **os.environ,
        "ALYT_DATA_DIR": data,
        "ALYT_HTTP_ADDR": "127.0.0.1:0",
        "ALYT_MQTT_ADDR": "127.0.0.1:0",
        "ALYT_OWNER_PASSWORD": OWNER_PASSWORD,
        "RUST_LOG": "warn",
        **env,
    }
    with open(Path(data) / "stdout", "w+") as out, open(Path(data) / "stderr", "w+") as err:
        process = subprocess.Popen([str(binary)], env=environment, stdout=out, stderr=err)
        try:
            deadline = time.time() + 30
            url = None
            while url is None:
                match = re.search(r"HTTP API\s+(\S+)/v1", (Path(data) / "stdout").read_text())
                url = match.group(1) if match else None
                if process.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"alyt did not start: {(Path(data) / 'stderr').read_text()}")
                time.sleep(0.05)
            yield url
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            shutil.rmtree(data, ignore_errors=True)


@dataclass
class Owner:
    access_token: str
    refresh_token: str
    tenant_id: str
    property_id: str


def sign_in_owner(url: str) -> Owner:
    """Signs the platform's owner in; their demo home is the one streamed."""
    login = httpx.post(f"{url}/v1/auth/login", json={"email": OWNER_EMAIL, "password": OWNER_PASSWORD})
    login.raise_for_status()
    pair = login.json()
    payload = pair["accessToken"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    tenant_id = next(iter(claims["tenants"]))
    homes = httpx.get(
        f"{url}/v1/properties", params={"tenantId": tenant_id},
        headers={"authorization": f"Bearer {pair['accessToken']}"},
    )
    return Owner(pair["accessToken"], pair["refreshToken"], tenant_id, homes.json()["items"][0]["id"])


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


class Answer:
    """What a stub handler writes with: whole answers, or a server-sent
    event stream in chunks that it may end cleanly or drop."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self._h = handler

    def send(self, status: int, body: bytes = b"", headers: Optional[Dict[str, str]] = None) -> None:
        self._h.send_response(status)
        for name, value in (headers or {}).items():
            self._h.send_header(name, value)
        self._h.send_header("content-length", str(len(body)))
        self._h.end_headers()
        self._h.wfile.write(body)

    def problem(self, status: int, name: str, headers: Optional[Dict[str, str]] = None) -> None:
        body = {"type": f"urn:alyt:problem:{name}", "title": name, "status": status,
                "detail": f"stub {name}", "requestId": "stub-1"}
        self.send(status, json.dumps(body).encode(), {"content-type": "application/problem+json", **(headers or {})})

    def drop(self) -> None:
        """Closes the connection without an answer."""
        self._h.close_connection = True

    def open_stream(self, retry_ms: int = 250) -> None:
        self._h.send_response(200)
        self._h.send_header("content-type", "text/event-stream")
        self._h.send_header("transfer-encoding", "chunked")
        self._h.end_headers()
        self.write(f"retry: {retry_ms}\n: connected\n\n")

    def write(self, text: str) -> None:
        data = text.encode()
        self._h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self._h.wfile.flush()

    def events(self, first: int, last: int) -> None:
        """Events ``first``..``last``; their ids are their numbers."""
        for n in range(first, last + 1):
            self.write(f'event: device.online\nid: {n}\ndata: {{"id":"{n}","type":"device.online","data":{{}}}}\n\n')

    def end(self) -> None:
        self.write("")  # the last chunk: a clean end
        self._h.close_connection = True

    def hold(self, seconds: float = 5.0) -> None:
        """Keeps the stream open (until the client leaves)."""
        time.sleep(seconds)


@dataclass
class Stub:
    url: str
    requests: List[Received] = field(default_factory=list)


@contextmanager
def stub_server(answer: Callable[[Received, Answer], None]) -> Iterator[Stub]:
    """An HTTP/1.1 server on 127.0.0.1:0 answering with ``answer``."""
    stub = Stub("")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            received = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                                self.rfile.read(length))
            stub.requests.append(received)
            try:
                answer(received, Answer(self))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    stub.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()


class RecordingSleep:
    """A sleep that records what it was asked and waits ``real`` seconds at most."""

    def __init__(self, real: float = 0.0, then: Optional[Callable[[], None]] = None) -> None:
        self.waits: List[float] = []
        self._real, self._then = real, then

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self._then is not None:
            self._then()
        time.sleep(min(seconds, self._real))

    async def asleep(self, seconds: float) -> None:
        self.waits.append(seconds)
