"""What every part of the repository shares: the table it holds, and the conditions and transaction limits of
its conditional writes."""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Attr
from botocore.exceptions import ClientError

from meta_mage.storage.dynamo import Item

WRITE_ATTEMPTS = 12  # conditional writes lost to other writers of the same item before giving up
_TRANSACTION_ITEMS = 99  # DynamoDB's 100, less the check that the day is still at the version written
_TRANSACTION_BYTES = 3_500_000  # DynamoDB's limit is 4 MB per transaction


class TableAccess:
    """The MetaTable a part of the repository reads and writes."""

    def __init__(self, table: Any) -> None:
        self.table = table


def unchanged_since(version: int | None) -> Any:
    """The condition that an item is still as read: absent (None), unversioned (0) or at ``version``."""
    if version is None:
        return Attr("pk").not_exists()
    return Attr("version").not_exists() if version == 0 else Attr("version").eq(version)


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def refused(exc: ClientError) -> bool:
    """DynamoDB refused the request for what it held (an item too large): no retry can fix it."""
    return _error_code(exc) == "ValidationException"


def condition_failed(exc: ClientError) -> bool:
    return _error_code(exc) == "ConditionalCheckFailedException"


def cancellation_reasons(exc: ClientError) -> list[str] | None:
    """The reason of each action of a cancelled transaction; None when ``exc`` is no cancelled transaction."""
    if _error_code(exc) != "TransactionCanceledException":
        return None
    return [str(reason.get("Code")) for reason in exc.response.get("CancellationReasons", [])]


def cancelled_by_condition(exc: ClientError) -> bool:
    """A transaction cancelled because one of its conditions failed."""
    return "ConditionalCheckFailed" in (cancellation_reasons(exc) or [])


def transaction_chunks(actions: list[Item]) -> list[list[Item]]:
    """``actions`` in transactions within DynamoDB's item and size limits."""
    chunks: list[list[Item]] = [[]]
    size = 0
    for action in actions:
        item = action.get("Put", {}).get("Item", {})
        weight = len(item.get("data", b"")) + 200
        if len(chunks[-1]) == _TRANSACTION_ITEMS or (chunks[-1] and size + weight > _TRANSACTION_BYTES):
            chunks.append([])
            size = 0
        chunks[-1].append(action)
        size += weight
    return [chunk for chunk in chunks if chunk]
