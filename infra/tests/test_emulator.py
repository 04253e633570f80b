"""The emulated region's parts, on the real template (infra/emulator.py).

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import base64
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import emulator  # noqa: E402
from emulator import Route, Stack, TemplateError, route_for  # noqa: E402

TEMPLATE = emulator.load_template()
API = "http://127.0.0.1:9/v1"


class NamedStack(Stack):
    """The template resolved without a region: resources get names only,
    and a dynamic reference resolves to what it names."""

    def _dynamic_reference(self, match):
        return f"<{match.group(2)}>"


def stack(**parameters):
    given = {**emulator.emulator_parameters("eu-west-1", API), **parameters}
    return NamedStack(TEMPLATE, given, "eu-west-1")


def routes():
    return [r for f in emulator.functions_of(stack()) for r in f.http_routes()]


def function_for(method, path):
    route, parameters = route_for(routes(), method, path)
    return (route.function, parameters) if route else (None, None)


def test_requests_reach_the_function_whose_route_api_gateway_would_pick():
    assert function_for("POST", "/v1/auth/login") == ("ApiAuthFunction", {"proxy": "login"})
    assert function_for("GET", "/v1/developers/me") == ("ApiDevelopersFunction", {"proxy": "me"})
    # The collection has a route of its own: {proxy+} needs a segment.
    assert function_for("GET", "/v1/integrations") == ("ApiIntegrationsFunction", {})
    assert function_for("GET", "/v1/integrations/a/b") == ("ApiIntegrationsFunction", {"proxy": "a/b"})
    assert function_for("GET", "/v1/tenants/t/clients/c/members")[0] == "ApiPeopleFunction"
    # The longest greedy prefix wins over the /v1 catch-all.
    assert function_for("GET", "/v1/capabilities") == ("ApiHomesFunction", {"proxy": "capabilities"})
    assert function_for("GET", "/") == ("ConsoleWebFunction", {})
    assert function_for("GET", "/console/app.js") == ("ConsoleWebFunction", {"file": "app.js"})


def test_what_no_route_takes_is_api_gateways_404():
    assert function_for("GET", "/v1") == (None, None)
    assert function_for("POST", "/") == (None, None)  # the console's routes are GET only
    assert function_for("GET", "/console/a/b") == (None, None)  # {file} is one segment
    assert function_for("GET", "/elsewhere") == (None, None)


def test_a_method_route_wins_over_any_and_an_exact_path_over_variables():
    table = [
        Route("ANY", "/v1/{proxy+}", "Any", "t"),
        Route("GET", "/v1/{proxy+}", "Get", "t"),
        Route("GET", "/v1/things/{id}", "Thing", "t"),
        Route("GET", "/v1/things/mine", "Mine", "t"),
        Route("ANY", "$default", "Default", "t"),
    ]
    assert route_for(table, "GET", "/v1/x")[0].function == "Get"
    assert route_for(table, "POST", "/v1/x")[0].function == "Any"
    assert route_for(table, "GET", "/v1/things/7")[0].function == "Thing"
    assert route_for(table, "GET", "/v1/things/mine")[0].function == "Mine"
    assert route_for(table, "GET", "/other")[0].function == "Default"


def test_each_function_gets_the_templates_environment_resolved():
    functions = {f.logical: f for f in emulator.functions_of(stack())}
    developers = functions["ApiDevelopersFunction"].environment()
    # Globals, then the function's own.
    assert developers["ALYT_TABLE"] == "alyt-emulated-Table"
    assert developers["ALYT_RUNTIME"] == "lambda"
    assert developers["ALYT_PUBLIC_URL"] == API
    assert developers["ALYT_RATE_LIMIT_QUOTA"] == "600"
    assert developers["ALYT_MAIL_FROM"] == "no-reply@alyt.emulated"
    # !If WithTurnstile, through the Secrets Manager dynamic reference.
    assert developers["ALYT_TURNSTILE_SECRET"] == f"<{emulator.TURNSTILE_SECRET_NAME}:SecretString>"
    # SAM's StreamFunctionUrl, where the emulator serves it (AWS's shape here).
    assert developers["ALYT_STREAM_URL"] == "https://streamfunction.lambda-url.eu-west-1.on.aws/"
    homes = functions["ApiHomesFunction"].environment()
    assert homes["ALYT_IOT_DATA_ENDPOINT"] == "emulated-ats.iot.eu-west-1.amazonaws.com"
    assert homes["ALYT_IOT_DEVICE_POLICY"] == "alyt-emulated-DevicePolicy"
    assert "ALYT_MAIL_FROM" not in homes
    # Without a Turnstile secret the !If gives the empty string.
    bare = {f.logical: f for f in emulator.functions_of(stack(TurnstileSecretId=""))}
    assert bare["ApiDevelopersFunction"].environment()["ALYT_TURNSTILE_SECRET"] == ""


def test_functions_name_their_binaries_and_timeouts_from_the_template():
    functions = {f.logical: f for f in emulator.functions_of(stack())}
    assert functions["ApiAuthFunction"].binary == "alyt-api-auth"
    assert functions["ApiAuthFunction"].timeout == 10  # Globals
    assert functions["ApiIntegrationsFunction"].timeout == 29
    assert functions["ConsoleWebFunction"].memory == 128


def test_parameters_are_held_to_the_template():
    with pytest.raises(TemplateError, match="AllowedPattern"):
        stack(IotDataEndpoint="localhost")
    with pytest.raises(TemplateError, match="no such parameter"):
        stack(Nonsense="1")


def test_sub_keeps_escaped_variables_literal():
    s = stack()
    assert s.sub("arn:${AWS::Partition}:iot:${AWS::Region}:x/${!iot:ThingName}") == "arn:aws:iot:eu-west-1:x/${iot:ThingName}"
    assert s.sub(["${A}-${Table}", {"A": "a"}]) == "a-alyt-emulated-Table"


def test_the_event_is_payload_format_2_0_with_the_callers_address():
    route = Route("ANY", "/v1/auth/{proxy+}", "ApiAuthFunction", "t")
    headers = [("Host", "h:1"), ("X-Twice", "a"), ("X-Twice", "b"), ("Cookie", "a=1; b=2"), ("Content-Type", "application/json")]
    event, _ = emulator.api_gateway_event(
        route, {"proxy": "login"}, "POST", "/v1/auth/login?x=1&x=2&y=", headers, b'{"k":1}', "192.0.2.7", "h:1"
    )
    assert event["version"] == "2.0"
    assert event["routeKey"] == "ANY /v1/auth/{proxy+}"
    assert event["rawPath"] == "/v1/auth/login"
    assert event["rawQueryString"] == "x=1&x=2&y="
    assert event["queryStringParameters"] == {"x": "1,2", "y": ""}
    assert event["headers"]["x-twice"] == "a,b"
    assert "cookie" not in event["headers"] and event["cookies"] == ["a=1", "b=2"]
    assert event["requestContext"]["http"]["sourceIp"] == "192.0.2.7"
    assert event["requestContext"]["stage"] == "$default"
    assert event["pathParameters"] == {"proxy": "login"}
    assert (event["body"], event["isBase64Encoded"]) == ('{"k":1}', False)
    binary, _ = emulator.api_gateway_event(route, {}, "PUT", "/v1/auth/x", [("content-type", "application/octet-stream")], b"\xff\x00", "::1", "h")
    assert binary["isBase64Encoded"] and base64.b64decode(binary["body"]) == b"\xff\x00"


def test_the_answer_is_read_as_api_gateway_reads_format_2_0():
    status, headers, body = emulator.http_response(
        {
            "statusCode": 201,
            "headers": {"content-type": "application/json"},
            "multiValueHeaders": {"x-ignored": ["1"]},
            "cookies": ["s=1; HttpOnly"],
            "body": base64.b64encode(b"{}").decode(),
            "isBase64Encoded": True,
        }
    )
    assert (status, body) == (201, b"{}")
    assert headers == [("content-type", "application/json"), ("set-cookie", "s=1; HttpOnly")]
    assert emulator.http_response({"a": 1}) == (200, [("content-type", "application/json")], json.dumps({"a": 1}).encode())


def test_turnstile_answers_as_cloudflare_does_for_its_test_secrets():
    token = "XXXX.DUMMY.TOKEN.XXXX"
    assert emulator.turnstile_verdict(emulator.TURNSTILE_PASSING_SECRET, token)["success"]
    assert not emulator.turnstile_verdict("2x0000000000000000000000000000000AA", token)["success"]
    assert not emulator.turnstile_verdict("3x0000000000000000000000000000000AA", token)["success"]
    assert not emulator.turnstile_verdict("a-real-secret", token)["success"]
    assert not emulator.turnstile_verdict(emulator.TURNSTILE_PASSING_SECRET, "")["success"]


@pytest.fixture(scope="module")
def region():
    region = emulator.Region("eu-west-1")
    yield region
    region.stop()


def test_the_table_and_queues_are_created_in_moto_as_the_template_declares(region):
    region.put_secret(emulator.TURNSTILE_SECRET_NAME, emulator.TURNSTILE_PASSING_SECRET)
    s = emulator.RegionStack(TEMPLATE, emulator.emulator_parameters("eu-west-1", API), region)
    developers = next(f for f in emulator.functions_of(s) if f.logical == "ApiDevelopersFunction")
    assert developers.environment()["ALYT_TURNSTILE_SECRET"] == emulator.TURNSTILE_PASSING_SECRET

    dynamodb = region.client("dynamodb")
    table = dynamodb.describe_table(TableName=s.ref("Table"))["Table"]
    declared = TEMPLATE["Resources"]["Table"]["Properties"]
    assert {i["IndexName"] for i in table["GlobalSecondaryIndexes"]} == {
        i["IndexName"] for i in declared["GlobalSecondaryIndexes"]
    }
    assert table["KeySchema"] == declared["KeySchema"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    ttl = dynamodb.describe_time_to_live(TableName=s.ref("Table"))["TimeToLiveDescription"]
    assert (ttl["AttributeName"], ttl["TimeToLiveStatus"]) == ("ttl", "ENABLED")

    sqs = region.client("sqs")
    ingest = sqs.get_queue_attributes(QueueUrl=s.ref("IngestQueue"), AttributeNames=["All"])["Attributes"]
    redrive = json.loads(ingest["RedrivePolicy"])
    assert redrive == {"deadLetterTargetArn": s.get_att("IngestDeadLetterQueue", "Arn"), "maxReceiveCount": 5}
    assert ingest["VisibilityTimeout"] == "60"


def test_sent_mail_lands_in_the_outbox_as_eml(region, tmp_path):
    region.verify_sender("from@alyt.emulated")
    outbox = emulator.Outbox(region, tmp_path)
    region.client("sesv2").send_email(
        FromEmailAddress="from@alyt.emulated",
        Destination={"ToAddresses": ["ada@example.com"]},
        Content={"Simple": {"Subject": {"Data": "Hi"}, "Body": {"Text": {"Data": "one\ntwo"}}}},
    )
    outbox.stop()
    (eml,) = sorted(tmp_path.glob("*.eml"))
    text = eml.read_bytes().decode()
    head, body = text.split("\r\n\r\n", 1)
    assert "To: ada@example.com" in head.split("\r\n")
    assert "Subject: Hi" in head.split("\r\n")
    assert body == "one\r\ntwo\r\n"


FAKE_RUNTIME = """
import json, os, sys, time, urllib.request
api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/invocation/"
while True:
    with urllib.request.urlopen(api + "next") as answer:
        request_id = answer.headers["Lambda-Runtime-Aws-Request-Id"]
        event = json.loads(answer.read())
    if event.get("sleep"):
        time.sleep(event["sleep"])
    outcome = "error" if event.get("fail") else "response"
    body = json.dumps({"echo": event, "env": os.environ.get("FROM_TEMPLATE")}).encode()
    urllib.request.urlopen(urllib.request.Request(api + request_id + "/" + outcome, data=body, method="POST"))
"""


class FakeFunction:
    logical = "FakeFunction"
    name = "alyt-emulated-FakeFunction"
    arn = "arn:aws:lambda:eu-west-1:123456789012:function:alyt-emulated-FakeFunction"
    timeout = 1.0
    memory = 128

    class stack:
        region = "eu-west-1"


def test_a_function_answers_through_the_runtime_api_and_a_timed_out_one_starts_again(tmp_path):
    runtime = tmp_path / "bootstrap"
    runtime.write_text(f"#!{sys.executable}\n{FAKE_RUNTIME}")
    runtime.chmod(0o755)
    instance = emulator.FunctionInstance(FakeFunction, runtime, {"FROM_TEMPLATE": "yes"}, tmp_path / "log")
    instance.start()
    try:
        instance.wait_ready(10)
        outcome, body = instance.invoke(b'{"n": 1}')
        assert (outcome, json.loads(body)) == ("response", {"echo": {"n": 1}, "env": "yes"})
        assert instance.invoke(b'{"fail": true}')[0] == "error"
        # Past its Timeout the instance is killed; the next invocation starts a new one.
        first = instance.process.pid
        assert instance.invoke(b'{"sleep": 5}')[0] == "timeout"
        outcome, body = instance.invoke(b'{"n": 2}')
        assert (outcome, json.loads(body)["echo"]) == ("response", {"n": 2})
        assert instance.process.pid != first
    finally:
        instance.stop()
