"""Mistakes in infra/template.yaml the emulated region refuses, each with a
message naming the template entry (infra/emulator.py: template_mistakes).
Each runs on a copy of the real template with one mistake made.

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import copy
import subprocess
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import emulator  # noqa: E402
from test_emulator import API, FAKE_RUNTIME, TEMPLATE, NamedStack  # noqa: E402


def mistakes(template):
    return emulator.template_mistakes(NamedStack(template, emulator.emulator_parameters("eu-west-1", API), "eu-west-1"))


def broken(change):
    template = copy.deepcopy(TEMPLATE)
    change(template["Resources"])
    return template


def test_the_template_as_committed_has_none_of_these_mistakes():
    assert mistakes(TEMPLATE) == []


def test_a_removed_route_is_named_by_the_contract_operations_it_leaves_unrouted():
    """The homes group's route is the catch-all (/v1/{proxy+}): without it
    every operation no other group's route takes is API Gateway's 404. (A
    group's narrower route removed falls through to this catch-all, and to
    the wrong function: not caught here.)"""
    def remove_homes_route(resources):
        events = resources["ApiHomesFunction"]["Properties"]["Events"]
        (name,) = [n for n, e in events.items() if e["Properties"].get("Path") == "/v1/{proxy+}"]
        del events[name]

    found = mistakes(broken(remove_homes_route))
    assert "GET /v1/rooms/{roomId} (getRoom in openapi.json): no HttpApi event of the template routes it" in found, found
    assert not any(m.split(" ")[1].startswith(("/v1/tenants/", "/v1/developers/")) for m in found), found


def test_a_groups_narrower_route_removed_is_named_by_the_operations_it_sends_elsewhere():
    """The people group's route removed: its operations fall through to the
    homes group's catch-all, whose function does not serve them."""
    def remove_people_route(resources):
        resources["ApiPeopleFunction"]["Properties"]["Events"] = {}

    found = mistakes(broken(remove_people_route))
    expected = (
        "GET /v1/tenants/{tenantId}/clients/{clientId}/members (alyt-api-people, ApiPeopleFunction): "
        "the template routes it to ApiHomesFunction (ANY /v1/{proxy+})"
    )
    assert expected in found, found
    assert all("(alyt-api-people, ApiPeopleFunction)" in m for m in found), found


def test_a_where_clause_that_drops_a_channel_is_named_by_its_rule_and_the_policy():
    def drop_telemetry(resources):
        payload = resources["DeviceTrafficRule"]["Properties"]["TopicRulePayload"]
        payload["Sql"] = payload["Sql"].replace("WHERE topic(5) <> 'commands'", "WHERE topic(5) <> 'telemetry'")

    found = mistakes(broken(drop_telemetry))
    assert found == [
        "DeviceTrafficRule: its SQL drops alyt/sample/sample/sample/telemetry, which DevicePolicy lets a device publish on"
    ], found


def test_a_halved_batch_window_lambda_would_refuse_is_named_by_its_event():
    def halve_window(resources):
        stream = resources["WebhooksFunction"]["Properties"]["Events"]
        name = next(n for n, e in stream.items() if e["Type"] == "DynamoDB")
        stream[name]["Properties"]["MaximumBatchingWindowInSeconds"] /= 2

    found = mistakes(broken(halve_window))
    assert len(found) == 1 and found[0].startswith("WebhooksFunction.Events."), found
    assert found[0].endswith(".MaximumBatchingWindowInSeconds 0.5: Lambda takes whole seconds from 0 to 300"), found


def test_an_sqs_batch_over_ten_needs_a_window():
    def bigger_batches(resources):
        resources["IngestFunction"]["Properties"]["Events"]["DeviceTraffic"]["Properties"]["BatchSize"] = 50

    assert mistakes(broken(bigger_batches)) == [
        "IngestFunction.Events.DeviceTraffic.BatchSize 50: an SQS batch over 10 needs MaximumBatchingWindowInSeconds of at least 1"
    ]


def test_the_emulator_refuses_to_start_on_a_broken_template_and_says_why(tmp_path):
    """What an operator sees: infra/emulate --template on a broken copy exits
    at once (before any function starts) naming the entry."""
    template = (Path(emulator.TEMPLATE)).read_text()
    assert "WHERE topic(5) <> 'commands'" in template
    path = tmp_path / "template.yaml"
    path.write_text(template.replace("WHERE topic(5) <> 'commands'", "WHERE topic(5) = 'status'"))
    run = subprocess.run(
        [sys.executable, str(Path(emulator.__file__)), "--template", str(path), "--data", str(tmp_path / "data")],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 1, run.stderr
    assert run.stdout == ""
    assert "DeviceTrafficRule: its SQL drops alyt/sample/sample/sample/telemetry, which DevicePolicy" in run.stderr


REFUSING_RUNTIME = """
import os, sys
if not os.environ.get("ALYT_IOT_DEVICE_POLICY"):
    print('Error: "ALYT_IOT_DATA_ENDPOINT is set but ALYT_IOT_DEVICE_POLICY is not"', flush=True)
    sys.exit(1)
""" + FAKE_RUNTIME


def test_a_function_that_refuses_to_start_stops_the_region_at_once_and_says_why(tmp_path):
    """A template that leaves out a variable a function requires (the home
    security group's device policy): the function exits at start, and the
    emulator stops at once, naming the function and the end of its log, and
    leaves no process behind. (It used to wait forever, deaf to Ctrl-C, on
    a server it had never started.) The functions here stand in for the
    real binaries, which this step of CI has not built yet; the real
    function's refusal is the Rust side's HostedConfig check."""
    stack = NamedStack(TEMPLATE, emulator.emulator_parameters("eu-west-1", API), "eu-west-1")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for function in emulator.functions_of(stack):
        script = REFUSING_RUNTIME if function.logical == "ApiSecurityFunction" else FAKE_RUNTIME
        path = bin_dir / function.binary
        path.write_text(f"#!{sys.executable}\n{script}")
        path.chmod(0o755)
    lines = Path(emulator.TEMPLATE).read_text().splitlines(keepends=True)
    start = lines.index("  ApiSecurityFunction:\n")
    dropped = next(i for i in range(start, len(lines)) if "ALYT_IOT_DEVICE_POLICY: !Ref DevicePolicy" in lines[i])
    del lines[dropped]
    path = tmp_path / "template.yaml"
    path.write_text("".join(lines))

    run = subprocess.run(
        [sys.executable, str(Path(emulator.__file__)), "--template", str(path), "--bin-dir", str(bin_dir),
         "--data", str(tmp_path / "data")],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 1, run.stderr
    assert "ApiSecurityFunction (alyt-api-security) exited with 1 at start" in run.stderr, run.stderr
    assert "ALYT_IOT_DEVICE_POLICY is not" in run.stderr, run.stderr
    left = subprocess.run(["pgrep", "-f", str(bin_dir)], capture_output=True, text=True)
    assert left.stdout == "", f"processes left behind: {left.stdout}"
