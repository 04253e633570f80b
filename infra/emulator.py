"""An emulated AWS region for the hosted stack, driven by infra/template.yaml.

    python infra/emulator.py [--data DIR] [--port PORT] [--stream-port PORT]
                             [--mqtt-port PORT] [--bin-dir DIR]
                             [--schedule-speedup N] [--parameter KEY=VALUE ...]
                             [--exit-with-stdin]

Everything the region holds comes from the template itself, read with
cfn-lint's decoder (as infra/check_template.py reads it): there is no second
copy of routes, environments or resources here.

- AWS services: moto's server, in this process (ThreadedMotoServer). The
  template's DynamoDB tables (keys, indexes, TTL, stream), SQS queues (with
  their redrive policies), IoT policies and Secrets Manager secrets (a
  GenerateSecretString's value generated as Secrets Manager would, at the
  length and from the characters it asks for; `!Ref` is the secret's ARN)
  are created in it from their properties; the other resource kinds are
  given names and ARNs only, so references to them resolve. MailFrom is
  verified in SES, as an operator does once per account; the Turnstile
  secret is a Secrets Manager secret the emulator creates as an operator
  would (holding the stand-in's passing test secret), its name given as
  the TurnstileSecretId parameter. Functions read secrets at run time
  from moto (GetSecretValue through AWS_ENDPOINT_URL, like every AWS
  call).
- Functions: each AWS::Serverless::Function with an emulated trigger runs
  as the host-built binary its BuildProperties name (target/debug), under
  a Lambda Runtime API of its own (the 2018-06-01 runtime protocol and the
  extensions API's registration), with exactly the environment the
  template gives it (Globals, then the function's own, every intrinsic
  resolved) plus what Lambda itself sets (AWS_LAMBDA_*, the region,
  credentials) and the emulator's endpoint overrides: AWS_ENDPOINT_URL
  (every AWS SDK client to moto), ALYT_TURNSTILE_VERIFY_URL (the bot
  check to the stand-in below) and ALYT_WEBHOOKS_PRIVATE_NETWORKS=on
  (webhooks may reach a receiver on this machine). One instance per function, one invocation
  at a time, started at boot (so a function that refuses to start fails the
  emulator at once), killed at its Timeout and started again.
- HTTP API: the template's HttpApi events become the routes of one front
  server (API Gateway's matching: an exact path, then single-segment
  variables, then the longest greedy {proxy+}; a method before ANY), each
  request sent to its function as payload format 2.0 (requestContext.http
  carries the caller's address, which the platform reads), the answer read
  back as API Gateway reads a 2.0 response (headers and cookies; never
  multiValueHeaders).
- Function URLs: each on a port of its own (what `!GetAtt
  <Function>Url.FunctionUrl` resolves to), every request sent as the
  function URL event; with RESPONSE_STREAM the function's streamed
  response (Lambda's streaming mode: the prelude, 8 NUL bytes, the body)
  goes to the client chunk by chunk as it arrives.
- ECS: a service whose condition holds runs its task definition's
  containers as processes (the simulator image as its host-built binary),
  their environment resolved from the template, restarted when they exit.
- Mail: every message the emulated SES accepted (moto's sent-message store
  of the SES backend, read in process) is written to DATA/outbox/ as an
  .eml, as the local platform's outbox does.
- Turnstile: a stand-in of Cloudflare's siteverify that answers as
  Cloudflare does for its documented test secrets (1x... passes, 2x...
  fails, 3x... says the token was spent).
- IoT Core: an MQTT 3.1.1 front (a thread per connection; TLS, or plain
  TCP for custom-authorizer logins). A device is admitted by a certificate
  registered in the account (ACTIVE; its attached policies evaluated with
  the thing's policy variables) or through the template's custom
  authorizer (the function invoked with IoT Core's event, its answer's
  policy enforced, asked again at refreshAfterInSeconds). Every publish
  is matched against the template's topic rules by their SQL as written
  (RuleSql: anything it cannot evaluate fails the region at start) and sent
  to the rule's SQS action in IoT Core's shape, a failure to its error
  action. The data plane's Publish and DeleteConnection serve the
  functions (ALYT_IOT_DATA_PLANE_URL, given where the template sets
  ALYT_IOT_DATA_ENDPOINT).
- Event sources: the SQS and DynamoDB events of the template poll their
  queue or table stream with its batch settings, filter and
  ReportBatchItemFailures; Schedule events invoke at their rate (faster
  with --schedule-speedup). A function scales out to concurrent
  instances (FunctionPool), as Lambda does.

Printed on stdout once ready: `API=<base URL with /v1>`, `STREAM=<the
stream function's URL>`, `MQTT=<host:port>`, `DATA=<dir>` (DATA/iot/ca.pem signs the MQTT front's certificate),
`STACK=<name>` and `AWS_ENDPOINT_URL=<moto>`: the stack as CloudFormation
shows it (its outputs; its alarms in CloudWatch), for infra/smoke --stack.
Runs until SIGINT or SIGTERM (or, with --exit-with-stdin, until stdin
closes: the test support's way to stop it with the test process), then
stops every function it started. Function logs: DATA/logs/<LogicalId>.log.

The HTTP API's stage throttle (`TokenBucket`) and the CORS of the HTTP API
and of the function URLs (`Cors`) are applied as AWS applies them.
"""

import argparse
import base64
import copy
import ctypes
import hashlib
import json
import os
import queue
import re
import secrets
import signal
import socket
import ssl
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


# The simulator task's image is the one infra/simulator.Dockerfile builds:
# the emulator runs that image's binary, host-built, as the task's process.
SIMULATOR_IMAGE = "emulated/alyt-simulator-runner"
SIMULATOR_DOCKERFILE = ROOT / "infra" / "simulator.Dockerfile"


def emulator_parameters(region, api_base):
    return {
        "Stage": "emulated",
        "SimulatorImage": SIMULATOR_IMAGE,
        "SimulatorSubnets": "subnet-emulated",
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

    # The property that names a resource, for the kinds whose Ref is that
    # name (CloudFormation's answer), when the template gives one.
    NAME_PROPERTIES = {
        "AWS::IoT::Authorizer": ("AuthorizerName", "authorizer/"),
    }

    def named(self, logical, kind):
        """A name and an ARN for a resource the emulator does not create."""
        name = f"{STACK}-{logical}"
        service = kind.split("::")[1].lower() if "::" in kind else "emulated"
        prefix = ""
        if kind in self.NAME_PROPERTIES:
            property_name, prefix = self.NAME_PROPERTIES[kind]
            given = (self.resources.get(logical, {}).get("Properties") or {}).get(property_name)
            if given is not None:
                name = self.resolve(given)
        if kind == "AWS::SNS::Topic":
            arn = f"arn:aws:sns:{self.region}:{ACCOUNT}:{name}"
            return {"Ref": arn, "TopicArn": arn, "TopicName": name}
        if kind == "AWS::SecretsManager::Secret":
            # Its Ref is its ARN, which Secrets Manager ends with six random
            # characters (here derived from the name).
            given = (self.resources.get(logical, {}).get("Properties") or {}).get("Name")
            name = self.resolve(given) if given is not None else name
            arn = f"arn:aws:secretsmanager:{self.region}:{ACCOUNT}:secret:{name}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"
            return {"Ref": arn, "Id": arn, "Name": name}
        return {"Ref": name, "Arn": f"arn:aws:{service}:{self.region}:{ACCOUNT}:{prefix}{name}"}

    def _sam_generated(self, logical):
        # SAM names a function's URL resource <Function>Url.
        function = logical[: -len("Url")]
        properties = (self.resources.get(function) or {}).get("Properties") or {}
        if logical.endswith("Url") and properties.get("FunctionUrlConfig"):
            url = self.function_urls.get(function, f"https://{function.lower()}.lambda-url.{self.region}.on.aws/")
            return {"Ref": url, "FunctionUrl": url}
        # `!Ref <Function>.Alias` is the ARN of the alias AutoPublishAlias
        # names (SAM's <Function>Alias<name>): the function's, qualified.
        if logical.endswith(".Alias") and logical[: -len(".Alias")] in self.resources:
            function = logical[: -len(".Alias")]
            alias = self.function_alias(function)
            if not alias:
                raise TemplateError(f"!Ref {logical}: {function} has no AutoPublishAlias")
            arn = f"{self.physical(function)['Arn']}:{alias}"
            return {"Ref": arn, "Arn": arn}
        # ... and a Schedule event's EventBridge rule <Function><Event>
        # (what the schedules' alarms watch).
        for name, resource in self.resources.items():
            if resource.get("Type") != "AWS::Serverless::Function" or not logical.startswith(name):
                continue
            event = ((resource.get("Properties") or {}).get("Events") or {}).get(logical[len(name):])
            if event and event.get("Type") == "Schedule":
                return self.named(logical, "AWS::Events::Rule")
        return None

    def function_alias(self, function):
        """The alias a function is published behind (AutoPublishAlias, its
        own or the Globals'), or None."""
        own = (self.resources[function].get("Properties") or {}).get("AutoPublishAlias")
        shared = ((self.template.get("Globals") or {}).get("Function") or {}).get("AutoPublishAlias")
        alias = own if own is not None else shared
        return self.resolve(alias) if alias else None

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
# Mistakes the template can make that no resource creation would notice:
# checked at start, each naming the template entry (the region refuses to
# start, so a story run on a broken template fails at once with the reason)

CONTRACT = ROOT / "shared" / "api" / "contract" / "openapi.json"


def unrouted_operations(stack, contract=CONTRACT):
    """Every operation of the API contract (what the SDKs and clients call)
    must have a route in the template's HTTP API: one without is API
    Gateway's 404 for every caller, which no deploy check notices."""
    document = json.loads(Path(contract).read_text())
    routes = [r for f in functions_of(stack) for r in f.http_routes()]
    errors = []
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            if method.upper() not in ("GET", "PUT", "POST", "DELETE", "PATCH"):
                continue
            route, _ = route_for(routes, method.upper(), path)
            if route is None:
                name = operation.get("operationId", "")
                errors.append(
                    f"{method.upper()} {path} ({name} in {Path(contract).name}): no HttpApi event of the template routes it"
                )
    return errors


GROUPS = ROOT / "shared" / "api" / "contract" / "groups.json"


def misrouted_operations(stack, groups=GROUPS):
    """Every operation a hosted group serves (the committed map, kept true by
    the API's contract test) must reach that group's function: a group's
    narrower route removed falls through to another's catch-all
    (`/v1/{proxy+}`), whose function answers 404 for it."""
    serving = json.loads(Path(groups).read_text())
    functions = functions_of(stack)
    owner_of = {f.binary: f.logical for f in functions}
    routes = [r for f in functions for r in f.http_routes()]
    errors = []
    for binary, endpoints in serving.items():
        owner = owner_of.get(binary, f"no function of the template runs {binary}")
        for endpoint in endpoints:
            method, path = endpoint.split(" ", 1)
            route, _ = route_for(routes, method, path)
            if route is not None and route.function != owner:
                errors.append(
                    f"{endpoint} ({binary}, {owner}): the template routes it to {route.function} ({route.method} {route.path})"
                )
    return errors


def device_topics(stack):
    """(policy, topic) for each topic a device policy of the template lets a
    device publish on, its policy variables filled with sample values."""
    topics = []
    for logical, resource in stack.resources.items():
        if resource.get("Type") != "AWS::IoT::Policy":
            continue
        document = stack.resolve(resource.get("Properties", {})).get("PolicyDocument", {})
        for statement in document.get("Statement", []):
            actions = statement.get("Action", [])
            actions = [actions] if isinstance(actions, str) else actions
            if statement.get("Effect") != "Allow" or "iot:Publish" not in actions:
                continue
            resources = statement.get("Resource", [])
            for arn in [resources] if isinstance(resources, str) else resources:
                if ":topic/" in arn:
                    topics.append((logical, re.sub(r"\$\{[^}]*\}", "sample", arn.split(":topic/", 1)[1])))
    return topics


def dropped_device_topics(stack):
    """Every topic a device may publish on must be taken by a topic rule (its
    filter and WHERE, as written): what no rule takes never reaches ingest,
    and the device's messages are lost without an error anywhere."""
    rules = topic_rules(stack)
    errors = []
    for policy, topic in device_topics(stack):
        context = RuleContext(topic, b'{"sample":1}', "192.0.2.1", "sample")
        if not any(not r.disabled and r.sql.evaluate(context) is not None for r in rules):
            names = ", ".join(r.logical for r in rules) or "no topic rule"
            errors.append(f"{names}: its SQL drops {topic}, which {policy} lets a device publish on")
    return errors


def invalid_batch_settings(stack):
    errors = []
    for function in functions_of(stack):
        for name, event in function.events.items():
            if event.get("Type") in ("SQS", "DynamoDB"):
                source = f"{function.logical}.Events.{name}"
                properties = event.get("Properties", {})
                batch = {k: stack.resolve(properties[k]) for k in ("BatchSize", "MaximumBatchingWindowInSeconds") if k in properties}
                errors += batch_settings_errors(source, event["Type"], batch)
    return errors


def template_mistakes(stack, contract=CONTRACT):
    """Every mistake above, one message each."""
    return (
        unrouted_operations(stack, contract)
        + misrouted_operations(stack)
        + dropped_device_topics(stack)
        + invalid_batch_settings(stack)
    )


# ---------------------------------------------------------------------------
# The region: moto, and the template's resources created in it


def transact_write_items(backend, transact_items):
    """DynamoDB's TransactWriteItems on moto's backend, rolled back item by
    item: moto's own deep-copies every table the transaction names (the whole
    table, for each transaction: 0.25 s on average at 1,500 items, and
    ingest writes one per message), this keeps a copy of the items it touches
    and the length of their table's stream. Otherwise as moto 5 does it, so
    DynamoDB's semantics hold as there: every condition is checked against
    the item as it was (an item appears once per transaction), and when any
    fails or an action is invalid, every item and the stream are as before
    and TransactionCanceledException gives one reason per action, in order
    (ConditionalCheckFailed, with the old item for ReturnValuesOnCondition-
    CheckFailure ALL_OLD, or None). Callers hold the region's DynamoDB lock,
    so no other request sees a transaction half applied."""
    from moto.dynamodb.exceptions import (
        ConditionalCheckFailed,
        MockValidationException,
        MultipleTransactionsException,
        TooManyTransactionsException,
        TransactionCanceledException,
        TransactWriteSingleOpException,
    )
    from moto.dynamodb.models import get_filter_expression

    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    touched = {}  # (table name, key) -> (table, hash, range, the item before or None)
    streams = {}  # table name -> (shard, its length before)

    def remember(table_name, key):
        table = backend.get_table(table_name)
        hash_value, range_value = backend.get_keys_value(table, key)
        before = table.get_item(hash_value, range_value)
        touched[(table_name, str(sorted(key.items())))] = (table, hash_value, range_value, copy.deepcopy(before))
        if table_name not in streams and table.stream_shard is not None:
            streams[table_name] = (table.stream_shard, len(table.stream_shard.items))

    def roll_back():
        for table, hash_value, range_value, before in touched.values():
            if range_value is not None:
                partition = table.items[hash_value]
                if before is None:
                    partition.pop(range_value, None)
                else:
                    partition[range_value] = before
            elif before is None:
                table.items.pop(hash_value, None)
            else:
                table.items[hash_value] = before
        for shard, length in streams.values():
            del shard.items[length:]

    errors = []  # (Code, Message, Item) per action, (None, None, None) when it held
    for item in transact_items:
        original_item = None
        if len(item) > 1:
            raise TransactWriteSingleOpException
        try:
            op_type, op = next(iter(item.items()))
            if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
                raise ValueError("Unsupported transaction operation")
            table_name = op["TableName"]
            condition_expression = op.get("ConditionExpression")
            names = op.get("ExpressionAttributeNames")
            values = op.get("ExpressionAttributeValues")
            if op_type == "Put":
                table = backend.get_table(table_name)
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            if (table_name, str(sorted(key.items()))) in touched:
                raise MultipleTransactionsException()
            remember(table_name, key)

            current = backend.get_item(table_name, key)
            if condition_expression is not None:
                condition = get_filter_expression(condition_expression, names, values)
                if not condition.expr(current):
                    if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                        original_item = current.to_json()["Attributes"]
                    raise ConditionalCheckFailed(item=original_item)

            written = {
                "condition_expression": condition_expression,
                "expression_attribute_names": names,
                "expression_attribute_values": values,
            }
            if op_type == "Put":
                backend.put_item(table_name, op["Item"], **written)
            elif op_type == "Delete":
                backend.delete_item(table_name, key, **written)
            elif op_type == "Update":
                backend.update_item(table_name, key, update_expression=op["UpdateExpression"], **written)
            errors.append((None, None, None))
        except (MultipleTransactionsException, MockValidationException):
            roll_back()
            raise
        except ConditionalCheckFailed as e:
            errors.append(("ConditionalCheckFailed", str(e.message), original_item))
        except Exception as e:  # noqa: BLE001 - moto reports any other failure as the action's reason
            errors.append((type(e).__name__, str(e), original_item))

    if any(code is not None for code, _, _ in errors):
        roll_back()
        raise TransactionCanceledException(errors)


_query_candidates = threading.local()


def query_without_sorting_the_table(query, all_items):
    """moto's Table.query, given only the items that can match: moto reads
    the whole table sorted by its keys for every query (`all_items`, a
    Python sort of every item: 60 ms at 1,500 items, two thirds of the
    region's time with a dozen stories). A table query's candidates are its
    partition; an index query's are the items whose first index key
    attribute holds the asked value (compared as stored for strings and
    binaries; for other types every item stays a candidate). moto then
    filters and sorts the candidates itself, so its answer, order and
    paging are unchanged: the keys order every item totally."""

    def candidates(table, hash_key, index_name, hash_key_conditions):
        if not index_name:
            partition = table.items.get(hash_key) if hash_key is not None else None
            if partition is None:
                return []
            return list(partition.values()) if table.range_key_attr else [partition]
        items = [item for partition in table.items.values() for item in (partition.values() if table.range_key_attr else [partition])]
        if hash_key_conditions:
            name, value = hash_key_conditions[0]
            if value.type in ("S", "B"):
                items = [i for i in items if (a := i.attrs.get(name)) is not None and a.type == value.type and a.value == value.value]
        return items

    def patched_query(self, hash_key, *args, **kwargs):
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        narrowed = candidates(self, hash_key, index_name, kwargs.get("hash_key_conditions"))
        _query_candidates.table, _query_candidates.items = self, narrowed
        try:
            return query(self, hash_key, *args, **kwargs)
        finally:
            _query_candidates.table = _query_candidates.items = None

    def patched_all_items(self):
        if getattr(_query_candidates, "table", None) is self:
            return _query_candidates.items
        return all_items(self)

    return patched_query, patched_all_items


def speed_up_moto():
    """What the region needs of moto to carry a dozen stories at once, each
    change keeping DynamoDB's answers as moto gives them: transactions roll
    back by item (transact_write_items), a query reads its candidates
    only (query_without_sorting_the_table), and the request dispatcher
    lists moto's service modules once rather than from the disk for every
    request (`list_of_moto_modules`: 4 ms a request)."""
    import moto.backends
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    if getattr(DynamoDBBackend.transact_write_items, "__module__", "") == __name__:
        return
    DynamoDBBackend.transact_write_items = transact_write_items
    Table.query, Table.all_items = query_without_sorting_the_table(Table.query, Table.all_items)
    modules = list(moto.backends.list_of_moto_modules())
    moto.backends.list_of_moto_modules = lambda: iter(modules)


class DynamoDbTimes:
    """Where the region's DynamoDB time goes, per operation: requests,
    time queued for the table (behind other requests) and time serving.
    The emulator logs it when it stops: a region too slow for its stories
    shows here first (a function's timeout is the symptom)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_operation = {}

    def add(self, operation, queued, serving):
        with self.lock:
            count, total_queued, total_serving, slowest = self.by_operation.get(operation, (0, 0.0, 0.0, 0.0))
            self.by_operation[operation] = (
                count + 1, total_queued + queued, total_serving + serving, max(slowest, serving),
            )

    def report(self):
        with self.lock:
            rows = sorted(self.by_operation.items(), key=lambda row: -row[1][2])
        return [
            f"DynamoDB {operation}: {count} requests, {queued:.1f} s queued, {serving:.1f} s serving, slowest {slowest * 1000:.0f} ms"
            for operation, (count, queued, serving, slowest) in rows
        ]


def _serial_dynamodb_server():
    from moto.moto_server.threaded_moto_server import MotoRequestHandler, ThreadedMotoServer
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    class Server(ThreadedMotoServer):
        """moto's threaded server, DynamoDB one request at a time: each
        request is one atomic step, as DynamoDB's are (moto changes items in
        place and iterates the table's dicts, so a concurrent write could
        show a reader a half-updated item or break its iteration), and no
        request sees a transaction half applied. It costs little: moto is
        Python, so its requests never ran in parallel anyway (one
        interpreter lock), and each is a few milliseconds (speed_up_moto).
        Other services stay concurrent (an SQS long poll must not hold the
        table)."""

        def __init__(self, lock, times):
            super().__init__(ip_address="127.0.0.1", port=0, verbose=False)
            self.lock = lock
            self.times = times

        def _server_entry(self):
            app = DomainDispatcherApplication(create_backend_app)
            lock, times = self.lock, self.times

            def serial(environ, start_response):
                target = environ.get("HTTP_X_AMZ_TARGET", "")
                if not target.startswith("DynamoDB"):
                    return app(environ, start_response)
                asked = time.monotonic()
                with lock:
                    started = time.monotonic()
                    answer = list(app(environ, start_response))
                times.add(target.rsplit(".", 1)[-1], started - asked, time.monotonic() - started)
                return answer

            self._server = make_server(self._ip_address, self._port, serial, True, request_handler=MotoRequestHandler)
            self._server_ready_event.set()
            self._server.serve_forever()

    return Server


def SerialDynamoDbServer(lock, times):  # noqa: N802 - a class made on first use (moto is imported lazily)
    return _serial_dynamodb_server()(lock, times)


class Region:
    """moto's server in this process and boto3 clients on it."""

    def __init__(self, name):
        import logging

        # moto's server logs every call; the functions' logs say what matters.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.name = name
        speed_up_moto()
        self.dynamodb_lock = threading.Lock()
        self.dynamodb_times = DynamoDbTimes()
        self.server = SerialDynamoDbServer(self.dynamodb_lock, self.dynamodb_times)
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
            "AWS::SecretsManager::Secret": self.create_secret,
            "AWS::CloudWatch::Alarm": self.create_alarm,
            "AWS::ApplicationAutoScaling::ScalableTarget": self.create_scalable_target,
            "AWS::ApplicationAutoScaling::ScalingPolicy": self.create_scaling_policy,
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
        # CloudFormation takes a number parameter's text for a number.
        capacity = lambda t: {k: int(v) for k, v in t.items()}  # noqa: E731
        for index_kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if index_kind in p:
                request[index_kind] = [
                    {**index, **({"ProvisionedThroughput": capacity(index["ProvisionedThroughput"])} if "ProvisionedThroughput" in index else {})}
                    for index in p[index_kind]
                ]
        if "ProvisionedThroughput" in p:
            request["ProvisionedThroughput"] = capacity(p["ProvisionedThroughput"])
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

    def create_scalable_target(self, stack, logical, p):
        """Application Auto Scaling's target (moto keeps it; nothing scales
        here). Its Ref is what CloudFormation gives: the resource id, the
        dimension and the namespace joined by '|'."""
        self.client("application-autoscaling").register_scalable_target(
            ServiceNamespace=p["ServiceNamespace"],
            ResourceId=p["ResourceId"],
            ScalableDimension=p["ScalableDimension"],
            MinCapacity=int(p["MinCapacity"]),
            MaxCapacity=int(p["MaxCapacity"]),
        )
        return {"Ref": "|".join((p["ResourceId"], p["ScalableDimension"], p["ServiceNamespace"]))}

    def create_scaling_policy(self, stack, logical, p):
        resource, dimension, namespace = p["ScalingTargetId"].split("|")
        config = p["TargetTrackingScalingPolicyConfiguration"]
        arn = self.client("application-autoscaling").put_scaling_policy(
            PolicyName=p["PolicyName"],
            ServiceNamespace=namespace,
            ResourceId=resource,
            ScalableDimension=dimension,
            PolicyType=p["PolicyType"],
            TargetTrackingScalingPolicyConfiguration={
                "TargetValue": float(config["TargetValue"]),
                "PredefinedMetricSpecification": config["PredefinedMetricSpecification"],
            },
        )["PolicyARN"]
        return {"Ref": arn}

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

    def create_secret(self, stack, logical, p):
        """A secret with its first version (AWSCURRENT): the SecretString
        given, or one generated as GenerateSecretString asks. Its Ref (and
        Id) is its ARN, as CloudFormation's."""
        unknown = set(p) - {"Name", "Description", "SecretString", "GenerateSecretString", "KmsKeyId", "Tags"}
        if unknown:
            raise TemplateError(f"{logical}: secret properties the emulator does not know: {', '.join(sorted(unknown))}")
        if "SecretString" in p and "GenerateSecretString" in p:
            raise TemplateError(f"{logical}: SecretString and GenerateSecretString together (CloudFormation refuses it)")
        name = p.get("Name", f"{STACK}-{logical}")
        request = {"Name": name}
        if "Description" in p:
            request["Description"] = p["Description"]
        if p.get("Tags"):
            request["Tags"] = p["Tags"]
        if "SecretString" in p:
            request["SecretString"] = p["SecretString"]
        elif "GenerateSecretString" in p:
            request["SecretString"] = generated_secret_string(logical, p["GenerateSecretString"])
        made = self.client("secretsmanager").create_secret(**request)
        return {"Ref": made["ARN"], "Id": made["ARN"], "Name": name}

    def create_alarm(self, stack, logical, p):
        """An alarm in CloudWatch from its properties (the property names
        are PutMetricAlarm's), named as CloudFormation names it when the
        template gives no AlarmName: `<stack>-<LogicalId>-<suffix>`. Not
        evaluated (nothing sends the metrics it watches): it stays in moto's
        first state until someone sets it, as a test does."""
        name = p.get("AlarmName") or f"{STACK}-{logical}-{hashlib.sha256(logical.encode()).hexdigest()[:12].upper()}"
        request = {**p, "AlarmName": name}
        for number in ("Threshold",):
            if number in request:
                request[number] = float(request[number])
        for number in ("Period", "EvaluationPeriods", "DatapointsToAlarm"):
            if number in request:
                request[number] = int(request[number])
        self.client("cloudwatch").put_metric_alarm(**request)
        return {"Ref": name, "Arn": f"arn:aws:cloudwatch:{self.name}:{ACCOUNT}:alarm:{name}"}

    def publish_stack(self, stack_name, outputs):
        """The stack as CloudFormation shows it (DescribeStacks: its state
        and outputs), for what reads a deployed stack (infra/smoke): one
        stand-in resource, since the emulator, not moto's CloudFormation,
        made the template's resources."""
        import warnings

        with warnings.catch_warnings():
            # moto says it skips the stand-in resource: that is the point.
            warnings.simplefilter("ignore")
            self._publish_stack(stack_name, outputs)

    def _publish_stack(self, stack_name, outputs):
        self.client("cloudformation").create_stack(
            StackName=stack_name,
            TemplateBody=json.dumps({
                "Resources": {"EmulatedStack": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
                "Outputs": {key: {"Value": str(value)} for key, value in outputs.items()},
            }),
        )

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


# GetRandomPassword's characters (Secrets Manager's "punctuation" is every
# printable ASCII character that is neither a letter nor a digit).
PASSWORD_CHARACTERS = {
    "ExcludeUppercase": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "ExcludeLowercase": "abcdefghijklmnopqrstuvwxyz",
    "ExcludeNumbers": "0123456789",
    "ExcludePunctuation": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
}


def generated_secret_string(logical, spec):
    """A value as CloudFormation's GenerateSecretString makes it: a random
    password of PasswordLength (default 32) from the character kinds not
    excluded (and a space with IncludeSpace), at least one of each kind
    when RequireEachIncludedType (the default); with GenerateStringKey,
    written into SecretStringTemplate's JSON under that key."""
    known = {"PasswordLength", "IncludeSpace", "RequireEachIncludedType", "ExcludeCharacters",
             "GenerateStringKey", "SecretStringTemplate", *PASSWORD_CHARACTERS}
    unknown = set(spec) - known
    if unknown:
        raise TemplateError(f"{logical}: GenerateSecretString settings the emulator does not know: {', '.join(sorted(unknown))}")

    def flag(key, default=False):
        value = spec.get(key, default)
        return value if isinstance(value, bool) else str(value).lower() == "true"

    length = int(spec.get("PasswordLength", 32))
    if not 1 <= length <= 4096:
        raise TemplateError(f"{logical}: GenerateSecretString.PasswordLength {length} is outside 1..4096")
    excluded = set(str(spec.get("ExcludeCharacters", "")))
    kinds = [
        "".join(c for c in characters if c not in excluded)
        for key, characters in PASSWORD_CHARACTERS.items()
        if not flag(key)
    ]
    if flag("IncludeSpace") and " " not in excluded:
        kinds.append(" ")
    kinds = [k for k in kinds if k]
    if not kinds:
        raise TemplateError(f"{logical}: GenerateSecretString excludes every character")
    if flag("RequireEachIncludedType", True) and length < len(kinds):
        raise TemplateError(f"{logical}: GenerateSecretString.PasswordLength {length} is shorter than the kinds it requires")
    pool = "".join(kinds)
    while True:
        value = "".join(secrets.choice(pool) for _ in range(length))
        if not flag("RequireEachIncludedType", True) or all(any(c in kind for c in value) for kind in kinds):
            break
    if "GenerateStringKey" in spec or "SecretStringTemplate" in spec:
        if "GenerateStringKey" not in spec or "SecretStringTemplate" not in spec:
            raise TemplateError(f"{logical}: GenerateStringKey and SecretStringTemplate go together")
        document = json.loads(spec["SecretStringTemplate"])
        document[spec["GenerateStringKey"]] = value
        return json.dumps(document)
    return value


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


def chunks(handler):
    """A chunked request body, chunk by chunk as it arrives (trailers read
    and dropped)."""
    while True:
        line = handler.rfile.readline()
        if not line:
            raise ConnectionError("the body ended before its last chunk")
        size = int(line.split(b";")[0].strip(), 16)
        if size == 0:
            while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return
        data = handler.rfile.read(size)
        handler.rfile.readline()
        yield data


class ResponseStream:
    """A streamed response between the Runtime API (which puts the function's
    chunks) and the front (which takes them for its client)."""

    def __init__(self):
        self.queue = queue.Queue()
        self.closed = threading.Event()  # the reader is gone
        self._buffer = []

    def put(self, data):
        if self.closed.is_set():
            return False
        self.queue.put(data)
        self._buffer.append(data)
        return True

    def end(self):
        self.queue.put(None)

    def take(self, timeout=None):
        """The next chunk; None at the end; queue.Empty after `timeout`."""
        return self.queue.get(timeout=timeout)

    def close(self):
        self.closed.set()

    def buffered(self):
        return b"".join(self._buffer)


def reply(handler, status, body=b"", headers=()):
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if body and handler.command != "HEAD":
        handler.wfile.write(body)


class Invocation:
    def __init__(self, payload, timeout, sink=None):
        self.id = str(uuid.uuid4())
        self.payload = payload
        self.deadline = time.time() + timeout
        self.done = threading.Event()
        self.outcome = None  # "response" | "error" | "timeout" | "crash"
        self.body = b""
        # Where a streamed response's bytes go as they arrive (a
        # ResponseStream), for a caller that reads the response as a stream.
        self.sink = sink

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
                path = self.path
                streamed = self.headers.get("Lambda-Runtime-Function-Response-Mode", "").lower() == "streaming"
                if streamed and path.startswith(f"{api.PREFIX}/invocation/") and path.endswith("/response"):
                    api.stream_response(self, path[len(f"{api.PREFIX}/invocation/"):].split("/", 1)[0])
                    return
                body = read_body(self)
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
        serve_in_background(self.server)
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

    def stream_response(self, handler, request_id):
        """A response in Lambda's streaming mode (what lambda_runtime sends
        for a StreamResponse: `Lambda-Runtime-Function-Response-Mode:
        streaming`, a chunked body): each chunk goes to the invocation's sink
        as it arrives. When the caller is gone (the sink refuses), the
        connection is closed mid-body, as Lambda ends a stream whose client
        disconnected, and the function's next write fails."""
        invocation = self.inflight.get(request_id)
        if invocation is None:
            reply(handler, 400, b'{"errorMessage":"unknown request id"}')
            return
        sink = invocation.sink or ResponseStream()  # a caller that buffers
        body = chunks(handler)
        try:
            for chunk in body:
                if not sink.put(chunk):
                    handler.close_connection = True
                    self.inflight.pop(request_id, None)
                    invocation.finish("disconnected")
                    return
        except (OSError, ValueError):
            self.inflight.pop(request_id, None)
            invocation.finish("crash")
            handler.close_connection = True
            return
        self.inflight.pop(request_id, None)
        sink.end()
        invocation.finish("response", b"" if invocation.sink else sink.buffered())
        reply(handler, 202, b'{"status":"OK"}')

    def fail_inflight(self, outcome):
        for request_id in list(self.inflight):
            invocation = self.inflight.pop(request_id, None)
            if invocation is not None:
                invocation.finish(outcome)

    def stop(self):
        self.stopping.set()
        stop_server(self.server)


def serve_in_background(server):
    """Runs `server.serve_forever` on a daemon thread; `stop_server` knows
    it was started."""
    server.started_serving = True
    threading.Thread(target=server.serve_forever, daemon=True).start()


def stop_server(server):
    # shutdown() waits for serve_forever to end: on a server that never
    # served (a region that failed at start) it would wait forever.
    if getattr(server, "started_serving", False):
        server.shutdown()
    server.server_close()


def _die_with_parent():
    # The function dies with the emulator, even when the emulator is killed.
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class _Spawner:
    """Starts every child process from one thread that lives as long as the
    emulator: PR_SET_PDEATHSIG fires when the *thread* that forked the child
    ends, so an instance started (a cold start) on a request's thread would
    be killed when that connection closed, mid-way through a later
    invocation."""

    def __init__(self):
        self.requests = queue.Queue()
        threading.Thread(target=self._run, daemon=True, name="spawner").start()

    def popen(self, *args, **kwargs):
        done = queue.Queue(maxsize=1)
        self.requests.put((args, kwargs, done))
        ok, value = done.get()
        if not ok:
            raise value
        return value

    def _run(self):
        while True:
            args, kwargs, done = self.requests.get()
            try:
                done.put((True, subprocess.Popen(*args, preexec_fn=_die_with_parent, **kwargs)))
            except BaseException as error:  # noqa: BLE001 - handed to the caller
                done.put((False, error))


SPAWNER = _Spawner()


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
        # The last invocation's stream was cut (its client left): the
        # function's next write fails and its runtime exits, maybe seconds
        # later (at its next keepalive). Lambda gives the next invocation a
        # fresh environment, never one about to exit; so does `invoke`.
        self.cut_off = False

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
        self.process = SPAWNER.popen(
            [str(self.binary)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
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

    def invoke(self, payload, sink=None):
        """The function's answer: (outcome, body). With a `sink` (a
        ResponseStream), a streamed response's bytes go there as they come
        and the body returned is empty."""
        with self.lock:
            if self.cut_off:
                self.cut_off = False
                if self.process is not None and self.process.poll() is None:
                    self.process.kill()
                    self.process.wait()
            if self.process is None or self.process.poll() is not None:
                self.start()  # a cold start
                self.wait_ready(self.function.timeout)
            invocation = Invocation(payload, self.function.timeout, sink)
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
            self.cut_off = invocation.outcome == "disconnected"
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


class FunctionPool:
    """A function's instances, as Lambda scales it: an invocation takes an
    idle instance, or starts a new one (a cold start) while the function is
    under its concurrency limit (ReservedConcurrentExecutions, else
    `DEFAULT_CONCURRENCY`), or else waits for one. So a scheduled worker's
    minute-long loop does not hold up its table-stream invocations, and an
    open event stream does not hold up the next request."""

    DEFAULT_CONCURRENCY = 10

    def __init__(self, function, binary, environment, log_path, limit=None):
        self.function = function
        self.binary = binary
        self.environment = environment
        self.log_path = log_path
        self.limit = limit or self.DEFAULT_CONCURRENCY
        self.instances = []
        self.idle = []
        self.changed = threading.Condition()
        self.stopped = False

    def _new_instance(self):
        instance = FunctionInstance(self.function, self.binary, self.environment, self.log_path)
        self.instances.append(instance)
        return instance

    def start(self):
        """The first instance, started at boot so a function that cannot
        start fails the region at once (wait_ready says so)."""
        with self.changed:
            instance = self._new_instance()
        instance.start()
        return instance

    def wait_ready(self, seconds):
        self.instances[0].wait_ready(seconds)
        with self.changed:
            self.idle.append(self.instances[0])
            self.changed.notify()

    def invoke(self, payload, sink=None):
        with self.changed:
            while True:
                if self.stopped:
                    return "crash", b""
                if self.idle:
                    instance, fresh = self.idle.pop(), False
                    break
                if len(self.instances) < self.limit:
                    instance, fresh = self._new_instance(), True
                    break
                self.changed.wait()
        try:
            if fresh:
                try:
                    instance.start()
                    instance.wait_ready(max(30.0, self.function.timeout))
                except RuntimeError as error:
                    log_line(str(error))
                    instance.stop()
                    with self.changed:
                        self.instances.remove(instance)
                    return "crash", b""
            return instance.invoke(payload, sink)
        finally:
            with self.changed:
                if instance in self.instances:
                    self.idle.append(instance)
                self.changed.notify()

    def stop(self):
        with self.changed:
            self.stopped = True
            self.changed.notify_all()
            instances = list(self.instances)
        for instance in instances:
            instance.stop()


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
    429: b'{"message":"Too Many Requests"}',
    500: b'{"message":"Internal Server Error"}',
}


class TokenBucket:
    """API Gateway's throttle: `rate` requests a second on average and
    `burst` at once; a request past it is answered 429 without reaching a
    function."""

    def __init__(self, rate, burst, clock=time.monotonic):
        self.rate, self.burst, self.clock = float(rate), float(burst), clock
        self.tokens, self.at = float(burst), clock()
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            now = self.clock()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens >= 1:
                self.tokens -= 1
                return True
            return False


class Cors:
    """A CORS configuration as API Gateway's HTTP API (`CorsConfiguration`)
    and a function URL (`Cors`) apply it. A preflight (OPTIONS with Origin
    and Access-Control-Request-Method) is answered by the gateway itself,
    204, without invoking a function: with the allowed methods and headers
    when the origin and method are allowed, bare otherwise (the browser
    then refuses). Any other answer drops the function's own
    Access-Control-* headers and, for an allowed origin, gets the
    configured Allow-Origin and Expose-Headers."""

    def __init__(self, config):
        def names(key):
            value = config.get(key) or []
            return [value] if isinstance(value, str) else [str(v) for v in value]

        self.origins = [o.lower() for o in names("AllowOrigins")]
        self.methods = [m.upper() for m in names("AllowMethods")]
        self.headers = [h.lower() for h in names("AllowHeaders")]
        self.expose = [h.lower() for h in names("ExposeHeaders")]
        self.max_age = config.get("MaxAge")

    def allowed_origin(self, origin):
        if not origin:
            return None
        if "*" in self.origins:
            return "*"
        return origin if origin.lower() in self.origins else None

    def preflight(self, request):
        """The preflight's answer headers, or None when `request` (the
        request's headers) is not a preflight."""
        method = request.get("Access-Control-Request-Method")
        if not request.get("Origin") or not method:
            return None
        origin = self.allowed_origin(request.get("Origin"))
        if origin is None or ("*" not in self.methods and method.upper() not in self.methods):
            return []
        answer = [
            ("access-control-allow-origin", origin),
            ("access-control-allow-methods", ",".join(self.methods)),
        ]
        if self.headers:
            answer.append(("access-control-allow-headers", ",".join(self.headers)))
        if self.max_age is not None:
            answer.append(("access-control-max-age", str(int(self.max_age))))
        return answer

    def on_answer(self, request, headers):
        headers = [(n, v) for n, v in headers if not n.lower().startswith("access-control-")]
        origin = self.allowed_origin(request.get("Origin"))
        if origin is None:
            return headers
        headers.append(("access-control-allow-origin", origin))
        if self.expose:
            headers.append(("access-control-expose-headers", ",".join(self.expose)))
        return headers


def http_api_cors(stack):
    """The HTTP API's CORS configuration, or None when it has none."""
    for resource in stack.resources.values():
        if resource.get("Type") == "AWS::Serverless::HttpApi":
            config = (resource.get("Properties") or {}).get("CorsConfiguration")
            if config:
                return Cors(stack.resolve(config))
    return None


def stage_throttle(stack):
    """The HTTP API's stage throttle (`DefaultRouteSettings`), or None when
    the template sets none."""
    for resource in stack.resources.values():
        if resource.get("Type") != "AWS::Serverless::HttpApi":
            continue
        settings = stack.resolve((resource.get("Properties") or {}).get("DefaultRouteSettings") or {})
        rate, burst = settings.get("ThrottlingRateLimit"), settings.get("ThrottlingBurstLimit")
        if rate is not None and burst is not None:
            return TokenBucket(rate, burst)
    return None


class HttpApiFront:
    """API Gateway's HTTP API, $default stage: routes to functions."""

    def __init__(self, port):
        self.routes = []
        self.throttle = None
        self.cors = None
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

    def serve(self, routes, instances, throttle=None, cors=None):
        self.routes, self.instances, self.throttle, self.cors = routes, instances, throttle, cors
        serve_in_background(self.server)

    def handle(self, handler):
        body = read_body(handler)
        if self.throttle is not None and not self.throttle.take():
            reply(handler, 429, GATEWAY_ERRORS[429], [("content-type", "application/json")])
            return
        preflight = self.cors.preflight(handler.headers) if self.cors is not None else None
        if preflight is not None:
            reply(handler, 204, b"", preflight)
            return
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
        if self.cors is not None:
            headers = self.cors.on_answer(handler.headers, headers)
        reply(handler, status, content, [*headers, *gateway])

    def stop(self):
        stop_server(self.server)


# ---------------------------------------------------------------------------
# Function URLs (the template's FunctionUrlConfig), response streaming


PRELUDE_END = b"\0" * 8


def read_prelude(data):
    """A streamed HTTP response's metadata prelude (the JSON lambda_http
    writes before 8 NUL bytes: statusCode, headers, cookies) and the body
    bytes after it; None while the delimiter has not arrived."""
    end = data.find(PRELUDE_END)
    if end < 0:
        return None
    prelude = json.loads(data[:end])
    headers = []
    for name, value in (prelude.get("headers") or {}).items():
        for one in value if isinstance(value, list) else [value]:
            headers.append((name, str(one)))
    headers += [("set-cookie", cookie) for cookie in prelude.get("cookies") or []]
    return int(prelude.get("statusCode", 200)), headers, data[end + len(PRELUDE_END):]


class FunctionUrlFront:
    """A function URL on a port of its own: every path goes to the function
    as the function URL event (payload format 2.0, routeKey `$default`).
    With `InvokeMode: RESPONSE_STREAM` the function's streamed response
    (lambda_http's metadata prelude, 8 NUL bytes, then the body) is sent on
    as it arrives, chunked; a buffered answer is read as a format 2.0
    answer. `AuthType: NONE` only (AWS_IAM signing is not emulated)."""

    def __init__(self, function, config, port=0):
        self.function = function
        auth = config.get("AuthType", "NONE")
        if auth != "NONE":
            raise TemplateError(f"{function}.FunctionUrlConfig: AuthType {auth} is not emulated (NONE only)")
        self.cors = Cors(config["Cors"]) if config.get("Cors") else None
        self.mode = config.get("InvokeMode", "BUFFERED")
        if self.mode not in ("BUFFERED", "RESPONSE_STREAM"):
            raise TemplateError(f"{function}.FunctionUrlConfig: InvokeMode {self.mode} is not emulated")
        self.pool = None
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
        self.url = f"http://127.0.0.1:{self.port}/"

    def serve(self, pool):
        self.pool = pool
        serve_in_background(self.server)

    def handle(self, handler):
        body = read_body(handler)
        preflight = self.cors.preflight(handler.headers) if self.cors is not None else None
        if preflight is not None:
            reply(handler, 204, b"", preflight)
            return
        host = handler.headers.get("Host", f"127.0.0.1:{self.port}")
        route = Route("ANY", "$default", self.function, f"{self.function}.FunctionUrlConfig")
        event, request_id = api_gateway_event(
            route, {}, handler.command, handler.path, handler.headers.items(), body, handler.client_address[0], host
        )
        event["requestContext"]["accountId"] = "anonymous"
        event["requestContext"]["requestId"] = str(uuid.uuid4())
        sink = ResponseStream() if self.mode == "RESPONSE_STREAM" else None
        answered = {}

        def invoke():
            answered["outcome"] = self.pool.invoke(json.dumps(event).encode(), sink)
            if sink is not None:
                sink.end()  # a buffered answer, an error or a timeout: no more bytes

        threading.Thread(target=invoke, daemon=True).start()
        if sink is None:
            while "outcome" not in answered:
                time.sleep(0.01)
            self.buffered(handler, *answered["outcome"])
            return
        try:
            self.stream(handler, sink, answered)
        finally:
            sink.close()

    def buffered(self, handler, outcome, answer):
        if outcome != "response":
            log_line(f"{self.function} (function URL): {handler.command} {handler.path}: the function's {outcome}")
            reply(handler, 502, GATEWAY_ERRORS[500], [("content-type", "application/json")])
            return
        try:
            status, headers, content = http_response(json.loads(answer))
        except (ValueError, KeyError, TypeError) as error:
            log_line(f"{self.function} (function URL): an answer Lambda cannot read: {error}")
            reply(handler, 502, GATEWAY_ERRORS[500], [("content-type", "application/json")])
            return
        headers = [(n, v) for n, v in headers if n.lower() not in ("content-length", "connection", "transfer-encoding")]
        if self.cors is not None:
            headers = self.cors.on_answer(handler.headers, headers)
        reply(handler, status, content, headers)

    def stream(self, handler, sink, answered):
        data = b""
        while True:
            chunk = sink.take()
            if chunk is None:
                # The function ended without a prelude: a buffered answer
                # (read as format 2.0), or no answer at all.
                outcome, answer = answered.get("outcome") or ("crash", b"")
                if outcome == "response" and not data:
                    self.buffered(handler, outcome, answer)
                else:
                    self.buffered(handler, "error" if outcome == "response" else outcome, b"")
                return
            data += chunk
            read = read_prelude(data)
            if read is not None:
                break
        status, headers, rest = read
        if self.cors is not None:
            headers = self.cors.on_answer(handler.headers, headers)
        handler.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                handler.send_header(name, value)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        try:
            while True:
                if rest:
                    handler.wfile.write(b"%x\r\n%s\r\n" % (len(rest), rest))
                    handler.wfile.flush()
                rest = sink.take()
                if rest is None:
                    handler.wfile.write(b"0\r\n\r\n")
                    handler.wfile.flush()
                    return
        except OSError:
            # The client hung up: the function's stream is closed behind it.
            handler.close_connection = True

    def stop(self):
        stop_server(self.server)


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
        serve_in_background(self.server)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/turnstile/v0/siteverify"

    def stop(self):
        stop_server(self.server)


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
# IoT Core's topic rules: the SQL as written


class RuleSqlError(TemplateError):
    """A topic rule's SQL uses what the emulator does not evaluate: failing
    here, loudly, is what keeps a template change from passing unseen."""


UNDEFINED = object()  # IoT SQL's Undefined: a SELECT leaves the key out

RULE_SQL_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+)|(?P<op><>|=|\(|\)|,|\*)|(?P<word>[A-Za-z_][A-Za-z0-9_]*))"
)
RULE_SQL_KEYWORDS = {"SELECT", "FROM", "WHERE", "AS", "AND", "OR"}


def rule_sql_tokens(sql):
    tokens, position = [], 0
    sql = sql.strip()
    while position < len(sql):
        match = RULE_SQL_TOKEN.match(sql, position)
        if match is None or match.end() == position:
            raise RuleSqlError(f"rule SQL: cannot read {sql[position:position + 20]!r} (in {sql!r})")
        kind = match.lastgroup
        text = match.group(kind)
        if kind == "word" and text.upper() in RULE_SQL_KEYWORDS:
            kind, text = "keyword", text.upper()
        tokens.append((kind, text))
        position = match.end()
        while position < len(sql) and sql[position].isspace():
            position += 1
    return tokens


class RuleContext:
    """What one message gives a rule's functions."""

    def __init__(self, topic, payload, source_ip, client_id="", now_ms=None):
        self.topic = topic
        self.payload = payload
        self.source_ip = source_ip
        self.client_id = client_id
        self.now_ms = int(time.time() * 1000) if now_ms is None else now_ms


def _topic_function(arguments, context):
    if not arguments:
        return context.topic
    (index,) = arguments
    levels = context.topic.split("/")
    return levels[index - 1] if 1 <= index <= len(levels) else UNDEFINED


def _encode_function(arguments, context):
    return base64.b64encode(context.payload).decode()


# The functions the emulator evaluates, with the arguments each may take
# (IoT SQL version 2016-03-23). Anything else is a RuleSqlError.
RULE_SQL_FUNCTIONS = {
    "newuuid": (lambda arguments: arguments == [], lambda a, c: str(uuid.uuid4())),
    "timestamp": (lambda arguments: arguments == [], lambda a, c: c.now_ms),
    "sourceip": (lambda arguments: arguments == [], lambda a, c: c.source_ip),
    "topic": (
        lambda arguments: arguments == [] or (len(arguments) == 1 and isinstance(arguments[0], int)),
        _topic_function,
    ),
    # encode(*, 'base64'): the whole payload, whatever its bytes.
    "encode": (lambda arguments: arguments == ["*", "base64"], _encode_function),
}


class RuleSql:
    """`SELECT <expr> AS <name>, ... FROM '<topic filter>' [WHERE <condition>]`
    for the functions in RULE_SQL_FUNCTIONS, string and integer literals,
    `=` and `<>`, AND and OR."""

    def __init__(self, sql, version="2016-03-23"):
        if version != "2016-03-23":
            raise RuleSqlError(f"rule SQL version {version!r}: the emulator evaluates 2016-03-23 only")
        self.sql = sql
        self.tokens = rule_sql_tokens(sql)
        self.position = 0
        self.expect("keyword", "SELECT")
        self.select = [self.select_item()]
        while self.accept("op", ","):
            self.select.append(self.select_item())
        self.expect("keyword", "FROM")
        kind, text = self.next()
        if kind != "string":
            raise RuleSqlError(f"rule SQL: FROM takes a quoted topic filter, not {text!r} (in {sql!r})")
        self.topic_filter = text[1:-1].replace("''", "'")
        self.where = None
        if self.accept("keyword", "WHERE"):
            self.where = self.condition()
        if self.position != len(self.tokens):
            raise RuleSqlError(f"rule SQL: unexpected {self.tokens[self.position][1]!r} (in {sql!r})")

    # -- parsing

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else (None, None)

    def next(self):
        token = self.peek()
        if token[0] is None:
            raise RuleSqlError(f"rule SQL ends too early: {self.sql!r}")
        self.position += 1
        return token

    def accept(self, kind, text):
        if self.peek() == (kind, text):
            self.position += 1
            return True
        return False

    def expect(self, kind, text):
        if not self.accept(kind, text):
            raise RuleSqlError(f"rule SQL: expected {text} at {self.peek()[1]!r} (in {self.sql!r})")

    def select_item(self):
        if self.peek() == ("op", "*"):
            raise RuleSqlError(f"rule SQL: SELECT * is not emulated (in {self.sql!r})")
        expression = self.operand()
        if not self.accept("keyword", "AS"):
            raise RuleSqlError(f"rule SQL: every selected value needs AS <name> here (in {self.sql!r})")
        kind, name = self.next()
        if kind != "word":
            raise RuleSqlError(f"rule SQL: AS takes a name, not {name!r} (in {self.sql!r})")
        return expression, name

    def operand(self):
        kind, text = self.next()
        if kind == "string":
            value = text[1:-1].replace("''", "'")
            return lambda context: value
        if kind == "number":
            value = int(text)
            return lambda context: value
        if kind == "word" and self.peek() == ("op", "("):
            return self.call(text)
        raise RuleSqlError(f"rule SQL: {text!r} is not emulated (in {self.sql!r})")

    def call(self, name):
        self.expect("op", "(")
        arguments = []
        if not self.accept("op", ")"):
            while True:
                kind, text = self.next()
                if kind == "op" and text == "*":
                    arguments.append("*")
                elif kind == "string":
                    arguments.append(text[1:-1].replace("''", "'"))
                elif kind == "number":
                    arguments.append(int(text))
                else:
                    raise RuleSqlError(f"rule SQL: {name}() with argument {text!r} is not emulated (in {self.sql!r})")
                if self.accept("op", ")"):
                    break
                self.expect("op", ",")
        known = RULE_SQL_FUNCTIONS.get(name.lower())
        if known is None:
            raise RuleSqlError(f"rule SQL: the function {name}() is not emulated (in {self.sql!r})")
        takes, evaluate = known
        if not takes(arguments):
            raise RuleSqlError(f"rule SQL: {name}({', '.join(map(repr, arguments))}) is not emulated (in {self.sql!r})")
        return lambda context: evaluate(arguments, context)

    def condition(self):
        left = self.conjunction()
        while self.accept("keyword", "OR"):
            right = self.conjunction()
            left = (lambda a, b: lambda c: _or(a(c), b(c)))(left, right)
        return left

    def conjunction(self):
        left = self.comparison()
        while self.accept("keyword", "AND"):
            right = self.comparison()
            left = (lambda a, b: lambda c: _and(a(c), b(c)))(left, right)
        return left

    def comparison(self):
        left = self.operand()
        kind, operator = self.next()
        if (kind, operator) not in (("op", "="), ("op", "<>")):
            raise RuleSqlError(f"rule SQL: the comparison {operator!r} is not emulated (in {self.sql!r})")
        right = self.operand()
        equal = operator == "="

        def compare(context):
            a, b = left(context), right(context)
            if a is UNDEFINED or b is UNDEFINED:
                return UNDEFINED
            return (a == b) is equal

        return compare

    # -- evaluation

    def matches_topic(self, topic):
        return topic_matches(self.topic_filter, topic)

    def evaluate(self, context):
        """The rule's output for this message, or None when the rule does not
        take it (its filter or its WHERE)."""
        if not self.matches_topic(context.topic):
            return None
        if self.where is not None and self.where(context) is not True:
            return None
        output = {}
        for expression, name in self.select:
            value = expression(context)
            if value is not UNDEFINED:
                output[name] = value
        return output


def _and(a, b):
    if a is False or b is False:
        return False
    return UNDEFINED if UNDEFINED in (a, b) else True


def _or(a, b):
    if a is True or b is True:
        return True
    return UNDEFINED if UNDEFINED in (a, b) else False


def topic_matches(topic_filter, topic):
    """MQTT's matching: `+` one level, `#` the rest (and the parent); a
    wildcard at the start never matches a `$` topic."""
    if topic.startswith("$") and topic_filter[:1] in ("+", "#"):
        return False
    filter_levels, levels = topic_filter.split("/"), topic.split("/")
    for index, part in enumerate(filter_levels):
        if part == "#":
            return True
        if index >= len(levels):
            return False
        if part != "+" and part != levels[index]:
            return False
    return len(filter_levels) == len(levels)


class RuleAction:
    """One of a rule's actions; only Sqs is emulated."""

    def __init__(self, source, action):
        if not isinstance(action, dict) or len(action) != 1:
            raise TemplateError(f"{source}: an action names one service")
        (kind, properties), = action.items()
        if kind != "Sqs":
            raise TemplateError(f"{source}: the {kind} action is not emulated (only Sqs)")
        unknown = set(properties) - {"QueueUrl", "RoleArn", "UseBase64"}
        if unknown:
            raise TemplateError(f"{source}: Sqs action property {', '.join(sorted(unknown))} is not emulated")
        self.source = source
        self.kind = "SqsAction"
        self.queue_url = properties["QueueUrl"]
        self.use_base64 = bool(properties.get("UseBase64", False))

    def send(self, sqs, message):
        body = message.encode() if isinstance(message, str) else message
        text = base64.b64encode(body).decode() if self.use_base64 else body.decode()
        sqs.send_message(QueueUrl=self.queue_url, MessageBody=text)


class TopicRule:
    """An AWS::IoT::TopicRule of the template: its SQL, its actions, and its
    error action (IoT Core's error message shape when an action fails)."""

    def __init__(self, stack, logical):
        payload = stack.resolve(stack.resources[logical].get("Properties", {})).get("TopicRulePayload", {})
        source = f"{logical}.TopicRulePayload"
        self.logical = logical
        self.name = stack.resolve(stack.resources[logical]["Properties"].get("RuleName")) or re.sub(
            r"[^A-Za-z0-9_]", "_", f"{STACK}_{logical}"
        )
        self.disabled = bool(payload.get("RuleDisabled", False))
        self.sql = RuleSql(payload["Sql"], str(payload.get("AwsIotSqlVersion", "2015-10-08")))
        self.actions = [RuleAction(f"{source}.Actions", a) for a in payload.get("Actions", [])]
        error = payload.get("ErrorAction")
        self.error_action = RuleAction(f"{source}.ErrorAction", error) if error else None

    def apply(self, sqs, context):
        """Runs the rule on one message; what its actions did, for the log."""
        if self.disabled:
            return None
        output = self.sql.evaluate(context)
        if output is None:
            return None
        message = json.dumps(output, separators=(",", ":"))
        failures = []
        for action in self.actions:
            try:
                action.send(sqs, message)
            except Exception as error:  # noqa: BLE001 - any failure goes to the error action
                failures.append(
                    {"failedAction": action.kind, "failedResource": action.queue_url, "errorMessage": str(error)}
                )
        if failures and self.error_action is not None:
            self.error_action.send(sqs, json.dumps(error_action_message(self.name, context, failures)))
        return failures


def error_action_message(rule_name, context, failures):
    """What IoT Core sends a rule's error action (the developer guide's
    "Error action message format")."""
    return {
        "ruleName": rule_name,
        "topic": context.topic,
        "cloudwatchTraceId": str(uuid.uuid4()),
        "clientId": context.client_id,
        "base64OriginalPayload": base64.b64encode(context.payload).decode(),
        "failures": failures,
    }


def topic_rules(stack):
    return [
        TopicRule(stack, logical)
        for logical, resource in stack.resources.items()
        if resource.get("Type") == "AWS::IoT::TopicRule"
    ]


# ---------------------------------------------------------------------------
# IoT policies, as IoT Core evaluates them for a connection


class IotPolicy:
    """The policy documents of one connection (the certificate's attached
    policies, or what the custom authorizer answered) with the connection's
    policy variables. An explicit Deny wins; otherwise an Allow must match.
    A statement whose resource names a variable the connection has not got
    matches nothing, as on IoT Core."""

    def __init__(self, documents, variables=None):
        self.variables = variables or {}
        self.statements = []
        for document in documents:
            if isinstance(document, str):
                document = json.loads(document)
            statements = document.get("Statement", [])
            for statement in statements if isinstance(statements, list) else [statements]:
                unknown = set(statement) - {"Sid", "Effect", "Action", "Resource", "Condition"}
                if unknown:
                    raise TemplateError(f"IoT policy: {', '.join(sorted(unknown))} is not emulated")
                self.statements.append(statement)

    def allows(self, action, resource):
        allowed = False
        for statement in self.statements:
            if not self._applies(statement, action, resource):
                continue
            if statement.get("Effect") == "Deny":
                return False
            allowed = allowed or statement.get("Effect") == "Allow"
        return allowed

    def _applies(self, statement, action, resource):
        actions = statement.get("Action", [])
        actions = actions if isinstance(actions, list) else [actions]
        if not any(glob_matches(a.lower(), action.lower()) for a in actions):
            return False
        resources = statement.get("Resource", [])
        resources = resources if isinstance(resources, list) else [resources]
        if not any(self._resource_matches(r, resource) for r in resources):
            return False
        return self._condition_holds(statement.get("Condition", {}))

    def _resource_matches(self, pattern, resource):
        missing = []

        def substitute(match):
            name = match.group(1)
            if name not in self.variables:
                missing.append(name)
                return ""
            return self.variables[name]

        filled = re.sub(r"\$\{([^}]+)\}", substitute, pattern)
        return not missing and glob_matches(filled, resource)

    def _condition_holds(self, condition):
        for operator, tests in condition.items():
            if operator != "Bool":
                raise TemplateError(f"IoT policy: the condition operator {operator} is not emulated")
            for key, expected in tests.items():
                expected = expected if isinstance(expected, list) else [expected]
                if self.variables.get(key, "").lower() not in [str(e).lower() for e in expected]:
                    return False
        return True


def glob_matches(pattern, text):
    """IAM's wildcards: `*` any run of characters, `?` one."""
    expression = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(expression, text, re.DOTALL) is not None


# ---------------------------------------------------------------------------
# MQTT 3.1.1, as IoT Core speaks it (no QoS 2; a policy violation closes
# the connection; retained messages; persistent sessions queue QoS 1)

CONNECT, CONNACK, PUBLISH, PUBACK = 1, 2, 3, 4
SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK = 8, 9, 10, 11
PINGREQ, PINGRESP, DISCONNECT = 12, 13, 14

CONNACK_ACCEPTED = 0
CONNACK_BAD_PROTOCOL = 1
CONNACK_IDENTIFIER_REJECTED = 2
CONNACK_NOT_AUTHORIZED = 5


class ProtocolError(Exception):
    """The client broke the protocol or its policy: the connection closes."""


def encode_length(length):
    out = bytearray()
    while True:
        byte, length = length % 128, length // 128
        out.append(byte | (0x80 if length else 0))
        if not length:
            return bytes(out)


def mqtt_string(text):
    data = text.encode() if isinstance(text, str) else text
    return len(data).to_bytes(2, "big") + data


def packet(kind, flags, body):
    return bytes([(kind << 4) | flags]) + encode_length(len(body)) + body


def publish_packet(topic, payload, qos, retain=False, packet_id=None, dup=False):
    flags = (0x08 if dup else 0) | (qos << 1) | (0x01 if retain else 0)
    body = mqtt_string(topic) + (packet_id.to_bytes(2, "big") if qos else b"") + payload
    return packet(PUBLISH, flags, body)


class Reader:
    """Reads fields of one packet's body."""

    def __init__(self, data):
        self.data, self.position = data, 0

    def take(self, count):
        if self.position + count > len(self.data):
            raise ProtocolError("a packet ends inside a field")
        part = self.data[self.position:self.position + count]
        self.position += count
        return part

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return int.from_bytes(self.take(2), "big")

    def binary(self):
        return self.take(self.u16())

    def string(self):
        try:
            return self.binary().decode()
        except UnicodeDecodeError as error:
            raise ProtocolError("a string is not UTF-8") from error

    def rest(self):
        return self.take(len(self.data) - self.position)

    def done(self):
        return self.position >= len(self.data)


def read_packet(connection_file):
    """(type, flags, body) of the next packet; None at the end of the stream."""
    first = connection_file.read(1)
    if not first:
        return None
    length, multiplier = 0, 1
    for _ in range(4):
        byte = connection_file.read(1)
        if not byte:
            return None
        length += (byte[0] & 0x7F) * multiplier
        if not byte[0] & 0x80:
            break
        multiplier *= 128
    else:
        raise ProtocolError("a remaining length over four bytes")
    body = connection_file.read(length) if length else b""
    if len(body) != length:
        return None
    return first[0] >> 4, first[0] & 0x0F, body


class ConnectRequest:
    def __init__(self, body):
        r = Reader(body)
        self.protocol = r.string()
        self.level = r.u8()
        flags = r.u8()
        self.keepalive = r.u16()
        self.clean = bool(flags & 0x02)
        self.client_id = r.string()
        self.will = None
        if flags & 0x04:
            will_topic = r.string()
            will_payload = r.binary()
            self.will = (will_topic, will_payload, (flags >> 3) & 0x03, bool(flags & 0x20))
        self.username = r.string() if flags & 0x80 else None
        self.password = r.binary() if flags & 0x40 else None


class Session:
    """What the broker keeps for a client id: its subscriptions and, for a
    persistent session, the QoS 1 messages that wait for it while it is
    offline and those sent but not yet acknowledged."""

    def __init__(self, client_id, persistent):
        self.client_id = client_id
        self.persistent = persistent
        self.subscriptions = {}  # filter -> granted QoS
        self.queued = []  # (topic, payload) while offline
        self.inflight = {}  # packet id -> (topic, payload)
        self.next_id = 0
        self.connection = None

    def packet_id(self):
        for _ in range(65535):
            self.next_id = self.next_id % 65535 + 1
            if self.next_id not in self.inflight:
                return self.next_id
        raise ProtocolError("no free packet id")


class MqttConnection:
    def __init__(self, broker, sock, address):
        self.broker = broker
        self.sock = sock
        self.address = address
        self.file = sock.makefile("rb")
        self.send_lock = threading.Lock()
        self.closed = threading.Event()
        self.session = None
        self.client_id = ""
        self.policy = None
        self.will = None
        self.timers = []

    def send(self, data):
        with self.send_lock:
            try:
                self.sock.sendall(data)
            except OSError:
                self.close()

    def close(self):
        if self.closed.is_set():
            return
        self.closed.set()
        for timer in self.timers:
            timer.cancel()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class MqttFront:
    """IoT Core's MQTT side on one port: TLS (what devices use; a client
    certificate registered in the account, or a login through the custom
    authorizer) or plain TCP (custom-authorizer logins only; IoT Core itself
    takes TLS only). `publish` is also the data plane's way in."""

    def __init__(self, region_name, tls, authenticate, on_message, port=0):
        self.region_name = region_name
        self.tls = tls  # IotTls: the server certificate and the accounts' certificates
        self.authenticate = authenticate  # (connect, peer_der, source_ip, server_name) -> (IotPolicy, closes) | None
        self.on_message = on_message  # (topic, payload, client_id, source_ip): the rules engine
        self.sessions = {}
        self.retained = {}
        self.lock = threading.RLock()
        self.server = socket.create_server(("127.0.0.1", port))
        self.port = self.server.getsockname()[1]
        self.stopping = threading.Event()

    def arn(self, kind, name):
        return f"arn:aws:iot:{self.region_name}:{ACCOUNT}:{kind}/{name}"

    def serve(self):
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                sock, address = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._connection, args=(sock, address), daemon=True).start()

    def stop(self):
        self.stopping.set()
        self.server.close()
        with self.lock:
            connections = [s.connection for s in self.sessions.values() if s.connection]
        for connection in connections:
            connection.close()

    # -- one connection

    def _connection(self, sock, address):
        peer_der, server_name = None, None
        try:
            sock.settimeout(10)
            first = sock.recv(1, socket.MSG_PEEK)
            if first == b"\x16":  # a TLS ClientHello
                context, names = self.tls.server_context()
                sock = context.wrap_socket(sock, server_side=True)
                peer_der = sock.getpeercert(binary_form=True)
                server_name = names.get("sni")
        except (OSError, ssl.SSLError) as error:
            log_line(f"MQTT: a connection from {address[0]} failed its TLS handshake: {error}")
            sock.close()
            return
        connection = MqttConnection(self, sock, address)
        try:
            self._run(connection, peer_der, server_name)
        except ProtocolError as error:
            log_line(f"MQTT: {connection.client_id or address[0]}: closed: {error}")
        except (OSError, ValueError):
            pass
        finally:
            self._ended(connection)

    def _run(self, connection, peer_der, server_name):
        first = read_packet(connection.file)
        if first is None:
            return
        kind, _, body = first
        if kind != CONNECT:
            raise ProtocolError("the first packet is not CONNECT")
        request = ConnectRequest(body)
        if request.protocol != "MQTT" or request.level != 4:
            connection.send(packet(CONNACK, 0, bytes([0, CONNACK_BAD_PROTOCOL])))
            return
        client_id = request.client_id
        if not client_id:
            if not request.clean:
                connection.send(packet(CONNACK, 0, bytes([0, CONNACK_IDENTIFIER_REJECTED])))
                return
            client_id = uuid.uuid4().hex
        connection.client_id = client_id
        admitted = self.authenticate(request, peer_der, connection.address[0], server_name)
        if admitted is None:
            connection.send(packet(CONNACK, 0, bytes([0, CONNACK_NOT_AUTHORIZED])))
            return
        policy, limits = admitted
        if not policy.allows("iot:Connect", self.arn("client", client_id)):
            log_line(f"MQTT: {client_id}: refused: the policy does not allow iot:Connect as this client id")
            connection.send(packet(CONNACK, 0, bytes([0, CONNACK_NOT_AUTHORIZED])))
            return
        connection.policy = policy
        connection.will = request.will
        for seconds, what in limits:
            timer = threading.Timer(seconds, what, args=(connection,))
            timer.daemon = True
            connection.timers.append(timer)
            timer.start()
        connection.sock.settimeout(request.keepalive * 1.5 if request.keepalive else None)
        present = self._attach(connection, client_id, request.clean)
        connection.send(packet(CONNACK, 0, bytes([1 if present else 0, CONNACK_ACCEPTED])))
        self._resume(connection.session)
        while not connection.closed.is_set():
            try:
                next_packet = read_packet(connection.file)
            except (socket.timeout, TimeoutError):
                raise ProtocolError("keep-alive expired") from None
            if next_packet is None:
                return
            kind, flags, body = next_packet
            if kind == DISCONNECT:
                connection.will = None  # a clean goodbye sends no will
                return
            self._packet(connection, kind, flags, body)

    def _attach(self, connection, client_id, clean):
        """Takes the client id's session (a new one when `clean`); an older
        connection with the same client id is closed, as IoT Core does."""
        with self.lock:
            session = self.sessions.get(client_id)
            present = session is not None and not clean and session.persistent
            if session is not None and session.connection is not None:
                session.connection.close()
            if session is None or clean or not session.persistent:
                session = Session(client_id, persistent=not clean)
                self.sessions[client_id] = session
            session.connection = connection
            connection.session = session
            return present

    def _resume(self, session):
        with self.lock:
            connection = session.connection
            resend = list(session.inflight.items())
            queued, session.queued = session.queued, []
        for packet_id, (topic, payload) in resend:
            connection.send(publish_packet(topic, payload, 1, packet_id=packet_id, dup=True))
        for topic, payload in queued:
            self._send(session, topic, payload, 1)

    def _ended(self, connection):
        connection.close()
        session = connection.session
        if session is None:
            return
        with self.lock:
            if session.connection is connection:
                session.connection = None
                if not session.persistent:
                    self.sessions.pop(session.client_id, None)
        will, connection.will = connection.will, None
        if will is not None:
            topic, payload, qos, retain = will
            if self._may_publish(connection, topic, retain):
                self.publish(topic, payload, min(qos, 1), retain, connection.client_id, connection.address[0])
            else:
                log_line(f"MQTT: {connection.client_id}: its last will on {topic} is outside its policy: dropped")

    def _may_publish(self, connection, topic, retain):
        if not connection.policy.allows("iot:Publish", self.arn("topic", topic)):
            return False
        return not retain or connection.policy.allows("iot:RetainPublish", self.arn("topic", topic))

    def _packet(self, connection, kind, flags, body):
        r = Reader(body)
        if kind == PUBLISH:
            qos = (flags >> 1) & 0x03
            if qos == 2:
                raise ProtocolError("QoS 2, which IoT Core does not support")
            retain = bool(flags & 0x01)
            topic = r.string()
            packet_id = r.u16() if qos else None
            payload = r.rest()
            if not topic or "+" in topic or "#" in topic:
                raise ProtocolError(f"a publish on {topic!r}")
            if not self._may_publish(connection, topic, retain):
                raise ProtocolError(f"a publish on {topic} outside its policy")
            self.publish(topic, payload, qos, retain, connection.client_id, connection.address[0])
            if qos == 1:
                # IoT Core acknowledges once it has accepted the message, not
                # once its rules' actions have run.
                connection.send(packet(PUBACK, 0, packet_id.to_bytes(2, "big")))
        elif kind == PUBACK:
            with self.lock:
                connection.session.inflight.pop(r.u16(), None)
        elif kind == SUBSCRIBE:
            packet_id = r.u16()
            granted, new = [], []
            while not r.done():
                topic_filter, qos = r.string(), r.u8() & 0x03
                if connection.policy.allows("iot:Subscribe", self.arn("topicfilter", topic_filter)):
                    granted.append(min(qos, 1))
                    new.append(topic_filter)
                    with self.lock:
                        connection.session.subscriptions[topic_filter] = min(qos, 1)
                else:
                    log_line(f"MQTT: {connection.client_id}: a subscription to {topic_filter} outside its policy: refused")
                    granted.append(0x80)
            connection.send(packet(SUBACK, 0, packet_id.to_bytes(2, "big") + bytes(granted)))
            with self.lock:
                retained = [(t, p, q) for t, (p, q) in self.retained.items() if any(topic_matches(f, t) for f in new)]
            for topic, payload, qos in retained:
                self._deliver(connection.session, topic, payload, qos, retain=True)
        elif kind == UNSUBSCRIBE:
            packet_id = r.u16()
            with self.lock:
                while not r.done():
                    connection.session.subscriptions.pop(r.string(), None)
            connection.send(packet(UNSUBACK, 0, packet_id.to_bytes(2, "big")))
        elif kind == PINGREQ:
            connection.send(packet(PINGRESP, 0, b""))
        else:
            raise ProtocolError(f"an unexpected packet of type {kind}")

    # -- messages

    def publish(self, topic, payload, qos, retain=False, client_id="", source_ip=""):
        """A message IoT Core accepted (from a device or the data plane): to
        the retained store, every subscriber, and the rules."""
        if retain:
            with self.lock:
                if payload:
                    self.retained[topic] = (payload, qos)
                else:
                    self.retained.pop(topic, None)
        with self.lock:
            targets = []
            for session in self.sessions.values():
                granted = [q for f, q in session.subscriptions.items() if topic_matches(f, topic)]
                if granted:
                    targets.append((session, max(granted)))
        for session, granted in targets:
            self._deliver(session, topic, payload, min(qos, granted))
        self.on_message(topic, payload, client_id, source_ip)

    def _deliver(self, session, topic, payload, qos, retain=False):
        connection = session.connection
        if connection is not None and not connection.policy.allows("iot:Receive", self.arn("topic", topic)):
            return
        if connection is None:
            if session.persistent and qos == 1:
                with self.lock:
                    session.queued.append((topic, payload))
            return
        self._send(session, topic, payload, qos, retain)

    def _send(self, session, topic, payload, qos, retain=False):
        with self.lock:
            connection = session.connection
            if connection is None:
                if session.persistent and qos == 1:
                    session.queued.append((topic, payload))
                return
            packet_id = None
            if qos == 1:
                packet_id = session.packet_id()
                session.inflight[packet_id] = (topic, payload)
        connection.send(publish_packet(topic, payload, qos, retain, packet_id))

    def disconnect(self, client_id, clean_session=False, prevent_will=False):
        """The data plane's DeleteConnection; False when not connected."""
        with self.lock:
            session = self.sessions.get(client_id)
            connection = session.connection if session else None
            if connection is None:
                return False
            if clean_session:
                session.persistent = False
        if prevent_will:
            connection.will = None
        connection.close()
        return True


# ---------------------------------------------------------------------------
# IoT Core: TLS, who a connection is, the rules, the data plane


class IotTls:
    """The MQTT front's TLS: a server certificate for the data endpoint from
    a CA of the emulator's own (DATA/iot/ca.pem: what Amazon's root CA is to
    a real device), and, as trust anchors for client certificates, every
    certificate registered in the emulated account (IoT Core admits a
    registered certificate; its status and policies are checked after)."""

    def __init__(self, directory, host_names, certificates):
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
        import datetime
        import ipaddress

        self.certificates = certificates  # () -> PEMs registered in the account
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Alyt emulated IoT root CA")])
        ca = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .sign(ca_key, hashes.SHA256())
        )
        key = ec.generate_private_key(ec.SECP256R1())
        names = [x509.DNSName(n) for n in host_names] + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        leaf = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host_names[0])]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        pem = serialization.Encoding.PEM
        self.ca_path = directory / "ca.pem"
        self.ca_path.write_bytes(ca.public_bytes(pem))
        self.cert_path = directory / "server.pem"
        self.cert_path.write_bytes(leaf.public_bytes(pem) + ca.public_bytes(pem))
        self.key_path = directory / "server.key"
        self.key_path.write_bytes(
            key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )

    def server_context(self):
        """A context for one connection, trusting the certificates
        registered now; and where the client's SNI will be recorded."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_path, self.key_path)
        # IoT Core's ALPN names: certificates on 443, custom auth on 443.
        context.set_alpn_protocols(["x-amzn-mqtt-ca", "mqtt"])
        pems = self.certificates()
        if pems:
            context.load_verify_locations(cadata="\n".join(pems))
            # A registered certificate is itself the anchor (IoT Core does
            # not need its CA registered).
            context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
            context.verify_mode = ssl.CERT_OPTIONAL
        names = {}

        def remember(_socket, server_name, _context):
            names["sni"] = server_name

        context.sni_callback = remember
        return context, names


class IotCore:
    """IoT Core for the template: the MQTT front, who may connect (a
    certificate's attached policies with its thing's policy variables, or
    the template's custom authorizer function), the topic rules (each
    message's rules run in order, off the device's connection, as IoT Core
    runs actions after accepting a message), and the data plane's HTTP API
    (Publish, DeleteConnection) that functions call."""

    def __init__(self, region, stack, invoke_authorizer, data_dir, endpoint_host, port=0):
        self.region = region
        self.stack = stack
        self.rules = topic_rules(stack)
        self.authorizers = self._authorizers(stack)
        self.invoke_authorizer = invoke_authorizer  # (function logical id, event) -> (outcome, body)
        self.tls = IotTls(Path(data_dir) / "iot", [endpoint_host, "localhost"], self._registered_certificates)
        self.front = MqttFront(region.name, self.tls, self.authenticate, self._on_message, port)
        self.rule_queue = queue.Queue()
        self.sqs = region.client("sqs")
        self.iot = region.client("iot")
        self.data_plane = DataPlane(self.front)
        self.stopping = threading.Event()

    @staticmethod
    def _authorizers(stack):
        """The template's custom authorizers by name: (function, ACTIVE)."""
        found = {}
        # IoT Core invokes the ARN as given: the function's, or its alias's
        # (what CodeDeploy moves), which runs the function here.
        functions = {f.arn: f.logical for f in functions_of(stack)}
        for f in list(functions.items()):
            alias = stack.function_alias(f[1])
            if alias:
                functions[f"{f[0]}:{alias}"] = f[1]
        for logical, resource in stack.resources.items():
            if resource.get("Type") != "AWS::IoT::Authorizer":
                continue
            p = stack.resolve(resource.get("Properties", {}))
            unknown = set(p) - {"AuthorizerName", "AuthorizerFunctionArn", "SigningDisabled", "Status", "Tags", "EnableCachingForHttp"}
            if unknown:
                raise TemplateError(f"{logical}: {', '.join(sorted(unknown))} is not emulated")
            if not p.get("SigningDisabled"):
                raise TemplateError(f"{logical}: only SigningDisabled authorizers (username/password) are emulated")
            function = functions.get(p["AuthorizerFunctionArn"])
            if function is None:
                raise TemplateError(f"{logical}: AuthorizerFunctionArn is no function of the template")
            name = stack.ref(logical)
            found[name] = (function, p.get("Status", "INACTIVE") == "ACTIVE")
        return found

    def authorizer_functions(self):
        return {function for function, _ in self.authorizers.values()}

    def serve(self):
        self.front.serve()
        self.data_plane.serve()
        threading.Thread(target=self._rules_worker, daemon=True).start()

    def stop(self):
        self.stopping.set()
        self.front.stop()
        self.data_plane.stop()

    # -- who connects

    def _registered_certificates(self):
        from moto.iot.models import iot_backends

        return [c.certificate_pem for c in iot_backends[ACCOUNT][self.region.name].certificates.values()]

    def authenticate(self, request, peer_der, source_ip, server_name):
        """(IotPolicy, timed checks) for an admitted connection, else None."""
        if request.username is not None and "x-amz-customauthorizer-name=" in request.username:
            return self._custom_authorizer(request, source_ip, server_name)
        if peer_der is not None:
            return self._certificate(request.client_id, peer_der)
        log_line(f"MQTT: {request.client_id}: refused: neither a client certificate nor a custom authorizer named")
        return None

    def _certificate(self, client_id, der):
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
        from moto.iot.models import iot_backends

        backend = iot_backends[ACCOUNT][self.region.name]
        found = None
        for certificate in list(backend.certificates.values()):
            pem = x509.load_pem_x509_certificate(certificate.certificate_pem.encode())
            if pem.public_bytes(serialization.Encoding.DER) == der:
                found = certificate
        if found is None:
            log_line(f"MQTT: {client_id}: refused: the certificate is not registered")
            return None
        if found.status != "ACTIVE":
            log_line(f"MQTT: {client_id}: refused: its certificate is {found.status}")
            return None
        policies = self.iot.list_attached_policies(target=found.arn)["policies"]
        documents = [self.iot.get_policy(policyName=p["policyName"])["policyDocument"] for p in policies]
        variables = {"iot:ClientId": client_id, "iot:Certificate.Id": found.certificate_id}
        # The thing policy variables: when the client id names a thing the
        # certificate is attached to.
        things = self.iot.list_principal_things(principal=found.arn)["things"]
        if client_id in things:
            thing = self.iot.describe_thing(thingName=client_id)
            variables["iot:Connection.Thing.ThingName"] = client_id
            variables["iot:Connection.Thing.IsAttached"] = "true"
            for name, value in (thing.get("attributes") or {}).items():
                variables[f"iot:Connection.Thing.Attributes[{name}]"] = value
        else:
            variables["iot:Connection.Thing.IsAttached"] = "false"
        return IotPolicy(documents, variables), []

    def _custom_authorizer(self, request, source_ip, server_name):
        name = urllib.parse.parse_qs(request.username.split("?", 1)[1]).get("x-amz-customauthorizer-name", [""])[0]
        if name not in self.authorizers:
            log_line(f"MQTT: {request.client_id}: refused: no authorizer {name!r} in the template")
            return None
        function, active = self.authorizers[name]
        if not active:
            log_line(f"MQTT: {request.client_id}: refused: the authorizer {name} is not ACTIVE")
            return None
        answer = self._ask_authorizer(function, request, source_ip, server_name)
        if answer is None:
            return None
        limits = []
        if answer.get("refreshAfterInSeconds"):
            limits.append((float(answer["refreshAfterInSeconds"]), lambda c: self._refresh(c, function, request, source_ip, server_name)))
        if answer.get("disconnectAfterInSeconds"):
            limits.append((float(answer["disconnectAfterInSeconds"]), lambda c: c.close()))
        return IotPolicy(answer.get("policyDocuments", [])), limits

    def _ask_authorizer(self, function, request, source_ip, server_name):
        """The authorizer's answer when it admits the client, else None.
        The event is the one IoT Core sends for an MQTT CONNECT."""
        mqtt = {"username": request.username, "clientId": request.client_id}
        if request.password is not None:
            mqtt["password"] = base64.b64encode(request.password).decode()
        event = {
            "token": None,
            "signatureVerified": False,
            "protocols": ["tls", "mqtt"] if server_name is not None else ["mqtt"],
            "protocolData": {"mqtt": mqtt},
            "connectionMetadata": {"id": str(uuid.uuid4())},
        }
        if server_name is not None:
            event["protocolData"]["tls"] = {"serverName": server_name}
        outcome, body = self.invoke_authorizer(function, json.dumps(event).encode())
        if outcome != "response":
            log_line(f"MQTT: {request.client_id}: refused: the authorizer's {outcome}")
            return None
        try:
            answer = json.loads(body)
        except ValueError:
            log_line(f"MQTT: {request.client_id}: refused: the authorizer's answer is not JSON")
            return None
        if answer.get("isAuthenticated") is not True:
            return None
        return answer

    def _refresh(self, connection, function, request, source_ip, server_name):
        answer = self._ask_authorizer(function, request, source_ip, server_name)
        if answer is None:
            connection.close()
        else:
            connection.policy = IotPolicy(answer.get("policyDocuments", []))

    # -- the rules

    def _on_message(self, topic, payload, client_id, source_ip):
        self.rule_queue.put(RuleContext(topic, payload, source_ip, client_id))

    def _rules_worker(self):
        while not self.stopping.is_set():
            try:
                context = self.rule_queue.get(timeout=0.2)
            except queue.Empty:
                continue
            for rule in self.rules:
                try:
                    failures = rule.apply(self.sqs, context)
                except Exception as error:  # noqa: BLE001 - an error action that failed too
                    log_line(f"{rule.logical}: {context.topic}: the error action failed as well: {error}")
                    continue
                if failures:
                    log_line(f"{rule.logical}: {context.topic}: an action failed, sent to the error action: {failures}")


class DataPlane:
    """The IoT data plane's HTTPS API, the parts functions call: Publish
    (`POST /topics/{topic}?qos=`) into the MQTT front, and DeleteConnection
    (`DELETE /connections/{clientId}`). Functions reach it through
    ALYT_IOT_DATA_PLANE_URL; requests are signed but not checked (IAM is
    not emulated)."""

    def __init__(self, front):
        self.front = front
        plane = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                plane.publish(self)

            def do_DELETE(self):
                plane.delete_connection(self)

            def do_GET(self):
                reply(self, 404)

        self.server = Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def serve(self):
        serve_in_background(self.server)

    def stop(self):
        stop_server(self.server)

    @staticmethod
    def error(handler, status, kind, message):
        reply(handler, status, json.dumps({"message": message}).encode(),
              [("content-type", "application/json"), ("x-amzn-ErrorType", kind)])

    def publish(self, handler):
        body = read_body(handler)
        parts = urllib.parse.urlsplit(handler.path)
        if not parts.path.startswith("/topics/"):
            return reply(handler, 404)
        topic = urllib.parse.unquote(parts.path[len("/topics/"):])
        query = dict(urllib.parse.parse_qsl(parts.query))
        qos = int(query.get("qos", "0"))
        if qos not in (0, 1) or not topic or "+" in topic or "#" in topic:
            return self.error(handler, 400, "InvalidRequestException", f"cannot publish on {topic!r} with QoS {qos}")
        self.front.publish(topic, body, qos, query.get("retain", "false") == "true")
        reply(handler, 200, b"{}", [("content-type", "application/json")])

    def delete_connection(self, handler):
        parts = urllib.parse.urlsplit(handler.path)
        if not parts.path.startswith("/connections/"):
            return reply(handler, 404)
        client_id = urllib.parse.unquote(parts.path[len("/connections/"):])
        query = dict(urllib.parse.parse_qsl(parts.query))
        closed = self.front.disconnect(
            client_id,
            clean_session=query.get("cleanSession", "false") == "true",
            prevent_will=query.get("preventWillMessage", "false") == "true",
        )
        if not closed:
            return self.error(handler, 404, "ResourceNotFoundException", f"no connection of {client_id}")
        reply(handler, 200, b"", [("content-type", "application/json")])


# ---------------------------------------------------------------------------
# Event source mappings and schedules: what invokes the workers


def event_properties(source, properties, known):
    unknown = set(properties) - set(known)
    if unknown:
        raise TemplateError(f"{source}: {', '.join(sorted(unknown))} is not emulated")
    return properties


def batch_settings_errors(source, kind, properties):
    """What Lambda's CreateEventSourceMapping refuses in an SQS or DynamoDB
    event's batch settings, so the deploy would fail: the window is whole
    seconds from 0 to 300, a batch 1 to 10,000 records, and an SQS batch
    over 10 needs a window of at least a second."""
    errors = []
    window = properties.get("MaximumBatchingWindowInSeconds", 0)
    batch = properties.get("BatchSize", 10 if kind == "SQS" else 100)
    if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window <= 300:
        errors.append(f"{source}.MaximumBatchingWindowInSeconds {window}: Lambda takes whole seconds from 0 to 300")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= 10000:
        errors.append(f"{source}.BatchSize {batch}: Lambda takes 1 to 10000")
    elif kind == "SQS" and batch > 10 and not (isinstance(window, int) and window >= 1):
        errors.append(f"{source}.BatchSize {batch}: an SQS batch over 10 needs MaximumBatchingWindowInSeconds of at least 1")
    return errors


def batch_item_failures(answer, identifiers):
    """The records a ReportBatchItemFailures answer leaves on the queue:
    None for all of them (an answer Lambda reads as the whole batch
    failing), else the reported ones."""
    try:
        response = json.loads(answer) if answer else None
    except ValueError:
        return None  # invalid JSON: the whole batch failed
    if response is None or not isinstance(response, dict):
        return set()
    failures = response.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, list):
        return None
    failed = set()
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        if not identifier or identifier not in identifiers:
            return None  # an empty, null or unknown id fails the whole batch
        failed.add(identifier)
    return failed


def sqs_record(message, queue_arn, region_name):
    """One message as Lambda's SQS poller hands it to a function."""
    attributes = message.get("Attributes", {})
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": {
            k: attributes[k]
            for k in ("ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp")
            if k in attributes
        },
        "messageAttributes": message.get("MessageAttributes", {}),
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region_name,
    }


class SqsEventSource:
    """An SQS event of a function: one poller (Lambda runs several; one is
    enough for one machine) that long-polls the queue, gathers up to
    BatchSize messages for at most MaximumBatchingWindowInSeconds, and
    invokes the function. A batch that succeeds is deleted; with
    ReportBatchItemFailures only the records not reported are; a failed
    invocation deletes nothing. What is left becomes visible again after the
    queue's visibility timeout, and moto's redrive moves a message to the
    dead-letter queue past the queue's maxReceiveCount, as SQS does."""

    def __init__(self, region, pool, source, properties, queue_arn):
        p = event_properties(
            source,
            properties,
            # ScalingConfig (MaximumConcurrency) caps Lambda's pollers; here
            # the function's pool caps its instances.
            ("Queue", "BatchSize", "MaximumBatchingWindowInSeconds", "FunctionResponseTypes", "Enabled", "ScalingConfig"),
        )
        errors = batch_settings_errors(source, "SQS", p)
        if errors:
            raise TemplateError("; ".join(errors))
        self.region = region
        self.pool = pool
        self.source = source
        self.queue_arn = queue_arn
        self.batch_size = int(p.get("BatchSize", 10))
        self.window = float(p.get("MaximumBatchingWindowInSeconds", 0))
        responses = p.get("FunctionResponseTypes", [])
        if set(responses) - {"ReportBatchItemFailures"}:
            raise TemplateError(f"{source}: FunctionResponseTypes {responses} is not emulated")
        self.report_failures = "ReportBatchItemFailures" in responses
        self.enabled = p.get("Enabled", True) not in (False, "false")
        self.sqs = region.client("sqs")
        name = queue_arn.rsplit(":", 1)[1]
        self.queue_url = self.sqs.get_queue_url(QueueName=name)["QueueUrl"]
        self.stopping = threading.Event()
        self.batches = 0

    def serve(self):
        if self.enabled:
            threading.Thread(target=self._run, daemon=True).start()

    def stop(self):
        self.stopping.set()

    def _gather(self):
        messages, first = [], None
        while not self.stopping.is_set() and len(messages) < self.batch_size:
            if first is not None and time.monotonic() - first >= self.window:
                break
            wait = 1 if first is None else max(0, min(1, self.window - (time.monotonic() - first)))
            got = self.sqs.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=min(10, self.batch_size - len(messages)),
                WaitTimeSeconds=int(wait),
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
            if not got and first is None:
                return []  # one empty long poll: the caller polls again
            if got and first is None:
                first = time.monotonic()
            messages += got
            if messages and self.window == 0:
                break
        return messages

    def _run(self):
        while not self.stopping.is_set():
            try:
                messages = self._gather()
                if messages:
                    self.handle(messages)
            except Exception as error:  # noqa: BLE001 - the poller carries on, as Lambda's does
                if not self.stopping.is_set():
                    log_line(f"{self.source}: polling failed: {error}")
                    time.sleep(1)

    def handle(self, messages):
        records = [sqs_record(m, self.queue_arn, self.region.name) for m in messages]
        outcome, answer = self.pool.invoke(json.dumps({"Records": records}).encode())
        self.batches += 1
        by_id = {m["MessageId"]: m for m in messages}
        if outcome != "response":
            if not self.stopping.is_set():
                log_line(f"{self.source}: the function's {outcome}: {len(messages)} messages stay on the queue")
            return
        failed = batch_item_failures(answer, set(by_id)) if self.report_failures else set()
        if failed is None:
            log_line(f"{self.source}: an answer that fails the whole batch: {answer[:200]!r}")
            return
        done = [m for i, m in by_id.items() if i not in failed]
        if done:
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(done)],
            )


def filter_matches(pattern, event):
    """EventBridge pattern matching, the forms the template uses: nested
    objects, lists of literal values, and {"prefix": ...}."""
    for key, expected in pattern.items():
        value = event.get(key) if isinstance(event, dict) else None
        if isinstance(expected, dict):
            if not isinstance(value, dict) or not filter_matches(expected, value):
                return False
            continue
        if not isinstance(expected, list):
            raise TemplateError(f"filter pattern: {key} must be an object or a list")
        values = value if isinstance(value, list) else [value]
        if not any(_filter_value_matches(e, v) for e in expected for v in values):
            return False
    return True


def _filter_value_matches(expected, value):
    if isinstance(expected, dict):
        if set(expected) != {"prefix"}:
            raise TemplateError(f"filter pattern: {expected} is not emulated (only literal values and prefix)")
        return isinstance(value, str) and value.startswith(expected["prefix"])
    return value is not None and expected == value


def on_failure_record(function, condition, payload=None, response=None, batch_info=None):
    """What an OnFailure destination receives (Lambda's invocation record)."""
    record = {
        "version": "1.0",
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        "requestContext": {
            "requestId": str(uuid.uuid4()),
            "functionArn": f"{function.arn}:$LATEST",
            "condition": condition,
            "approximateInvokeCount": 1,
        },
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
    }
    if payload is not None:
        record["requestPayload"] = payload
    if response is not None:
        record["responsePayload"] = response
    if batch_info is not None:
        record["DDBStreamBatchInfo"] = batch_info
    return record


def send_to_destination(region, destination_arn, record):
    if not destination_arn:
        return
    if ":sqs:" not in destination_arn:
        raise TemplateError(f"an OnFailure destination {destination_arn}: only SQS is emulated")
    sqs = region.client("sqs")
    url = sqs.get_queue_url(QueueName=destination_arn.rsplit(":", 1)[1])["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps(record))


class TableStreamEventSource:
    """A DynamoDB event of a function: reads the table's stream (moto's
    shard, in process, by position, under the table's lock: never in the
    middle of a transaction, whose records a cancellation takes back), drops
    what FilterCriteria does not take, gathers up to BatchSize records for
    at most MaximumBatchingWindowInSeconds, and invokes the function; a
    batch that fails after MaximumRetryAttempts goes to the OnFailure
    destination and the mapping moves on."""

    def __init__(self, region, pool, function, source, properties, table_name, stream_arn):
        p = event_properties(
            source,
            properties,
            ("Stream", "StartingPosition", "BatchSize", "MaximumBatchingWindowInSeconds", "MaximumRetryAttempts",
             "DestinationConfig", "FilterCriteria", "Enabled", "TumblingWindowInSeconds",
             "BisectBatchOnFunctionError"),
        )
        tumbling = p.get("TumblingWindowInSeconds", 0)
        if isinstance(tumbling, bool) or not isinstance(tumbling, int) or not 0 <= tumbling <= 900:
            raise TemplateError(f"{source}.TumblingWindowInSeconds {tumbling}: Lambda takes whole seconds from 0 to 900")
        errors = batch_settings_errors(source, "DynamoDB", p)
        if errors:
            raise TemplateError("; ".join(errors))
        if p.get("StartingPosition") not in ("LATEST", "TRIM_HORIZON"):
            raise TemplateError(f"{source}: StartingPosition {p.get('StartingPosition')} is not emulated")
        self.region = region
        self.pool = pool
        self.function = function
        self.source = source
        self.table_name = table_name
        self.stream_arn = stream_arn
        self.batch_size = int(p.get("BatchSize", 100))
        self.window = float(p.get("MaximumBatchingWindowInSeconds", 0))
        self.retries = int(p.get("MaximumRetryAttempts", -1))
        self.destination = ((p.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
        self.filters = [json.loads(f["Pattern"]) for f in ((p.get("FilterCriteria") or {}).get("Filters") or [])]
        self.enabled = p.get("Enabled", True) not in (False, "false")
        # A tumbling window: each batch names its shard and carries the
        # window's state, and an answer without a state is a failure.
        self.tumbling = int(p.get("TumblingWindowInSeconds", 0))
        self.bisect = p.get("BisectBatchOnFunctionError", False) in (True, "true")
        self.position = 0 if p["StartingPosition"] == "TRIM_HORIZON" else len(self._shard_items())
        self.stopping = threading.Event()
        self.batches = 0

    def _shard_items(self):
        from moto.dynamodb.models import dynamodb_backends

        with self.region.dynamodb_lock:  # not in the middle of a transaction
            table = dynamodb_backends[ACCOUNT][self.region.name].tables[self.table_name]
            return list(table.stream_shard.items) if table.stream_shard is not None else []

    def _shard_id(self):
        from moto.dynamodb.models import dynamodb_backends

        with self.region.dynamodb_lock:
            table = dynamodb_backends[ACCOUNT][self.region.name].tables[self.table_name]
            return table.stream_shard.id if table.stream_shard is not None else "shardId-emulated"

    def _payload(self, batch):
        """The invocation's event: the records, and with a tumbling window
        the window's fields Lambda adds (the state is not carried over)."""
        event = {"Records": batch}
        if self.tumbling:
            now = time.time()
            start = now - now % self.tumbling
            iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))  # noqa: E731
            event.update({
                "window": {"start": iso(start), "end": iso(start + self.tumbling)},
                "state": {},
                "shardId": self._shard_id(),
                "eventSourceARN": self.stream_arn,
                "isFinalInvokeForWindow": False,
                "isWindowTerminatedEarly": False,
            })
        return json.dumps(event).encode()

    def _succeeded(self, outcome, answer):
        if outcome != "response":
            return False
        if not self.tumbling:
            return True
        try:
            return "state" in json.loads(answer)
        except (TypeError, ValueError):
            return False

    def serve(self):
        if self.enabled:
            threading.Thread(target=self._run, daemon=True).start()

    def stop(self):
        self.stopping.set()

    def _new_records(self):
        items = self._shard_items()
        fresh, self.position = items[min(self.position, len(items)):], len(items)
        records = []
        for item in fresh:
            record = json.loads(json.dumps(item.to_json(), default=str))
            created = item.to_json()["dynamodb"]["ApproximateCreationDateTime"]
            record["dynamodb"]["ApproximateCreationDateTime"] = int(created.timestamp()) if hasattr(created, "timestamp") else created
            record["awsRegion"] = self.region.name
            record["eventSourceARN"] = self.stream_arn
            if not self.filters or any(filter_matches(f, record) for f in self.filters):
                records.append(record)
        return records

    def _run(self):
        pending, first = [], None
        while not self.stopping.wait(0.1):
            try:
                records = self._new_records()
            except Exception as error:  # noqa: BLE001
                log_line(f"{self.source}: reading the stream failed: {error}")
                continue
            if records and first is None:
                first = time.monotonic()
            pending += records
            while pending and (len(pending) >= self.batch_size or time.monotonic() - first >= self.window):
                batch, pending = pending[: self.batch_size], pending[self.batch_size:]
                self.handle(batch)
                first = time.monotonic() if pending else None

    def handle(self, batch):
        attempt = 0
        while not self.stopping.is_set():
            outcome, answer = self.pool.invoke(self._payload(batch))
            self.batches += 1
            if self._succeeded(outcome, answer):
                return
            if self.bisect and len(batch) > 1:
                # Each half is a batch of its own, retried as one.
                half = len(batch) // 2
                self.handle(batch[:half])
                self.handle(batch[half:])
                return
            attempt += 1
            if self.retries >= 0 and attempt > self.retries:
                break
            time.sleep(1)
        if self.stopping.is_set():
            return
        log_line(f"{self.source}: a batch of {len(batch)} failed ({outcome}); recorded in its OnFailure destination")
        info = {
            "shardId": "shardId-emulated",
            "startSequenceNumber": batch[0]["dynamodb"]["SequenceNumber"],
            "endSequenceNumber": batch[-1]["dynamodb"]["SequenceNumber"],
            "batchSize": len(batch),
            "streamArn": self.stream_arn,
        }
        send_to_destination(self.region, self.destination, on_failure_record(self.function, "RetryAttemptsExhausted", batch_info=info))


RATE = re.compile(r"rate\((\d+) (minute|minutes|hour|hours|day|days)\)")


def rate_seconds(expression, source):
    """EventBridge's rate(N unit) in seconds; anything else is a TemplateError."""
    match = RATE.fullmatch(str(expression).strip())
    if match is None:
        raise TemplateError(f"{source}: the schedule {expression!r} is not emulated (only rate(N minutes|hours|days))")
    count, unit = int(match.group(1)), match.group(2)
    if (count == 1) != (not unit.endswith("s")):
        raise TemplateError(f"{source}: {expression!r}: EventBridge takes rate(1 minute) or rate(N minutes)")
    return count * {"minute": 60, "hour": 3600, "day": 86400}[unit.rstrip("s")]


class Schedule:
    """A Schedule event: EventBridge invokes the function asynchronously at
    its rate (divided by `speedup`, for tests; the functions read the wall
    clock, so only how often they run changes). The first run is at start
    rather than a period later. A failed run is retried by Lambda's async
    retry (EventInvokeConfig.MaximumRetryAttempts, default 2), then goes
    to the OnFailure destination."""

    def __init__(self, region, pool, function, source, properties, invoke_config, speedup=1.0):
        # RetryPolicy is EventBridge's delivery to Lambda, which here is a call.
        p = event_properties(source, properties, ("Schedule", "Enabled", "Input", "Name", "Description", "RetryPolicy"))
        self.region = region
        self.pool = pool
        self.function = function
        self.source = source
        self.period = rate_seconds(p["Schedule"], source) / speedup
        self.enabled = p.get("Enabled", True) not in (False, "false")
        self.input = json.loads(p["Input"]) if "Input" in p else None
        invoke_config = event_properties(
            f"{function.logical}.EventInvokeConfig", invoke_config or {},
            ("MaximumRetryAttempts", "DestinationConfig", "MaximumEventAgeInSeconds"),
        )
        self.retries = int(invoke_config.get("MaximumRetryAttempts", 2))
        self.destination = ((invoke_config.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
        self.rule_arn = f"arn:aws:events:{region.name}:{ACCOUNT}:rule/{STACK}-{source.replace('.Events.', '')}"
        self.stopping = threading.Event()
        self.runs = 0

    def serve(self):
        if self.enabled:
            threading.Thread(target=self._run, daemon=True).start()

    def stop(self):
        self.stopping.set()

    def event(self):
        if self.input is not None:
            return self.input
        return {
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": ACCOUNT,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "region": self.region.name,
            "resources": [self.rule_arn],
            "detail": {},
        }

    def _run(self):
        while not self.stopping.is_set():
            threading.Thread(target=self.fire, daemon=True).start()
            self.stopping.wait(self.period)

    def fire(self):
        event = self.event()
        for _ in range(1 + max(0, self.retries)):
            if self.stopping.is_set():
                return
            outcome, answer = self.pool.invoke(json.dumps(event).encode())
            self.runs += 1
            if outcome == "response":
                return
        if self.stopping.is_set():
            return  # the region stopped it
        log_line(f"{self.source}: a scheduled run failed ({outcome}); recorded in its OnFailure destination")
        response = None
        try:
            response = json.loads(answer) if answer else None
        except ValueError:
            pass
        send_to_destination(
            self.region, self.destination, on_failure_record(self.function, "RetriesExhausted", event, response)
        )


# ---------------------------------------------------------------------------
# ECS services: a task's containers as processes


def image_binary(image):
    """The binary an image of the template runs: the simulator image is
    infra/simulator.Dockerfile's, whose RUNNER is cargo-lambda's
    `target/lambda/<binary>/bootstrap`."""
    if image != SIMULATOR_IMAGE:
        raise TemplateError(f"image {image!r}: the emulator runs only {SIMULATOR_IMAGE} (infra/simulator.Dockerfile)")
    match = re.search(r"^ARG RUNNER=\S*?lambda/([^/\s]+)/bootstrap$", SIMULATOR_DOCKERFILE.read_text(), re.M)
    if match is None:
        raise TemplateError(f"{SIMULATOR_DOCKERFILE}: no ARG RUNNER=target/lambda/<binary>/bootstrap")
    return match.group(1)


class ServiceTask:
    """One task of an `AWS::ECS::Service` (its condition holding): each
    container of its task definition runs as the host-built binary of its
    image with the definition's `Environment` resolved like the functions'
    (plus the region, credentials and AWS_ENDPOINT_URL of the task role, and
    `overrides`), logging to DATA/logs/<Service>.log (its awslogs group). A
    container that exits is started again after a second, as the service
    replaces a stopped task. Not emulated: Fargate's CPU and memory limits,
    the network configuration, the execution role and the task role's
    policies (moto takes any credentials)."""

    RESTART_AFTER = 1.0

    def __init__(self, stack, service, bin_dir, log_path, overrides):
        properties = stack.resolve(stack.resources[service].get("Properties", {}))
        definition = next(
            (logical for logical, r in stack.resources.items()
             if r.get("Type") == "AWS::ECS::TaskDefinition" and stack.ref(logical) == properties["TaskDefinition"]),
            None,
        )
        if definition is None:
            raise TemplateError(f"{service}.TaskDefinition names no task definition of the template")
        self.service = service
        self.count = int(properties.get("DesiredCount", 1))
        self.log_path = log_path
        self.containers = []
        task = stack.resolve(stack.resources[definition]["Properties"])
        for container in task.get("ContainerDefinitions", []):
            binary = Path(bin_dir) / image_binary(container["Image"])
            if not binary.is_file():
                raise RuntimeError(f"no binary {binary} for {service}: build it with cargo build --workspace --bins")
            environment = {e["Name"]: str(e.get("Value", "")) for e in container.get("Environment", [])}
            self.containers.append((container["Name"], binary, {**environment, **overrides(environment)}))
        self.processes = []
        self.stopping = threading.Event()

    def serve(self):
        for _ in range(self.count):
            for name, binary, environment in self.containers:
                threading.Thread(target=self._run, args=(name, binary, environment), daemon=True).start()

    def _run(self, name, binary, environment):
        while not self.stopping.is_set():
            with open(self.log_path, "ab") as log:
                process = SPAWNER.popen(
                    [str(binary)],
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **environment},
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            self.processes.append(process)
            code = process.wait()
            if self.stopping.wait(self.RESTART_AFTER):
                return
            log_line(f"{self.service}: the {name} container exited with {code}; starting a new task (log: {self.log_path})")

    def stop(self, grace=3.0):
        self.stopping.set()
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# ---------------------------------------------------------------------------
# The whole region


def log_line(text):
    print(f"emulate: {text}", file=sys.stderr, flush=True)


class EmulatedRegion:
    def __init__(
        self,
        data,
        bin_dir,
        port=0,
        parameters=None,
        region="eu-west-1",
        template_path=TEMPLATE,
        mqtt_port=0,
        schedule_speedup=1.0,
        stream_port=0,
    ):
        self.data = Path(data)
        (self.data / "logs").mkdir(parents=True, exist_ok=True)
        self.stopped = False
        self.front = HttpApiFront(port)
        self.api = f"http://127.0.0.1:{self.front.port}/v1"
        self.region = Region(region)
        self.turnstile = TurnstileStandIn()
        self.outbox = Outbox(self.region, self.data / "outbox")
        self.instances = {}
        self.iot = None
        self.sources = []
        self.url_fronts = {}
        self.stream = None
        self.tasks = []
        try:
            given = {**emulator_parameters(region, self.api), **(parameters or {})}
            self.region.put_secret(TURNSTILE_SECRET_NAME, TURNSTILE_PASSING_SECRET)
            self.stack = RegionStack(load_template(template_path), given, self.region)
            mistakes = template_mistakes(self.stack)
            if mistakes:
                raise TemplateError(f"{template_path}:\n  " + "\n  ".join(mistakes))
            self.region.verify_sender(self.stack.parameters.get("MailFrom"))
            # Each function URL's front, made first so its address is what
            # `!GetAtt <Function>Url.FunctionUrl` gives the functions.
            for logical, resource in self.stack.resources.items():
                config = (resource.get("Properties") or {}).get("FunctionUrlConfig")
                if config and resource.get("Type") == "AWS::Serverless::Function":
                    front = FunctionUrlFront(logical, self.stack.resolve(config), stream_port if logical == "StreamFunction" else 0)
                    self.url_fronts[logical] = front
                    self.stack.function_urls[logical] = front.url
            if "StreamFunction" in self.url_fronts:
                self.stream = self.url_fronts["StreamFunction"].url
            functions = {f.logical: f for f in functions_of(self.stack)}
            routes = [r for f in functions.values() for r in f.http_routes()]
            self.iot = IotCore(
                self.region,
                self.stack,
                lambda logical, event: self.instances[logical].invoke(event),
                self.data,
                self.stack.parameters["IotDataEndpoint"],
                mqtt_port,
            )
            self.mqtt = f"127.0.0.1:{self.iot.front.port}"
            triggered = (
                {r.function for r in routes}
                | set(self.url_fronts)
                | self.iot.authorizer_functions()
                | {f.logical for f in functions.values() if any(
                    e.get("Type") in EVENT_SOURCES for e in f.events.values())}
            )
            self.start_functions(bin_dir, triggered)
            self.front.serve(routes, self.instances, stage_throttle(self.stack), http_api_cors(self.stack))
            for logical, front in self.url_fronts.items():
                front.serve(self.instances[logical])
            self.iot.serve()
            self.sources = self.event_sources([functions[f] for f in sorted(triggered)], schedule_speedup)
            for source in self.sources:
                source.serve()
            self.tasks = self.service_tasks(bin_dir)
            for task in self.tasks:
                task.serve()
            publish_stack(self.stack, self.region, self.api)
        except BaseException:
            self.stop()
            raise

    def event_sources(self, functions, schedule_speedup):
        """Each function's SQS, DynamoDB and Schedule events; any other kind
        of event is not emulated, and says so."""
        sources = []
        for function in functions:
            properties = self.stack.resources[function.logical].get("Properties", {})
            for name, event in function.events.items():
                kind, source = event.get("Type"), f"{function.logical}.Events.{name}"
                p = self.stack.resolve(event.get("Properties", {}) or {})
                pool = self.instances[function.logical]
                if kind == "HttpApi":
                    continue
                if kind == "SQS":
                    sources.append(SqsEventSource(self.region, pool, source, p, p["Queue"]))
                elif kind == "DynamoDB":
                    tables = [
                        logical for logical, r in self.stack.resources.items()
                        if r.get("Type") == "AWS::DynamoDB::Table"
                        and self.stack.get_att(logical, "StreamArn") == p["Stream"]
                    ]
                    if not tables:
                        raise TemplateError(f"{source}: Stream is no table's stream in the template")
                    table = self.stack.ref(tables[0])
                    sources.append(TableStreamEventSource(self.region, pool, function, source, p, table, p["Stream"]))
                elif kind == "Schedule":
                    invoke_config = self.stack.resolve(properties.get("EventInvokeConfig", {}) or {})
                    sources.append(Schedule(self.region, pool, function, source, p, invoke_config, schedule_speedup))
                else:
                    raise TemplateError(f"{source}: events of Type {kind} are not emulated")
        return sources

    def service_tasks(self, bin_dir):
        """The template's ECS services whose condition holds, as processes."""
        tasks = []
        for logical, resource in self.stack.resources.items():
            if resource.get("Type") != "AWS::ECS::Service":
                continue
            if "Condition" in resource and not self.stack.condition(resource["Condition"]):
                continue
            tasks.append(ServiceTask(self.stack, logical, bin_dir, self.data / "logs" / f"{logical}.log", self.task_overrides))
        return tasks

    def task_overrides(self, environment):
        """What a task gets besides its definition's environment: the task
        role's credentials and region, every AWS client to moto, and, for
        a task that connects to IoT Core (ALYT_IOT_DATA_ENDPOINT, no other
        broker), the MQTT front's address (the endpoint's port 443 cannot be
        served here) and its CA as the image's trust store."""
        region = self.stack.region
        overrides = {
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "AWS_ACCESS_KEY_ID": "emulated",
            "AWS_SECRET_ACCESS_KEY": "emulated",
            "AWS_SESSION_TOKEN": "emulated",
            "AWS_ENDPOINT_URL": self.region.endpoint,
            "TZ": ":UTC",
        }
        if environment.get("ALYT_IOT_DATA_ENDPOINT") and not environment.get("ALYT_SIMULATOR_BROKER"):
            overrides["ALYT_IOT_MQTT_ADDRESS"] = self.mqtt
            overrides["SSL_CERT_FILE"] = str(self.data / "iot" / "ca.pem")
        return overrides

    def start_functions(self, bin_dir, logicals):
        functions = [f for f in functions_of(self.stack) if f.logical in logicals]
        missing = [f.binary for f in functions if not (Path(bin_dir) / f.binary).is_file()]
        if missing:
            raise RuntimeError(
                f"no binary in {bin_dir} for {', '.join(missing)}: build them with cargo build --workspace --bins"
            )
        warn_if_stale([Path(bin_dir) / f.binary for f in functions])
        overrides = {
            "AWS_ENDPOINT_URL": self.region.endpoint,
            "ALYT_TURNSTILE_VERIFY_URL": self.turnstile.url,
            # Webhooks may reach a receiver on this machine (127.0.0.1, http):
            # the hosted policy allows https to public addresses only.
            "ALYT_WEBHOOKS_PRIVATE_NETWORKS": "on",
        }
        for function in functions:
            environment = {**function.environment(), **overrides}
            if "ALYT_IOT_DATA_ENDPOINT" in environment:
                # Where the data plane's Publish goes (the host the template
                # names cannot be served here): the front's data plane.
                environment["ALYT_IOT_DATA_PLANE_URL"] = self.iot.data_plane.url
            properties = self.stack.resources[function.logical].get("Properties", {})
            limit = self.stack.resolve(properties.get("ReservedConcurrentExecutions", 0))
            if limit is NO_VALUE:  # ReserveConcurrency=false
                limit = 0
            pool = FunctionPool(
                function,
                Path(bin_dir) / function.binary,
                environment,
                self.data / "logs" / f"{function.logical}.log",
                int(limit) or None,
            )
            self.instances[function.logical] = pool
            pool.start()
        for pool in self.instances.values():
            pool.wait_ready(max(30.0, pool.function.timeout))

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        for task in self.tasks:
            task.stop()
        for source in self.sources:
            source.stop()
        if self.iot is not None:
            self.iot.stop()
        for front in self.url_fronts.values():
            front.stop()
        for instance in self.instances.values():
            instance.stop()
        self.front.stop()
        self.outbox.stop()
        self.turnstile.stop()
        self.region.stop()


def publish_stack(stack, region, api):
    """What an operator reads of a deployed stack, made once the region
    serves: the template's alarms (whose condition holds) in CloudWatch, and
    the stack with its state and outputs in CloudFormation, named STACK.
    Every output is resolved as the functions' environment is, but ApiUrl:
    the template builds it from the API's execute-api host, which is the
    HTTP API front (`api`, its base with /v1) here."""
    for logical, resource in stack.resources.items():
        if resource.get("Type") == "AWS::CloudWatch::Alarm":
            if "Condition" not in resource or stack.condition(resource["Condition"]):
                stack.physical(logical)
    outputs = {}
    for key, output in (stack.template.get("Outputs") or {}).items():
        if "Condition" not in output or stack.condition(output["Condition"]):
            outputs[key] = stack.resolve(output["Value"])
    outputs["ApiUrl"] = api.removesuffix("v1")
    region.publish_stack(STACK, outputs)


# The event types that invoke a function besides the HTTP API's routes.
EVENT_SOURCES = ("SQS", "DynamoDB", "Schedule")


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
    parser.add_argument("--mqtt-port", type=int, default=0, help="the MQTT front's port (default: a free one)")
    parser.add_argument(
        "--stream-port", type=int, default=0, help="the stream function URL's port (default: a free one)"
    )
    parser.add_argument(
        "--schedule-speedup",
        type=float,
        default=1.0,
        help="run Schedule events this many times as often (tests; default 1)",
    )
    parser.add_argument("--template", default=str(TEMPLATE), help="the template to run (default: infra/template.yaml)")
    parser.add_argument("--parameter", action="append", default=[], metavar="KEY=VALUE", help="a template parameter")
    parser.add_argument("--exit-with-stdin", action="store_true", help="also stop when stdin closes")
    args = parser.parse_args(argv)
    parameters = dict(p.split("=", 1) for p in args.parameter)
    data = args.data or tempfile.mkdtemp(prefix="alyt-emulate-")

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        region = EmulatedRegion(
            data,
            args.bin_dir,
            args.port,
            parameters,
            args.region,
            mqtt_port=args.mqtt_port,
            schedule_speedup=args.schedule_speedup,
            stream_port=args.stream_port,
            template_path=args.template,
        )
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
    if region.stream:
        print(f"STREAM={region.stream}", flush=True)
    print(f"MQTT={region.mqtt}", flush=True)
    print(f"DATA={Path(data).resolve()}", flush=True)
    print(f"STACK={STACK}", flush=True)
    print(f"AWS_ENDPOINT_URL={region.region.endpoint}", flush=True)
    log_line(f"{len(region.instances)} functions up ({', '.join(region.instances)}); function logs in {Path(data) / 'logs'}")
    while not stop.wait(0.5):
        pass
    log_line("stopping")
    region.stop()
    for line in region.region.dynamodb_times.report():
        log_line(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
