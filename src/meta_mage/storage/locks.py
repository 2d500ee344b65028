"""LocksTable repository: one short-lived item per conversation while a turn runs.

A conditional put takes the lock only if no unexpired holder has it, so two ``/chat`` requests on
one conversation never interleave; the ``ttl`` attribute lets DynamoDB delete stale locks, and the
condition ignores expired ones before that happens.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from meta_mage.errors import MetaMageError

logger = logging.getLogger(__name__)


class LockUnavailable(MetaMageError):
    """The LocksTable did not answer (after the SDK's retries), so the lock could not be taken."""

    code = "lock_unavailable"


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
            raise LockUnavailable(f"{name} could not be locked ({_reason(exc)}); please try again") from exc
        except BotoCoreError as exc:
            raise LockUnavailable(f"{name} could not be locked ({_reason(exc)}); please try again") from exc
        return True

    def release(self, name: str, owner: str) -> None:
        """Drop the lock if ``owner`` still holds it. Never raises: called once the answer is out, and a
        lock that cannot be dropped now frees itself when its ``ttl`` passes."""
        try:
            self.table.delete_item(
                Key={"pk": name},
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": owner},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                logger.warning("%s not released (%s); it expires with its ttl", name, _reason(exc))
        except BotoCoreError as exc:
            logger.warning("%s not released (%s); it expires with its ttl", name, _reason(exc))


def _reason(exc: Exception) -> str:
    if isinstance(exc, ClientError):
        return str(exc.response["Error"].get("Code") or type(exc).__name__)
    return type(exc).__name__
