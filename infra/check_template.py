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
  (ForAllValues:StringLike), and so is every index statement, on a named
  index; SAM policy templates only from SCOPED_POLICY_TEMPLATES (none with
  Resource "*"); the stream function only reads (but for its
  slot leases and the event log's heads); the IoT
  authorizer only gets DEVCRED#* items; only the functions that sign or
  verify tokens may reach the token key (CONFIG#jwt), and every other
  role is denied it explicitly.
- Guardrails: the stream and every function behind the HTTP API reserve
  concurrency from a parameter, switchable off (ReserveConcurrency), and
  the defaults leave Lambda's 100 unreserved in an account of 1,000; every
  SQS mapping has ScalingConfig.MaximumConcurrency from a parameter; every
  route and the API's default have throttles from parameters.
- Alarms: every alarm notifies the stack's topic (or AlarmTopicArn) and
  judges several datapoints; each function has errors, throttles and (but
  the stream) p99 duration near its timeout alarmed, each reserved one its
  concurrency; each schedule's silence alarms (missing data breaching);
  every queue's oldest message; the table's throttles and system errors; a
  dashboard shows requests, errors, latency per group, ingest, webhooks and
  streams; docs/OPERATIONS.md explains every alarm and how to roll back.
- Safe rollouts: every function (but UNALIASED) is published through an
  alias with a DeploymentPreference of the DeploymentType parameter whose
  alarms include its own errors alarm; no other resource names a function's
  unqualified ARN; the smoke test's outputs exist.
- Tracing and logs: X-Ray on every function; the HTTP API writes JSON
  access logs with the request ids; every log group keeps LogRetentionDays.
- Data safety: deletion protection and PITR on the table, an AWS Backup
  plan (retention a parameter) selecting it, retry policies and event ages
  on every schedule.
- With --reach LOG (the store calls log the tests wrote with
  ALYT_STORE_CALLS_LOG, see functions/local/src/reach.rs): every store
  call the tests saw is allowed to the hosted function that makes it:
  requests go to the function API Gateway routes their path to (the
  streams to the stream function, what a streamed body reached too),
  worker passes to their worker; index queries are held the same way to
  the statement on their index. With --suggest, prints each function's
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


def alarm_metrics(props):
    """(namespace, metric, dimension values) an alarm watches: its metric, or
    each metric of its metric math."""
    stats = [props] if "MetricName" in props else [
        m["MetricStat"]["Metric"] for m in props.get("Metrics", []) if "MetricStat" in m
    ]
    found = []
    for stat in stats:
        dims = []
        for dim in stat.get("Dimensions", []):
            value = dim["Value"]
            if isinstance(value, dict):
                value = ref(value) or (value.get("Fn::GetAtt") or [None])[0]
            dims.append(value)
        found.append((stat["Namespace"], stat["MetricName"], dims))
    return found


# Where every alarm sends its state changes: the stack's topic, or the one
# given.
ALARM_TOPIC = {"Fn::If": ["CreateAlarmTopic", {"Ref": "AlarmTopic"}, {"Ref": "AlarmTopicArn"}]}


def alarm_targets(template):
    """(namespace, metric, dimension values) of every alarm."""
    found = []
    for name, alarm in resources(template, "AWS::CloudWatch::Alarm").items():
        props = alarm["Properties"]
        found.extend(alarm_metrics(props))
        for actions in ("AlarmActions", "OKActions"):
            if props.get(actions) != [ALARM_TOPIC]:
                fail(f"alarm {name}'s {actions} are not the alarm topic (CreateAlarmTopic ? AlarmTopic : AlarmTopicArn)")
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


INDEX_ARN = re.compile(r'^"\$\{Table\.Arn\}/index/([A-Za-z0-9_.-]+|\*)"$')


def index_grants(function):
    """(index name or None for every index, (actions, leading keys or None))
    of the statements on the table's indexes."""
    grants = []
    for statement in statements(function):
        resource = statement.get("Resource")
        sub = resource.get("Fn::Sub") if isinstance(resource, dict) else None
        if statement.get("Effect") != "Allow" or not isinstance(sub, str) or "/index/" not in sub:
            continue
        match = INDEX_ARN.match(json.dumps(sub))
        index = match.group(1) if match and match.group(1) != "*" else None
        keys = statement.get("Condition", {}).get("ForAllValues:StringLike", {}).get("dynamodb:LeadingKeys")
        grants.append((index, (set(as_list(statement["Action"])), as_list(keys) if keys else None)))
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
    for name, function in resources(template, "AWS::Serverless::Function").items():
        for index, (actions, keys) in index_grants(function):
            if index is None:
                fail(f"{name} may query every index of the table (index/*): name the index")
            if keys is None:
                fail(f"{name}'s statement on index {index} is not narrowed with dynamodb:LeadingKeys")
            if actions != {"dynamodb:Query"}:
                fail(f"{name} may do more than Query index {index}: {sorted(actions)}")
        for policy in function["Properties"].get("Policies", []):
            if isinstance(policy, str):
                fail(f"{name} attaches the managed policy {policy}: use a scoped statement")
            elif isinstance(policy, dict) and "Statement" not in policy and ref(policy) is None:
                for template_name in policy:
                    if template_name not in SCOPED_POLICY_TEMPLATES:
                        fail(f"{name} uses the SAM policy template {template_name}, not known to be scoped: use a scoped statement")
    authorizer = template["Resources"]["DeviceAuthorizerFunction"]
    grants = table_grants(authorizer)
    if grants != [({"dynamodb:GetItem"}, ["DEVCRED#*"])]:
        fail(f"the IoT authorizer may do more than read DEVCRED#* items: {grants}")
    for role in ("SimulatorTaskRole",):
        managed = template["Resources"][role]["Properties"].get("ManagedPolicyArns", [])
        if not any(ref(p) == "NoTokenKeyPolicy" for p in managed):
            fail(f"{role} is not denied the token key (NoTokenKeyPolicy)")


# ---------------------------------------------------------------------------
# Guardrails, alarms, rollouts, tracing and logs, data safety


# Lambda keeps this much of an account's concurrency unreserved, and this is
# the limit of an account whose quota was never raised (new accounts may
# start lower: ReserveConcurrency=false is for them).
UNRESERVED_MINIMUM = 100
DEFAULT_ACCOUNT_CONCURRENCY = 1000

# Functions not published through the alias, with why (a check that names
# them cannot be silently widened).
UNALIASED = {
    "DeviceAuthorizerFunction": "IoT Core invokes the ARN DeviceAuthorizer names, the unqualified function",
}

# Functions without a p99 duration alarm, with why.
NO_DURATION_ALARM = {
    "StreamFunction": "a stream closes itself at 14 min 45 s of its 15-minute timeout",
}

# SAM policy templates a function may use: each expands to statements on
# the resource it is given only (never Resource "*").
SCOPED_POLICY_TEMPLATES = {
    "SQSSendMessagePolicy": "sqs:SendMessage* on the named queue",
}


def parameter(template, value):
    """The parameter a value refers to (!Ref), or None."""
    name = ref(value)
    return template.get("Parameters", {}).get(name) if name else None


def globals_function(template):
    return (template.get("Globals") or {}).get("Function") or {}


def function_property(template, function, key, default=None):
    return function["Properties"].get(key, globals_function(template).get(key, default))


def http_functions(template):
    return {
        name: function
        for name, function in resources(template, "AWS::Serverless::Function").items()
        if any(e.get("Type") == "HttpApi" for e in function["Properties"].get("Events", {}).values())
    }


def events_of(template, kind):
    """(function, event name, properties) of every event of a kind."""
    return [
        (name, event_name, event.get("Properties", {}))
        for name, function in resources(template, "AWS::Serverless::Function").items()
        for event_name, event in function["Properties"].get("Events", {}).items()
        if event.get("Type") == kind
    ]


def reserved_parameter(template, name, function):
    """The parameter a function's reservation comes from, when it is
    `!If [ReservedConcurrency, !Ref P, !Ref AWS::NoValue]`; else None."""
    value = function["Properties"].get("ReservedConcurrentExecutions")
    branches = value.get("Fn::If") if isinstance(value, dict) else None
    if (
        not branches
        or branches[0] != "ReservedConcurrency"
        or ref(branches[2]) != "AWS::NoValue"
        or parameter(template, branches[1]) is None
    ):
        return None
    return ref(branches[1])


def check_guardrails(template):
    params = template.get("Parameters", {})
    switch = params.get("ReserveConcurrency", {})
    if sorted(switch.get("AllowedValues", [])) != ["false", "true"]:
        fail("no ReserveConcurrency parameter (true/false) to leave reservations out in a small account")
    if template.get("Conditions", {}).get("ReservedConcurrency") != {
        "Fn::Equals": [{"Ref": "ReserveConcurrency"}, "true"]
    }:
        fail("the ReservedConcurrency condition is not ReserveConcurrency == true")
    roles = Roles(template)
    total = 0
    for name in sorted(set(http_functions(template)) | {roles.stream} - {None}):
        function = template["Resources"][name]
        source = reserved_parameter(template, name, function)
        if source is None:
            fail(f"{name} reserves no concurrency from a parameter (!If [ReservedConcurrency, !Ref P, !Ref AWS::NoValue])")
            continue
        spec = params[source]
        if spec.get("Type") != "Number" or int(spec.get("MinValue", 0)) < 1 or "Default" not in spec:
            fail(f"parameter {source} is not a Number with a default and MinValue 1")
            continue
        total += int(spec["Default"])
    if total > DEFAULT_ACCOUNT_CONCURRENCY - UNRESERVED_MINIMUM:
        fail(
            f"the default reservations sum to {total}: more than an account of {DEFAULT_ACCOUNT_CONCURRENCY} "
            f"can reserve (Lambda keeps {UNRESERVED_MINIMUM} unreserved)"
        )
    for name, event, props in events_of(template, "SQS"):
        spec = parameter(template, (props.get("ScalingConfig") or {}).get("MaximumConcurrency"))
        if spec is None:
            fail(f"{name}.Events.{event} has no ScalingConfig.MaximumConcurrency from a parameter")
        elif int(spec.get("MinValue", 0)) < 2 or int(spec.get("MaxValue", 10**6)) > 1000:
            fail(f"{name}.Events.{event}'s MaximumConcurrency parameter is not held to 2..1000 (Lambda's range)")
    api = template["Resources"]["HttpApi"]["Properties"]
    default = api.get("DefaultRouteSettings", {})
    for key in ("ThrottlingRateLimit", "ThrottlingBurstLimit"):
        if parameter(template, default.get(key)) is None:
            fail(f"the HTTP API's DefaultRouteSettings.{key} is not a parameter")
    for name, event, props in events_of(template, "HttpApi"):
        settings = props.get("RouteSettings") or {}
        for key in ("ThrottlingRateLimit", "ThrottlingBurstLimit"):
            if parameter(template, settings.get(key)) is None:
                fail(f"{name}.Events.{event} ({props.get('Method')} {props.get('Path')}) has no {key} from a parameter")


def alarms_of(template):
    return {name: a["Properties"] for name, a in resources(template, "AWS::CloudWatch::Alarm").items()}


def watches(props, namespace, metric, target):
    return any(ns == namespace and m == metric and target in dims for ns, m, dims in alarm_metrics(props))


def timeout_ms(template, function):
    return 1000 * int(function_property(template, function, "Timeout", 3))


def check_alarms(template):
    alarms = alarms_of(template)
    resources_ = template["Resources"]
    topic = resources_.get("AlarmTopic", {})
    if topic.get("Type") != "AWS::SNS::Topic" or topic.get("Condition") != "CreateAlarmTopic":
        fail("no AlarmTopic (an SNS topic created when AlarmTopicArn is empty)")
    if template.get("Conditions", {}).get("CreateAlarmTopic") != {"Fn::Equals": [{"Ref": "AlarmTopicArn"}, ""]}:
        fail("the CreateAlarmTopic condition is not AlarmTopicArn == ''")
    subscriptions = resources(template, "AWS::SNS::Subscription")
    if "AlarmEmail" not in template.get("Parameters", {}) or not any(
        ref(s["Properties"].get("Endpoint")) == "AlarmEmail" and s.get("Condition") == "WithAlarmEmail"
        and s["Properties"].get("TopicArn") == ALARM_TOPIC
        for s in subscriptions.values()
    ):
        fail("no optional e-mail subscription (AlarmEmail, condition WithAlarmEmail) to the alarm topic")
    for name, props in alarms.items():
        periods = int(props.get("EvaluationPeriods", 1))
        datapoints = int(props.get("DatapointsToAlarm", periods))
        if periods < 2 or datapoints < 2:
            fail(f"alarm {name} fires on one datapoint (EvaluationPeriods {periods}, DatapointsToAlarm {datapoints})")
    functions = resources(template, "AWS::Serverless::Function")
    for name, function in functions.items():
        limit = timeout_ms(template, function)
        found = [
            p for p in alarms.values()
            if watches(p, "AWS/Lambda", "Duration", name) and p.get("ExtendedStatistic") == "p99"
        ]
        if name in NO_DURATION_ALARM:
            pass
        elif not found:
            fail(f"{name} has no p99 duration alarm")
        elif not all(0.5 * limit <= float(p["Threshold"]) < limit for p in found):
            fail(f"{name}'s p99 duration alarm is not near its {limit} ms timeout (between half of it and it)")
        if "ReservedConcurrentExecutions" in function["Properties"] and not any(
            watches(p, "AWS/Lambda", "ConcurrentExecutions", name) for p in alarms.values()
        ):
            fail(f"{name} reserves concurrency but nothing alarms near the limit (ConcurrentExecutions)")
    for name, event, props in events_of(template, "Schedule"):
        rule = f"{name}{event}"  # SAM's rule for the event
        found = [p for p in alarms.values() if watches(p, "AWS/Events", "Invocations", rule)]
        if not any(
            p.get("TreatMissingData") == "breaching" and p.get("ComparisonOperator") == "LessThanThreshold"
            for p in found
        ):
            fail(f"{name}.Events.{event}: no alarm when the schedule stops firing (Invocations below, missing data breaching)")
    for queue in resources(template, "AWS::SQS::Queue"):
        if not any(watches(p, "AWS/SQS", "ApproximateAgeOfOldestMessage", queue) for p in alarms.values()):
            fail(f"queue {queue}'s oldest message age is not alarmed")
    for table in resources(template, "AWS::DynamoDB::Table"):
        for metric in ("ReadThrottleEvents", "WriteThrottleEvents", "SystemErrors"):
            if not any(watches(p, "AWS/DynamoDB", metric, table) for p in alarms.values()):
                fail(f"table {table}'s {metric} are not alarmed")
    check_dashboard(template)
    check_runbook(template)


RUNBOOK = ROOT / "docs" / "OPERATIONS.md"


def check_runbook(template, text=None):
    """Every alarm is in docs/OPERATIONS.md (what it means, what to do), and
    the runbook says how to roll back."""
    text = RUNBOOK.read_text() if text is None else text
    for name in resources(template, "AWS::CloudWatch::Alarm"):
        if f"`{name}`" not in text:
            fail(f"alarm {name} is not in docs/OPERATIONS.md (what it means, what to do)")
    if "\n## Rolling back\n" not in text:
        fail("docs/OPERATIONS.md has no Rolling back section")


def check_dashboard(template):
    dashboards = resources(template, "AWS::CloudWatch::Dashboard")
    if not dashboards:
        fail("no CloudWatch dashboard")
        return
    (dashboard,) = dashboards.values()
    body = dashboard["Properties"]["DashboardBody"]
    text = body.get("Fn::Sub") if isinstance(body, dict) else body
    try:
        # ${Logical} (a !Sub) kept as <Logical>, to find what each graph shows.
        widgets = json.loads(re.sub(r"\$\{([^}]+)\}", r"<\1>", text))["widgets"]
    except (TypeError, ValueError, KeyError) as error:
        fail(f"the dashboard's body is not JSON with widgets: {error}")
        return
    shown = set()
    for widget in widgets:
        for metric in (widget.get("properties") or {}).get("metrics", []):
            names = [m for m in metric if isinstance(m, str)]
            if len(names) >= 4:
                shown.add((names[0], names[1], names[3]))
            expression = next((m.get("expression") for m in metric if isinstance(m, dict)), None)
            if expression:
                shown.add(("expression", expression, ""))
    wanted = {
        "requests": ("AWS/ApiGateway", "Count", "<HttpApi>"),
        "API errors": ("AWS/ApiGateway", "5xx", "<HttpApi>"),
        "ingest rate": ("AWS/SQS", "NumberOfMessagesSent", "<IngestQueue.QueueName>"),
        "ingest lag": ("AWS/SQS", "ApproximateAgeOfOldestMessage", "<IngestQueue.QueueName>"),
        "webhook backlog": ("Alyt", "WebhookBacklogAgeSeconds", "<Stage>"),
        "stream connections": ("AWS/Lambda", "ConcurrentExecutions", "<StreamFunction>"),
    }
    for what, needle in wanted.items():
        if needle not in shown:
            fail(f"the dashboard does not show {what}")
    for name in resources(template, "AWS::Serverless::Function"):
        for metric in ("Errors", "Duration"):
            if metric == "Duration" and name in NO_DURATION_ALARM:
                continue
            if ("AWS/Lambda", metric, f"<{name}>") not in shown:
                fail(f"the dashboard does not show {name}'s {metric}")


def check_rollouts(template):
    globals_ = globals_function(template)
    if not globals_.get("AutoPublishAlias"):
        fail("functions are not published through an alias (Globals AutoPublishAlias)")
    deployment_type = parameter(template, (globals_.get("DeploymentPreference") or {}).get("Type"))
    kinds = set(deployment_type.get("AllowedValues", [])) if deployment_type else set()
    if not (
        "AllAtOnce" in kinds
        and any(k.startswith("Canary") for k in kinds)
        and any(k.startswith("Linear") for k in kinds)
    ):
        fail("Globals DeploymentPreference.Type is not a parameter offering canary, linear and AllAtOnce")
    alarms = alarms_of(template)
    functions = resources(template, "AWS::Serverless::Function")
    for name, function in functions.items():
        if name in UNALIASED:
            continue
        if function_property(template, function, "AutoPublishAlias") in (None, ""):
            fail(f"{name} is not published through an alias")
        preference = function["Properties"].get("DeploymentPreference") or {}
        if preference.get("Enabled") is False or str(preference.get("Enabled")).lower() == "false":
            fail(f"{name}'s deployment preference is disabled")
        rollback = [ref(a) for a in preference.get("Alarms") or []]
        if not any(a in alarms and watches(alarms[a], "AWS/Lambda", "Errors", name) for a in rollback):
            fail(f"{name}'s deployment is not rolled back by its errors alarm (DeploymentPreference.Alarms)")
        for alarm in rollback:
            if alarm not in alarms:
                fail(f"{name}'s DeploymentPreference names {alarm}, which is no alarm of the template")
    # Events declared on a function invoke its alias; anything else naming
    # the function's unqualified ARN would bypass the rollout.
    for logical, resource in template["Resources"].items():
        if resource.get("Type") == "AWS::Serverless::Function":
            continue
        text = json.dumps(resource.get("Properties", {}))
        for name in functions:
            if name in UNALIASED:
                continue
            if f'"Fn::GetAtt": ["{name}", "Arn"]' in text or f'"Fn::GetAtt": "{name}.Arn"' in text:
                fail(f"{logical} names {name}'s unqualified ARN, not its alias (!Ref {name}.Alias)")
    outputs = template.get("Outputs", {})
    for output in ("ApiUrl", "EventStreamUrl"):
        if output not in outputs:
            fail(f"no {output} output (the post-deploy smoke test reads it)")


def check_tracing_and_logs(template):
    if globals_function(template).get("Tracing") != "Active":
        fail("functions are not traced (Globals Tracing: Active)")
    for name, function in resources(template, "AWS::Serverless::Function").items():
        if function["Properties"].get("Tracing", "Active") != "Active":
            fail(f"{name} turns tracing off")
    api = template["Resources"]["HttpApi"]["Properties"]
    settings = api.get("AccessLogSettings") or {}
    destination = settings.get("DestinationArn") or {}
    group = (destination.get("Fn::GetAtt") or [None])[0] if isinstance(destination, dict) else None
    if template["Resources"].get(group, {}).get("Type") != "AWS::Logs::LogGroup":
        fail("the HTTP API writes no access log to a log group of the stack")
    try:
        fields = json.loads(settings.get("Format", ""))
    except ValueError:
        fields = None
    if not isinstance(fields, dict):
        fail("the HTTP API's access log format is not JSON")
    else:
        for variable in ("$context.requestId", "$context.integration.requestId", "$context.status",
                         "$context.routeKey", "$context.responseLatency"):
            if variable not in fields.values():
                fail(f"the HTTP API's access log lacks {variable}")
    if "LogLevel" not in template.get("Parameters", {}):
        fail("no LogLevel parameter")
    if template.get("Parameters", {}).get("LogRetentionDays", {}).get("Type") != "Number":
        fail("no LogRetentionDays parameter")
    for name, group in resources(template, "AWS::Logs::LogGroup").items():
        if ref(group["Properties"].get("RetentionInDays")) != "LogRetentionDays":
            fail(f"log group {name} does not keep LogRetentionDays")


def check_data_safety(template):
    for name, table in resources(template, "AWS::DynamoDB::Table").items():
        props = table["Properties"]
        if props.get("DeletionProtectionEnabled") is not True:
            fail(f"table {name} has no deletion protection")
        if (props.get("PointInTimeRecoverySpecification") or {}).get("PointInTimeRecoveryEnabled") is not True:
            fail(f"table {name} has no point-in-time recovery")
        selected = [
            s["Properties"] for s in resources(template, "AWS::Backup::BackupSelection").values()
            if {"Fn::GetAtt": [name, "Arn"]} in s["Properties"]["BackupSelection"].get("Resources", [])
        ]
        plans = resources(template, "AWS::Backup::BackupPlan")
        if not any(ref(s.get("BackupPlanId")) in plans for s in selected):
            fail(f"table {name} is in no AWS Backup plan of the stack")
    for name, plan in resources(template, "AWS::Backup::BackupPlan").items():
        for rule in plan["Properties"]["BackupPlan"].get("BackupPlanRule", []):
            days = (rule.get("Lifecycle") or {}).get("DeleteAfterDays")
            if parameter(template, days) is None:
                fail(f"backup plan {name}'s rule {rule.get('RuleName')} keeps backups for no parameter's days")
    for name, vault in resources(template, "AWS::Backup::BackupVault").items():
        if vault.get("DeletionPolicy") != "Retain":
            fail(f"backup vault {name} is not retained (DeletionPolicy)")
    functions = resources(template, "AWS::Serverless::Function")
    for name, event, props in events_of(template, "Schedule"):
        retry = props.get("RetryPolicy") or {}
        if "MaximumEventAgeInSeconds" not in retry or "MaximumRetryAttempts" not in retry:
            fail(f"{name}.Events.{event} has no RetryPolicy (MaximumEventAgeInSeconds, MaximumRetryAttempts)")
        invoke = functions[name]["Properties"].get("EventInvokeConfig") or {}
        if "MaximumEventAgeInSeconds" not in invoke:
            fail(f"scheduled {name}'s EventInvokeConfig has no MaximumEventAgeInSeconds")


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
            for owner in owners:
                needed[owner].add((f"dynamodb:{action}", partition))
    for name, extra in roles.hosted_only.items():
        needed[name] |= extra
    return needed


def check_reach(template, log, suggest):
    needed = needed_reach(template, log)
    functions = resources(template, "AWS::Serverless::Function")
    for name, wants in sorted(needed.items()):
        table = table_grants(functions[name])
        indexes = index_grants(functions[name])

        def allowed(action, partition):
            # "Query gsi1 PARTITION": a query of index gsi1, by its partition.
            if action.startswith("dynamodb:Query gsi"):
                index = action.split(" ")[1]
                grants = [g for i, g in indexes if i == index]
                action = "dynamodb:Query"
            else:
                grants = table
            return any(
                action in actions
                and keys is not None
                and any(fnmatch.fnmatchcase(partition, k) for k in keys)
                for actions, keys in grants
            )

        missing = sorted((action, partition) for action, partition in wants if not allowed(action, partition))
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
    check_guardrails(template)
    check_alarms(template)
    check_rollouts(template)
    check_tracing_and_logs(template)
    check_data_safety(template)
    check_artifacts(template)
    if log:
        check_reach(template, log, suggest)
    for problem in problems:
        print(f"template: {problem}")
    if problems:
        return 1
    print("template: operations, guardrails, alarms, rollouts, tracing and logs, data safety, secrets and least privilege hold")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
