"""LocksTable repository: short-lived items keyed by conversation.

- ``conversation#<id>``: the lock a ``/chat`` turn holds, as a short lease its owner renews while the turn
  runs. A conditional put takes it only if no unexpired holder has it, so two requests on one conversation
  never interleave; the turn's checkpoint write is fenced by ``held_condition`` in the same transaction.
- ``welcome#<id>``: a conversation id issued by the small ``/welcome`` function (which has no
  checkpointer), with its welcome message; the chat function turns it into the conversation when
  the id is first used.
- ``welcome-message#<model>#<day>#<hash>``: the LLM-written welcome message of one model, day and catalog, written
  once and served to every visitor that day (``api/welcome.py``).

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
from meta_mage.models.json import JsonObject
from meta_mage.storage.dynamo import Item

logger = logging.getLogger(__name__)


class LockUnavailable(MetaMageError):
    """The LocksTable did not answer (after the SDK's retries), so the lock could not be taken."""

    code = "lock_unavailable"


class LockLost(MetaMageError):
    """A turn's lock expired or passed to another turn before the turn could store its answer."""

    code = "lock_lost"


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

    def renew(self, name: str, owner: str, seconds: int) -> bool:
        """Extend ``owner``'s unexpired lock to ``seconds`` from now; False when ``owner`` no longer holds it.
        LockUnavailable when DynamoDB did not answer."""
        now = int(time.time())
        renewed = _conditional(
            lambda: self.table.update_item(
                Key={"pk": name},
                UpdateExpression="SET #ttl = :until",
                ConditionExpression="#owner = :owner AND #ttl >= :now",
                ExpressionAttributeNames={"#owner": "owner", "#ttl": "ttl"},
                ExpressionAttributeValues={":owner": owner, ":now": now, ":until": now + seconds},
            ),
            f"{name} could not be renewed",
        )
        return renewed is not None

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


def conversation_lock(conversation_id: str) -> str:
    """The name of the lock a ``/chat`` turn of ``conversation_id`` holds."""
    return f"conversation#{conversation_id}"


def held_condition(table_name: str, name: str, owner: str) -> Item:
    """A ``TransactWriteItems`` ``ConditionCheck`` (low-level client form) that holds only while ``owner``
    holds the unexpired lock ``name`` in the LocksTable ``table_name``: the fence a write puts beside itself
    in one transaction, so it cannot land after its lock was lost."""
    return {
        "ConditionCheck": {
            "TableName": table_name,
            "Key": {"pk": {"S": name}},
            "ConditionExpression": "#owner = :owner AND #ttl >= :now",
            "ExpressionAttributeNames": {"#owner": "owner", "#ttl": "ttl"},
            "ExpressionAttributeValues": {":owner": {"S": owner}, ":now": {"N": str(int(time.time()))}},
        }
    }


class IssuedConversations:
    """Conversation ids issued by ``/welcome`` and not yet used, in the LocksTable (``welcome#<id>``)."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def issue(self, conversation_id: str, welcome: JsonObject, seconds: int) -> None:
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

    def claim(self, conversation_id: str) -> JsonObject | None:
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
        welcome: JsonObject = json.loads(response["Attributes"]["welcome"])
        return welcome


class WelcomeMessages:
    """Welcome messages a model wrote, one per model, day and catalog (``welcome-message#<key>``)."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def get(self, key: str) -> str | None:
        """The stored message for ``key`` while it is unexpired, else None (also when DynamoDB does not answer:
        the caller then writes one)."""
        try:
            item = self.table.get_item(Key={"pk": f"welcome-message#{key}"}).get("Item")
        except (BotoCoreError, ClientError) as exc:
            logger.warning("welcome message could not be read: %s", _reason(exc))
            return None
        if item is None or int(item.get("ttl", 0)) < time.time():
            return None
        return str(item["message"])

    def put(self, key: str, message: str, seconds: int) -> str:
        """Keep ``message`` for ``key`` for ``seconds`` unless another instance kept one first; the message kept
        (``message`` too when DynamoDB does not answer: it only costs the next instance a model request)."""
        item = {"pk": f"welcome-message#{key}", "message": message, "ttl": int(time.time()) + seconds}
        try:
            self.table.put_item(
                Item=item,
                ConditionExpression="attribute_not_exists(pk) OR #ttl < :now",
                ExpressionAttributeNames={"#ttl": "ttl"},
                ExpressionAttributeValues={":now": int(time.time())},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return self.get(key) or message
            logger.warning("welcome message could not be stored: %s", _reason(exc))
        except BotoCoreError as exc:
            logger.warning("welcome message could not be stored: %s", _reason(exc))
        return message


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
