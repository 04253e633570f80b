"""infra/check_template.py holds the template to the operations rules
(guardrails, alarms, safe rollouts, tracing and logs, least privilege at
the indexes, data safety): the committed template passes, and each rule
fails a copy of it with that one thing taken out or undone.

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import copy
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import check_template  # noqa: E402
from cfnlint.decode import decode  # noqa: E402

TEMPLATE, _ = decode(str(check_template.TEMPLATE))

CHECKS = (
    check_template.check_operations,
    check_template.check_least_privilege,
    check_template.check_guardrails,
    check_template.check_alarms,
    check_template.check_rollouts,
    check_template.check_tracing_and_logs,
    check_template.check_data_safety,
)


def problems_of(template):
    check_template.problems.clear()
    for check in CHECKS:
        check(template)
    found = list(check_template.problems)
    check_template.problems.clear()
    return found


def test_the_committed_template_holds_every_rule():
    assert problems_of(TEMPLATE) == []


def statement(resources, function, sid):
    for policy in resources[function]["Properties"]["Policies"]:
        for found in policy.get("Statement", []) if isinstance(policy, dict) else []:
            if found.get("Sid") == sid:
                return found
    raise KeyError(sid)


def props(resources, name):
    return resources[name]["Properties"]


def event(resources, function, name):
    return props(resources, function)["Events"][name]["Properties"]


def set_dashboard(resources, change):
    body = props(resources, "Dashboard")["DashboardBody"]
    body["Fn::Sub"] = change(body["Fn::Sub"])


# (what is undone, the change, a problem the check must report)
MISTAKES = [
    # 1. Guardrails
    ("no switch for small accounts", lambda t: t["Parameters"].pop("ReserveConcurrency"),
     "no ReserveConcurrency parameter"),
    ("a group without a reservation", lambda t: props(t["Resources"], "ApiAuthFunction").pop("ReservedConcurrentExecutions"),
     "ApiAuthFunction reserves no concurrency from a parameter"),
    ("the stream reserved whatever the switch says",
     lambda t: props(t["Resources"], "StreamFunction").update(ReservedConcurrentExecutions={"Ref": "StreamReservedConcurrency"}),
     "StreamFunction reserves no concurrency from a parameter"),
    ("defaults past what an account of 1,000 can reserve",
     lambda t: t["Parameters"]["ApiHomesReservedConcurrency"].update(Default=700),
     "the default reservations sum to 985"),
    ("an SQS mapping without MaximumConcurrency",
     lambda t: event(t["Resources"], "IngestFunction", "DeviceTraffic").pop("ScalingConfig"),
     "IngestFunction.Events.DeviceTraffic has no ScalingConfig.MaximumConcurrency from a parameter"),
    ("MaximumConcurrency allowed past Lambda's range",
     lambda t: t["Parameters"]["IngestMaximumConcurrency"].update(MaxValue=5000),
     "MaximumConcurrency parameter is not held to 2..1000"),
    ("a route without its group's throttle",
     lambda t: event(t["Resources"], "ApiPeopleFunction", "People").pop("RouteSettings"),
     "ApiPeopleFunction.Events.People (ANY /v1/tenants/{proxy+}) has no ThrottlingRateLimit from a parameter"),
    ("a fixed default throttle",
     lambda t: props(t["Resources"], "HttpApi")["DefaultRouteSettings"].update(ThrottlingRateLimit=100),
     "DefaultRouteSettings.ThrottlingRateLimit is not a parameter"),
    # 2. Alarms
    ("an alarm to the given topic only",
     lambda t: props(t["Resources"], "ApiHomesErrorsAlarm").update(AlarmActions=[{"Ref": "AlarmTopicArn"}]),
     "alarm ApiHomesErrorsAlarm's AlarmActions are not the alarm topic"),
    ("no topic of the stack's own", lambda t: t["Resources"].pop("AlarmTopic"), "no AlarmTopic"),
    ("no e-mail subscription", lambda t: t["Resources"].pop("AlarmEmailSubscription"), "no optional e-mail subscription"),
    ("one event in five minutes",
     lambda t: props(t["Resources"], "Api5xxAlarm").update(EvaluationPeriods=1, DatapointsToAlarm=1),
     "alarm Api5xxAlarm fires on one datapoint"),
    ("no p99 duration alarm", lambda t: t["Resources"].pop("IngestDurationAlarm"), "IngestFunction has no p99 duration alarm"),
    ("a duration alarm at the timeout itself",
     lambda t: props(t["Resources"], "SweepsDurationAlarm").update(Threshold=60000),
     "SweepsFunction's p99 duration alarm is not near its 60000 ms timeout"),
    ("no alarm near the reserved limit", lambda t: t["Resources"].pop("StreamConcurrencyAlarm"),
     "StreamFunction reserves concurrency but nothing alarms near the limit"),
    ("a silent schedule is not a fault",
     lambda t: props(t["Resources"], "RoutinesScheduleStoppedAlarm").update(TreatMissingData="notBreaching"),
     "RoutinesFunction.Events.EveryMinute: no alarm when the schedule stops firing"),
    ("a queue's age not alarmed", lambda t: t["Resources"].pop("RuleErrorAgeAlarm"),
     "queue RuleErrorQueue's oldest message age is not alarmed"),
    ("the table's system errors not alarmed", lambda t: t["Resources"].pop("TableSystemErrorsAlarm"),
     "table Table's SystemErrors are not alarmed"),
    ("the table's throttles not alarmed", lambda t: t["Resources"].pop("TableThrottlesAlarm"),
     "table Table's ReadThrottleEvents are not alarmed"),
    ("no dashboard", lambda t: t["Resources"].pop("Dashboard"), "no CloudWatch dashboard"),
    ("a dashboard without the webhook backlog",
     lambda t: set_dashboard(t["Resources"], lambda body: body.replace("WebhookBacklogAgeSeconds", "Other")),
     "the dashboard does not show webhook backlog"),
    ("a dashboard without a group's latency",
     lambda t: set_dashboard(t["Resources"], lambda body: re.sub(
         r'"Duration",(\s*"FunctionName",\s*"\$\{ApiPeopleFunction\}")', r'"Invocations",\1', body)),
     "the dashboard does not show ApiPeopleFunction's Duration"),
    # 3. Safe rollouts
    ("no alias", lambda t: t["Globals"]["Function"].pop("AutoPublishAlias"), "ApiHomesFunction is not published through an alias"),
    ("a fixed deployment type",
     lambda t: t["Globals"]["Function"]["DeploymentPreference"].update(Type="Canary10Percent5Minutes"),
     "DeploymentPreference.Type is not a parameter offering canary, linear and AllAtOnce"),
    ("a rollout its errors do not roll back",
     lambda t: props(t["Resources"], "ApiSecurityFunction")["DeploymentPreference"].update(Alarms=[{"Ref": "Api5xxAlarm"}]),
     "ApiSecurityFunction's deployment is not rolled back by its errors alarm"),
    ("a rollout turned off",
     lambda t: props(t["Resources"], "WebhooksFunction")["DeploymentPreference"].update(Enabled=False),
     "WebhooksFunction's deployment preference is disabled"),
    ("something invoking the unqualified function",
     lambda t: t["Resources"].update(Extra={"Type": "AWS::Lambda::Permission", "Properties": {
         "Action": "lambda:InvokeFunction", "Principal": "events.amazonaws.com",
         "FunctionName": {"Fn::GetAtt": ["SweepsFunction", "Arn"]}}}),
     "Extra names SweepsFunction's unqualified ARN"),
    ("the device authorizer invoking the unqualified function",
     lambda t: props(t["Resources"], "DeviceAuthorizer").update(
         AuthorizerFunctionArn={"Fn::GetAtt": ["DeviceAuthorizerFunction", "Arn"]}),
     "DeviceAuthorizer names DeviceAuthorizerFunction's unqualified ARN"),
    ("no stream URL for the smoke test", lambda t: t["Outputs"].pop("EventStreamUrl"), "no EventStreamUrl output"),
    # 4. Tracing and logs
    ("no tracing", lambda t: t["Globals"]["Function"].pop("Tracing"), "functions are not traced"),
    ("one function untraced", lambda t: props(t["Resources"], "RoutinesFunction").update(Tracing="PassThrough"),
     "RoutinesFunction turns tracing off"),
    ("no access log", lambda t: props(t["Resources"], "HttpApi").pop("AccessLogSettings"), "writes no access log"),
    ("an access log without the request id",
     lambda t: props(t["Resources"], "HttpApi")["AccessLogSettings"].update(Format=json.dumps({"status": "$context.status"})),
     "the HTTP API's access log lacks $context.requestId"),
    ("an access log in CLF", lambda t: props(t["Resources"], "HttpApi")["AccessLogSettings"].update(Format="$context.requestId"),
     "the HTTP API's access log format is not JSON"),
    ("a fixed retention", lambda t: props(t["Resources"], "StreamLogGroup").update(RetentionInDays=30),
     "log group StreamLogGroup does not keep LogRetentionDays"),
    # 6. Least privilege at the indexes
    ("every index", lambda t: statement(t["Resources"], "ApiAuthFunction", "IndexGsi1").update(
        Resource={"Fn::Sub": "${Table.Arn}/index/*"}),
     "ApiAuthFunction may query every index of the table"),
    ("an index statement without leading keys",
     lambda t: statement(t["Resources"], "WebhooksFunction", "IndexGsi1").pop("Condition"),
     "WebhooksFunction's statement on index gsi1 is not narrowed with dynamodb:LeadingKeys"),
    ("an unscoped SAM policy template",
     lambda t: props(t["Resources"], "IngestFunction")["Policies"].append({"CloudWatchPutMetricPolicy": {}}),
     "IngestFunction uses the SAM policy template CloudWatchPutMetricPolicy"),
    ("an AWS managed policy",
     lambda t: props(t["Resources"], "IngestFunction")["Policies"].append("arn:aws:iam::aws:policy/AmazonDynamoDBFullAccess"),
     "IngestFunction attaches the managed policy"),
    # 7. Data safety
    ("no deletion protection", lambda t: props(t["Resources"], "Table").pop("DeletionProtectionEnabled"),
     "table Table has no deletion protection"),
    ("no backup selection", lambda t: t["Resources"].pop("BackupSelection"), "table Table is in no AWS Backup plan"),
    ("a fixed backup retention",
     lambda t: props(t["Resources"], "BackupPlan")["BackupPlan"]["BackupPlanRule"][0]["Lifecycle"].update(DeleteAfterDays=35),
     "keeps backups for no parameter's days"),
    ("a vault deleted with the stack", lambda t: t["Resources"]["BackupVault"].pop("DeletionPolicy"),
     "backup vault BackupVault is not retained"),
    ("a schedule retried for a day", lambda t: event(t["Resources"], "SweepsFunction", "EveryMinute").pop("RetryPolicy"),
     "SweepsFunction.Events.EveryMinute has no RetryPolicy"),
    ("stale ticks kept", lambda t: props(t["Resources"], "WebhooksFunction")["EventInvokeConfig"].pop("MaximumEventAgeInSeconds"),
     "scheduled WebhooksFunction's EventInvokeConfig has no MaximumEventAgeInSeconds"),
]


@pytest.mark.parametrize("change, expected", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_each_rule_fails_a_template_without_it(change, expected):
    template = copy.deepcopy(TEMPLATE)
    change(template)
    found = problems_of(template)
    assert any(expected in problem for problem in found), found


def test_an_index_query_the_tests_saw_is_held_to_the_statement_on_that_index(tmp_path):
    """--reach: a query of gsi2 by a group whose gsi2 statement (it has
    none) does not allow the partition is named like a table call is."""
    log = tmp_path / "reach.jsonl"
    log.write_text(json.dumps({"method": "POST", "path": "/v1/auth/login", "reach": ["Query gsi2 STAYDUE"]}) + "\n")
    check_template.problems.clear()
    check_template.check_reach(TEMPLATE, str(log), suggest=False)
    found = list(check_template.problems)
    check_template.problems.clear()
    assert found == ["ApiAuthFunction needs dynamodb:Query gsi2 on STAYDUE (seen in the tests) but may not"]


def test_an_alarm_the_runbook_does_not_explain_is_named():
    runbook = check_template.RUNBOOK.read_text()
    check_template.problems.clear()
    check_template.check_runbook(TEMPLATE, runbook.replace("`TableSystemErrorsAlarm`", "the system errors alarm"))
    check_template.check_runbook(TEMPLATE, runbook.replace("## Rolling back", "## Going back"))
    found = list(check_template.problems)
    check_template.problems.clear()
    assert found == [
        "alarm TableSystemErrorsAlarm is not in docs/OPERATIONS.md (what it means, what to do)",
        "docs/OPERATIONS.md has no Rolling back section",
    ]
