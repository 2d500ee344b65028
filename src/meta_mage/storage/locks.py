"""LocksTable repository: one short-lived item per conversation while a turn runs.

A conditional put takes the lock only if no unexpired holder has it, so two ``/chat`` requests on
one conversation never interleave; the ``ttl`` attribute lets DynamoDB delete stale locks, and the
condition ignores expired ones before that happens.
"""

from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import ClientError


class LocksRepository:
    """All reads and writes of the LocksTable."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def acquire(self, name: str, owner: str, seconds: int) -> bool:
        """Take the lock ``name`` for ``seconds``; False when someone else holds it."""
        now = int(time.time())
        try:
            self.table.put_item(
                Item={"pk": name, "owner": owner, "ttl": now + seconds},
                ConditionExpression="attribute_not_exists(pk) OR #ttl < :now",
                ExpressionAttributeNames={"#ttl": "ttl"},
                ExpressionAttributeValues={":now": now},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def release(self, name: str, owner: str) -> None:
        """Drop the lock if ``owner`` still holds it."""
        try:
            self.table.delete_item(
                Key={"pk": name},
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": owner},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
