"""Conversation memory: langgraph-checkpoint-aws's DynamoDBSaver on the CheckpointTable."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph_checkpoint_aws import DynamoDBSaver

from meta_mage.agent.state import TURN_OPEN
from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region, default_session

logger = logging.getLogger(__name__)

# DynamoDBSaver writes its expiry time under this attribute; template.yaml's TTL must name it.
TTL_ATTRIBUTE = "ttl"


class ConversationSaver(DynamoDBSaver):  # type: ignore[misc]
    """A DynamoDBSaver that never stores half a turn.

    Turns run with ``durability="exit"``: one checkpoint, written when the run ends. LangGraph writes
    it also when the run ends early (a node raised, the client went away and the stream was
    cancelled), and that checkpoint holds the question without its answer. It still has
    ``TURN_OPEN`` set, so it is dropped here (with its pending writes): the conversation stays as the
    previous turn left it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
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
        super().put_writes(config, writes, task_id, task_path)


def make_checkpointer(settings: Settings) -> Any:
    """A DynamoDBSaver whose items carry a ``ttl`` ``conversation_ttl_seconds`` after each write.

    DynamoDB deletes expired items lazily (within days), so ``Conversations`` also checks the
    conversation's last activity on every read.
    """
    return ConversationSaver(
        table_name=settings.checkpoint_table,
        session=default_session(),
        region_name=aws_region(settings),
        ttl_seconds=settings.conversation_ttl_seconds,
        enable_checkpoint_compression=True,
    )
