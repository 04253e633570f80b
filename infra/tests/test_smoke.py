"""infra/smoke's decisions about a deployed stack, against CloudFormation
and CloudWatch in moto (the emulated region's moto server, in process): a
stack whose last deploy rolled back or is still running, missing outputs,
another stack's alarms, an alarm firing. Its HTTP checks run against the
emulated region and the local platform in the e2e story
`the_post_deploy_smoke_passes` (tests/e2e/stories.rs).

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import importlib.machinery
import importlib.util
import socket
import sys
from pathlib import Path

import pytest

INFRA = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(INFRA))

import emulator  # noqa: E402


def load_smoke():
    # infra/smoke is a script without the .py suffix.
    loader = importlib.machinery.SourceFileLoader("smoke", str(INFRA / "smoke"))
    spec = importlib.util.spec_from_loader("smoke", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


smoke = load_smoke()
REGION = "eu-west-1"


@pytest.fixture(scope="module")
def region():
    region = emulator.Region(REGION)
    yield region
    region.stop()


def deployed(region, name, outputs):
    region.publish_stack(name, outputs)
    return region.client("cloudformation")


def set_stack_status(name, status, reason=""):
    """What CloudFormation itself does to a stack (moto has no API for it)."""
    from moto.cloudformation.models import cloudformation_backends

    backend = cloudformation_backends[emulator.ACCOUNT][REGION]
    stack = next(s for s in backend.stacks.values() if s.name == name)
    stack.status = status
    stack.status_reason = reason


def alarm(region, name):
    region.client("cloudwatch").put_metric_alarm(
        AlarmName=name,
        Namespace="AWS/Lambda",
        MetricName="Errors",
        Statistic="Sum",
        Period=60,
        EvaluationPeriods=5,
        Threshold=1.0,
        ComparisonOperator="GreaterThanOrEqualToThreshold",
    )


def test_a_settled_stack_gives_its_api_and_stream_urls_ending_in_a_slash(region):
    cloudformation = deployed(
        region, "settled", {"ApiUrl": "https://abc.execute-api.eu-west-1.amazonaws.com", "EventStreamUrl": "https://s.on.aws/"}
    )
    assert smoke.stack_endpoints(cloudformation, "settled") == (
        "https://abc.execute-api.eu-west-1.amazonaws.com/",
        "https://s.on.aws/",
    )


@pytest.mark.parametrize(
    "status, says",
    [
        ("UPDATE_ROLLBACK_COMPLETE", "rolled back"),
        ("UPDATE_IN_PROGRESS", "still in progress"),
        ("ROLLBACK_COMPLETE", "rolled back"),
        ("UPDATE_FAILED", "did not finish"),
    ],
)
def test_a_stack_whose_last_deploy_did_not_settle_fails_and_says_why(region, status, says):
    name = f"unsettled-{status.lower().replace('_', '-')}"
    cloudformation = deployed(region, name, {"ApiUrl": "https://a/", "EventStreamUrl": "https://s/"})
    set_stack_status(name, status, "Deployment group ApiHomesDeploymentGroup: alarm fired")
    with pytest.raises(smoke.CheckFailed) as failed:
        smoke.stack_endpoints(cloudformation, name)
    assert status in str(failed.value) and says in str(failed.value)
    assert "alarm fired" in str(failed.value)


def test_a_stack_without_the_outputs_is_named_as_the_wrong_one(region):
    cloudformation = deployed(region, "other-template", {"TableName": "t"})
    with pytest.raises(smoke.CheckFailed, match="no output ApiUrl, EventStreamUrl"):
        smoke.stack_endpoints(cloudformation, "other-template")


def test_a_stack_that_does_not_exist_fails_naming_it(region):
    with pytest.raises(smoke.CheckFailed, match="cannot describe stack no-such-stack"):
        smoke.stack_endpoints(region.client("cloudformation"), "no-such-stack")


def test_only_the_stacks_own_alarms_count_not_those_of_a_stack_whose_name_starts_the_same(region):
    alarm(region, "shop-ApiHomesErrorsAlarm-1A2B3C4D5E6F")
    alarm(region, "shop-IngestQueueAgeAlarm-AAAAAAAAAAAA")
    alarm(region, "shop-staging-ApiHomesErrorsAlarm-9Z8Y7X6W5V4U")
    alarm(region, "shopping-ApiHomesErrorsAlarm-1A2B3C4D5E6F")
    cloudwatch = region.client("cloudwatch")
    states = smoke.stack_alarms(cloudwatch, "shop")
    assert sorted(states) == ["shop-ApiHomesErrorsAlarm-1A2B3C4D5E6F", "shop-IngestQueueAgeAlarm-AAAAAAAAAAAA"]
    assert smoke.no_alarm_firing(states, "shop") == "2 alarms, none in ALARM"

    cloudwatch.set_alarm_state(AlarmName="shop-staging-ApiHomesErrorsAlarm-9Z8Y7X6W5V4U", StateValue="ALARM", StateReason="t")
    assert smoke.no_alarm_firing(smoke.stack_alarms(cloudwatch, "shop"), "shop") == "2 alarms, none in ALARM"

    cloudwatch.set_alarm_state(AlarmName="shop-IngestQueueAgeAlarm-AAAAAAAAAAAA", StateValue="ALARM", StateReason="t")
    with pytest.raises(smoke.CheckFailed) as failed:
        smoke.no_alarm_firing(smoke.stack_alarms(cloudwatch, "shop"), "shop")
    assert "1 of 2 alarms in ALARM: shop-IngestQueueAgeAlarm-AAAAAAAAAAAA" in str(failed.value)


def test_alarms_past_one_page_are_all_read(region):
    for n in range(120):  # DescribeAlarms answers 100 at most per page
        alarm(region, f"paged-Alarm{n:03}-SUFFIX")
    cloudwatch = region.client("cloudwatch")
    cloudwatch.set_alarm_state(AlarmName="paged-Alarm117-SUFFIX", StateValue="ALARM", StateReason="t")
    states = smoke.stack_alarms(cloudwatch, "paged")
    assert len(states) == 120
    with pytest.raises(smoke.CheckFailed, match="paged-Alarm117-SUFFIX"):
        smoke.no_alarm_firing(states, "paged")


def test_a_stack_without_alarms_fails_rather_than_passing_unwatched():
    with pytest.raises(smoke.CheckFailed, match="no alarm named lonely-<LogicalId>-"):
        smoke.no_alarm_firing({}, "lonely")


def test_a_platform_that_does_not_answer_fails_every_check_and_exits_1(capsys):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    # Nothing listens on the port any more: every request is refused.
    assert smoke.main(["--api", f"http://127.0.0.1:{port}"]) == 1
    out = capsys.readouterr().out
    for check in ("capabilities", "unknown route", "console", "stream refuses anonymous"):
        assert f"FAIL  {check}: GET http://127.0.0.1:{port}/" in out
    assert "smoke:" not in out


def test_the_emulated_stack_is_published_with_its_outputs_and_the_templates_alarms():
    """What an operator reads of the emulated region is what the template
    declares: every output, and every alarm under CloudFormation's names."""
    # A region of its own: other tests of this process made the emulated
    # stack's table in moto's eu-west-1.
    own_region = "eu-north-1"
    template = emulator.load_template()
    parameters = emulator.emulator_parameters(own_region, "http://127.0.0.1:1/v1")
    stack = emulator.Stack(template, parameters, own_region)
    outputs = set(template["Outputs"])
    alarms = {
        logical for logical, r in template["Resources"].items()
        if r["Type"] == "AWS::CloudWatch::Alarm" and ("Condition" not in r or stack.condition(r["Condition"]))
    }
    assert {"ApiUrl", "EventStreamUrl"} <= outputs and len(alarms) > 30
    region = emulator.Region(own_region)
    try:
        region_stack = emulator.RegionStack(template, parameters, region)
        emulator.publish_stack(region_stack, region, "http://127.0.0.1:1/v1")
        described = region.client("cloudformation").describe_stacks(StackName=emulator.STACK)["Stacks"][0]
        assert {o["OutputKey"] for o in described["Outputs"]} == outputs
        assert smoke.stack_endpoints(region.client("cloudformation"), emulator.STACK)[0] == "http://127.0.0.1:1/"
        states = smoke.stack_alarms(region.client("cloudwatch"), emulator.STACK)
        assert {name.split("-")[-2] for name in states} == alarms
    finally:
        region.stop()
