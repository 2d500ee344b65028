"""LocksTable repository: short-lived items keyed by conversation.

- ``conversation#<id>``: the lock a ``/chat`` turn holds. A conditional put takes it only if no
  unexpired holder has it, so two requests on one conversation never interleave.
- ``welcome#<id>``: a conversation id issued by the small ``/welcome`` function (which has no
  checkpointer), with its welcome message; the chat function turns it into the conversation when
  the id is first used.

The ``ttl`` attribute lets DynamoDB delete stale items, and every condition ignores expired ones
before that happens.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
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
        taken = _conditional(
            lambda: self.table.put_item(
                Item={"pk": name, "owner": owner, "ttl": now + seconds},
                ConditionExpression="attribute_not_exists(pk) OR #ttl < :now",
                ExpressionAttributeNames={"#ttl": "ttl"},
                ExpressionAttributeValues={":now": now},
            ),
            f"{name} could not be locked",
        )
        return taken is not None

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


class IssuedConversations:
    """Conversation ids issued by ``/welcome`` and not yet used, in the LocksTable (``welcome#<id>``)."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def issue(self, conversation_id: str, welcome: dict[str, Any], seconds: int) -> None:
        """Record ``conversation_id`` (server-made) with its welcome payload for ``seconds``."""
        failure = "a conversation could not be started"
        written = _conditional(
            lambda: self.table.put_item(
                Item={
                    "pk": f"welcome#{conversation_id}",
                    "welcome": json.dumps(welcome, ensure_ascii=False, separators=(",", ":")),
                    "ttl": int(time.time()) + seconds,
                },
                ConditionExpression="attribute_not_exists(pk)",  # never overwrite an issued id
            ),
            failure,
        )
        if written is None:
            raise LockUnavailable(f"{failure} (its id was already issued); please try again")

    def claim(self, conversation_id: str) -> dict[str, Any] | None:
        """The welcome payload of an issued, unexpired id, removing it (once); None when there is none."""
        response = _conditional(
            lambda: self.table.delete_item(
                Key={"pk": f"welcome#{conversation_id}"},
                ConditionExpression="attribute_exists(pk) AND #ttl >= :now",
                ExpressionAttributeNames={"#ttl": "ttl"},
                ExpressionAttributeValues={":now": int(time.time())},
                ReturnValues="ALL_OLD",
            ),
            f"conversation {conversation_id} could not be read",
        )
        if response is None:
            return None
        welcome: dict[str, Any] = json.loads(response["Attributes"]["welcome"])
        return welcome


def _conditional(write: Callable[[], Any], failure: str) -> Any | None:
    """``write``'s response, or None when its condition did not hold; LockUnavailable saying ``failure``
    when DynamoDB did not answer (after the SDK's retries)."""
    try:
        return write()
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
            return None
        raise LockUnavailable(f"{failure} ({_reason(exc)}); please try again") from exc
    except BotoCoreError as exc:
        raise LockUnavailable(f"{failure} ({_reason(exc)}); please try again") from exc


def _reason(exc: Exception) -> str:
    if isinstance(exc, ClientError):
        return str(exc.response["Error"].get("Code") or type(exc).__name__)
    return type(exc).__name__
