"""Conversation memory: langgraph-checkpoint-aws's DynamoDBSaver on the CheckpointTable, storing only
finished turns, and a turn's checkpoint only while it holds its conversation's lock. The table's reads and
writes are ``storage.checkpoints.CheckpointRepository``'s."""

from __future__ import annotations

import copy
import logging
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph_checkpoint_aws import DynamoDBSaver

from meta_mage.agent.state import TURN_OPEN, Pending, Route
from meta_mage.config import Settings
from meta_mage.storage.checkpoints import CheckpointRepository, saver_options

logger = logging.getLogger(__name__)

# The configurable key naming the owner of the conversation's lock for this run: its checkpoint is fenced.
LOCK_OWNER = "lock_owner"


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
    the owner still holds the conversation's lock (the repository's ``locks_table``); when it does not, ``LockLost`` is
    raised and nothing becomes visible, so a turn that outlived its lock cannot overwrite a later one.
    """

    repo: CheckpointRepository

    # the state's own models, allowed back out of a checkpoint (LangGraph warns about, and will block, others);
    # checkpoints written before they moved to models.conversation name them in agent.state, which re-exports them
    serde = JsonPlusSerializer(
        allowed_msgpack_modules=[Route, Pending, *(("meta_mage.agent.state", name) for name in ("Route", "Pending"))]
    )

    def __init__(self, *args: Any, locks_table: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.repo = CheckpointRepository.of(self.repo, locks_table)
        self._dropped: deque[str] = deque(maxlen=256)
        self._read_once: dict[str, list[CheckpointTuple | None]] = {}  # thread id -> the latest checkpoint read

    @contextmanager
    def reading_once(self, thread_id: str) -> Iterator[None]:
        """Within the block, the conversation's latest checkpoint is read from DynamoDB once: the next read
        of it (the run that follows a turn's load) gets a copy of that answer instead of three more requests.
        For a turn, whose conversation no other turn writes meanwhile (its lock); a write ends the reuse."""
        if thread_id in self._read_once:  # another turn of the conversation reads at the same moment
            yield
            return
        self._read_once[thread_id] = []
        try:
            yield
        finally:
            self._read_once.pop(thread_id, None)

    def _latest(self, config: RunnableConfig) -> list[CheckpointTuple | None] | None:
        """The read-once slot of the config's conversation, when it asks for the latest checkpoint."""
        configurable = config.get("configurable", {})
        if configurable.get("checkpoint_id") or configurable.get("checkpoint_ns"):
            return None
        return self._read_once.get(str(configurable.get("thread_id")))

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
        if (dropped := self._drop(config, checkpoint)) is not None:
            return dropped
        self._forget(config)
        owner = config["configurable"].get(LOCK_OWNER)
        with self.repo.errors("put"):
            if owner and self.repo.locks_table:
                return self._put_fenced(config, checkpoint, metadata, str(owner))
            stored: RunnableConfig = super().put(config, checkpoint, metadata, new_versions)
        return stored

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, *rest: Any, **named: Any) -> RunnableConfig:
        """``put``'s unfinished-turn check, then the saver's own asynchronous write (the rest passed on as given)."""
        # decided here, before the write goes to a worker thread, so the writes that follow see it
        stored: RunnableConfig = self._drop(config, checkpoint) or await super().aput(
            config, checkpoint, *rest, **named
        )
        return stored

    def put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        if config["configurable"].get("checkpoint_id") in self._dropped:
            return
        self._forget(config)
        with self.repo.errors("put_writes"):
            super().put_writes(config, writes, task_id, task_path)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        slot = self._latest(config)
        if slot:
            return copy.deepcopy(slot.pop())  # the second read: the first one's answer, once
        with self.repo.errors("get_tuple"):
            found: CheckpointTuple | None = super().get_tuple(config)
        if slot is not None:
            slot.append(copy.deepcopy(found))
        return found

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        with self.repo.errors("list"):
            yield from super().list(config, filter=filter, before=before, limit=limit)

    def delete_thread(self, thread_id: str) -> None:
        self._read_once.get(thread_id, []).clear()
        with self.repo.errors("delete_thread"):
            super().delete_thread(thread_id)

    def _forget(self, config: RunnableConfig) -> None:
        self._read_once.get(str(config["configurable"].get("thread_id")), []).clear()

    def _put_fenced(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, owner: str
    ) -> RunnableConfig:
        """DynamoDBSaver's ``put``, written only while ``owner`` holds the conversation's lock."""
        configurable = config["configurable"]
        thread_id, namespace = str(configurable["thread_id"]), str(configurable.get("checkpoint_ns", ""))
        parent_id = configurable.get("checkpoint_id")
        stored_metadata = {**metadata, **(config.get("metadata") or {})}
        self.repo.put_fenced(
            thread_id, namespace, checkpoint, stored_metadata, str(parent_id) if parent_id else None, owner
        )
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace, "checkpoint_id": checkpoint["id"]}}


def make_checkpointer(settings: Settings) -> Any:
    """A DynamoDBSaver whose items carry a ``ttl`` ``conversation_ttl_seconds`` after each write, and whose
    turn checkpoints are fenced by the LocksTable.

    DynamoDB deletes expired items lazily (within days), so ``Conversations`` also checks the
    conversation's last activity on every read.
    """
    return ConversationSaver(**saver_options(settings), locks_table=settings.locks_table)
