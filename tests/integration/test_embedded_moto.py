"""moto as our embedded DynamoDB (``serialise_moto_dynamodb``, applied by tests/conftest.py and by
``embedded_dynamodb``): transactions still roll back, and stay correct while other threads write."""

import threading
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region
from meta_mage.storage.locks import held_condition


def _put(table: str, pk: str, sk: str) -> dict[str, Any]:
    return {"Put": {"TableName": table, "Item": {"PK": {"S": pk}, "SK": {"S": sk}}}}


def test_a_refused_transaction_writes_nothing(dynamodb: Any, settings: Settings) -> None:
    client = boto3.client("dynamodb", region_name=aws_region(settings))
    checkpoints = settings.checkpoint_table
    client.put_item(TableName=checkpoints, Item={"PK": {"S": "a"}, "SK": {"S": "1"}})
    client.put_item(
        TableName=settings.locks_table,
        Item={"pk": {"S": "conversation#a"}, "owner": {"S": "x"}, "ttl": {"N": "9999999999"}},
    )

    # When the fence fails (another owner holds the lock), the put beside it is rolled back
    with pytest.raises(ClientError) as refused:
        client.transact_write_items(
            TransactItems=[held_condition(settings.locks_table, "conversation#a", "y"), _put(checkpoints, "a", "2")]
        )
    assert refused.value.response["Error"]["Code"] == "TransactionCanceledException"
    keys = sorted(i["SK"]["S"] for i in client.scan(TableName=checkpoints)["Items"])
    assert keys == ["1"]

    # and when it holds, both land
    client.transact_write_items(
        TransactItems=[held_condition(settings.locks_table, "conversation#a", "x"), _put(checkpoints, "a", "2")]
    )
    assert sorted(i["SK"]["S"] for i in client.scan(TableName=checkpoints)["Items"]) == ["1", "2"]


def test_transactions_and_writes_from_many_threads(dynamodb: Any, settings: Settings) -> None:
    """Unserialised, moto's rollback copy of a table other threads write to fails with "dictionary
    changed size during iteration"."""
    client = boto3.client("dynamodb", region_name=aws_region(settings))
    checkpoints = settings.checkpoint_table
    client.put_item(
        TableName=settings.locks_table,
        Item={"pk": {"S": "conversation#t"}, "owner": {"S": "x"}, "ttl": {"N": "9999999999"}},
    )
    errors: list[Exception] = []

    def work(thread: int) -> None:
        try:
            for n in range(40):
                if n % 2:
                    client.put_item(TableName=checkpoints, Item={"PK": {"S": f"p{thread}"}, "SK": {"S": str(n)}})
                else:
                    client.transact_write_items(
                        TransactItems=[
                            held_condition(settings.locks_table, "conversation#t", "x"),
                            _put(checkpoints, f"t{thread}", str(n)),
                        ]
                    )
        except Exception as exc:  # collected: an assertion in a thread would be lost
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[:3]
    assert client.scan(TableName=checkpoints, Select="COUNT")["Count"] == 8 * 40
