"""moto as our embedded DynamoDB (``serialise_moto_dynamodb``, applied by tests/conftest.py and by
``embedded_dynamodb``): transactions still roll back, and stay correct while other threads write; answers
are what stock moto answers."""

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


def test_a_refused_transaction_leaves_every_item_it_named_as_it_was(dynamodb: Any, settings: Settings) -> None:
    client = boto3.client("dynamodb", region_name=aws_region(settings))
    table = settings.checkpoint_table
    client.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "1"}, "n": {"N": "1"}})
    client.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "2"}, "n": {"N": "2"}})
    before = client.scan(TableName=table)["Items"]
    # When a transaction updates one item, deletes another, adds a third, and then its last condition fails
    with pytest.raises(ClientError) as refused:
        client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": table,
                        "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}},
                        "UpdateExpression": "SET n = :n",
                        "ExpressionAttributeValues": {":n": {"N": "9"}},
                    }
                },
                {"Delete": {"TableName": table, "Key": {"PK": {"S": "a"}, "SK": {"S": "2"}}}},
                _put(table, "b", "1"),
                {
                    "ConditionCheck": {
                        "TableName": table,
                        "Key": {"PK": {"S": "z"}, "SK": {"S": "z"}},
                        "ConditionExpression": "attribute_exists(PK)",
                    }
                },
            ]
        )
    # Then it is refused, and the table holds exactly what it held
    assert refused.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert client.scan(TableName=table)["Items"] == before


def test_items_are_written_as_stock_moto_writes_them(dynamodb: Any, settings: Settings) -> None:
    """``write_plain_attributes_directly`` and ``parse_attributes_directly``: every attribute type is stored and
    reads back the same through both parsers and both writers."""
    from moto.core.parse import BaseJSONParser
    from moto.core.serialize import BaseJSONSerializer

    client = boto3.client("dynamodb", region_name=aws_region(settings))
    item = {
        "PK": {"S": "every type"},
        "SK": {"S": "k"},
        "e": {"S": ""},
        "n": {"N": "-1.50"},
        "b": {"B": bytes(range(256))},
        "t": {"BOOL": True},
        "f": {"BOOL": False},
        "z": {"NULL": True},
        "m": {"M": {"s": {"S": "x"}, "l": {"L": [{"N": "2"}, {"B": b"\x00"}, {"M": {}}]}}},
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
        "bs": {"BS": [b"\x01", b"\x02"]},
    }

    def answers() -> list[Any]:
        client.put_item(TableName=settings.checkpoint_table, Item=item)
        key = {"PK": item["PK"], "SK": item["SK"]}
        got = client.get_item(TableName=settings.checkpoint_table, Key=key)["Item"]
        queried = client.query(
            TableName=settings.checkpoint_table,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": item["PK"]},
        )["Items"]
        return [got, queried]

    ours = answers()
    direct, parse = BaseJSONSerializer._serialize_type_structure, BaseJSONParser._parse_structure
    BaseJSONSerializer._serialize_type_structure = direct.stock  # type: ignore[attr-defined,method-assign]
    BaseJSONParser._parse_structure = parse.stock  # type: ignore[attr-defined,method-assign]
    try:
        stock = answers()
    finally:
        BaseJSONSerializer._serialize_type_structure = direct  # type: ignore[method-assign]
        BaseJSONParser._parse_structure = parse  # type: ignore[method-assign]
    assert ours == stock == [item, [item]]


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


def test_queries_and_scans_answer_as_stock_moto_does(modern_world: dict[str, Any]) -> None:
    """``read_quickly``: every Query and Scan shape the app uses (and more) gives stock moto's pages."""
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.models.table import Table

    from meta_mage.local.embedded import read_quickly

    read_quickly()
    db, settings = modern_world["db"], modern_world["settings"]
    client = db.meta.client  # the resource's client: plain Python values in and out
    tables = [settings.meta_table, settings.cards_table, settings.drafts_table]
    queries: list[dict[str, Any]] = []
    scans: list[dict[str, Any]] = []
    for table in tables:
        keys = client.scan(TableName=table, Limit=400)["Items"]
        scans += [
            {"TableName": table, "Limit": 7},
            {
                "TableName": table,
                "Limit": 5,
                "ExclusiveStartKey": {k: keys[-1][k] for k in ("pk", "sk") if k in keys[-1]},
            },
            {"TableName": table, "ProjectionExpression": "pk, #n", "ExpressionAttributeNames": {"#n": "name"}},
            {"TableName": table, "FilterExpression": "attribute_exists(sk)", "Limit": 50},
        ]
        for pk in sorted({k["pk"] for k in keys})[:12]:
            base = {
                "TableName": table,
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": {":pk": pk},
            }
            queries += [
                base,
                {**base, "ProjectionExpression": "pk, #d, version", "ExpressionAttributeNames": {"#d": "data"}},
            ]
            first_sk = next((k["sk"] for k in keys if k["pk"] == pk and "sk" in k), None)
            if first_sk is None:  # a table without a sort key
                continue
            queries += [
                {**base, "ScanIndexForward": False, "Limit": 3},
                {
                    **base,
                    "KeyConditionExpression": "pk = :pk AND begins_with(sk, :sk)",
                    "ExpressionAttributeValues": {":pk": pk, ":sk": first_sk[:3]},
                },
                {**base, "Limit": 2, "ExclusiveStartKey": {"pk": pk, "sk": first_sk}},
                {**base, "FilterExpression": "attribute_exists(sk)", "Limit": 5},
                {**base, "ProjectionExpression": "sk, events[0], digests.x"},
            ]
        queries.append({**queries[0], "ExpressionAttributeValues": {":pk": "no such partition"}})

    def walked(scan: dict[str, Any]) -> list[Any]:
        """Every page of a Scan, each resuming where the last ended."""
        found = [client.scan(**scan)]
        while "LastEvaluatedKey" in found[-1]:
            found.append(client.scan(**scan, ExclusiveStartKey=found[-1]["LastEvaluatedKey"]))
        return found

    def pages() -> list[Any]:
        answers = [client.query(**q) for q in queries] + [client.scan(**s) for s in scans]
        answers += walked({"TableName": settings.meta_table, "Limit": 700})
        return [{k: v for k, v in page.items() if k != "ResponseMetadata"} for page in answers]

    ours = pages()
    again = pages()  # the sizes remembered by the first reads
    patched = Table.query, Table.scan, Table.all_items, Item.project, Item.size
    Table.query, Table.scan, Table.all_items, Item.project, Item.size = (p.stock for p in patched)  # type: ignore[method-assign,attr-defined]
    try:
        stock = pages()
    finally:
        Table.query, Table.scan, Table.all_items, Item.project, Item.size = patched  # type: ignore[method-assign]
    assert len(queries) > 100 and sum(len(p["Items"]) for p in ours) > 1000
    assert ours == again == stock


def test_a_read_after_a_write_sizes_the_items_afresh(dynamodb: Any, settings: Settings) -> None:
    """``size_items_once``: a size remembered by one read is not used after a write changed the item in place."""
    client = boto3.client("dynamodb", region_name=aws_region(settings))
    table = settings.checkpoint_table
    for n in range(4):
        client.put_item(TableName=table, Item={"PK": {"S": "grows"}, "SK": {"S": f"{n}"}, "x": {"S": "small"}})
    query = {
        "TableName": table,
        "KeyConditionExpression": "PK = :pk",
        "ExpressionAttributeValues": {":pk": {"S": "grows"}},
    }
    # Given a partition read whole (each item's size remembered)
    first = client.query(**query)
    assert first["Count"] == 4 and "LastEvaluatedKey" not in first
    # When each item grows in place to 300 KB (1.2 MB together)
    for n in range(4):
        client.update_item(
            TableName=table,
            Key={"PK": {"S": "grows"}, "SK": {"S": f"{n}"}},
            UpdateExpression="SET x = :big",
            ExpressionAttributeValues={":big": {"S": "x" * 300_000}},
        )
    # Then a read pages at 1 MB, as it does for items written that size
    again = client.query(**query)
    assert again["Count"] == 3 and again["LastEvaluatedKey"]["SK"] == {"S": "2"}
    # and a Scan resumed after a write sees the item written (the table's key order is not kept past it)
    scan = {"TableName": table, "Limit": 2, "ProjectionExpression": "PK, SK"}
    first_page = client.scan(**scan)
    client.put_item(TableName=table, Item={"PK": {"S": "grows"}, "SK": {"S": "9"}})
    rest = client.scan(**scan, ExclusiveStartKey=first_page["LastEvaluatedKey"])["Items"]
    rest += client.scan(**scan, ExclusiveStartKey={"PK": {"S": "grows"}, "SK": {"S": "3"}})["Items"]
    assert [item["SK"]["S"] for item in first_page["Items"] + rest] == ["0", "1", "2", "3", "9"]


@pytest.mark.parametrize("extra", [0, 1])
def test_an_item_is_refused_over_the_item_limit_as_stock_moto_refuses_it(
    dynamodb: Any, settings: Settings, extra: int
) -> None:
    """``size_items_once``: an item's size is checked once, at the limit stock moto checks it at each attribute."""
    from moto.dynamodb.models.dynamo_type import Item

    client = boto3.client("dynamodb", region_name=aws_region(settings))
    # PK, SK and their values (6 bytes), then two attributes filling the limit to the byte, plus ``extra``
    item = {"PK": {"S": "k"}, "SK": {"S": "k"}, "a": {"S": "a" * 200_000}, "b": {"S": "b" * (204_992 + extra)}}

    def refused() -> bool:
        try:
            client.put_item(TableName=settings.checkpoint_table, Item=item)
        except ClientError as error:
            assert "Item size has exceeded" in error.response["Error"]["Message"]
            return True
        return False

    ours = refused()
    once = Item.__init__
    Item.__init__ = once.stock  # type: ignore[attr-defined,method-assign]
    try:
        stock = refused()
    finally:
        Item.__init__ = once  # type: ignore[method-assign]
    assert ours == stock == bool(extra)


def test_a_table_copied_in_moto_holds_the_same_items_apart(dynamodb: Any, settings: Settings) -> None:
    """``copy_in_moto``: the copy reads back as the original, and a write to one leaves the other as it was."""
    from meta_mage.local.embedded import copy_in_moto
    from meta_mage.storage.tables import table_definitions

    client = boto3.client("dynamodb", region_name=aws_region(settings))
    source = dynamodb.Table(settings.meta_table)
    for n in range(30):
        source.put_item(Item={"pk": f"P{n % 3}", "sk": f"{n:02}", "n": n, "b": bytes([n]), "m": {"l": [n, "x"]}})
    copy = dynamodb.create_table(TableName="copied-meta", **table_definitions()["MetaTable"])  # dropped by the fixture
    copy_in_moto(aws_region(settings), source.name, copy.name)
    assert client.scan(TableName=copy.name)["Items"] == client.scan(TableName=source.name)["Items"]
    copy.update_item(
        Key={"pk": "P0", "sk": "00"}, UpdateExpression="SET m.l[0] = :v", ExpressionAttributeValues={":v": 7}
    )
    assert source.get_item(Key={"pk": "P0", "sk": "00"})["Item"]["m"]["l"][0] == 0
