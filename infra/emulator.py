"""An emulated AWS region for the hosted stack, driven by infra/template.yaml.

    python infra/emulator.py [--data DIR] [--port PORT] [--bin-dir DIR]
                             [--parameter KEY=VALUE ...] [--exit-with-stdin]

Everything the region holds comes from the template itself, read with
cfn-lint's decoder (as infra/check_template.py reads it): there is no second
copy of routes, environments or resources here.

- AWS services: moto's server, in this process (ThreadedMotoServer). The
  template's DynamoDB tables (keys, indexes, TTL, stream), SQS queues (with
  their redrive policies) and IoT policies are created in it from their
  properties; the other resource kinds are given names and ARNs only, so
  references to them resolve. MailFrom is verified in SES, as an operator
  does once per account; the Turnstile secret is a Secrets Manager secret,
  read through the template's dynamic reference.
- Functions: each AWS::Serverless::Function with an emulated trigger runs
  as the host-built binary its BuildProperties name (target/debug), under
  a Lambda Runtime API of its own (the 2018-06-01 runtime protocol and the
  extensions API's registration), with exactly the environment the
  template gives it (Globals, then the function's own, every intrinsic
  resolved) plus what Lambda itself sets (AWS_LAMBDA_*, the region,
  credentials) and the emulator's endpoint overrides: AWS_ENDPOINT_URL
  (every AWS SDK client to moto) and ALYT_TURNSTILE_VERIFY_URL (the bot
  check to the stand-in below). One instance per function, one invocation
  at a time, started at boot (so a function that refuses to start fails the
  emulator at once), killed at its Timeout and started again.
- HTTP API: the template's HttpApi events become the routes of one front
  server (API Gateway's matching: an exact path, then single-segment
  variables, then the longest greedy {proxy+}; a method before ANY), each
  request sent to its function as payload format 2.0 (requestContext.http
  carries the caller's address, which the platform reads), the answer read
  back as API Gateway reads a 2.0 response (headers and cookies; never
  multiValueHeaders).
- Mail: every message the emulated SES accepted (moto's sent-message store
  of the SES backend, read in process) is written to DATA/outbox/ as an
  .eml, as the local platform's outbox does.
- Turnstile: a stand-in of Cloudflare's siteverify that answers as
  Cloudflare does for its documented test secrets (1x... passes, 2x...
  fails, 3x... says the token was spent).

Printed on stdout once ready: `API=<base URL with /v1>` and `DATA=<dir>`.
Runs until SIGINT or SIGTERM (or, with --exit-with-stdin, until stdin
closes: the test support's way to stop it with the test process), then
stops every function it started. Function logs: DATA/logs/<LogicalId>.log.

Not emulated yet (later slices): the stream function's URL, the MQTT front
(IoT Core, the custom authorizer, the topic rule), event source mappings
(SQS, the table's stream), schedules, CORS and stage throttling.
"""

import argparse
import base64
import ctypes
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "infra" / "template.yaml"

ACCOUNT = "123456789012"  # moto's default account
STACK = "alyt-emulated"

# Parameters the emulator gives where the template has no usable default.
# Everything else takes the template's default; --parameter overrides both.
TURNSTILE_SECRET_NAME = "alyt-emulated/turnstile"
# Cloudflare's documented test keys: this secret passes every challenge,
# this site key always shows a passing widget.
TURNSTILE_PASSING_SECRET = "1x0000000000000000000000000000000AA"
TURNSTILE_TEST_SITE_KEY = "1x00000000000000000000AA"


def emulator_parameters(region, api_base):
    return {
        "Stage": "emulated",
        "PublicUrl": api_base,
        "MailFrom": "no-reply@alyt.emulated",
        "TurnstileSiteKey": TURNSTILE_TEST_SITE_KEY,
        "TurnstileSecretId": TURNSTILE_SECRET_NAME,
        "IotDataEndpoint": f"emulated-ats.iot.{region}.amazonaws.com",
    }


# ---------------------------------------------------------------------------
# The template and its intrinsic functions


class TemplateError(Exception):
    """The template asks for something the emulator cannot resolve."""


NO_VALUE = object()  # AWS::NoValue: the property is left out


def load_template(path=TEMPLATE):
    from cfnlint.decode import decode

    template, matches = decode(str(path))
    if template is None:
        raise TemplateError(f"{path} does not parse: {matches}")
    return template


class Stack:
    """The template's parameters, conditions and resources, with every
    intrinsic function resolved against the emulated region. A resource is
    created (through `create`) the first time something refers to it, so
    resources come up in the order their references need."""

    def __init__(self, template, parameters, region, create=None):
        self.template = template
        self.region = region
        self.resources = template.get("Resources", {})
        self.parameters = self._parameters(parameters)
        self._create = create or (lambda stack, logical, resource: None)
        self._physical = {}
        self._creating = set()
        # Where each function URL is served (SAM's <Function>Url), by function.
        self.function_urls = {}

    def _parameters(self, given):
        declared = self.template.get("Parameters", {})
        unknown = set(given) - set(declared)
        if unknown:
            raise TemplateError(f"no such parameter in the template: {', '.join(sorted(unknown))}")
        values = {}
        for name, spec in declared.items():
            if name in given:
                value = str(given[name])
            elif "Default" in spec:
                value = str(spec["Default"])
            else:
                raise TemplateError(f"parameter {name} has no default: give it with --parameter {name}=...")
            pattern = spec.get("AllowedPattern")
            if pattern is not None and spec.get("Type") == "String" and not re.fullmatch(pattern, value):
                raise TemplateError(f"parameter {name}={value!r} does not match its AllowedPattern {pattern}")
            if spec.get("Type") == "CommaDelimitedList":
                values[name] = [v.strip() for v in value.split(",")] if value else [""]
            else:
                values[name] = value
        return values

    # -- references

    def pseudo(self, name):
        return {
            "AWS::Region": self.region,
            "AWS::AccountId": ACCOUNT,
            "AWS::Partition": "aws",
            "AWS::StackName": STACK,
            "AWS::URLSuffix": "amazonaws.com",
            "AWS::NoValue": NO_VALUE,
        }.get(name)

    def physical(self, logical):
        """What the resource is in the region: {"Ref": ..., attribute: ...}."""
        if logical in self._physical:
            return self._physical[logical]
        resource = self.resources.get(logical)
        if resource is None:
            generated = self._sam_generated(logical)
            if generated is None:
                raise TemplateError(f"no resource {logical} in the template")
            return generated
        if logical in self._creating:
            raise TemplateError(f"{logical} refers to itself through its properties")
        self._creating.add(logical)
        try:
            made = self._create(self, logical, resource) or self.named(logical, resource["Type"])
        finally:
            self._creating.discard(logical)
        self._physical[logical] = made
        return made

    def set_physical(self, logical, made):
        self._physical[logical] = made

    def named(self, logical, kind):
        """A name and an ARN for a resource the emulator does not create."""
        name = f"{STACK}-{logical}"
        service = kind.split("::")[1].lower() if "::" in kind else "emulated"
        return {"Ref": name, "Arn": f"arn:aws:{service}:{self.region}:{ACCOUNT}:{name}"}

    def _sam_generated(self, logical):
        # SAM names a function's URL resource <Function>Url.
        function = logical[: -len("Url")]
        properties = (self.resources.get(function) or {}).get("Properties") or {}
        if logical.endswith("Url") and properties.get("FunctionUrlConfig"):
            url = self.function_urls.get(function, f"https://{function.lower()}.lambda-url.{self.region}.on.aws/")
            return {"Ref": url, "FunctionUrl": url}
        return None

    def ref(self, name):
        pseudo = self.pseudo(name)
        if pseudo is not None:
            return pseudo
        if name in self.parameters:
            return self.parameters[name]
        return self.physical(name)["Ref"]

    def get_att(self, logical, attribute):
        made = self.physical(logical)
        if attribute not in made:
            raise TemplateError(f"!GetAtt {logical}.{attribute}: the emulator gives {logical} no {attribute}")
        return made[attribute]

    # -- conditions

    def condition(self, name):
        conditions = self.template.get("Conditions", {})
        if name not in conditions:
            raise TemplateError(f"no condition {name} in the template")
        return bool(self.resolve(conditions[name]))

    # -- resolution

    def resolve(self, value):
        if isinstance(value, dict):
            if len(value) == 1:
                (key, argument), = value.items()
                handler = INTRINSICS.get(key)
                if handler is not None:
                    return handler(self, argument)
            resolved = {k: self.resolve(v) for k, v in value.items()}
            return {k: v for k, v in resolved.items() if v is not NO_VALUE}
        if isinstance(value, list):
            return [v for v in (self.resolve(v) for v in value) if v is not NO_VALUE]
        if isinstance(value, str):
            return self.dynamic_references(value)
        return value

    def sub(self, argument):
        if isinstance(argument, list):
            text, variables = argument[0], self.resolve(argument[1])
        else:
            text, variables = argument, {}

        def one(match):
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(variables[name])
            if "." in name and name.split(".", 1)[0] in self.resources:
                return str(self.get_att(*name.split(".", 1)))
            return str(self.ref(name))

        return self.dynamic_references(re.sub(r"\$\{([^}]+)\}", one, text))

    def dynamic_references(self, text):
        return re.sub(r"\{\{resolve:([a-z-]+):([^}]*)\}\}", self._dynamic_reference, text)

    def _dynamic_reference(self, match):
        raise TemplateError(f"dynamic reference {match.group(0)} needs a region to resolve it")


def _get_att(stack, argument):
    logical, attribute = argument.split(".", 1) if isinstance(argument, str) else argument
    return stack.get_att(logical, stack.resolve(attribute))


def _if(stack, argument):
    name, then, otherwise = argument
    return stack.resolve(then if stack.condition(name) else otherwise)


def _select(stack, argument):
    index, items = stack.resolve(argument[0]), stack.resolve(argument[1])
    return items[int(index)]


INTRINSICS = {
    "Ref": lambda stack, name: stack.ref(name),
    "Fn::GetAtt": _get_att,
    "Fn::Sub": lambda stack, argument: stack.sub(argument),
    "Fn::If": _if,
    "Fn::Join": lambda stack, a: str(a[0]).join(str(v) for v in stack.resolve(a[1])),
    "Fn::Select": _select,
    "Fn::Split": lambda stack, a: stack.resolve(a[1]).split(a[0]),
    "Fn::Equals": lambda stack, a: stack.resolve(a[0]) == stack.resolve(a[1]),
    "Fn::Not": lambda stack, a: not stack.resolve(a[0]),
    "Fn::And": lambda stack, a: all(stack.resolve(c) for c in a),
    "Fn::Or": lambda stack, a: any(stack.resolve(c) for c in a),
    "Condition": lambda stack, name: stack.condition(name),
}


# ---------------------------------------------------------------------------
# Functions and routes as the template declares them


class Function:
    """An AWS::Serverless::Function with Globals applied."""

    def __init__(self, stack, logical):
        self.logical = logical
        resource = stack.resources[logical]
        globals_ = stack.template.get("Globals", {}).get("Function", {})
        properties = resource.get("Properties", {})
        self.binary = (resource.get("Metadata", {}).get("BuildProperties", {}) or {}).get("Binary")
        if not self.binary:
            code_uri = str(properties.get("CodeUri", ""))
            self.binary = Path(code_uri).name or None
        if not self.binary:
            raise TemplateError(f"{logical}: no BuildProperties Binary or CodeUri names its binary")
        self.timeout = float(stack.resolve(properties.get("Timeout", globals_.get("Timeout", 3))))
        self.memory = int(stack.resolve(properties.get("MemorySize", globals_.get("MemorySize", 128))))
        self.name = stack.physical(logical)["Ref"]
        self.arn = stack.physical(logical)["Arn"]
        self.events = properties.get("Events", {}) or {}
        self._environment = [
            (globals_.get("Environment", {}) or {}).get("Variables", {}) or {},
            (properties.get("Environment", {}) or {}).get("Variables", {}) or {},
        ]
        self.stack = stack

    def environment(self):
        """The variables the template gives the function, resolved (the
        function's own win over Globals, as SAM merges them)."""
        merged = {}
        for variables in self._environment:
            for name, value in variables.items():
                resolved = self.stack.resolve(value)
                if resolved is NO_VALUE:
                    merged.pop(name, None)
                else:
                    merged[name] = resolved if isinstance(resolved, str) else json.dumps(resolved) if isinstance(resolved, (list, dict)) else str(resolved)
        return merged

    def http_routes(self):
        routes = []
        for event_name, event in self.events.items():
            if event.get("Type") != "HttpApi":
                continue
            properties = event.get("Properties", {}) or {}
            routes.append(
                Route(
                    method=str(properties.get("Method", "ANY")).upper(),
                    path=str(properties.get("Path", "$default")),
                    function=self.logical,
                    source=f"{self.logical}.Events.{event_name}",
                    payload_format=str(properties.get("PayloadFormatVersion", "2.0")),
                )
            )
        return routes


def functions_of(stack):
    return [
        Function(stack, logical)
        for logical, resource in stack.resources.items()
        if resource.get("Type") == "AWS::Serverless::Function"
    ]


class Route:
    """One route of the HTTP API: `ANY /v1/auth/{proxy+}`."""

    def __init__(self, method, path, function, source, payload_format="2.0"):
        self.method = method
        self.path = path
        self.function = function
        self.source = source
        self.payload_format = payload_format
        self.key = "$default" if path == "$default" else f"{method} {path}"
        self.segments = [] if path in ("/", "$default") else path.strip("/").split("/")
        self.greedy = bool(self.segments) and self.segments[-1].endswith("+}")

    def match(self, method, path):
        """The path parameters when this route takes the request, else None."""
        if self.method not in ("ANY", method):
            return None
        if self.path == "$default":
            return {}
        parts = [] if path == "/" else path.strip("/").split("/")
        literal = self.segments[:-1] if self.greedy else self.segments
        if self.greedy:
            if len(parts) <= len(literal):
                return None  # {proxy+} takes at least one segment
        elif len(parts) != len(literal):
            return None
        parameters = {}
        for pattern, part in zip(literal, parts):
            if pattern.startswith("{") and pattern.endswith("}"):
                if not part:
                    return None
                parameters[pattern[1:-1]] = urllib.parse.unquote(part)
            elif pattern != part:
                return None
        if self.greedy:
            parameters[self.segments[-1][1:-2]] = urllib.parse.unquote("/".join(parts[len(literal):]))
        return parameters

    def rank(self):
        """API Gateway's priority, smaller first: a full match before
        variables before a greedy path, more literal segments first, a
        method before ANY, $default last."""
        if self.path == "$default":
            return (3, 0, 1)
        variables = sum(1 for s in self.segments if s.startswith("{"))
        literals = len(self.segments) - variables
        kind = 2 if self.greedy else (1 if variables else 0)
        return (kind, -literals, 1 if self.method == "ANY" else 0)


def route_for(routes, method, path):
    for route in sorted(routes, key=Route.rank):
        parameters = route.match(method, path)
        if parameters is not None:
            return route, parameters
    return None, None


# ---------------------------------------------------------------------------
# The region: moto, and the template's resources created in it


class Region:
    """moto's server in this process and boto3 clients on it."""

    def __init__(self, name):
        import logging

        from moto.server import ThreadedMotoServer

        # moto's server logs every call; the functions' logs say what matters.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.name = name
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"

    def client(self, service):
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name=self.name,
            aws_access_key_id="emulated",
            aws_secret_access_key="emulated",
        )

    def stop(self):
        self.server.stop()

    def sent_mail(self):
        """Every message SES (v1 or v2) accepted, oldest first."""
        from moto.ses.models import ses_backends

        return list(ses_backends[ACCOUNT][self.name].sent_messages)

    # -- resources

    def create(self, stack, logical, resource):
        kind = resource["Type"]
        creator = {
            "AWS::DynamoDB::Table": self.create_table,
            "AWS::SQS::Queue": self.create_queue,
            "AWS::IoT::Policy": self.create_iot_policy,
        }.get(kind)
        if creator is None:
            made = stack.named(logical, kind)
            if kind == "AWS::Serverless::Function":
                made["Arn"] = f"arn:aws:lambda:{self.name}:{ACCOUNT}:function:{made['Ref']}"
            return made
        return creator(stack, logical, stack.resolve(resource.get("Properties", {})))

    def create_table(self, stack, logical, p):
        name = p.get("TableName", f"{STACK}-{logical}")
        request = {
            "TableName": name,
            "AttributeDefinitions": p["AttributeDefinitions"],
            "KeySchema": p["KeySchema"],
            "BillingMode": p.get("BillingMode", "PROVISIONED"),
        }
        for index_kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if index_kind in p:
                request[index_kind] = p[index_kind]
        if "ProvisionedThroughput" in p:
            request["ProvisionedThroughput"] = p["ProvisionedThroughput"]
        if "StreamSpecification" in p:
            request["StreamSpecification"] = {"StreamEnabled": True, **p["StreamSpecification"]}
        if "SSESpecification" in p:
            request["SSESpecification"] = {"Enabled": p["SSESpecification"].get("SSEEnabled", False)}
        if p.get("Tags"):
            request["Tags"] = p["Tags"]
        dynamodb = self.client("dynamodb")
        table = dynamodb.create_table(**request)["TableDescription"]
        ttl = p.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled"):
            dynamodb.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
            )
        pitr = p.get("PointInTimeRecoverySpecification", {})
        if pitr.get("PointInTimeRecoveryEnabled"):
            dynamodb.update_continuous_backups(
                TableName=name,
                PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
            )
        return {"Ref": name, "Arn": table["TableArn"], "StreamArn": table.get("LatestStreamArn", "")}

    def create_queue(self, stack, logical, p):
        name = p.get("QueueName", f"{STACK}-{logical}")
        attributes = {}
        for key in (
            "VisibilityTimeout",
            "MessageRetentionPeriod",
            "DelaySeconds",
            "MaximumMessageSize",
            "ReceiveMessageWaitTimeSeconds",
            "SqsManagedSseEnabled",
            "FifoQueue",
            "ContentBasedDeduplication",
        ):
            if key in p:
                value = p[key]
                attributes[key] = str(value).lower() if isinstance(value, bool) else str(value)
        if "RedrivePolicy" in p:
            attributes["RedrivePolicy"] = json.dumps(p["RedrivePolicy"])
        sqs = self.client("sqs")
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        return {"Ref": url, "Arn": arn, "QueueName": name, "QueueUrl": url}

    def create_iot_policy(self, stack, logical, p):
        name = p.get("PolicyName", f"{STACK}-{logical}")
        made = self.client("iot").create_policy(policyName=name, policyDocument=json.dumps(p["PolicyDocument"]))
        return {"Ref": name, "Arn": made["policyArn"]}

    # -- what an operator sets up once per account

    def verify_sender(self, address):
        if address:
            self.client("sesv2").create_email_identity(EmailIdentity=address)

    def put_secret(self, name, value):
        self.client("secretsmanager").create_secret(Name=name, SecretString=value)

    def resolve_dynamic_reference(self, match):
        service, rest = match.group(1), match.group(2)
        if service == "secretsmanager":
            parts = rest.split(":")
            secret_id, field = parts[0], parts[1] if len(parts) > 1 else "SecretString"
            if field != "SecretString":
                raise TemplateError(f"{match.group(0)}: only SecretString is emulated")
            value = self.client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"]
            json_key = parts[2] if len(parts) > 2 else ""
            return json.loads(value)[json_key] if json_key else value
        if service in ("ssm", "ssm-secure"):
            name = rest.split(":")[0]
            return self.client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
        raise TemplateError(f"{match.group(0)}: no such dynamic reference service")


class RegionStack(Stack):
    """A stack whose resources are created in `region`."""

    def __init__(self, template, parameters, region):
        super().__init__(template, parameters, region.name, create=region.create)
        self._region = region

    def _dynamic_reference(self, match):
        return self._region.resolve_dynamic_reference(match)


# ---------------------------------------------------------------------------
# The Lambda Runtime API: one server per function


def read_body(handler):
    """The request's body, Content-Length or chunked."""
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


def reply(handler, status, body=b"", headers=()):
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if body and handler.command != "HEAD":
        handler.wfile.write(body)


class Invocation:
    def __init__(self, payload, timeout):
        self.id = str(uuid.uuid4())
        self.payload = payload
        self.deadline = time.time() + timeout
        self.done = threading.Event()
        self.outcome = None  # "response" | "error" | "timeout" | "crash"
        self.body = b""

    def finish(self, outcome, body=b""):
        if not self.done.is_set():
            self.outcome, self.body = outcome, body
            self.done.set()


class Quiet(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that hung up (a stopping function, a test that ended) is
        # not the emulator's error.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class RuntimeApi:
    """The Runtime API one function instance polls (AWS_LAMBDA_RUNTIME_API)."""

    PREFIX = "/2018-06-01/runtime"

    def __init__(self, function):
        self.function = function
        self.pending = queue.Queue()
        self.inflight = {}
        self.generation = 0  # moves on when the instance is replaced
        self.ready = threading.Event()
        self.init_error = None
        self.stopping = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == f"{api.PREFIX}/invocation/next":
                    api.next(self)
                elif self.path == "/2020-01-01/extension/event/next":
                    # An internal extension with no events (lambda_runtime's
                    # graceful-shutdown helper) waits here for ever.
                    api.stopping.wait()
                    reply(self, 500)
                else:
                    reply(self, 404)

            def do_POST(self):
                body = read_body(self)
                path = self.path
                if path.startswith(f"{api.PREFIX}/invocation/"):
                    request_id, outcome = path[len(f"{api.PREFIX}/invocation/"):].split("/", 1)
                    invocation = api.inflight.pop(request_id, None)
                    if invocation is None:
                        reply(self, 400, b'{"errorMessage":"unknown request id"}')
                        return
                    invocation.finish("response" if outcome == "response" else "error", body)
                    reply(self, 202, b'{"status":"OK"}')
                elif path == f"{api.PREFIX}/init/error":
                    api.init_error = body.decode(errors="replace")
                    api.ready.set()
                    reply(self, 202, b'{"status":"OK"}')
                elif path == "/2020-01-01/extension/register":
                    registration = {
                        "functionName": api.function.name,
                        "functionVersion": "$LATEST",
                        "handler": "bootstrap",
                        "accountId": ACCOUNT,
                    }
                    reply(
                        self,
                        200,
                        json.dumps(registration).encode(),
                        [("Lambda-Extension-Identifier", str(uuid.uuid4())), ("Content-Type", "application/json")],
                    )
                else:
                    reply(self, 404)

        self.server = Quiet(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.address = f"127.0.0.1:{self.server.server_address[1]}"

    def next(self, handler):
        self.ready.set()
        # A poll of an instance that was killed since must not take the
        # next instance's invocation.
        generation = self.generation
        while not self.stopping.is_set() and generation == self.generation:
            try:
                invocation = self.pending.get(timeout=0.2)
            except queue.Empty:
                continue
            if invocation.done.is_set():
                continue
            if generation != self.generation:
                self.pending.put(invocation)
                break
            self.inflight[invocation.id] = invocation
            try:
                reply(
                    handler,
                    200,
                    invocation.payload,
                    [
                        ("Content-Type", "application/json"),
                        ("Lambda-Runtime-Aws-Request-Id", invocation.id),
                        ("Lambda-Runtime-Deadline-Ms", str(int(invocation.deadline * 1000))),
                        ("Lambda-Runtime-Invoked-Function-Arn", self.function.arn),
                        ("Lambda-Runtime-Trace-Id", f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]}"),
                    ],
                )
            except OSError:
                # The poller is gone: the invocation waits for the next one.
                self.inflight.pop(invocation.id, None)
                self.pending.put(invocation)
                raise
            return
        reply(handler, 410)

    def fail_inflight(self, outcome):
        for request_id in list(self.inflight):
            invocation = self.inflight.pop(request_id, None)
            if invocation is not None:
                invocation.finish(outcome)

    def stop(self):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def _die_with_parent():
    # The function dies with the emulator, even when the emulator is killed.
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class FunctionInstance:
    """One function's process under its Runtime API: started at boot,
    invoked one request at a time, killed at its Timeout and started again
    (a cold start) on the next invocation."""

    def __init__(self, function, binary, environment, log_path):
        self.function = function
        self.binary = binary
        self.environment = environment
        self.log_path = log_path
        self.api = RuntimeApi(function)
        self.process = None
        self.lock = threading.Lock()  # one invocation at a time

    def lambda_environment(self):
        region = self.function.stack.region
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "AWS_ACCESS_KEY_ID": "emulated",
            "AWS_SECRET_ACCESS_KEY": "emulated",
            "AWS_SESSION_TOKEN": "emulated",
            "AWS_LAMBDA_FUNCTION_NAME": self.function.name,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(self.function.memory),
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{self.function.name}",
            "AWS_LAMBDA_LOG_STREAM_NAME": f"emulated/{uuid.uuid4().hex}",
            "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
            "AWS_LAMBDA_RUNTIME_API": self.api.address,
            "_HANDLER": "bootstrap",
            "TZ": ":UTC",
        }

    def start(self):
        self.api.generation += 1
        self.api.ready.clear()
        self.api.init_error = None
        env = {**self.lambda_environment(), **self.environment}
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [str(self.binary)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )
        log.close()

    def wait_ready(self, seconds):
        """Waits for the first poll of `next`; an error when the function
        exited or reported an init error instead."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.api.ready.wait(0.05):
                if self.api.init_error is not None:
                    raise RuntimeError(f"{self.function.logical} failed to start: {self.api.init_error} (log: {self.log_path})")
                return
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.function.logical} ({self.binary.name}) exited with {self.process.returncode} at start; "
                    f"its log: {self.log_path}\n{tail(self.log_path)}"
                )
        raise RuntimeError(f"{self.function.logical} did not poll for an invocation within {seconds} s (log: {self.log_path})")

    def invoke(self, payload):
        """The function's answer: (outcome, body)."""
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self.start()  # a cold start
                self.wait_ready(self.function.timeout)
            invocation = Invocation(payload, self.function.timeout)
            self.api.pending.put(invocation)
            while not invocation.done.wait(0.05):
                if self.process.poll() is not None:
                    self.api.fail_inflight("crash")
                    invocation.finish("crash")
                elif time.time() > invocation.deadline:
                    # Lambda ends a timed-out instance; the next one starts cold.
                    log_line(f"{self.function.logical}: task timed out after {self.function.timeout:g} s")
                    self.kill()
                    invocation.finish("timeout")
            return invocation.outcome, invocation.body

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.api.fail_inflight("timeout")

    def stop(self, grace=2.0):
        """SIGTERM (the runtime's graceful shutdown), then SIGKILL."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.api.stop()


def tail(path, lines=20):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------
# The HTTP API front


def api_gateway_event(route, parameters, method, target, headers, body, source_ip, host):
    """The payload format 2.0 event API Gateway sends for this request."""
    raw_path, _, raw_query = target.partition("?")
    joined = {}
    cookies = []
    for name, value in headers:
        name = name.lower()
        if name == "cookie":
            cookies.extend(c.strip() for c in value.split(";") if c.strip())
            continue
        joined[name] = f"{joined[name]},{value}" if name in joined else value
    query = {}
    for name, value in urllib.parse.parse_qsl(raw_query, keep_blank_values=True):
        query[name] = f"{query[name]},{value}" if name in query else value
    now = time.time()
    request_id = base64.b32encode(uuid.uuid4().bytes).decode()[:16]
    event = {
        "version": "2.0",
        "routeKey": route.key,
        "rawPath": raw_path,
        "rawQueryString": raw_query,
        "headers": joined,
        "requestContext": {
            "accountId": ACCOUNT,
            "apiId": "emulated",
            "domainName": host,
            "domainPrefix": host.split(".")[0],
            "http": {
                "method": method,
                "path": raw_path,
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": joined.get("user-agent", ""),
            },
            "requestId": request_id,
            "routeKey": route.key,
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "isBase64Encoded": False,
    }
    if cookies:
        event["cookies"] = cookies
    if query:
        event["queryStringParameters"] = query
    if parameters:
        event["pathParameters"] = parameters
    if body:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and is_text(joined.get("content-type", "")):
            event["body"] = text
        else:
            event["body"] = base64.b64encode(body).decode()
            event["isBase64Encoded"] = True
    return event, request_id


def is_text(content_type):
    content_type = content_type.lower()
    return content_type.startswith("text/") or any(
        kind in content_type for kind in ("json", "xml", "javascript", "x-www-form-urlencoded", "yaml")
    )


def http_response(answer):
    """Status, headers and body of a payload format 2.0 answer, as API
    Gateway reads it: `headers` and `cookies` (multiValueHeaders is not
    part of format 2.0 and is ignored)."""
    if not isinstance(answer, dict) or "statusCode" not in answer:
        # A bare value is a 200 with that JSON as the body.
        return 200, [("content-type", "application/json")], json.dumps(answer).encode()
    headers = [(name, str(value)) for name, value in (answer.get("headers") or {}).items()]
    headers += [("set-cookie", cookie) for cookie in answer.get("cookies") or []]
    body = answer.get("body") or ""
    body = base64.b64decode(body) if answer.get("isBase64Encoded") else body.encode()
    return int(answer["statusCode"]), headers, body


GATEWAY_ERRORS = {
    404: b'{"message":"Not Found"}',
    500: b'{"message":"Internal Server Error"}',
}


class HttpApiFront:
    """API Gateway's HTTP API, $default stage: routes to functions."""

    def __init__(self, port):
        self.routes = []
        self.instances = {}
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                front.handle(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = handle_one

        self.server = Quiet(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]

    def serve(self, routes, instances):
        self.routes, self.instances = routes, instances
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handle(self, handler):
        body = read_body(handler)
        path = urllib.parse.urlsplit(handler.path).path
        route, parameters = route_for(self.routes, handler.command, path)
        if route is None:
            reply(handler, 404, GATEWAY_ERRORS[404], [("content-type", "application/json")])
            return
        host = handler.headers.get("Host", f"127.0.0.1:{self.port}")
        event, request_id = api_gateway_event(
            route,
            parameters,
            handler.command,
            handler.path,
            handler.headers.items(),
            body,
            handler.client_address[0],
            host,
        )
        outcome, answer = self.instances[route.function].invoke(json.dumps(event).encode())
        gateway = [("apigw-requestid", request_id)]
        if outcome != "response":
            log_line(f"{route.source}: {handler.command} {path}: the function's {outcome}")
            reply(handler, 500, GATEWAY_ERRORS[500], [("content-type", "application/json"), *gateway])
            return
        try:
            status, headers, content = http_response(json.loads(answer))
        except (ValueError, KeyError, TypeError) as error:
            log_line(f"{route.source}: an answer API Gateway cannot read: {error}")
            reply(handler, 500, GATEWAY_ERRORS[500], [("content-type", "application/json"), *gateway])
            return
        headers = [(n, v) for n, v in headers if n.lower() not in ("content-length", "connection", "transfer-encoding")]
        reply(handler, status, content, [*headers, *gateway])

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------------------
# Turnstile's siteverify, as Cloudflare answers for its test secrets


def turnstile_verdict(secret, token):
    if not token:
        return {"success": False, "error-codes": ["missing-input-response"]}
    if secret.startswith("1x") and secret.endswith("AA"):
        return {"success": True, "error-codes": [], "hostname": "example.com"}
    if secret.startswith("3x") and secret.endswith("AA"):
        return {"success": False, "error-codes": ["timeout-or-duplicate"]}
    if secret.startswith("2x") and secret.endswith("AA"):
        return {"success": False, "error-codes": ["invalid-input-response"]}
    # Any real secret: the emulator cannot ask Cloudflare.
    return {"success": False, "error-codes": ["invalid-input-secret"]}


class TurnstileStandIn:
    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                form = dict(urllib.parse.parse_qsl(read_body(self).decode(errors="replace")))
                verdict = turnstile_verdict(form.get("secret", ""), form.get("response", ""))
                reply(self, 200, json.dumps(verdict).encode(), [("content-type", "application/json")])

        self.server = Quiet(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/turnstile/v0/siteverify"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------------------
# The outbox: SES's sent mail as .eml files


def render_eml(message, sent_at):
    """One accepted SES message as the local platform's outbox writes it."""
    destinations = message.destinations
    if isinstance(destinations, dict):
        to = ", ".join(destinations.get("ToAddresses", []))
    else:
        to = ", ".join(destinations)
    if hasattr(message, "raw_data"):
        return message.raw_data.replace("\r\n", "\n").replace("\n", "\r\n")
    clean = lambda s: str(s).replace("\r", " ").replace("\n", " ")  # noqa: E731
    body = str(message.body).replace("\r\n", "\n").replace("\n", "\r\n")
    if not body.endswith("\r\n"):
        body += "\r\n"
    return (
        f"From: {clean(message.source)}\r\nTo: {clean(to)}\r\nSubject: {clean(message.subject)}\r\n"
        f"Date: {formatdate(sent_at, usegmt=True)}\r\nMessage-ID: <{message.id}@ses.emulated>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
        f"\r\n{body}"
    )


class Outbox:
    """Writes every message SES accepted to DIR as `<sequence>-<id>.eml`
    (names sort oldest first), within about 50 ms of the send."""

    def __init__(self, region, directory):
        self.region = region
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.written = 0
        self.stopping = threading.Event()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while not self.stopping.wait(0.05):
            self.write_new()

    def write_new(self):
        messages = self.region.sent_mail()
        for message in messages[self.written:]:
            self.written += 1
            name = f"{time.time_ns():020d}-{self.written:06d}"
            temporary = self.directory / f".{name}.tmp"
            temporary.write_text(render_eml(message, time.time()), newline="")
            temporary.rename(self.directory / f"{name}.eml")

    def stop(self):
        self.stopping.set()
        self.write_new()


# ---------------------------------------------------------------------------
# The whole region


def log_line(text):
    print(f"emulate: {text}", file=sys.stderr, flush=True)


class EmulatedRegion:
    def __init__(self, data, bin_dir, port=0, parameters=None, region="eu-west-1", template_path=TEMPLATE):
        self.data = Path(data)
        (self.data / "logs").mkdir(parents=True, exist_ok=True)
        self.stopped = False
        self.front = HttpApiFront(port)
        self.api = f"http://127.0.0.1:{self.front.port}/v1"
        self.region = Region(region)
        self.turnstile = TurnstileStandIn()
        self.outbox = Outbox(self.region, self.data / "outbox")
        self.instances = {}
        try:
            given = {**emulator_parameters(region, self.api), **(parameters or {})}
            self.region.put_secret(TURNSTILE_SECRET_NAME, TURNSTILE_PASSING_SECRET)
            self.stack = RegionStack(load_template(template_path), given, self.region)
            self.region.verify_sender(self.stack.parameters.get("MailFrom"))
            # The stream function's URL: not served until a later slice,
            # but given to the functions that name it.
            for logical, resource in self.stack.resources.items():
                if (resource.get("Properties") or {}).get("FunctionUrlConfig"):
                    self.stack.function_urls[logical] = f"http://127.0.0.1:{free_port()}/"
            routes = [r for f in functions_of(self.stack) for r in f.http_routes()]
            self.start_functions(bin_dir, {r.function for r in routes})
            self.front.serve(routes, self.instances)
        except BaseException:
            self.stop()
            raise

    def start_functions(self, bin_dir, logicals):
        functions = [f for f in functions_of(self.stack) if f.logical in logicals]
        missing = [f.binary for f in functions if not (Path(bin_dir) / f.binary).is_file()]
        if missing:
            raise RuntimeError(
                f"no binary in {bin_dir} for {', '.join(missing)}: build them with cargo build --workspace --bins"
            )
        warn_if_stale([Path(bin_dir) / f.binary for f in functions])
        overrides = {"AWS_ENDPOINT_URL": self.region.endpoint, "ALYT_TURNSTILE_VERIFY_URL": self.turnstile.url}
        for function in functions:
            instance = FunctionInstance(
                function,
                Path(bin_dir) / function.binary,
                {**function.environment(), **overrides},
                self.data / "logs" / f"{function.logical}.log",
            )
            self.instances[function.logical] = instance
            instance.start()
        for instance in self.instances.values():
            instance.wait_ready(max(30.0, instance.function.timeout))

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        for instance in self.instances.values():
            instance.stop()
        self.front.stop()
        self.outbox.stop()
        self.turnstile.stop()
        self.region.stop()


def warn_if_stale(binaries):
    """Says so when a binary is older than the Rust sources: the region
    runs what was built, not what is checked out."""
    sources = [ROOT / "Cargo.lock"]
    for folder in ("shared", "functions"):
        sources += (ROOT / folder).rglob("*.rs")
    newest = max(path.stat().st_mtime for path in sources)
    stale = [b.name for b in binaries if b.stat().st_mtime < newest]
    if stale:
        log_line(
            f"older than the sources: {', '.join(stale)}; rebuild (cargo build --workspace --bins) to run your change"
        )


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="the data directory (default: a new one under the system's temp dir)")
    parser.add_argument("--port", type=int, default=0, help="the HTTP API's port (default: a free one)")
    parser.add_argument("--region", default="eu-west-1")
    parser.add_argument(
        "--bin-dir",
        default=str(Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug"),
        help="where the functions' host-built binaries are (default: target/debug)",
    )
    parser.add_argument("--parameter", action="append", default=[], metavar="KEY=VALUE", help="a template parameter")
    parser.add_argument("--exit-with-stdin", action="store_true", help="also stop when stdin closes")
    args = parser.parse_args(argv)
    parameters = dict(p.split("=", 1) for p in args.parameter)
    data = args.data or tempfile.mkdtemp(prefix="alyt-emulate-")

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        region = EmulatedRegion(data, args.bin_dir, args.port, parameters, args.region)
    except (TemplateError, RuntimeError) as error:
        log_line(str(error))
        return 1
    if args.exit_with_stdin:

        def watch_stdin():
            while sys.stdin.buffer.read(4096):
                pass
            stop.set()

        threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"API={region.api}", flush=True)
    print(f"DATA={Path(data).resolve()}", flush=True)
    log_line(f"{len(region.instances)} functions up ({', '.join(region.instances)}); function logs in {Path(data) / 'logs'}")
    while not stop.wait(0.5):
        pass
    log_line("stopping")
    region.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
