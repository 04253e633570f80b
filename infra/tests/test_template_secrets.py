"""infra/check_template.py holds the template's secrets to being read at
run time and the token key out of every role's reach in the table: the
committed template passes, and each rule fails a copy of it with that one
thing undone.

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import check_template  # noqa: E402
from cfnlint.decode import decode  # noqa: E402

TEMPLATE, _ = decode(str(check_template.TEMPLATE))

TOKEN_FUNCTIONS = {
    "ApiHomesFunction", "ApiIntegrationsFunction", "ApiPeopleFunction", "ApiSecurityFunction",
    "ApiAuthFunction", "ApiDevelopersFunction", "StreamFunction",
}


def problems_of(template):
    check_template.problems.clear()
    check_template.check_secrets(template)
    check_template.check_least_privilege(template)
    found = list(check_template.problems)
    check_template.problems.clear()
    return found


def test_the_committed_template_holds_every_rule():
    assert problems_of(TEMPLATE) == []


def test_the_token_functions_are_the_http_groups_and_the_stream():
    assert check_template.Roles(TEMPLATE).token_functions == TOKEN_FUNCTIONS


def props(resources, name):
    return resources[name]["Properties"]


def variables(resources, name):
    return props(resources, name).setdefault("Environment", {}).setdefault("Variables", {})


def statement(resources, function, sid):
    for policy in check_template.function_policies(resources[function]):
        for found in policy.get("Statement", []) if isinstance(policy, dict) else []:
            if found.get("Sid") == sid:
                return found
    raise KeyError(sid)


def drop_statement(resources, function, sid):
    policies = props(resources, function)["Policies"]
    props(resources, function)["Policies"] = [
        p for p in policies
        if not (isinstance(p, dict) and any(s.get("Sid") == sid for s in p.get("Statement", [])))
    ]


def drop_policy(policies, name):
    policies[:] = [p for p in policies if check_template.ref(p) != name]


def add_statement(resources, function, **fields):
    props(resources, function)["Policies"].append(
        {"Version": "2012-10-17", "Statement": [{"Sid": "Extra", "Effect": "Allow", **fields}]}
    )


def table_keys(resources, function):
    return statement(resources, function, "TableItems")["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]


KEY = {"Ref": "TokenSigningKey"}

# (what is undone, the change, a problem the check must report)
MISTAKES = [
    # Secrets at run time: no secret's value in any environment.
    ("the Turnstile secret resolved into the environment again",
     lambda t: variables(t["Resources"], "ApiDevelopersFunction").update(ALYT_TURNSTILE_SECRET={
         "Fn::Sub": "{{resolve:secretsmanager:${TurnstileSecretId}:SecretString}}"}),
     "ApiDevelopersFunction sets ALYT_TURNSTILE_SECRET from a dynamic reference"),
    ("a plaintext Turnstile secret",
     lambda t: variables(t["Resources"], "ApiDevelopersFunction").update(ALYT_TURNSTILE_SECRET="0x4AAA"),
     "ApiDevelopersFunction sets ALYT_TURNSTILE_SECRET, a secret's value"),
    ("a secret's value under any name, in the simulator task",
     lambda t: props(t["Resources"], "SimulatorTaskDefinition")["ContainerDefinitions"][0]["Environment"].append(
         {"Name": "ALYT_SIMULATOR_PASSWORD", "Value": "x"}),
     "SimulatorTaskDefinition.simulator-runner sets ALYT_SIMULATOR_PASSWORD, a secret's value"),
    ("a dynamic reference under an innocent name, in the Globals",
     lambda t: t["Globals"]["Function"]["Environment"]["Variables"].update(
         ALYT_EXTRA="{{resolve:ssm-secure:/alyt/extra}}"),
     "Globals.Function sets ALYT_EXTRA from a dynamic reference"),
    # The token signing key: a secret of the stack, generated, retained.
    ("a token function without the key secret's id",
     lambda t: variables(t["Resources"], "ApiPeopleFunction").pop("ALYT_TOKEN_KEY_SECRET_ID"),
     "ApiPeopleFunction signs or verifies tokens but is not given ALYT_TOKEN_KEY_SECRET_ID"),
    ("the key secret's id as a fixed name",
     lambda t: variables(t["Resources"], "StreamFunction").update(ALYT_TOKEN_KEY_SECRET_ID="alyt/jwt"),
     "StreamFunction's ALYT_TOKEN_KEY_SECRET_ID is not !Ref of a secret of the stack"),
    ("the key secret's id given to every function",
     lambda t: t["Globals"]["Function"]["Environment"]["Variables"].update(ALYT_TOKEN_KEY_SECRET_ID=KEY),
     "Globals.Function sets ALYT_TOKEN_KEY_SECRET_ID, but only the functions that sign or verify tokens may"),
    ("the key secret's id given to a worker",
     lambda t: variables(t["Resources"], "WebhooksFunction").update(ALYT_TOKEN_KEY_SECRET_ID=KEY),
     "WebhooksFunction sets ALYT_TOKEN_KEY_SECRET_ID, but only the functions that sign or verify tokens may"),
    ("the key secret deleted with the stack",
     lambda t: t["Resources"]["TokenSigningKey"].pop("DeletionPolicy"),
     "the token key secret TokenSigningKey is not retained (DeletionPolicy: Retain)"),
    ("the key secret replaced by an update",
     lambda t: t["Resources"]["TokenSigningKey"].update(UpdateReplacePolicy="Delete"),
     "the token key secret TokenSigningKey is not retained (UpdateReplacePolicy: Retain)"),
    ("a key written into the template",
     lambda t: props(t["Resources"], "TokenSigningKey").update(SecretString="not-random-at-all"),
     "the token key secret TokenSigningKey is not generated by Secrets Manager"),
    ("a short key",
     lambda t: props(t["Resources"], "TokenSigningKey")["GenerateSecretString"].update(PasswordLength=16),
     "the token key secret TokenSigningKey is not a plain SecretString of at least 32 random characters"),
    ("a key inside JSON",
     lambda t: props(t["Resources"], "TokenSigningKey")["GenerateSecretString"].update(
         GenerateStringKey="key", SecretStringTemplate="{}"),
     "the token key secret TokenSigningKey is not a plain SecretString"),
    # Who may read it: the token functions, only.
    ("a token function that may not read the key secret",
     lambda t: drop_statement(t["Resources"], "ApiAuthFunction", "TokenSigningKey"),
     "ApiAuthFunction signs or verifies tokens but may not read the token key secret"),
    ("a worker that may read the key secret",
     lambda t: add_statement(t["Resources"], "SweepsFunction", Action="secretsmanager:GetSecretValue", Resource=KEY),
     "SweepsFunction may read the token key secret, but neither signs nor verifies tokens"),
    ("a role of the stack that may read the key secret",
     lambda t: props(t["Resources"], "BackupRole").setdefault("Policies", []).append({
         "PolicyName": "keys", "PolicyDocument": {"Version": "2012-10-17", "Statement": [
             {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": KEY}]}}),
     "BackupRole may read the token key secret, but neither signs nor verifies tokens"),
    # Nothing may change or delete a secret.
    ("an HTTP group that may overwrite the key",
     lambda t: statement(t["Resources"], "ApiDevelopersFunction", "TokenSigningKey").update(
         Action=["secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue"]),
     "ApiDevelopersFunction may do more to secrets than read them: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']"),
    ("an HTTP group that may delete it",
     lambda t: add_statement(t["Resources"], "ApiHomesFunction", Action="secretsmanager:DeleteSecret", Resource=KEY),
     "ApiHomesFunction may do more to secrets than read them: ['secretsmanager:DeleteSecret']"),
    ("every action",
     lambda t: add_statement(t["Resources"], "ApiHomesFunction", Action="secretsmanager:*", Resource=KEY),
     "ApiHomesFunction may do more to secrets than read them: ['secretsmanager:*']"),
    ("every secret",
     lambda t: statement(t["Resources"], "StreamFunction", "TokenSigningKey").update(Resource="*"),
     "StreamFunction may read any secret"),
    ("a role with an AWS managed policy that reaches secrets",
     lambda t: props(t["Resources"], "SimulatorTaskRole")["ManagedPolicyArns"].append(
         "arn:aws:iam::aws:policy/SecretsManagerReadWrite"),
     "SimulatorTaskRole carries the AWS managed policy SecretsManagerReadWrite"),
    # The Turnstile secret: its id from the parameter, read by who is given it.
    ("the Turnstile secret's id given to no function",
     lambda t: variables(t["Resources"], "ApiDevelopersFunction").pop("ALYT_TURNSTILE_SECRET_ID"),
     "no function is given the Turnstile secret's id"),
    ("a fixed Turnstile secret id",
     lambda t: variables(t["Resources"], "ApiDevelopersFunction").update(ALYT_TURNSTILE_SECRET_ID="turnstile"),
     "ApiDevelopersFunction's ALYT_TURNSTILE_SECRET_ID is not the TurnstileSecretId parameter"),
    ("the sign-up function may not read the Turnstile secret",
     lambda t: props(t["Resources"], "ApiDevelopersFunction").update(Policies=[
         p for p in props(t["Resources"], "ApiDevelopersFunction")["Policies"]
         if not (isinstance(p, dict) and "Fn::If" in p)]),
     "ApiDevelopersFunction is given the Turnstile secret's id but may not read it"),
    ("another group may read the Turnstile secret",
     lambda t: add_statement(t["Resources"], "ApiAuthFunction", Action="secretsmanager:GetSecretValue",
                             Resource={"Fn::Sub": "arn:aws:secretsmanager:eu-west-1:1:secret:${TurnstileSecretId}-??????"}),
     "ApiAuthFunction may read the Turnstile secret but is not given it"),
    # Item 6: no role reaches the table's key item, the HTTP groups included.
    ("an HTTP group allowed the table's key item again",
     lambda t: table_keys(t["Resources"], "ApiAuthFunction").append("CONFIG#jwt"),
     "ApiAuthFunction may reach the token key item CONFIG#jwt in the table"),
    ("through a wider pattern",
     lambda t: table_keys(t["Resources"], "StreamFunction").append("CONFIG#*"),
     "StreamFunction may reach the token key item CONFIG#jwt in the table"),
    ("an HTTP group not denied it",
     lambda t: drop_policy(props(t["Resources"], "ApiSecurityFunction")["Policies"], "NoTokenKeyPolicy"),
     "ApiSecurityFunction is not denied the token key item CONFIG#jwt (NoTokenKeyPolicy)"),
    ("the console not denied it",
     lambda t: props(t["Resources"], "ConsoleWebFunction").pop("Policies"),
     "ConsoleWebFunction is not denied the token key item CONFIG#jwt (NoTokenKeyPolicy)"),
    ("a worker not denied it",
     lambda t: drop_policy(props(t["Resources"], "IngestFunction")["Policies"], "NoTokenKeyPolicy"),
     "IngestFunction is not denied the token key item CONFIG#jwt (NoTokenKeyPolicy)"),
    ("the simulator task not denied it",
     lambda t: drop_policy(props(t["Resources"], "SimulatorTaskRole")["ManagedPolicyArns"], "NoTokenKeyPolicy"),
     "SimulatorTaskRole is not denied the token key item CONFIG#jwt (NoTokenKeyPolicy)"),
    ("AWS Backup's role not denied it",
     lambda t: drop_policy(props(t["Resources"], "BackupRole")["ManagedPolicyArns"], "NoTokenKeyPolicy"),
     "BackupRole is not denied the token key item CONFIG#jwt (NoTokenKeyPolicy)"),
    ("the deny turned into nothing",
     lambda t: props(t["Resources"], "NoTokenKeyPolicy")["PolicyDocument"]["Statement"][0].update(Effect="Allow"),
     "NoTokenKeyPolicy does not deny every table action (dynamodb:*) on the token key item CONFIG#jwt"),
    ("the deny on another item",
     lambda t: props(t["Resources"], "NoTokenKeyPolicy")["PolicyDocument"]["Statement"][0]["Condition"][
         "ForAnyValue:StringLike"].update({"dynamodb:LeadingKeys": ["CONFIG#other"]}),
     "NoTokenKeyPolicy does not deny every table action (dynamodb:*) on the token key item CONFIG#jwt"),
]


@pytest.mark.parametrize("change, expected", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_each_rule_fails_a_template_without_it(change, expected):
    template = copy.deepcopy(TEMPLATE)
    change(template)
    found = problems_of(template)
    assert any(expected in problem for problem in found), found


def reach_problems(tmp_path, *entries):
    log = tmp_path / "reach.jsonl"
    log.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    check_template.problems.clear()
    check_template.check_reach(TEMPLATE, str(log), suggest=False)
    found = list(check_template.problems)
    check_template.problems.clear()
    return found


def test_reach_does_not_require_the_key_item_of_the_token_functions(tmp_path):
    """The tests run the local platform, whose key is in its store: a group
    or the stream seen reading or writing it needs nothing hosted, where
    the key is the secret."""
    assert reach_problems(
        tmp_path,
        {"method": "POST", "path": "/v1/auth/login", "reach": ["GetItem CONFIG#jwt", "PutItem CONFIG#jwt"]},
        {"method": "GET", "path": "/v1/developers/events/stream", "reach": ["GetItem CONFIG#jwt"]},
        {"worker": "usage-flush", "reach": ["GetItem CONFIG#jwt"]},
    ) == []


def test_reach_names_any_other_function_seen_reaching_the_key_item(tmp_path):
    assert reach_problems(tmp_path, {"worker": "webhooks", "reach": ["GetItem CONFIG#jwt"]}) == [
        "WebhooksFunction needs dynamodb:GetItem on CONFIG#jwt (seen in the tests) but may not"
    ]
