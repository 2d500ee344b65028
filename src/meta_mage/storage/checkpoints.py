"""CheckpointTable repository: the coach's conversation memory, in langgraph-checkpoint-aws's layout.

``CheckpointRepository`` is that library's repository (every read and write of the table) with one write of
its own: a turn's checkpoint stored in one transaction with a check that the turn still holds its
conversation's lock in the LocksTable, so a turn that outlived its lock cannot overwrite a later one.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from botocore.exceptions import ClientError
from langgraph_checkpoint_aws.checkpoint.dynamodb.unified_repository import (
    UnifiedRepository,
    _checkpoint_pk,
    _checkpoint_ref_pk,
    _checkpoint_s3_key,
    _checkpoint_sk,
)

from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region, default_session, sdk_errors
from meta_mage.storage.locks import LockLost, conversation_lock, held_condition

logger = logging.getLogger(__name__)

# DynamoDBSaver writes its expiry time under this attribute; template.yaml's TTL must name it.
TTL_ATTRIBUTE = "ttl"


def saver_options(settings: Settings) -> dict[str, Any]:
    """DynamoDBSaver's arguments for the configured CheckpointTable: the process's shared session and region,
    items carrying a ``ttl`` ``conversation_ttl_seconds`` after each write, compressed checkpoints."""
    return {
        "table_name": settings.checkpoint_table,
        "session": default_session(),
        "region_name": aws_region(settings),
        "ttl_seconds": settings.conversation_ttl_seconds,
        "enable_checkpoint_compression": True,
    }


class CheckpointRepository(UnifiedRepository):  # type: ignore[misc]
    """All reads and writes of the CheckpointTable: the library's, plus ``put_fenced``."""

    def __init__(self, *args: Any, locks_table: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.locks_table = locks_table

    @classmethod
    def of(cls, repository: Any, locks_table: str | None) -> CheckpointRepository:
        """``repository`` (a DynamoDBSaver's, on the same client and table) with the LocksTable that fences
        a turn's checkpoint (None: no fencing)."""
        return cls(
            dynamodb_client=repository.dynamodb_client,
            table_name=repository.table_name,
            serializer=repository.serializer,
            storage_strategy=repository.storage,
            ttl_seconds=repository.ttl_seconds,
            locks_table=locks_table,
        )

    def errors(self, operation: str) -> contextlib.AbstractContextManager[None]:
        """The SDK's errors (after its retries) as ``StorageUnavailable`` naming the table and ``operation``."""
        return sdk_errors(f"table {self.table_name}, checkpoint {operation}")

    def put_fenced(
        self,
        thread_id: str,
        namespace: str,
        checkpoint: Any,
        metadata: dict[str, Any],
        parent_checkpoint_id: str | None,
        owner: str,
    ) -> None:
        """The library's ``put_checkpoint`` (the same items), with the checkpoint's metadata item written in one
        transaction with the check that ``owner`` holds ``thread_id``'s lock; ``LockLost`` when it does not.
        The payload goes first: until the metadata item names it, no reader sees it, and a refused turn
        leaves only that unreferenced item, which its ttl removes."""
        assert self.locks_table is not None
        checkpoint_id = checkpoint["id"]
        payload_type, payload, compression = self.serializer.serialize({"checkpoint": checkpoint, "metadata": metadata})
        chunk_key = _checkpoint_ref_pk(thread_id, namespace, checkpoint_id)
        s3_key = _checkpoint_s3_key(thread_id, namespace, checkpoint_id)
        location = self._determine_storage_location(payload)
        item: dict[str, Any] = {
            "PK": {"S": _checkpoint_pk(thread_id)},
            "SK": {"S": _checkpoint_sk(namespace, checkpoint_id)},
            "id": {"S": checkpoint_id},
            "ns": {"S": namespace},
            "type": {"S": payload_type},
            "ref_loc": {"S": location},
            "ref_key": {"S": s3_key if location == "S3" else chunk_key},
        }
        if parent_checkpoint_id:
            item["parent_checkpoint_id"] = {"S": parent_checkpoint_id}
        if compression:
            item["compression"] = {"S": compression.value}
        if self.ttl_seconds:
            item[TTL_ATTRIBUTE] = {"N": str(int(time.time() + self.ttl_seconds))}
        self.storage.store_data(chunk_key, s3_key, payload, allow_overwrite=True)
        fence = held_condition(self.locks_table, conversation_lock(thread_id), owner)
        try:
            self.dynamodb_client.transact_write_items(
                TransactItems=[fence, {"Put": {"TableName": self.table_name, "Item": item}}]
            )
        except ClientError as exc:
            reasons = [r.get("Code") for r in exc.response.get("CancellationReasons") or []]
            if exc.response["Error"]["Code"] == "TransactionCanceledException" and reasons[:1] == [
                "ConditionalCheckFailed"
            ]:
                # INFO: a turn stopped (its client gone, or its lease lost, which the lease logs as a warning) may
                # still be writing in its worker thread when the lock is released; the fence refusing it is the design
                logger.info("turn of %s not stored: it no longer held the conversation's lock", thread_id)
                raise LockLost(
                    "This answer was not saved: it took so long that the conversation was freed for another "
                    "message. Please ask again.",
                    field="conversation_id",
                ) from None
            raise
