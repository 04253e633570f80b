"""The emulated region's DynamoDB transactions (infra/emulator.py): one copy
of the table per transaction, and the same all-or-nothing rollback.

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


def test_a_transaction_copies_the_table_once_however_many_items_it_writes(dynamodb, monkeypatch):
    from moto.dynamodb import models

    tables_copied = []
    real = copy.deepcopy

    def counting(value, memo=None):
        if isinstance(value, models.Table):
            tables_copied.append(value.name)
        return real(value, memo)

    monkeypatch.setattr(copy, "deepcopy", counting)
    dynamodb.transact_write_items(TransactItems=[put(f"many-{n:02}") for n in range(30)])
    assert tables_copied == ["t"]
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
