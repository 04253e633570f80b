#!/usr/bin/env python3
"""Holds infra/template.yaml to the operations and least-privilege rules.

    check_template.py [--reach LOG] [--suggest]

Checks (each failure is printed; the exit status is 1 if any):

- Operations: every function has an errors and a throttles alarm; every
  queue is retained and every queue but the ingest queue (whose dead
  letters have their own) has a depth alarm; every log group is retained;
  the topic rule has an error action and never takes the platform's own
  `commands`; the scheduled workers have a failure destination; the HTTP
  API has CORS and a 5xx alarm; the topic rule and the webhook backlog are
  alarmed; alarms notify the AlarmTopicArn parameter; samconfig.toml has
  at least two stages, each with a region and parameter overrides.
- Secrets: no parameter carries a secret (NoEcho), and the Turnstile
  secret comes through a Secrets Manager dynamic reference.
- Test-only settings: no function or container environment sets what only
  the tests and the emulated region set (TEST_ONLY_SETTINGS: stand-in
  endpoints, the webhooks' private-network opening).
- Least privilege: no function uses the all-table managed policy; every
  table statement of a function is narrowed with dynamodb:LeadingKeys
  (ForAllValues:StringLike); the stream function only reads (but for its
  slot leases and the event log's heads); the IoT
  authorizer only gets DEVCRED#* items; only the functions that sign or
  verify tokens may reach the token key (CONFIG#jwt), and every other
  role is denied it explicitly.
- With --reach LOG (the store calls log the tests wrote with
  ALYT_STORE_CALLS_LOG, see functions/local/src/reach.rs): every store
  call the tests saw is allowed to the hosted function that makes it:
  requests go to the function API Gateway routes their path to (the
  streams to the stream function, what a streamed body reached too),
  worker passes to their worker. With --suggest, prints each function's
  needed actions and partitions.

What each function is (HTTP group, stream, ingest, the worker of a pass)
is read from the binary it builds (see Roles), not listed here.

The template is read with cfn-lint's decoder (intrinsic functions as
dicts), so this runs wherever cfn-lint does.
"""

import fnmatch
import json
import re
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

from cfnlint.decode import decode

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "infra" / "template.yaml"

READ_ACTIONS = {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"}

# The local platform's worker passes whose hosted function is not the one
# of the same name (alyt-<worker>): the reset mails go out from the sweeps
# (TTL is DynamoDB's).
WORKER_ALIASES = {"local-housekeeping": "sweeps"}


class Roles:
    """What each function of the template is, read from the binary it runs
    (its `BuildProperties.Binary`), so a new function of a known kind is
    checked without editing this file:

    - token functions sign or verify the platform's tokens: the HTTP groups
      (`alyt-api-*`) and the stream (`alyt-stream`); every other role is
      denied CONFIG#jwt;
    - the worker passes the local platform logs are done hosted by
      `alyt-<worker>` (and the meter's flush by every HTTP group);
    - metering functions count usage: the HTTP groups and ingest (a
      sandbox's device messages count against its quota). Locally one
      meter serves the whole process: the log names its flush as a worker of
      its own (the HTTP groups' flush also notes their keys' last use) and
      its first read of a count under whichever request or pass came first,
      so every metering function needs to read and write the counts
      (hosted_only below), whatever the log attributes.
    """

    def __init__(self, template):
        binaries = {
            name: function.get("Metadata", {}).get("BuildProperties", {}).get("Binary", "")
            for name, function in resources(template, "AWS::Serverless::Function").items()
        }
        by_binary = {binary: name for name, binary in binaries.items()}
        self.groups = {name for name, binary in binaries.items() if binary.startswith("alyt-api-")}
        self.stream = by_binary.get("alyt-stream")
        self.ingest = by_binary.get("alyt-ingest")
        self.token_functions = self.groups | {self.stream}
        self.metering = self.groups | {self.ingest}

        self.by_binary = by_binary
        # What the tests cannot see the local platform do, because it is
        # hosted only: the shared rate limiter's counters (every HTTP group
        # function), the token key (loaded at start), and the meter's flush.
        self.hosted_only = {
            fn: {("dynamodb:UpdateItem", "RATE#*"), ("dynamodb:GetItem", "CONFIG#jwt"),
                 ("dynamodb:PutItem", "CONFIG#jwt")}
            for fn in self.groups
        }
        self.hosted_only[self.stream] = {("dynamodb:GetItem", "CONFIG#jwt")}
        self.hosted_only[self.ingest] = set()
        for fn in self.metering:
            self.hosted_only[fn] |= {("dynamodb:BatchGetItem", "USAGE#*"), ("dynamodb:UpdateItem", "USAGE#*")}
        # Ingest reads a sandbox developer's message quota (override and
        # default) before it counts (cached per instance, so locally often
        # read by a request).
        self.hosted_only[self.ingest] |= {
            ("dynamodb:BatchGetItem", "DEVELOPER#*"),
            ("dynamodb:BatchGetItem", "CONFIG#quota"),
        }
        # A kind the template lacks (check_least_privilege says so) has no entries.
        self.hosted_only.pop(None, None)
        self.token_functions.discard(None)
        self.metering.discard(None)

    def workers(self, worker):
        """The hosted functions doing a pass the log names, or None."""
        if worker == "usage-flush":
            return sorted(self.groups)
        name = self.by_binary.get(f"alyt-{WORKER_ALIASES.get(worker, worker)}")
        return [name] if name else None


problems = []


def fail(message):
    problems.append(message)


def ref(value):
    return value.get("Ref") if isinstance(value, dict) else None


def as_list(value):
    return value if isinstance(value, list) else [value]


def resources(template, kind):
    return {
        name: resource
        for name, resource in template["Resources"].items()
        if resource.get("Type") == kind
    }


def alarm_targets(template):
    """(namespace, metric, dimension values) of every alarm."""
    found = []
    for name, alarm in resources(template, "AWS::CloudWatch::Alarm").items():
        props = alarm["Properties"]
        dims = []
        for dim in props.get("Dimensions", []):
            value = dim["Value"]
            if isinstance(value, dict):
                value = ref(value) or (value.get("Fn::GetAtt") or [None])[0]
            dims.append(value)
        found.append((props["Namespace"], props["MetricName"], dims))
        actions = json.dumps(props.get("AlarmActions"))
        if "AlarmTopicArn" not in actions:
            fail(f"alarm {name} does not notify AlarmTopicArn")
    return found


def check_operations(template):
    functions = resources(template, "AWS::Serverless::Function")
    alarms = alarm_targets(template)

    def alarmed(namespace, metric, target):
        return any(
            ns == namespace and m == metric and target in dims for ns, m, dims in alarms
        )

    for name in functions:
        for metric in ("Errors", "Throttles"):
            if not alarmed("AWS/Lambda", metric, name):
                fail(f"{name} has no {metric} alarm")
    for name, queue in resources(template, "AWS::SQS::Queue").items():
        if queue.get("DeletionPolicy") != "Retain":
            fail(f"queue {name} is not retained (DeletionPolicy)")
        if name != "IngestQueue" and not alarmed(
            "AWS/SQS", "ApproximateNumberOfMessagesVisible", name
        ):
            fail(f"queue {name} has no depth alarm")
    if not alarmed("AWS/SQS", "ApproximateAgeOfOldestMessage", "IngestQueue"):
        fail("the ingest queue's backlog age is not alarmed")
    for name, group in resources(template, "AWS::Logs::LogGroup").items():
        if group.get("DeletionPolicy") != "Retain":
            fail(f"log group {name} is not retained (DeletionPolicy)")
    for name, rule in resources(template, "AWS::IoT::TopicRule").items():
        payload = rule["Properties"]["TopicRulePayload"]
        if "ErrorAction" not in payload:
            fail(f"topic rule {name} has no error action")
        if not re.search(r"WHERE\s+topic\(5\)\s*<>\s*'commands'", payload["Sql"]):
            fail(f"topic rule {name} takes the platform's own commands")
        if not alarmed("AWS/IoT", "Failure", name):
            fail(f"topic rule {name} has no failure alarm")
    for name, function in functions.items():
        events = function["Properties"].get("Events", {}).values()
        if any(e["Type"] == "Schedule" for e in events):
            destination = (
                function["Properties"].get("EventInvokeConfig", {}).get("DestinationConfig", {})
            )
            if "OnFailure" not in destination:
                fail(f"scheduled {name} has no failure destination")
        for event in events:
            if event["Type"] == "DynamoDB" and "DestinationConfig" not in event["Properties"]:
                fail(f"{name}'s table stream trigger has no failure destination")
    api = template["Resources"]["HttpApi"]["Properties"]
    if "CorsConfiguration" not in api:
        fail("the HTTP API has no CORS configuration")
    if not alarmed("AWS/ApiGateway", "5xx", "HttpApi"):
        fail("the HTTP API's 5xx answers are not alarmed")
    if not any(m == "WebhookBacklogAgeSeconds" for _, m, _ in alarms):
        fail("the webhook backlog age is not alarmed")
    stream = template["Resources"]["StreamFunction"]["Properties"]
    if "Cors" not in stream.get("FunctionUrlConfig", {}):
        fail("the stream's function URL has no CORS configuration")

    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    stages = [
        env
        for env, sections in config.items()
        if isinstance(sections, dict)
        and sections.get("global", {}).get("parameters", {}).get("region")
        and "Stage=" in sections.get("deploy", {}).get("parameters", {}).get(
            "parameter_overrides", ""
        )
    ]
    if len(stages) < 2:
        fail(f"samconfig.toml has {len(stages)} stages with a region and overrides, not 2")


def check_secrets(template):
    for name, parameter in template.get("Parameters", {}).items():
        if parameter.get("NoEcho"):
            fail(f"parameter {name} carries a secret; use a Secrets Manager or SSM reference")
    variables = (
        template["Resources"]["ApiDevelopersFunction"]["Properties"]["Environment"]["Variables"]
    )
    turnstile = json.dumps(variables.get("ALYT_TURNSTILE_SECRET"))
    if "{{resolve:secretsmanager:" not in turnstile and "{{resolve:ssm" not in turnstile:
        fail("the Turnstile secret is not a dynamic reference")


# Settings that point a function or task at a stand-in (moto, the emulated
# region's IoT Core, Turnstile and webhook receivers on this machine) or open
# a hosted policy for tests: the emulated region and the tests set them, a
# deployed stack must never have them.
TEST_ONLY_SETTINGS = (
    "ALYT_WEBHOOKS_PRIVATE_NETWORKS",
    "ALYT_IOT_MQTT_ADDRESS",
    "ALYT_IOT_DATA_PLANE_URL",
    "ALYT_IOT_ENDPOINT",
    "ALYT_TURNSTILE_VERIFY_URL",
    "ALYT_DYNAMODB_ENDPOINT",
    "ALYT_STORE_CALLS_LOG",
    "AWS_ENDPOINT_URL",
    "SSL_CERT_FILE",
)


def environments(template):
    """(where, variable names) of every environment the template sets: the
    functions' Globals, each function's, each container definition's."""
    found = []
    globals_ = ((template.get("Globals") or {}).get("Function") or {}).get("Environment") or {}
    found.append(("Globals.Function", set((globals_.get("Variables") or {}))))
    for name, resource in template.get("Resources", {}).items():
        properties = resource.get("Properties") or {}
        if resource.get("Type") == "AWS::Serverless::Function":
            found.append((name, set(((properties.get("Environment") or {}).get("Variables") or {}))))
        elif resource.get("Type") == "AWS::ECS::TaskDefinition":
            for container in properties.get("ContainerDefinitions") or []:
                where = f"{name}.{container.get('Name', 'container')}"
                found.append((where, {e.get("Name") for e in container.get("Environment") or []}))
    return found


def check_test_only_settings(template):
    for where, names in environments(template):
        for name in sorted(names & set(TEST_ONLY_SETTINGS)):
            fail(f"{where} sets {name}, a setting for tests and the emulated region only")


def statements(function):
    """The inline policy statements of a function."""
    found = []
    for policy in function["Properties"].get("Policies", []):
        if isinstance(policy, dict) and "Statement" in policy:
            found.extend(policy["Statement"])
    return found


def table_grants(function):
    """(actions, leading key patterns or None) of the statements on the table's items."""
    grants = []
    for statement in statements(function):
        resource = json.dumps(statement.get("Resource"))
        if statement.get("Effect") != "Allow" or '"Table"' not in resource:
            continue
        if "index" in resource or "StreamArn" in resource:
            continue  # index queries (read only) and the table's change stream
        condition = statement.get("Condition", {})
        keys = condition.get("ForAllValues:StringLike", {}).get("dynamodb:LeadingKeys")
        grants.append((set(as_list(statement["Action"])), as_list(keys) if keys else None))
    return grants


def denies_token_key(policies):
    return any(
        isinstance(p, dict) and ref(p) == "NoTokenKeyPolicy" for p in policies
    )


def check_least_privilege(template):
    roles = Roles(template)
    if not roles.groups or not roles.stream or not roles.ingest:
        fail("the template has no HTTP group, stream or ingest function (by their binaries)")
    for name, function in resources(template, "AWS::Serverless::Function").items():
        policies = function["Properties"].get("Policies", [])
        if any(ref(p) == "TableAccessPolicy" for p in policies):
            fail(f"{name} uses the all-table TableAccessPolicy")
        grants = table_grants(function)
        for actions, keys in grants:
            if keys is None:
                fail(f"{name} has a table statement without dynamodb:LeadingKeys")
        reaches_token = any(
            keys and any(fnmatch.fnmatchcase("CONFIG#jwt", k) for k in keys)
            for _, keys in grants
        )
        if name in roles.token_functions:
            if not reaches_token:
                fail(f"{name} signs or verifies tokens but may not read CONFIG#jwt")
        else:
            if reaches_token:
                fail(f"{name} may reach the token key CONFIG#jwt")
            if grants and not denies_token_key(policies):
                fail(f"{name} is not denied the token key (NoTokenKeyPolicy)")
    if roles.stream:
        # It reads, and writes only its connections' slot leases and the
        # event log's heads (an idle shard's, moved up to what it reads).
        for actions, keys in table_grants(template["Resources"][roles.stream]):
            if not actions <= READ_ACTIONS and keys not in (["STREAMS#*"], ["LOGHEAD#EVENTS#*"]):
                fail(f"the stream function may write: {sorted(actions - READ_ACTIONS)} on {keys}")
        if "ReservedConcurrentExecutions" not in template["Resources"][roles.stream]["Properties"]:
            fail("the stream function has no reserved concurrency (streams could starve the HTTP API)")
    authorizer = template["Resources"]["DeviceAuthorizerFunction"]
    grants = table_grants(authorizer)
    if grants != [({"dynamodb:GetItem"}, ["DEVCRED#*"])]:
        fail(f"the IoT authorizer may do more than read DEVCRED#* items: {grants}")
    for role in ("SimulatorTaskRole",):
        managed = template["Resources"][role]["Properties"].get("ManagedPolicyArns", [])
        if not any(ref(p) == "NoTokenKeyPolicy" for p in managed):
            fail(f"{role} is not denied the token key (NoTokenKeyPolicy)")


def routes(template):
    """(path prefix, function) of every HTTP API route, most specific first."""
    found = []
    for name, function in resources(template, "AWS::Serverless::Function").items():
        for event in function["Properties"].get("Events", {}).values():
            if event["Type"] == "HttpApi":
                path = event["Properties"]["Path"]
                found.append((path.replace("{proxy+}", ""), path.endswith("{proxy+}"), name))
    found.sort(key=lambda r: -len(r[0]))
    return found


def function_of(path, table):
    for prefix, proxy, name in table:
        if path == prefix or (proxy and path.startswith(prefix)):
            return name
    return None


# The event streams' paths: the developer stream and a home's.
STREAMS = re.compile(r"^/v1/(developers/events/stream|properties/[^/]+/events/stream)$")


def needed_reach(template, log):
    roles = Roles(template)
    needed = defaultdict(set)
    table = routes(template)
    for line in Path(log).read_text().splitlines():
        entry = json.loads(line)
        if "worker" in entry:
            owners = roles.workers(entry["worker"])
            if owners is None:
                fail(f"the log names a worker this check does not know: {entry['worker']}")
                continue
        elif STREAMS.match(entry.get("path") or entry["streamed"]) and roles.stream:
            # The streams are served on the stream function's URL (the HTTP
            # API's function answers 421 without reading); a `streamed` line
            # is what the stream's body reached as it was sent.
            owners = [roles.stream]
        else:
            owner = function_of(entry["path"], table)
            if owner is None:
                continue  # API Gateway answers it (no route)
            owners = [owner]
        for reach in entry.get("reach", []):
            action, _, partition = reach.rpartition(" ")
            if action.startswith("Query gsi"):
                continue  # index queries: a statement of their own, read only
            for owner in owners:
                needed[owner].add((f"dynamodb:{action}", partition))
    for name, extra in roles.hosted_only.items():
        needed[name] |= extra
    return needed


def check_reach(template, log, suggest):
    needed = needed_reach(template, log)
    functions = resources(template, "AWS::Serverless::Function")
    for name, wants in sorted(needed.items()):
        grants = table_grants(functions[name])
        missing = sorted(
            (action, partition)
            for action, partition in wants
            if not any(
                action in actions
                and keys is not None
                and any(fnmatch.fnmatchcase(partition, k) for k in keys)
                for actions, keys in grants
            )
        )
        for action, partition in missing:
            fail(f"{name} needs {action} on {partition} (seen in the tests) but may not")
        if suggest:
            actions = sorted({a for a, _ in wants})
            partitions = sorted({p for _, p in wants})
            print(f"{name}:\n  actions: {actions}\n  partitions: {partitions}")


def check_artifacts(template):
    """Every binary the template builds is a binary of the workspace, and
    the simulator's image copies what infra/build-artifacts builds."""
    binaries = {}
    for manifest in (ROOT / "functions").glob("*/Cargo.toml"):
        cargo = tomllib.loads(manifest.read_text())
        bins = cargo.get("bin") or [{"name": cargo["package"]["name"]}]
        binaries.update((b["name"], manifest.parent) for b in bins)
    for name, function in resources(template, "AWS::Serverless::Function").items():
        binary = function.get("Metadata", {}).get("BuildProperties", {}).get("Binary")
        code = (TEMPLATE.parent / function["Properties"].get("CodeUri", "")).resolve()
        if function.get("Metadata", {}).get("BuildMethod") != "rust-cargolambda":
            fail(f"{name} is not built with cargo-lambda")
        elif binary not in binaries:
            fail(f"{name} builds {binary!r}, which no functions/*/Cargo.toml defines")
        elif code != binaries[binary].resolve():
            # sam build runs cargo-lambda in CodeUri: only the package there
            # has the binary (the workspace root selects its default members).
            fail(f"{name}'s CodeUri is not {binaries[binary].relative_to(ROOT)}, the package of {binary}")
    dockerfile = (ROOT / "infra" / "simulator.Dockerfile").read_text()
    script = (ROOT / "infra" / "build-artifacts").read_text()
    if "simulator-runner" not in binaries:
        fail("no simulator-runner binary for the simulator image")
    if "ARG RUNNER=target/lambda/simulator-runner/bootstrap" not in dockerfile:
        fail("infra/simulator.Dockerfile does not copy the runner infra/build-artifacts builds")
    if "-p alyt-simulator-runner" not in script:
        fail("infra/build-artifacts does not build the simulator runner")


def main(argv):
    log = None
    suggest = "--suggest" in argv
    if "--reach" in argv:
        log = argv[argv.index("--reach") + 1]
    template, matches = decode(str(TEMPLATE))
    if template is None:
        print(matches)
        return 1
    check_operations(template)
    check_secrets(template)
    check_test_only_settings(template)
    check_least_privilege(template)
    check_artifacts(template)
    if log:
        check_reach(template, log, suggest)
    for problem in problems:
        print(f"template: {problem}")
    if problems:
        return 1
    print("template: operations, secrets and least privilege hold")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
