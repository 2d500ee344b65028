"""Conversation memory: langgraph-checkpoint-aws's DynamoDBSaver on the CheckpointTable."""

from __future__ import annotations

import contextlib
import logging
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph_checkpoint_aws import DynamoDBSaver
from langgraph_checkpoint_aws.checkpoint.dynamodb.unified_repository import (
    _checkpoint_pk,
    _checkpoint_ref_pk,
    _checkpoint_s3_key,
    _checkpoint_sk,
)

from meta_mage.agent.state import TURN_OPEN, Pending, Route
from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region, default_session, sdk_errors
from meta_mage.storage.locks import LockLost, conversation_lock, held_condition

logger = logging.getLogger(__name__)

# DynamoDBSaver writes its expiry time under this attribute; template.yaml's TTL must name it.
TTL_ATTRIBUTE = "ttl"
# The configurable key naming the owner of the conversation's lock for this run: its checkpoint is fenced.
LOCK_OWNER = "lock_owner"


def _storage_errors(table: str, operation: str) -> contextlib.AbstractContextManager[None]:
    """The SDK's errors (after its retries) as ``StorageUnavailable`` naming the table and the operation."""
    return sdk_errors(f"table {table}, checkpoint {operation}")


class ConversationSaver(DynamoDBSaver):  # type: ignore[misc]
    """A DynamoDBSaver that never stores half a turn, nor a turn that lost its conversation's lock.

    Turns run with ``durability="exit"``: one checkpoint, written when the run ends. LangGraph writes
    it also when the run ends early (a node raised, the client went away and the stream was
    cancelled), and that checkpoint holds the question without its answer. It still has
    ``TURN_OPEN`` set, so it is dropped here (with its pending writes): the conversation stays as the
    previous turn left it.

    Every DynamoDB call raises ``StorageUnavailable`` on an SDK error (the async methods of the base
    class run these sync ones in a worker thread).

    A run whose config carries ``LOCK_OWNER`` writes its checkpoint in one transaction with a check that
    the owner still holds the conversation's lock (``locks_table``); when it does not, ``LockLost`` is
    raised and nothing becomes visible, so a turn that outlived its lock cannot overwrite a later one.
    """

    # the state's own models, allowed back out of a checkpoint (LangGraph warns about, and will block, others)
    serde = JsonPlusSerializer(allowed_msgpack_modules=[Route, Pending])

    def __init__(self, *args: Any, locks_table: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.locks_table = locks_table
        self._dropped: deque[str] = deque(maxlen=256)

    def _drop(self, config: RunnableConfig, checkpoint: Checkpoint) -> RunnableConfig | None:
        if not checkpoint.get("channel_values", {}).get(TURN_OPEN):
            return None
        self._dropped.append(checkpoint["id"])
        logger.info("unfinished turn of %s not stored", config["configurable"].get("thread_id"))
        return {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        dropped = self._drop(config, checkpoint)
        if dropped is not None:
            return dropped
        owner = config["configurable"].get(LOCK_OWNER)
        with _storage_errors(self.repo.table_name, "put"):
            if owner and self.locks_table:
                return self._put_fenced(config, checkpoint, metadata, str(owner))
            stored: RunnableConfig = super().put(config, checkpoint, metadata, new_versions)
        return stored

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        # decided here, before the write goes to a worker thread, so the writes that follow see it
        dropped = self._drop(config, checkpoint)
        if dropped is not None:
            return dropped
        stored: RunnableConfig = await super().aput(config, checkpoint, metadata, new_versions)
        return stored

    def put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        if config["configurable"].get("checkpoint_id") in self._dropped:
            return
        with _storage_errors(self.repo.table_name, "put_writes"):
            super().put_writes(config, writes, task_id, task_path)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        with _storage_errors(self.repo.table_name, "get_tuple"):
            found: CheckpointTuple | None = super().get_tuple(config)
        return found

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        with _storage_errors(self.repo.table_name, "list"):
            yield from super().list(config, filter=filter, before=before, limit=limit)

    def delete_thread(self, thread_id: str) -> None:
        with _storage_errors(self.repo.table_name, "delete_thread"):
            super().delete_thread(thread_id)

    def _put_fenced(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, owner: str
    ) -> RunnableConfig:
        """DynamoDBSaver's ``put`` (the same items), with the checkpoint's metadata item written in one
        transaction with the lock check. The payload goes first: until the metadata item names it, no
        reader sees it, and a refused turn leaves only that unreferenced item, which its ttl removes."""
        repo = self.repo
        configurable = config["configurable"]
        thread_id, namespace = str(configurable["thread_id"]), str(configurable.get("checkpoint_ns", ""))
        checkpoint_id = checkpoint["id"]
        stored_metadata = {**metadata, **(config.get("metadata") or {})}
        payload_type, payload, compression = repo.serializer.serialize(
            {"checkpoint": checkpoint, "metadata": stored_metadata}
        )
        chunk_key = _checkpoint_ref_pk(thread_id, namespace, checkpoint_id)
        s3_key = _checkpoint_s3_key(thread_id, namespace, checkpoint_id)
        location = repo._determine_storage_location(payload)
        item: dict[str, Any] = {
            "PK": {"S": _checkpoint_pk(thread_id)},
            "SK": {"S": _checkpoint_sk(namespace, checkpoint_id)},
            "id": {"S": checkpoint_id},
            "ns": {"S": namespace},
            "type": {"S": payload_type},
            "ref_loc": {"S": location},
            "ref_key": {"S": s3_key if location == "S3" else chunk_key},
        }
        if configurable.get("checkpoint_id"):
            item["parent_checkpoint_id"] = {"S": str(configurable["checkpoint_id"])}
        if compression:
            item["compression"] = {"S": compression.value}
        if repo.ttl_seconds:
            item["ttl"] = {"N": str(int(time.time() + repo.ttl_seconds))}
        repo.storage.store_data(chunk_key, s3_key, payload, allow_overwrite=True)
        assert self.locks_table is not None
        fence = held_condition(self.locks_table, conversation_lock(thread_id), owner)
        try:
            self.client.transact_write_items(
                TransactItems=[fence, {"Put": {"TableName": repo.table_name, "Item": item}}]
            )
        except ClientError as exc:
            reasons = [r.get("Code") for r in exc.response.get("CancellationReasons") or []]
            if exc.response["Error"]["Code"] == "TransactionCanceledException" and reasons[:1] == [
                "ConditionalCheckFailed"
            ]:
                logger.warning("turn of %s not stored: it no longer held the conversation's lock", thread_id)
                raise LockLost(
                    "This answer was not saved: it took so long that the conversation was freed for another "
                    "message. Please ask again.",
                    field="conversation_id",
                ) from None
            raise
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace, "checkpoint_id": checkpoint_id}}


def make_checkpointer(settings: Settings) -> Any:
    """A DynamoDBSaver whose items carry a ``ttl`` ``conversation_ttl_seconds`` after each write, and whose
    turn checkpoints are fenced by the LocksTable.

    DynamoDB deletes expired items lazily (within days), so ``Conversations`` also checks the
    conversation's last activity on every read.
    """
    return ConversationSaver(
        table_name=settings.checkpoint_table,
        session=default_session(),
        region_name=aws_region(settings),
        ttl_seconds=settings.conversation_ttl_seconds,
        enable_checkpoint_compression=True,
        locks_table=settings.locks_table,
    )
