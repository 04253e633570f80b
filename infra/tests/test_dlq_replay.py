"""infra/dlq-replay against moto: what an operator sees and what ends up where.

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests/test_dlq_replay.py

Most tests call the script's main() inside moto's mock_aws (the real boto3
path; failures are injected through botocore's event hooks on the session
the script is given); one runs the executable against a moto server, as an
operator would run it against AWS.
"""

import base64
import importlib.machinery
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

SCRIPT = Path(__file__).resolve().parent.parent / "dlq-replay"
REGION = "eu-west-1"
TENANT = "0190b5a0-1111-7000-8000-000000000001"
PROPERTY = "0190b5a0-2222-7000-8000-000000000002"
DEVICE = "0190b5a0-3333-7000-8000-000000000003"


def load_script():
    loader = importlib.machinery.SourceFileLoader("dlq_replay", str(SCRIPT))
    spec = importlib.util.spec_from_loader("dlq_replay", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


replay_module = load_script()


@pytest.fixture
def aws(monkeypatch):
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        yield boto3.client("sqs", region_name=REGION)


@pytest.fixture
def queues(aws):
    """The stack's four queues, wired as the template wires them."""
    dlq = aws.create_queue(QueueName="IngestDeadLetterQueue")["QueueUrl"]
    dlq_arn = arn(aws, dlq)
    ingest = aws.create_queue(
        QueueName="IngestQueue",
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 5})},
    )["QueueUrl"]
    return {
        "ingest": ingest,
        "dlq": dlq,
        "rule_errors": aws.create_queue(QueueName="RuleErrorQueue")["QueueUrl"],
        "failed": aws.create_queue(QueueName="FailedInvocationsQueue")["QueueUrl"],
    }


def arn(sqs, url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def rule_record(n, channel="telemetry"):
    """An ingest record as the topic rule sends it."""
    payload = json.dumps({"metrics": {"temperature": 20 + n}, "note": f"reading-{n}"})
    return json.dumps({
        "messageId": str(uuid.uuid4()),
        "topic": f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/{channel}",
        "payload": base64.b64encode(payload.encode()).decode(),
        "receivedAt": int(time.time() * 1000) - 3_600_000 * 2,
        "sourceIp": "203.0.113.7",
    })


def fill(sqs, url, count, channel="telemetry"):
    """`count` dead letters, each with message attributes; their bodies."""
    bodies = []
    for n in range(count):
        body = rule_record(n, channel)
        sqs.send_message(
            QueueUrl=url,
            MessageBody=body,
            MessageAttributes={
                "origin": {"DataType": "String", "StringValue": f"test-{n}"},
                "raw": {"DataType": "Binary", "BinaryValue": bytes([n, 0, 255])},
            },
            MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": f"Root=1-{n:08x}-abc"}},
        )
        bodies.append(body)
    return bodies


def drain(sqs, url):
    """Every message in the queue (taken out of sight for the test)."""
    out = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600,
                                  MessageAttributeNames=["All"], AttributeNames=["All"]).get("Messages", [])
        if not got:
            return out
        out += got


def depth(sqs, url):
    """(visible, in flight), as the console and the DLQ alarm see them."""
    a = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def replay(capsys, *args, session=None):
    code = replay_module.main([*args, "--wait", "0"], session=session)
    out, err = capsys.readouterr()
    return code, out, err


def urls(queues, source="dlq"):
    return ["--from", queues[source], "--to", queues["ingest"]]


def failing_on(call, nth, error=None, after=None):
    """A session whose `call` (e.g. "SendMessageBatch") fails on its nth use:
    raises a service error before it is sent, or runs `after` once it was."""
    session = boto3.Session(region_name=REGION)
    calls = Counter()

    def before(**_):
        calls[call] += 1
        if error and calls[call] == nth:
            raise ClientError({"Error": {"Code": error, "Message": "simulated"}}, call)

    def after_call(**_):
        if after and calls[call] == nth:
            after()

    session.events.register(f"before-call.sqs.{call}", before)
    session.events.register(f"after-call.sqs.{call}", after_call)
    return session


# -- ingest dead letters --------------------------------------------------------


def test_dead_letters_go_back_to_ingest_in_full_and_the_dlq_is_emptied(aws, queues, capsys):
    bodies = fill(aws, queues["dlq"], 25)
    # moto's SendMessageBatch drops system attributes: the X-Ray trace header
    # is checked in the request the script makes.
    session = boto3.Session(region_name=REGION)
    sent = []
    session.events.register("before-parameter-build.sqs.SendMessageBatch",
                            lambda params, **_: sent.extend(params["Entries"]))

    code, out, err = replay(capsys, *urls(queues), session=session)

    assert code == 0, err
    moved = drain(aws, queues["ingest"])
    assert sorted(m["Body"] for m in moved) == sorted(bodies)
    for m in moved:
        n = bodies.index(m["Body"])
        assert m["MessageAttributes"] == {
            "origin": {"DataType": "String", "StringValue": f"test-{n}"},
            "raw": {"DataType": "Binary", "BinaryValue": bytes([n, 0, 255])},
        }
    assert sorted(e["MessageSystemAttributes"]["AWSTraceHeader"]["StringValue"] for e in sent) == sorted(
        f"Root=1-{n:08x}-abc" for n in range(25))
    assert depth(aws, queues["dlq"]) == (0, 0)
    assert "moved: 25" in out
    assert "by channel: telemetry=25" in out
    assert "source now: ~0 visible, ~0 in flight" in out
    assert "moved 25 so far" in err  # progress on stderr
    # Device payloads are never printed unless asked for.
    for body in bodies:
        assert json.loads(body)["payload"] not in out + err


def test_max_moves_at_most_that_many_and_leaves_the_rest(aws, queues, capsys):
    bodies = fill(aws, queues["dlq"], 25)

    code, out, _ = replay(capsys, *urls(queues), "--max", "12")

    assert code == 0
    moved = [m["Body"] for m in drain(aws, queues["ingest"])]
    assert len(moved) == 12
    assert depth(aws, queues["dlq"]) == (13, 0)
    left = [m["Body"] for m in drain(aws, queues["dlq"])]
    assert sorted(moved + left) == sorted(bodies)
    assert "moved: 12" in out


def test_a_dry_run_moves_nothing_and_leaves_every_message_visible(aws, queues, capsys):
    fill(aws, queues["dlq"], 15)

    code, out, _ = replay(capsys, *urls(queues), "--dry-run")

    assert code == 0
    assert "would move: 15" in out and "dry run: nothing sent or deleted" in out
    assert depth(aws, queues["ingest"]) == (0, 0)
    # Visible at once (not hidden for a visibility timeout): a real run can follow.
    assert depth(aws, queues["dlq"]) == (15, 0)

    code, out, _ = replay(capsys, *urls(queues), "--dry-run", "--max", "4")
    assert code == 0 and "would move: 4" in out
    assert depth(aws, queues["dlq"]) == (15, 0)


def test_show_prints_each_body_as_a_json_line(aws, queues, capsys):
    bodies = fill(aws, queues["dlq"], 3)

    code, out, _ = replay(capsys, *urls(queues), "--dry-run", "--show")

    assert code == 0
    shown = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert sorted(s["body"] for s in shown) == sorted(bodies)
    assert {s["outcome"] for s in shown} == {"would move"}


def test_a_send_failing_part_way_loses_nothing_and_a_rerun_finishes(aws, queues, capsys):
    bodies = fill(aws, queues["dlq"], 25)
    # The third batch's send fails (throttled, the network, a revoked grant).
    session = failing_on("SendMessageBatch", 3, error="ServiceUnavailable")

    code, out, err = replay(capsys, *urls(queues), session=session)

    assert code == 1
    assert "ServiceUnavailable" in err and "run again" in err
    assert "moved: 20" in out
    assert depth(aws, queues["ingest"]) == (20, 0)
    # The unsent five are visible again at once, not hidden for minutes.
    assert depth(aws, queues["dlq"]) == (5, 0)

    code, out, _ = replay(capsys, *urls(queues))
    assert code == 0 and "moved: 5" in out
    assert sorted(m["Body"] for m in drain(aws, queues["ingest"])) == sorted(bodies)
    assert depth(aws, queues["dlq"]) == (0, 0)


def test_a_missing_target_queue_fails_before_anything_is_received(aws, queues, capsys):
    fill(aws, queues["dlq"], 5)
    gone = queues["ingest"].replace("IngestQueue", "NoSuchQueue")

    code, _, err = replay(capsys, "--from", queues["dlq"], "--to", gone)

    assert code == 1
    assert "does not exist" in err
    assert depth(aws, queues["dlq"]) == (5, 0)


def test_a_failed_delete_sends_a_message_twice_at_worst_with_the_same_message_id(aws, queues, capsys):
    bodies = fill(aws, queues["dlq"], 25)
    # The second batch reached the target, then its delete failed: the window
    # a killed run leaves open.
    session = failing_on("DeleteMessageBatch", 2, error="InternalError")

    code, out, _ = replay(capsys, *urls(queues), session=session)

    assert code == 1
    assert "sent but not deleted (a re-run sends them again; ingest ignores the copy): 10" in out
    assert depth(aws, queues["dlq"]) == (15, 0)

    code, _, _ = replay(capsys, *urls(queues))
    assert code == 0
    assert depth(aws, queues["dlq"]) == (0, 0)
    moved = Counter(m["Body"] for m in drain(aws, queues["ingest"]))
    assert set(moved) == set(bodies), "nothing lost"
    twice = [body for body, n in moved.items() if n == 2]
    assert len(twice) == 10 and sum(moved.values()) == 35
    # A copy is byte for byte the same record: the same messageId, which
    # ingest's dedupe guard (MSG#{messageId}) applies once.
    assert len({json.loads(b)["messageId"] for b in moved.elements()}) == 25


def test_ctrl_c_finishes_the_batch_under_way_and_stops(aws, queues, capsys):
    bodies = fill(aws, queues["dlq"], 25)
    session = failing_on("SendMessageBatch", 2, after=lambda: os.kill(os.getpid(), signal.SIGINT))

    code, out, err = replay(capsys, *urls(queues), session=session)

    assert code == 130
    assert "interrupted" in err
    assert "moved: 20" in out
    # The interrupted batch was deleted too: no copy left behind.
    assert depth(aws, queues["dlq"]) == (5, 0)

    assert replay(capsys, *urls(queues))[0] == 0
    moved = [m["Body"] for m in drain(aws, queues["ingest"])]
    assert sorted(moved) == sorted(bodies)


def test_large_payloads_go_in_several_calls_within_the_batch_size_limit(aws, queues, capsys):
    # IoT Core's largest payload (128 KiB) is ~171 KiB of base64 in a record:
    # ten of them are far past SendMessageBatch's 256 KiB.
    big = [json.dumps({"messageId": str(n), "payload": base64.b64encode(os.urandom(128 * 1024)).decode()})
           for n in range(10)]
    for body in big:
        aws.send_message(QueueUrl=queues["dlq"], MessageBody=body)
    session = boto3.Session(region_name=REGION)
    calls = []
    session.events.register("before-parameter-build.sqs.SendMessageBatch",
                            lambda params, **_: calls.append(sum(len(e["MessageBody"]) for e in params["Entries"])))

    code, out, _ = replay(capsys, *urls(queues), session=session)

    assert code == 0 and "moved: 10" in out
    assert len(calls) == 10 and max(calls) <= 256 * 1024
    assert sorted(m["Body"] for m in drain(aws, queues["ingest"])) == sorted(big)


def test_skipped_channels_stay_in_the_source(aws, queues, capsys):
    fill(aws, queues["dlq"], 4, channel="status")
    telemetry = fill(aws, queues["dlq"], 6, channel="telemetry")

    code, out, _ = replay(capsys, *urls(queues), "--skip-channel", "status")

    assert code == 0
    assert sorted(m["Body"] for m in drain(aws, queues["ingest"])) == sorted(telemetry)
    assert "skipped, left in the source: status=4" in out
    assert depth(aws, queues["dlq"]) == (4, 0)


def test_old_messages_are_flagged(aws, queues, capsys):
    fill(aws, queues["dlq"], 1)  # received two hours ago

    _, out, err = replay(capsys, *urls(queues), "--dry-run")

    assert "oldest: received" in out and "(2.0 h ago)" in out
    assert "over an hour old" in err


# -- the topic rule's error action ------------------------------------------------


def rule_error(topic, payload, trace):
    """What IoT Core's error action writes when the rule's SQS action fails."""
    return json.dumps({
        "ruleName": "alyt_prod_DeviceTrafficRule",
        "topic": topic,
        "cloudwatchTraceId": trace,
        "clientId": DEVICE,
        "base64OriginalPayload": base64.b64encode(payload).decode(),
        "failures": [{
            "failedAction": "SqsAction",
            "failedResource": "alyt-prod-IngestQueue",
            "errorMessage": "Failed to send message to SQS queue. (Service: Sqs; Status Code: 403)",
        }],
    })


def test_rule_errors_become_the_records_the_rule_would_have_sent(aws, queues, capsys):
    topic = f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/telemetry"
    payloads = [json.dumps({"metrics": {"t": n}}).encode() for n in range(3)] + [b"\x00\xffnot json"]
    before = int(time.time() * 1000)
    for n, payload in enumerate(payloads):
        aws.send_message(QueueUrl=queues["rule_errors"], MessageBody=rule_error(topic, payload, f"trace-{n}"))
    after = int(time.time() * 1000)

    code, out, err = replay(capsys, *urls(queues, "rule_errors"), "--source", "rule-errors")

    assert code == 0, err
    assert "moved: 4" in out
    records = [json.loads(m["Body"]) for m in drain(aws, queues["ingest"])]
    # Exactly the fields ingest reads (shared/aws/src/sqs_ingest.rs RuleMessage).
    assert all(set(r) == {"messageId", "topic", "payload", "receivedAt"} for r in records)
    assert all(r["topic"] == topic for r in records)
    assert sorted(base64.b64decode(r["payload"]) for r in records) == sorted(payloads)
    assert all(before <= r["receivedAt"] <= after for r in records)
    ids = {r["messageId"] for r in records}
    assert ids == {str(uuid.uuid5(replay_module.RULE_ERROR_IDS, f"trace-{n}")) for n in range(4)}
    assert depth(aws, queues["rule_errors"]) == (0, 0)


def test_a_rule_error_replayed_twice_has_the_same_message_id(aws, queues, capsys):
    topic = f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/alerts"
    aws.send_message(QueueUrl=queues["rule_errors"], MessageBody=rule_error(topic, b'{"code":"x"}', "t-1"))
    args = [*urls(queues, "rule_errors"), "--source", "rule-errors", "--show"]

    shown = []
    for _ in range(2):
        code, out, _ = replay(capsys, *args, "--dry-run")
        assert code == 0
        shown.append(json.loads(out.splitlines()[0])["body"])
    code, _, _ = replay(capsys, *args)

    assert code == 0
    assert shown[0] == shown[1] == drain(aws, queues["ingest"])[0]["Body"]


def test_what_cannot_be_converted_is_left_in_the_rule_error_queue(aws, queues, capsys):
    good = f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/status"
    for body in [
        rule_error(good, b"{}", "ok"),
        rule_error(f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/commands", b"{}", "cmd"),
        json.dumps({"topic": good}),
        "not json",
    ]:
        aws.send_message(QueueUrl=queues["rule_errors"], MessageBody=body)

    code, out, err = replay(capsys, *urls(queues, "rule_errors"), "--source", "rule-errors")

    assert code == 3
    assert "moved: 1" in out
    assert ("not convertible, left in the source: no base64OriginalPayload=1 "
            "not JSON=1 not a device channel topic=1") in out
    assert "could not be converted" in err
    assert depth(aws, queues["rule_errors"]) == (3, 0)
    assert depth(aws, queues["ingest"]) == (1, 0)


def test_with_the_stacks_rule_name_another_rules_errors_are_left():
    # --stack passes DeviceTrafficRule's physical id (its name) as rule_name.
    message = {"MessageId": "m", "Attributes": {"SentTimestamp": "1"},
               "Body": rule_error(f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/status", b"{}", "t")}
    assert replay_module.from_rule_error(message, "alyt_prod_DeviceTrafficRule")[1] == "status"
    with pytest.raises(replay_module.Unconvertible, match="not from DeviceTrafficRule"):
        replay_module.from_rule_error(message, "some_other_rule")


# -- the failed-invocations queue and wrong queues -----------------------------------


def lambda_failure_record():
    return json.dumps({
        "version": "1.0",
        "timestamp": "2026-11-30T10:00:00.000Z",
        "requestContext": {"requestId": "r-1", "functionArn": "arn:aws:lambda:eu-west-1:123456789012:function:sweeps",
                           "condition": "RetriesExhausted", "approximateInvokeCount": 1},
        "requestPayload": {"source": "aws.events"},
        "responsePayload": {"errorMessage": "boom"},
    })


def test_the_failed_invocations_queue_is_refused(aws, queues, capsys):
    aws.send_message(QueueUrl=queues["failed"], MessageBody=lambda_failure_record())

    code, _, err = replay(capsys, *urls(queues, "failed"), "--source", "failed-invocations")

    assert code == 2
    assert "refusing" in err and "next run" in err and "purge" in err
    assert depth(aws, queues["failed"]) == (1, 0)
    assert depth(aws, queues["ingest"]) == (0, 0)


def test_a_queue_that_is_not_the_ingest_dlq_is_refused(aws, queues, capsys):
    aws.send_message(QueueUrl=queues["failed"], MessageBody=lambda_failure_record())

    code, _, err = replay(capsys, *urls(queues, "failed"))  # --source ingest-dlq by default

    assert code == 2
    assert "is not the dead-letter queue of" in err
    assert depth(aws, queues["failed"]) == (1, 0)
    assert depth(aws, queues["ingest"]) == (0, 0)

    # Taken for rule errors, its records are left where they are.
    code, out, _ = replay(capsys, *urls(queues, "failed"), "--source", "rule-errors")
    assert code == 3 and "a Lambda failure record" in out
    assert depth(aws, queues["failed"]) == (1, 0)


@pytest.mark.parametrize("args, message", [
    ([], "one of the arguments --stack --from is required"),
    (["--from", "https://q"], "--from needs --to"),
    (["--stack", "s", "--max", "0"], "--max must be at least 1"),
    (["--stack", "s", "--wait", "30"], "--wait must be 0-20"),
    (["--stack", "s", "--source", "everything"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_the_reason(capsys, args, message):
    assert replay_module.main(args) == 2
    assert message in capsys.readouterr().err


def test_the_same_queue_as_source_and_target_is_refused(aws, queues, capsys):
    code, _, err = replay(capsys, "--from", queues["ingest"], "--to", queues["ingest"])
    assert code == 2 and "the same queue" in err


# -- finding the queues from the stack -------------------------------------------------


STACK_TEMPLATE = {
    "Resources": {
        "IngestQueue": {"Type": "AWS::SQS::Queue", "Properties": {"RedrivePolicy": {
            "deadLetterTargetArn": {"Fn::GetAtt": ["IngestDeadLetterQueue", "Arn"]}, "maxReceiveCount": 5}}},
        "IngestDeadLetterQueue": {"Type": "AWS::SQS::Queue"},
        "RuleErrorQueue": {"Type": "AWS::SQS::Queue"},
        "FailedInvocationsQueue": {"Type": "AWS::SQS::Queue"},
    }
}


def stack_queue(logical_id):
    cfn = boto3.client("cloudformation", region_name=REGION)
    detail = cfn.describe_stack_resource(StackName="alyt-test", LogicalResourceId=logical_id)
    return detail["StackResourceDetail"]["PhysicalResourceId"]


def test_the_stack_names_the_queues(aws, capsys):
    boto3.client("cloudformation", region_name=REGION).create_stack(
        StackName="alyt-test", TemplateBody=json.dumps(STACK_TEMPLATE))
    dlq, ingest = stack_queue("IngestDeadLetterQueue"), stack_queue("IngestQueue")
    bodies = fill(aws, dlq, 12)

    code, out, err = replay(capsys, "--stack", "alyt-test", "--region", REGION)

    assert code == 0, err
    assert f"source: {dlq}" in err and f"target: {ingest}" in err
    assert sorted(m["Body"] for m in drain(aws, ingest)) == sorted(bodies)
    assert depth(aws, dlq) == (0, 0)

    aws.send_message(QueueUrl=stack_queue("RuleErrorQueue"),
                     MessageBody=rule_error(f"alyt/{TENANT}/{PROPERTY}/{DEVICE}/telemetry", b"{}", "t"))
    code, out, _ = replay(capsys, "--stack", "alyt-test", "--source", "rule-errors")
    assert code == 0 and "moved: 1" in out


def test_an_unknown_stack_is_an_error(aws, capsys):
    code, _, err = replay(capsys, "--stack", "no-such-stack")
    assert code == 1 and "no-such-stack" in err and "does not exist" in err


# -- the executable, as an operator runs it ------------------------------------------------


def test_the_executable_runs_against_an_endpoint_from_aws_endpoint_url(tmp_path):
    from moto.server import ThreadedMotoServer

    assert os.access(SCRIPT, os.X_OK)
    server = ThreadedMotoServer(port=0, verbose=False)
    server.start()
    try:
        endpoint = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
        env = {**os.environ, "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing",
               "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": REGION}
        env.pop("AWS_PROFILE", None)
        sqs = boto3.client("sqs", region_name=REGION, endpoint_url=endpoint,
                           aws_access_key_id="testing", aws_secret_access_key="testing")
        dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
        ingest = sqs.create_queue(QueueName="ingest", Attributes={"RedrivePolicy": json.dumps(
            {"deadLetterTargetArn": arn(sqs, dlq), "maxReceiveCount": 5})})["QueueUrl"]
        bodies = fill(sqs, dlq, 3)

        # The shebang picks the interpreter an operator has; here, the venv's.
        done = subprocess.run([sys.executable, str(SCRIPT), "--from", dlq, "--to", ingest, "--wait", "1"],
                              check=False, env=env, capture_output=True, text=True, timeout=60)

        assert done.returncode == 0, done.stderr
        assert "moved: 3" in done.stdout
        assert sorted(m["Body"] for m in drain(sqs, ingest)) == sorted(bodies)

        done = subprocess.run([sys.executable, str(SCRIPT), "--from", dlq, "--to", ingest,
                               "--source", "failed-invocations"], check=False, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "refusing" in done.stderr
    finally:
        server.stop()
