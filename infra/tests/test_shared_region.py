"""What lets many stories share one emulated region (infra/emulator.py):
a DynamoDB transaction copies only the items it touches, never the table
(with the same all-or-nothing rollback), and a function instance started on a short-lived thread lives on.

    $ALYT_VENV/bin/python -m pytest -q -p no:cacheprovider infra/tests
"""

import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import emulator  # noqa: E402


@pytest.fixture(scope="module")
def dynamodb():
    region = emulator.Region("eu-west-1")
    client = region.client("dynamodb")
    client.create_table(
        TableName="t",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    yield client
    region.stop()


def put(pk):
    return {"Put": {"TableName": "t", "Item": {"pk": {"S": pk}}}}


def keys(dynamodb):
    return sorted(i["pk"]["S"] for i in dynamodb.scan(TableName="t")["Items"])


def test_a_transaction_never_copies_the_table_however_many_items_it_writes(dynamodb, monkeypatch):
    from moto.dynamodb import models

    tables_copied = []
    real = copy.deepcopy

    def counting(value, memo=None):
        if isinstance(value, models.Table):
            tables_copied.append(value.name)
        return real(value, memo)

    monkeypatch.setattr(copy, "deepcopy", counting)
    dynamodb.transact_write_items(TransactItems=[put(f"many-{n:02}") for n in range(30)])
    # moto's own rollback copied the whole table once per item written.
    assert tables_copied == []
    assert len([k for k in keys(dynamodb) if k.startswith("many-")]) == 30


def test_a_failed_transaction_writes_nothing(dynamodb):
    before = keys(dynamodb)
    refused = {
        "ConditionCheck": {
            "TableName": "t",
            "Key": {"pk": {"S": "absent"}},
            "ConditionExpression": "attribute_exists(pk)",
        }
    }
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException):
        dynamodb.transact_write_items(TransactItems=[put("undone-1"), put("undone-2"), refused])
    assert keys(dynamodb) == before


def test_an_instance_cold_started_on_a_passing_thread_outlives_it(tmp_path):
    """The emulator's HTTP front starts a cold instance on a request's
    thread; the instance must not die when that request ends."""
    import json
    import threading
    import time

    from test_emulator import FAKE_RUNTIME, FakeFunction

    runtime = tmp_path / "bootstrap"
    runtime.write_text(f"#!{sys.executable}\n{FAKE_RUNTIME}")
    runtime.chmod(0o755)
    instance = emulator.FunctionInstance(FakeFunction, runtime, {"FROM_TEMPLATE": "yes"}, tmp_path / "log")
    request = threading.Thread(target=lambda: (instance.start(), instance.wait_ready(10)))
    request.start()
    request.join()
    try:
        time.sleep(0.5)
        assert instance.process.poll() is None, "the instance died with the thread that started it"
        outcome, body = instance.invoke(b'{"n": 1}')
        assert (outcome, json.loads(body)["echo"]) == ("response", {"n": 1})
    finally:
        instance.stop()
