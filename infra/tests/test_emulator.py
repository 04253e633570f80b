"""The emulated region's parts, on the real template (infra/emulator.py).

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import base64
import json
import re
import sys
import time
import urllib.error
import urllib.request
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
    # !If WithTurnstile: the secret's id, which the function reads at run
    # time; never the secret itself.
    assert developers["ALYT_TURNSTILE_SECRET_ID"] == emulator.TURNSTILE_SECRET_NAME
    assert "ALYT_TURNSTILE_SECRET" not in developers
    # SAM's StreamFunctionUrl, where the emulator serves it (AWS's shape here).
    assert developers["ALYT_STREAM_URL"] == "https://streamfunction.lambda-url.eu-west-1.on.aws/"
    homes = functions["ApiHomesFunction"].environment()
    assert homes["ALYT_IOT_DATA_ENDPOINT"] == "emulated-ats.iot.eu-west-1.amazonaws.com"
    assert homes["ALYT_IOT_DEVICE_POLICY"] == "alyt-emulated-DevicePolicy"
    assert "ALYT_MAIL_FROM" not in homes
    # Without a Turnstile secret the !If leaves the variable out.
    bare = {f.logical: f for f in emulator.functions_of(stack(TurnstileSecretId=""))}
    assert "ALYT_TURNSTILE_SECRET_ID" not in bare["ApiDevelopersFunction"].environment()


TOKEN_FUNCTIONS = {
    "ApiHomesFunction", "ApiIntegrationsFunction", "ApiPeopleFunction", "ApiSecurityFunction",
    "ApiAuthFunction", "ApiDevelopersFunction", "StreamFunction",
}


def test_the_functions_that_sign_or_verify_tokens_get_the_key_secrets_arn():
    s = stack()
    arn = s.ref("TokenSigningKey")
    # A secret's Ref is its ARN (with Secrets Manager's six-character tail).
    assert re.fullmatch(r"arn:aws:secretsmanager:eu-west-1:123456789012:secret:alyt-emulated-TokenSigningKey-\w{6}", arn)
    given = {
        f.logical: f.environment().get("ALYT_TOKEN_KEY_SECRET_ID") for f in emulator.functions_of(s)
    }
    assert {name for name, value in given.items() if value is not None} == TOKEN_FUNCTIONS
    assert {given[name] for name in TOKEN_FUNCTIONS} == {arn}


def test_generated_secret_strings_are_made_as_secrets_manager_makes_them():
    generated = emulator.generated_secret_string
    key = generated("K", {"PasswordLength": 64, "ExcludePunctuation": True})
    assert len(key) == 64 and key.isalnum()
    # Each included kind at least once (RequireEachIncludedType's default).
    assert any(c.isupper() for c in key) and any(c.islower() for c in key) and any(c.isdigit() for c in key)
    assert generated("K", {"PasswordLength": 64}) != generated("K", {"PasswordLength": 64})
    narrowed = generated("K", {"ExcludeUppercase": True, "ExcludeNumbers": True, "ExcludeCharacters": "abc"})
    assert len(narrowed) == 32  # the default length
    assert not any(c.isupper() or c.isdigit() or c in "abc" for c in narrowed)
    document = json.loads(generated("K", {"GenerateStringKey": "password", "SecretStringTemplate": '{"username": "u"}'}))
    assert document["username"] == "u" and len(document["password"]) == 32
    with pytest.raises(TemplateError, match="does not know: PasswordLenght"):
        generated("K", {"PasswordLenght": 64})
    with pytest.raises(TemplateError, match="excludes every character"):
        generated("K", {k: True for k in emulator.PASSWORD_CHARACTERS})


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


def test_the_stage_throttle_is_the_templates_and_lets_a_burst_through_then_the_rate():
    bucket = emulator.stage_throttle(stack())
    assert (bucket.rate, bucket.burst) == (100.0, 200.0)

    now = [0.0]
    bucket = emulator.TokenBucket(2, 3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one request's worth at 2 a second
    assert [bucket.take(), bucket.take()] == [True, False]
    now[0] += 10  # never more than the burst saved up
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_a_request_past_the_stage_throttle_is_api_gateways_429():
    front = emulator.HttpApiFront(0)
    front.serve([], {}, emulator.TokenBucket(0, 2))
    try:
        statuses, bodies = [], []
        for _ in range(3):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{front.port}/v1/anything") as answer:
                    statuses.append(answer.status)
            except urllib.error.HTTPError as error:
                statuses.append(error.code)
                bodies.append(json.loads(error.read()))
        assert statuses == [404, 404, 429]
        assert bodies[-1] == {"message": "Too Many Requests"}
    finally:
        front.stop()


def test_cors_is_the_templates_and_answers_as_api_gateway_does():
    cors = emulator.http_api_cors(stack())
    assert cors.origins == ["*"]
    assert "ratelimit" in cors.expose and "last-event-id" in cors.headers

    cors = emulator.Cors({
        "AllowOrigins": ["https://console.example"],
        "AllowMethods": ["GET", "POST"],
        "AllowHeaders": ["authorization"],
        "ExposeHeaders": ["x-request-id"],
        "MaxAge": 600,
    })
    preflight = {"Origin": "https://console.example", "Access-Control-Request-Method": "POST"}
    assert dict(cors.preflight(preflight)) == {
        "access-control-allow-origin": "https://console.example",
        "access-control-allow-methods": "GET,POST",
        "access-control-allow-headers": "authorization",
        "access-control-max-age": "600",
    }
    # Another origin, or a method not allowed: a bare 204 the browser refuses.
    assert cors.preflight({**preflight, "Origin": "https://evil.example"}) == []
    assert cors.preflight({**preflight, "Access-Control-Request-Method": "DELETE"}) == []
    # Not a preflight: the function answers.
    assert cors.preflight({"Origin": "https://console.example"}) is None
    # The gateway's headers replace the function's own.
    answer = [("content-type", "application/json"), ("Access-Control-Allow-Origin", "*")]
    assert cors.on_answer({"Origin": "https://console.example"}, answer) == [
        ("content-type", "application/json"),
        ("access-control-allow-origin", "https://console.example"),
        ("access-control-expose-headers", "x-request-id"),
    ]
    assert cors.on_answer({"Origin": "https://evil.example"}, answer) == [("content-type", "application/json")]


def test_a_preflight_is_answered_by_the_http_api_without_a_function():
    front = emulator.HttpApiFront(0)
    front.serve([], {}, None, emulator.Cors({"AllowOrigins": ["*"], "AllowMethods": ["GET"]}))
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{front.port}/v1/rooms/r1",
            method="OPTIONS",
            headers={"Origin": "https://console.example", "Access-Control-Request-Method": "GET"},
        )
        with urllib.request.urlopen(request) as answer:
            assert answer.status == 204
            assert answer.headers["access-control-allow-origin"] == "*"
            assert answer.headers["access-control-allow-methods"] == "GET"
    finally:
        front.stop()


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


@pytest.fixture(scope="module")
def region_stack(region):
    """The template's resources, created once in the module's region."""
    region.put_secret(emulator.TURNSTILE_SECRET_NAME, emulator.TURNSTILE_PASSING_SECRET)
    return emulator.RegionStack(TEMPLATE, emulator.emulator_parameters("eu-west-1", API), region)


def test_the_table_and_queues_are_created_in_moto_as_the_template_declares(region, region_stack):
    s = region_stack
    developers = next(f for f in emulator.functions_of(s) if f.logical == "ApiDevelopersFunction")
    # The id the function is given names the secret the emulator made.
    turnstile = region.client("secretsmanager").get_secret_value(
        SecretId=developers.environment()["ALYT_TURNSTILE_SECRET_ID"], VersionStage="AWSCURRENT"
    )
    assert turnstile["SecretString"] == emulator.TURNSTILE_PASSING_SECRET

    dynamodb = region.client("dynamodb")
    table = dynamodb.describe_table(TableName=s.ref("Table"))["Table"]
    declared = TEMPLATE["Resources"]["Table"]["Properties"]
    assert {i["IndexName"] for i in table["GlobalSecondaryIndexes"]} == {
        i["IndexName"] for i in declared["GlobalSecondaryIndexes"]
    }
    assert table["KeySchema"] == declared["KeySchema"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    # On demand by default: no capacity, nothing to scale.
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert not s.condition("ProvisionedTable")
    ttl = dynamodb.describe_time_to_live(TableName=s.ref("Table"))["TimeToLiveDescription"]
    assert (ttl["AttributeName"], ttl["TimeToLiveStatus"]) == ("ttl", "ENABLED")

    sqs = region.client("sqs")
    ingest = sqs.get_queue_attributes(QueueUrl=s.ref("IngestQueue"), AttributeNames=["All"])["Attributes"]
    redrive = json.loads(ingest["RedrivePolicy"])
    assert redrive == {"deadLetterTargetArn": s.get_att("IngestDeadLetterQueue", "Arn"), "maxReceiveCount": 5}
    assert ingest["VisibilityTimeout"] == "60"


def test_a_provisioned_table_has_its_capacity_and_autoscaling_for_it_and_each_index():
    """TableBillingMode=PROVISIONED: the table and each index get the
    minimum capacity, and Application Auto Scaling (moto's) a target per
    table or index and dimension with its bounds, each kept at 70% used.
    On demand (the default, the stack above) there are none."""
    region = emulator.Region("eu-central-1")
    try:
        provisioned_stack_holds(region)
    finally:
        region.stop()


def provisioned_stack_holds(region):
    region.put_secret(emulator.TURNSTILE_SECRET_NAME, emulator.TURNSTILE_PASSING_SECRET)
    parameters = {
        **emulator.emulator_parameters("eu-central-1", API),
        "TableBillingMode": "PROVISIONED",
        "TableWriteCapacityMin": "120",
        "TableWriteCapacityMax": "9000",
        "TableReadCapacityMin": "40",
        "TableReadCapacityMax": "3000",
    }
    stack = emulator.RegionStack(TEMPLATE, parameters, region)
    # The stack makes a resource when something refers to it; the policies
    # refer to their targets, and nothing to the policies.
    for logical, resource in TEMPLATE["Resources"].items():
        if resource["Type"] == "AWS::ApplicationAutoScaling::ScalingPolicy":
            assert stack.condition(resource["Condition"])
            stack.ref(logical)
    table = region.client("dynamodb").describe_table(TableName=stack.ref("Table"))["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert (table["ProvisionedThroughput"]["WriteCapacityUnits"], table["ProvisionedThroughput"]["ReadCapacityUnits"]) == (120, 40)
    for index in table["GlobalSecondaryIndexes"]:
        assert index["ProvisionedThroughput"]["WriteCapacityUnits"] == 120, index["IndexName"]
    scaling = region.client("application-autoscaling")
    targets = scaling.describe_scalable_targets(ServiceNamespace="dynamodb")["ScalableTargets"]
    name = stack.ref("Table")
    expected = {
        (f"table/{name}{suffix}", f"dynamodb:{kind}:{dimension}CapacityUnits")
        for suffix, kind in [("", "table")] + [(f"/index/gsi{n}", "index") for n in (1, 2, 3)]
        for dimension in ("Write", "Read")
    }
    assert {(t["ResourceId"], t["ScalableDimension"]) for t in targets} == expected
    for target in targets:
        writes = target["ScalableDimension"].endswith("WriteCapacityUnits")
        assert (target["MinCapacity"], target["MaxCapacity"]) == ((120, 9000) if writes else (40, 3000))
    policies = scaling.describe_scaling_policies(ServiceNamespace="dynamodb")["ScalingPolicies"]
    assert len(policies) == 8
    for policy in policies:
        assert policy["TargetTrackingScalingPolicyConfiguration"]["TargetValue"] == 70.0


def test_the_templates_secrets_are_created_in_moto_with_a_generated_value(region, region_stack):
    s = region_stack
    arn = s.ref("TokenSigningKey")
    secretsmanager = region.client("secretsmanager")
    assert secretsmanager.describe_secret(SecretId=arn)["ARN"] == arn
    # What a function reads at run time (GetSecretValue with the stage).
    current = secretsmanager.get_secret_value(SecretId=arn, VersionStage="AWSCURRENT")
    spec = TEMPLATE["Resources"]["TokenSigningKey"]["Properties"]["GenerateSecretString"]
    assert len(current["SecretString"]) == spec["PasswordLength"]
    assert current["SecretString"].isalnum()  # ExcludePunctuation
    assert current["VersionId"]
    # Never rotated: no previous version yet, as in AWS.
    with pytest.raises(secretsmanager.exceptions.ResourceNotFoundException):
        secretsmanager.get_secret_value(SecretId=arn, VersionStage="AWSPREVIOUS")
    # The functions are given the ARN of that secret.
    homes = next(f for f in emulator.functions_of(s) if f.logical == "ApiHomesFunction")
    assert homes.environment()["ALYT_TOKEN_KEY_SECRET_ID"] == arn


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


@pytest.fixture(scope="module")
def ledger(region):
    """A table with a stream, as the template's is, to hold two accounts."""
    dynamodb = region.client("dynamodb")
    dynamodb.create_table(
        TableName="ledger",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    return dynamodb


def stream_length(region, table_name):
    from moto.dynamodb.models import dynamodb_backends

    with region.dynamodb_lock:
        return len(dynamodb_backends[emulator.ACCOUNT][region.name].tables[table_name].stream_shard.items)


def account(name, balance):
    return {"pk": {"S": "ACCOUNT"}, "sk": {"S": name}, "balance": {"N": str(balance)}}


def everything(dynamodb, table_name):
    return sorted((i["pk"]["S"], i["sk"]["S"], i.get("balance", {}).get("N")) for i in dynamodb.scan(TableName=table_name)["Items"])


def test_a_cancelled_transaction_leaves_every_item_and_the_stream_as_they_were(region, ledger):
    from botocore.exceptions import ClientError

    ledger.put_item(TableName="ledger", Item=account("ada", 10))
    ledger.put_item(TableName="ledger", Item=account("bob", 5))
    before, stream_before = everything(ledger, "ledger"), stream_length(region, "ledger")
    add = {":n": {"N": "1"}}
    with pytest.raises(ClientError) as cancelled:
        ledger.transact_write_items(
            TransactItems=[
                # Applied before the failing check below, so it must be undone.
                {"Update": {"TableName": "ledger", "Key": {"pk": {"S": "ACCOUNT"}, "sk": {"S": "ada"}},
                            "UpdateExpression": "SET balance = balance - :n", "ExpressionAttributeValues": add}},
                {"Put": {"TableName": "ledger", "Item": account("cyd", 1)}},
                {"Delete": {"TableName": "ledger", "Key": {"pk": {"S": "ACCOUNT"}, "sk": {"S": "bob"}}}},
                {"ConditionCheck": {"TableName": "ledger", "Key": {"pk": {"S": "ACCOUNT"}, "sk": {"S": "dan"}},
                                    "ConditionExpression": "attribute_exists(pk)"}},
                {"Put": {"TableName": "ledger", "Item": account("eve", 2), "ConditionExpression": "attribute_exists(pk)"}},
            ]
        )
    error = cancelled.value.response
    assert error["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in error["CancellationReasons"]] == [
        "None", "None", "None", "ConditionalCheckFailed", "ConditionalCheckFailed",
    ]
    assert everything(ledger, "ledger") == before
    assert stream_length(region, "ledger") == stream_before

    with pytest.raises(ClientError) as twice:
        ledger.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "ledger", "Item": account("cyd", 1)}},
                {"Put": {"TableName": "ledger", "Item": account("cyd", 2)}},
            ]
        )
    assert twice.value.response["Error"]["Code"] == "ValidationException"
    assert everything(ledger, "ledger") == before

    # And one whose conditions hold is applied whole, on the stream too.
    ledger.transact_write_items(
        TransactItems=[
            {"Update": {"TableName": "ledger", "Key": {"pk": {"S": "ACCOUNT"}, "sk": {"S": "ada"}},
                        "UpdateExpression": "SET balance = balance - :n", "ExpressionAttributeValues": add,
                        "ConditionExpression": "balance >= :n"}},
            {"Put": {"TableName": "ledger", "Item": account("cyd", 1), "ConditionExpression": "attribute_not_exists(pk)"}},
        ]
    )
    assert everything(ledger, "ledger") == [("ACCOUNT", "ada", "9"), ("ACCOUNT", "bob", "5"), ("ACCOUNT", "cyd", "1")]
    assert stream_length(region, "ledger") == stream_before + 2


def test_concurrent_transactions_are_all_or_nothing_to_every_reader(region, ledger):
    """Transfers between two accounts, some cancelled by their condition,
    while readers read both: the total never changes, and every transfer
    that was not cancelled is applied exactly once."""
    import threading

    from botocore.exceptions import ClientError

    ledger.put_item(TableName="ledger", Item=account("left", 50))
    ledger.put_item(TableName="ledger", Item=account("right", 50))
    keys = [{"pk": {"S": "ACCOUNT"}, "sk": {"S": side}} for side in ("left", "right")]
    applied, cancelled, totals, failures = [], [], [], []

    def transfer(source, target, amount):
        for _ in range(15):
            try:
                region.client("dynamodb").transact_write_items(
                    TransactItems=[
                        {"Update": {"TableName": "ledger", "Key": source, "UpdateExpression": "SET balance = balance - :n",
                                    "ConditionExpression": "balance >= :n", "ExpressionAttributeValues": {":n": {"N": str(amount)}}}},
                        {"Update": {"TableName": "ledger", "Key": target, "UpdateExpression": "SET balance = balance + :n",
                                    "ExpressionAttributeValues": {":n": {"N": str(amount)}}}},
                    ]
                )
                applied.append(amount if source is keys[0] else -amount)
            except ClientError as error:
                if error.response["Error"]["Code"] != "TransactionCanceledException":
                    failures.append(error.response)
                cancelled.append(amount)

    def read():
        dynamodb = region.client("dynamodb")
        for _ in range(30):
            got = dynamodb.transact_get_items(TransactItems=[{"Get": {"TableName": "ledger", "Key": k}} for k in keys])
            totals.append(sum(int(r["Item"]["balance"]["N"]) for r in got["Responses"]))

    threads = [
        threading.Thread(target=transfer, args=(keys[0], keys[1], 7)),
        threading.Thread(target=transfer, args=(keys[0], keys[1], 11)),
        threading.Thread(target=transfer, args=(keys[1], keys[0], 13)),
        threading.Thread(target=read),
        threading.Thread(target=read),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert set(totals) == {100}
    assert cancelled, "some transfers must have found too little to move"
    final = {i["sk"]["S"]: int(i["balance"]["N"]) for i in ledger.batch_get_item(
        RequestItems={"ledger": {"Keys": keys}})["Responses"]["ledger"]}
    assert final == {"left": 50 - sum(applied), "right": 50 + sum(applied)}


def test_queries_answer_as_moto_does_from_their_candidates_only(region, ledger):
    """A table query reads its partition, an index query the items holding
    its key: same items, order and pages as a read of the whole table."""
    dynamodb = region.client("dynamodb")
    dynamodb.create_table(
        TableName="rooms",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "home", "name")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byHome",
            "KeySchema": [{"AttributeName": "home", "KeyType": "HASH"}, {"AttributeName": "name", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"},
        }],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(30):
        home = f"HOME#{n % 3}"
        dynamodb.put_item(TableName="rooms", Item={
            "pk": {"S": home}, "sk": {"S": f"ROOM#{n:02}"}, "home": {"S": home}, "name": {"S": f"room {29 - n:02}"},
        })
    dynamodb.put_item(TableName="rooms", Item={"pk": {"S": "HOME#1"}, "sk": {"S": "NOTE"}})  # in no index

    def pages(**query):
        keys, start = [], {}
        while True:
            page = dynamodb.query(TableName="rooms", Limit=4, **query, **start)
            keys += [(i["pk"]["S"], i["sk"]["S"]) for i in page["Items"]]
            if "LastEvaluatedKey" not in page:
                return keys
            start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}

    by_table = pages(KeyConditionExpression="pk = :h", ExpressionAttributeValues={":h": {"S": "HOME#1"}}, ScanIndexForward=False)
    assert by_table == sorted(
        [("HOME#1", f"ROOM#{n:02}") for n in range(1, 30, 3)] + [("HOME#1", "NOTE")], reverse=True
    )
    by_index = pages(
        IndexName="byHome", KeyConditionExpression="home = :h AND begins_with(#n, :r)",
        ExpressionAttributeNames={"#n": "name"}, ExpressionAttributeValues={":h": {"S": "HOME#2"}, ":r": {"S": "room"}},
    )
    # By the index's sort key: room 00 (ROOM#29) first, room 27 (ROOM#02) last.
    assert by_index == [("HOME#2", f"ROOM#{n:02}") for n in range(29, 1, -3)]
    assert pages(KeyConditionExpression="pk = :h", ExpressionAttributeValues={":h": {"S": "HOME#9"}}) == []


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


def test_an_instance_started_on_a_requests_thread_outlives_that_thread(tmp_path):
    import threading

    runtime = tmp_path / "bootstrap"
    runtime.write_text(f"#!{sys.executable}\n{FAKE_RUNTIME}")
    runtime.chmod(0o755)
    instance = emulator.FunctionInstance(FakeFunction, runtime, {}, tmp_path / "log")
    # A cold start on a request's thread, which then ends (its connection closed).
    request = threading.Thread(target=lambda: instance.invoke(b'{"n": 1}'))
    request.start()
    request.join()
    try:
        time.sleep(0.3)
        assert instance.process.poll() is None, "the instance died with the thread that started it"
        assert instance.invoke(b'{"n": 2}')[0] == "response"
    finally:
        instance.stop()


# ---------------------------------------------------------------------------
# The device plane: the topic rule, IoT policies, the MQTT front


def template_rule():
    (rule,) = emulator.topic_rules(stack())
    return rule


DEVICE_TOPIC = "alyt/t-1/p-1/d-1"


def test_the_rules_sql_is_evaluated_as_written():
    rule = template_rule()
    assert rule.sql.topic_filter == "alyt/+/+/+/+"
    context = emulator.RuleContext(f"{DEVICE_TOPIC}/telemetry", b'{"metric":"t"}\xff', "192.0.2.9", "d-1", now_ms=1780315200000)
    output = rule.sql.evaluate(context)
    # What shared/aws/src/sqs_ingest.rs reads, and nothing else.
    assert set(output) == {"messageId", "topic", "payload", "receivedAt", "sourceIp"}
    assert output["topic"] == f"{DEVICE_TOPIC}/telemetry"
    assert base64.b64decode(output["payload"]) == b'{"metric":"t"}\xff'
    assert (output["receivedAt"], output["sourceIp"]) == (1780315200000, "192.0.2.9")
    assert output["messageId"] != rule.sql.evaluate(context)["messageId"]  # newuuid() per message
    # The platform's own commands never go round; nor what the filter misses.
    assert rule.sql.evaluate(emulator.RuleContext(f"{DEVICE_TOPIC}/commands", b"{}", "::1")) is None
    assert rule.sql.evaluate(emulator.RuleContext("alyt/t/p/d", b"{}", "::1")) is None
    assert rule.sql.evaluate(emulator.RuleContext(f"{DEVICE_TOPIC}/status/x", b"{}", "::1")) is None


def test_rule_sql_the_emulator_cannot_evaluate_fails_loudly():
    ok = "SELECT topic(2) AS t FROM 'a/#' WHERE topic(1) = 'a' AND topic(3) <> 'b' OR topic() = 'c'"
    assert emulator.RuleSql(ok).evaluate(emulator.RuleContext("a/x/y", b"", "")) == {"t": "x"}
    # topic(3) of a two-level topic is Undefined, and so is the comparison.
    assert emulator.RuleSql(ok).evaluate(emulator.RuleContext("a/x", b"", "")) is None
    for sql in (
        "SELECT * FROM 'a/#'",
        "SELECT clientid() AS c FROM 'a/#'",
        "SELECT topic() FROM 'a/#'",  # no AS
        "SELECT topic() AS t FROM 'a/#' WHERE timestamp() > 0",
        "SELECT encode(*, 'hex') AS p FROM 'a/#'",
        "SELECT topic() AS t FROM a",
        "SELECT topic() AS t FROM 'a/#' WHERE",
        "SELECT payload.x AS x FROM 'a/#'",
    ):
        with pytest.raises(emulator.RuleSqlError):
            emulator.RuleSql(sql)
    with pytest.raises(emulator.RuleSqlError, match="2016-03-23"):
        emulator.RuleSql(ok, version="2015-10-08")
    with pytest.raises(TemplateError, match="Lambda action is not emulated"):
        emulator.RuleAction("Rule.Actions", {"Lambda": {"FunctionArn": "x"}})


def test_topic_filters_match_as_mqtt_does():
    assert emulator.topic_matches("a/+/c", "a/b/c")
    assert not emulator.topic_matches("a/+/c", "a/b/c/d")
    assert emulator.topic_matches("a/#", "a") and emulator.topic_matches("a/#", "a/b/c")
    assert not emulator.topic_matches("+/x", "$aws/x")


class RecordingSqs:
    def __init__(self, fail=()):
        self.sent, self.fail = [], set(fail)

    def send_message(self, QueueUrl, MessageBody):
        if QueueUrl in self.fail:
            raise RuntimeError("AWS.SimpleQueueService.NonExistentQueue")
        self.sent.append((QueueUrl, MessageBody))


def test_what_the_rule_takes_goes_to_its_queue_and_a_failure_to_its_error_action():
    rule = template_rule()
    ingest, errors = rule.actions[0].queue_url, rule.error_action.queue_url
    assert (ingest, errors) == ("alyt-emulated-IngestQueue", "alyt-emulated-RuleErrorQueue")
    sqs = RecordingSqs()
    rule.apply(sqs, emulator.RuleContext(f"{DEVICE_TOPIC}/status", b"{}", "192.0.2.1", "d-1"))
    ((queue, body),) = sqs.sent
    assert queue == ingest and json.loads(body)["topic"] == f"{DEVICE_TOPIC}/status"
    failing = RecordingSqs(fail=[ingest])
    rule.apply(failing, emulator.RuleContext(f"{DEVICE_TOPIC}/status", b"hi", "192.0.2.1", "d-1"))
    ((queue, body),) = failing.sent
    error = json.loads(body)
    assert queue == errors
    assert (error["ruleName"], error["topic"], error["clientId"]) == (rule.name, f"{DEVICE_TOPIC}/status", "d-1")
    assert base64.b64decode(error["base64OriginalPayload"]) == b"hi"
    assert error["failures"][0]["failedAction"] == "SqsAction"


def device_policy(**variables):
    document = stack().resolve(TEMPLATE["Resources"]["DevicePolicy"]["Properties"]["PolicyDocument"])
    return emulator.IotPolicy([document], variables)


ARN = "arn:aws:iot:eu-west-1:123456789012"


def test_the_device_policy_is_enforced_with_the_things_variables():
    attached = device_policy(
        **{
            "iot:Connection.Thing.ThingName": "d-1",
            "iot:Connection.Thing.IsAttached": "true",
            "iot:Connection.Thing.Attributes[tenantId]": "t-1",
            "iot:Connection.Thing.Attributes[propertyId]": "p-1",
        }
    )
    assert attached.allows("iot:Connect", f"{ARN}:client/d-1")
    assert not attached.allows("iot:Connect", f"{ARN}:client/d-2")
    assert attached.allows("iot:Publish", f"{ARN}:topic/{DEVICE_TOPIC}/telemetry")
    assert not attached.allows("iot:Publish", f"{ARN}:topic/{DEVICE_TOPIC}/commands")
    assert not attached.allows("iot:Publish", f"{ARN}:topic/alyt/t-1/p-1/d-2/telemetry")
    assert attached.allows("iot:RetainPublish", f"{ARN}:topic/{DEVICE_TOPIC}/availability")
    assert not attached.allows("iot:RetainPublish", f"{ARN}:topic/{DEVICE_TOPIC}/status")
    assert attached.allows("iot:Subscribe", f"{ARN}:topicfilter/{DEVICE_TOPIC}/commands")
    assert attached.allows("iot:Receive", f"{ARN}:topic/{DEVICE_TOPIC}/commands")
    # A certificate on no thing: no variables, nothing matches.
    unattached = device_policy(**{"iot:Connection.Thing.IsAttached": "false"})
    assert not unattached.allows("iot:Connect", f"{ARN}:client/d-1")
    assert not unattached.allows("iot:Publish", f"{ARN}:topic/{DEVICE_TOPIC}/telemetry")
    deny = emulator.IotPolicy(
        [{"Statement": [{"Effect": "Allow", "Action": "iot:*", "Resource": "*"},
                        {"Effect": "Deny", "Action": "iot:Publish", "Resource": f"{ARN}:topic/x"}]}]
    )
    assert deny.allows("iot:Publish", f"{ARN}:topic/y") and not deny.allows("iot:Publish", f"{ARN}:topic/x")


# ---------------------------------------------------------------------------
# Event source mappings and schedules


def test_the_templates_event_settings_are_read_and_unknown_ones_refused():
    functions = {f.logical: f for f in emulator.functions_of(stack())}
    sqs = functions["IngestFunction"].events["DeviceTraffic"]["Properties"]
    assert sqs["BatchSize"] == 10 and sqs["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    with pytest.raises(TemplateError, match="ParallelizationFactor is not emulated"):
        emulator.event_properties("F.Events.E", {"Stream": "s", "ParallelizationFactor": 2}, ("Stream",))
    assert emulator.rate_seconds("rate(1 minute)", "s") == 60
    assert emulator.rate_seconds("rate(5 minutes)", "s") == 300
    for expression in ("cron(0 * * * ? *)", "rate(1 minutes)", "rate(2 minute)"):
        with pytest.raises(TemplateError):
            emulator.rate_seconds(expression, "s")


def test_a_partial_batch_answer_is_read_as_lambda_reads_it():
    ids = {"a", "b", "c"}
    assert emulator.batch_item_failures(json.dumps({"batchItemFailures": []}), ids) == set()
    assert emulator.batch_item_failures(json.dumps({"batchItemFailures": None}), ids) == set()
    assert emulator.batch_item_failures(b"null", ids) == set()
    assert emulator.batch_item_failures(json.dumps({"batchItemFailures": [{"itemIdentifier": "b"}]}), ids) == {"b"}
    # The whole batch failed: invalid JSON, an empty or unknown id.
    assert emulator.batch_item_failures(b"{not json", ids) is None
    assert emulator.batch_item_failures(json.dumps({"batchItemFailures": [{"itemIdentifier": ""}]}), ids) is None
    assert emulator.batch_item_failures(json.dumps({"batchItemFailures": [{"itemIdentifier": "z"}]}), ids) is None


def test_the_stream_filter_takes_inserted_events_only():
    webhooks = TEMPLATE["Resources"]["WebhooksFunction"]["Properties"]["Events"]["NewEvents"]["Properties"]
    (pattern,) = [json.loads(f["Pattern"]) for f in webhooks["FilterCriteria"]["Filters"]]
    fixture = json.loads((emulator.ROOT / "events/webhooks/dynamodb-stream.json").read_text())["Records"]
    assert [emulator.filter_matches(pattern, r) for r in fixture] == [True, True, False, False]
    with pytest.raises(TemplateError, match="not emulated"):
        emulator.filter_matches({"eventName": [{"anything-but": "REMOVE"}]}, fixture[0])


class ScriptedPool:
    """A function that answers each batch with `answer(event)`."""

    def __init__(self, answer):
        self.answer, self.events = answer, []

    def invoke(self, payload):
        event = json.loads(payload)
        self.events.append(event)
        return self.answer(event)


def test_only_the_records_a_batch_reports_stay_and_redrive_to_the_dead_letter_queue(region):
    sqs = region.client("sqs")
    dlq = sqs.create_queue(QueueName="esm-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(
        QueueName="esm-source",
        Attributes={"VisibilityTimeout": "0", "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2})},
    )["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    for body in ("good-1", "poison", "good-2"):
        sqs.send_message(QueueUrl=url, MessageBody=body)

    def answer(event):
        failed = [{"itemIdentifier": r["messageId"]} for r in event["Records"] if r["body"] == "poison"]
        return "response", json.dumps({"batchItemFailures": failed}).encode()

    pool = ScriptedPool(answer)
    source = emulator.SqsEventSource(
        region, pool, "F.Events.Q", {"Queue": arn, "BatchSize": 10, "FunctionResponseTypes": ["ReportBatchItemFailures"]}, arn
    )
    for _ in range(4):
        messages = source._gather()
        if messages:
            source.handle(messages)
    record = pool.events[0]["Records"][0]
    assert set(record) == {"messageId", "receiptHandle", "body", "attributes", "messageAttributes", "md5OfBody",
                           "eventSource", "eventSourceARN", "awsRegion"}
    assert (record["eventSource"], record["eventSourceARN"]) == ("aws:sqs", arn)
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    delivered = [r["body"] for e in pool.events for r in e["Records"]]
    assert sorted(delivered) == ["good-1", "good-2", "poison", "poison"]
    # Received twice and reported twice: past maxReceiveCount it is the DLQ's.
    moved = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10).get("Messages", [])
    assert [m["Body"] for m in moved] == ["poison"]
    assert sqs.receive_message(QueueUrl=url).get("Messages", []) == []


# ---------------------------------------------------------------------------
# The MQTT front, with a real MQTT client


class Front:
    """A front whose every client is admitted with `documents`; what the
    rules saw is in `messages`."""

    def __init__(self, tmp_path, documents):
        self.messages = []
        tls = emulator.IotTls(tmp_path, ["emulated-ats.iot.eu-west-1.amazonaws.com"], lambda: [])
        self.front = emulator.MqttFront(
            "eu-west-1",
            tls,
            lambda request, der, ip, sni: (emulator.IotPolicy(documents), []),
            lambda *message: self.messages.append(message),
        )
        self.front.serve()

    def client(self, client_id, clean=True, will=None):
        import paho.mqtt.client as mqtt

        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
        client.received = []
        client.on_message = lambda c, u, m: client.received.append((m.topic, m.payload, m.qos))
        if will:
            client.will_set(*will)
        client.connect("127.0.0.1", self.front.port, keepalive=30)
        client.loop_start()
        return client


def allow(action, *resources):
    return {"Effect": "Allow", "Action": action, "Resource": [f"{ARN}:{r}" for r in resources]}


def eventually(check, seconds=5):
    import time

    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def test_the_front_admits_by_policy_acknowledges_accepted_publishes_and_delivers(tmp_path):
    document = {
        "Statement": [
            allow("iot:Connect", "client/dev", "client/app"),
            allow("iot:Publish", "topic/dev/out", "topic/app/in", "topic/dev/will"),
            allow("iot:Subscribe", "topicfilter/app/in", "topicfilter/dev/out"),
            allow("iot:Receive", "topic/app/in", "topic/dev/out"),
        ]
    }
    f = Front(tmp_path, [document])
    try:
        app = f.client("app")
        dev = f.client("dev", will=("dev/will", b"gone", 1))
        assert eventually(lambda: app.is_connected() and dev.is_connected())
        app.subscribe("dev/out", 1)
        dev.subscribe("app/in", 1)
        time.sleep(0.2)
        info = dev.publish("dev/out", b"hello", qos=1)
        info.wait_for_publish(5)  # PUBACKed
        assert eventually(lambda: app.received == [("dev/out", b"hello", 1)])
        assert f.messages[0][:3] == ("dev/out", b"hello", "dev")
        # The data plane's way in reaches subscribers too.
        f.front.publish("app/in", b"cmd", 1)
        assert eventually(lambda: dev.received == [("app/in", b"cmd", 1)])
        # Not its client id: refused.
        stranger = f.client("stranger")
        assert not eventually(stranger.is_connected, 1)
        stranger.loop_stop()
        # A publish outside its policy closes the connection; the will goes out.
        dev.publish("elsewhere", b"x", qos=1)
        assert eventually(lambda: ("dev/will", b"gone", "dev") in [m[:3] for m in f.messages])
    finally:
        f.front.stop()


def test_a_persistent_session_keeps_qos1_messages_until_the_device_is_back(tmp_path):
    document = {"Statement": [{"Effect": "Allow", "Action": "iot:*", "Resource": "*"}]}
    f = Front(tmp_path, [document])
    try:
        dev = f.client("dev", clean=False)
        assert eventually(dev.is_connected)
        dev.subscribe("cmd", 1)
        time.sleep(0.2)
        dev.disconnect()
        dev.loop_stop()
        assert eventually(lambda: f.front.sessions["dev"].connection is None)
        f.front.publish("cmd", b"while away", 1)
        again = f.client("dev", clean=False)
        assert eventually(lambda: again.received == [("cmd", b"while away", 1)])
        # DeleteConnection closes it; a clean one forgets the session.
        assert f.front.disconnect("dev", clean_session=True)
        assert eventually(lambda: "dev" not in f.front.sessions)
        assert not f.front.disconnect("dev")
        again.loop_stop()
    finally:
        f.front.stop()


AUTHORIZER = emulator.ROOT / "target" / "debug" / "alyt-iot-authorizer"


def test_a_login_through_the_templates_authorizer_gets_its_policy_and_its_telemetry_reaches_ingest(
    region, region_stack, tmp_path
):
    # tests/run runs this after `cargo test --workspace`, which builds the
    # authorizer for its own fixture tests: never skipped.
    assert AUTHORIZER.is_file(), "the authorizer is not built: cargo build --workspace --bins"
    import hashlib

    s = region_stack
    (authorizer,) = [f for f in emulator.functions_of(s) if f.logical == "DeviceAuthorizerFunction"]
    pool = emulator.FunctionPool(
        authorizer, AUTHORIZER, {**authorizer.environment(), "AWS_ENDPOINT_URL": region.endpoint}, tmp_path / "log"
    )
    pool.start()
    pool.wait_ready(30)
    iot = emulator.IotCore(region, s, lambda logical, event: pool.invoke(event), tmp_path, "emulated-ats.iot", 0)
    iot.serve()
    tenant, home, device = (f"0190d0f0-0000-7000-8000-00000000000{n}" for n in (1, 2, 3))
    # The credential as the store writes it (shared/store/src/repo/devices.rs).
    region.client("dynamodb").put_item(
        TableName=s.ref("Table"),
        Item={
            "pk": {"S": f"DEVCRED#{device}"},
            "sk": {"S": "DEVCRED"},
            "username": {"S": device},
            "deviceId": {"S": device},
            "tenantId": {"S": tenant},
            "propertyId": {"S": home},
            "secretHash": {"S": hashlib.sha256(b"right").hexdigest()},
            "createdAt": {"S": "2026-06-01T00:00:00Z"},
        },
    )
    import paho.mqtt.client as mqtt

    def login(password):
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=device)
        client.username_pw_set(f"{device}?x-amz-customauthorizer-name=alyt-emulated-devices", password)
        client.connect("127.0.0.1", iot.front.port, keepalive=30)
        client.loop_start()
        return client

    try:
        refused = login("wrong")
        assert not eventually(refused.is_connected, 2)
        refused.loop_stop()
        client = login("right")
        assert eventually(client.is_connected, 10)
        client.publish(f"alyt/{tenant}/{home}/{device}/telemetry", b'{"metrics":{"watts":1}}', qos=1).wait_for_publish(5)
        sqs = region.client("sqs")
        bodies = []
        assert eventually(
            lambda: bodies.extend(m["Body"] for m in sqs.receive_message(QueueUrl=s.ref("IngestQueue")).get("Messages", []))
            or bodies,
            10,
        )
        assert json.loads(bodies[0])["topic"] == f"alyt/{tenant}/{home}/{device}/telemetry"
        # Another device's topic is outside the policy it answered: closed.
        client.publish(f"alyt/{tenant}/{home}/someone-else/telemetry", b"{}", qos=1)
        assert eventually(lambda: not client.is_connected(), 5)
        client.loop_stop()
    finally:
        iot.stop()
        pool.stop()


# ---------------------------------------------------------------------------
# The stream function's URL: response streaming


# A runtime that answers as lambda_runtime does for a StreamResponse: the
# streaming mode header, a chunked body of the metadata prelude, 8 NUL bytes
# and then the body, a piece at a time. `hold` keeps the stream open after
# the first piece until the file it names exists; `forever` writes a piece
# every 0.1 s until a write fails (the client is gone), then records that
# (and with `exit_after`, exits that many seconds later, as lambda_runtime
# ends when a write fails).
FAKE_STREAMING_RUNTIME = """
import http.client, json, os, time, urllib.request
host = os.environ["AWS_LAMBDA_RUNTIME_API"]
api = "http://" + host + "/2018-06-01/runtime/invocation/"
while True:
    with urllib.request.urlopen(api + "next") as answer:
        request_id = answer.headers["Lambda-Runtime-Aws-Request-Id"]
        event = json.loads(answer.read())
    query = event.get("queryStringParameters") or {}
    if query.get("buffered"):
        body = json.dumps({"statusCode": 201, "headers": {"x-kind": "buffered"}, "body": event["rawPath"]})
        urllib.request.urlopen(urllib.request.Request(api + request_id + "/response", data=body.encode(), method="POST"))
        continue
    connection = http.client.HTTPConnection(host)
    connection.putrequest("POST", "/2018-06-01/runtime/invocation/" + request_id + "/response")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.putheader("Lambda-Runtime-Function-Response-Mode", "streaming")
    connection.putheader("Content-Type", "application/vnd.awslambda.http-integration-response")
    connection.endheaders()
    def send(data):
        connection.send(b"%x\\r\\n%s\\r\\n" % (len(data), data))
    prelude = {"statusCode": 200, "headers": {"content-type": "text/event-stream", "x-path": event["rawPath"]},
               "cookies": ["seen=1"]}
    send(json.dumps(prelude).encode())
    send(b"\\0" * 8)
    send(b"first\\n")
    try:
        if query.get("forever"):
            while True:
                time.sleep(0.1)
                send(b"tick\\n")
        while query.get("hold") and not os.path.exists(query["hold"]):
            time.sleep(0.02)
        send(b"second\\n")
        connection.send(b"0\\r\\n\\r\\n")
        connection.getresponse().read()
    except OSError:
        open(query["forever"], "w").close()
        if query.get("exit_after"):
            # As lambda_runtime does once a write fails, but later (at its
            # next keepalive, say): the runtime ends and the process exits.
            time.sleep(float(query["exit_after"]))
            os._exit(1)
    connection.close()
"""


@pytest.fixture
def stream_url(tmp_path):
    runtime = tmp_path / "bootstrap"
    runtime.write_text(f"#!{sys.executable}\n{FAKE_STREAMING_RUNTIME}")
    runtime.chmod(0o755)

    class StreamingFunction(FakeFunction):
        logical = "StreamFunction"
        timeout = 30.0

    pool = emulator.FunctionPool(StreamingFunction, runtime, {}, tmp_path / "log", limit=2)
    pool.start()
    pool.wait_ready(10)
    front = emulator.FunctionUrlFront("StreamFunction", {"AuthType": "NONE", "InvokeMode": "RESPONSE_STREAM"})
    front.serve(pool)
    try:
        yield front.url
    finally:
        front.stop()
        pool.stop()


def test_a_streamed_response_reaches_the_client_as_the_function_writes_it(stream_url, tmp_path):
    import http.client
    import urllib.parse

    held = tmp_path / "release"
    address = urllib.parse.urlsplit(stream_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.request("GET", f"/v1/developers/events/stream?hold={held}")
    response = connection.getresponse()
    # The prelude is the response's status and headers; the body is chunked.
    assert response.status == 200
    assert response.getheader("content-type") == "text/event-stream"
    assert response.getheader("x-path") == "/v1/developers/events/stream"
    assert response.getheader("set-cookie") == "seen=1"
    assert response.getheader("transfer-encoding") == "chunked"
    # The first piece arrives while the function is still running.
    assert response.readline() == b"first\n"
    held.touch()
    assert response.read() == b"second\n"


def test_a_buffered_answer_on_a_streaming_url_is_read_as_format_2_0(stream_url):
    with urllib.request.urlopen(stream_url + "some/path?buffered=1", timeout=10) as answer:
        assert (answer.status, answer.headers["x-kind"], answer.read()) == (201, "buffered", b"/some/path")


def test_a_client_that_hangs_up_ends_the_functions_stream(stream_url, tmp_path):
    import socket as sockets
    import urllib.parse

    noticed = tmp_path / "noticed"
    address = urllib.parse.urlsplit(stream_url)
    client = sockets.create_connection((address.hostname, address.port), timeout=10)
    client.sendall(f"GET /x?forever={noticed} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert b"first" in client.recv(4096) or b"first" in client.recv(4096)
    client.close()
    # The function's next write fails, as Lambda closes a stream whose client is gone.
    assert eventually(noticed.exists, seconds=10)
    # And the instance takes the next request.
    with urllib.request.urlopen(stream_url + "again?buffered=1", timeout=10) as answer:
        assert answer.status == 201


def test_an_instance_whose_stream_was_cut_never_takes_the_next_request_and_dies_under_it(stream_url, tmp_path):
    import socket as sockets
    import urllib.parse

    noticed = tmp_path / "noticed"
    address = urllib.parse.urlsplit(stream_url)
    client = sockets.create_connection((address.hostname, address.port), timeout=10)
    client.sendall(f"GET /x?forever={noticed}&exit_after=2 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert b"first" in client.recv(4096) or b"first" in client.recv(4096)
    client.close()
    assert eventually(noticed.exists, seconds=10)
    # The function exits 2 s after its failed write: a request now must not
    # land on that process (a 502 when it dies), but on a fresh one.
    for _ in range(3):
        with urllib.request.urlopen(stream_url + "again?buffered=1", timeout=10) as answer:
            assert answer.status == 201
    time.sleep(2.5)
    with urllib.request.urlopen(stream_url + "later?buffered=1", timeout=10) as answer:
        assert answer.status == 201


# ---------------------------------------------------------------------------
# ECS: the simulator task


def test_the_simulator_service_runs_the_dockerfiles_binary_with_its_task_definitions_environment(tmp_path):
    (tmp_path / "simulator-runner").write_text("")
    given = stack()
    assert given.condition("WithSimulator"), "the emulator gives the parameters the service needs"
    task = emulator.ServiceTask(
        given, "SimulatorService", tmp_path, tmp_path / "log", lambda env: {"ADDED": env["ALYT_TABLE"]}
    )
    assert task.count == 1
    ((name, binary, environment),) = task.containers
    assert (name, binary.name) == ("simulator-runner", "simulator-runner")
    assert environment == {
        "ALYT_TABLE": given.ref("Table"),
        "ALYT_SIMULATOR_BROKER": "",
        "ALYT_IOT_DATA_ENDPOINT": "emulated-ats.iot.eu-west-1.amazonaws.com",
        # An authorizer's Ref is its AuthorizerName: the name devices log in with.
        "ALYT_IOT_AUTHORIZER": "alyt-emulated-devices",
        "RUST_LOG": given.parameters["LogLevel"],
        "ADDED": given.ref("Table"),
    }
    # Without its image there is no service, as on AWS.
    assert not stack(SimulatorImage="").condition("WithSimulator")
    with pytest.raises(TemplateError, match="runs only"):
        emulator.image_binary("123456789012.dkr.ecr.eu-west-1.amazonaws.com/other:latest")
