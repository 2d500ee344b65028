"""A ``/chat`` turn under its conversation's lock: the lock is a short lease, renewed while the turn
runs; the turn stops at its deadline, or as soon as the lease can no longer be kept; the lock is released
when the turn is over, however it ended.

The lease is what frees a conversation soon after a crash (nothing renews it); the deadline bounds a
turn whatever its tools do; and the turn's checkpoint write is fenced by the lock (``ConversationSaver``),
so a turn that lost its lock anyway (a paused process, a clock jump) cannot overwrite a later turn.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio

from meta_mage.agent.conversation import AgentEvent
from meta_mage.errors import MetaMageError
from meta_mage.storage.locks import LockLost, LocksRepository, LockUnavailable, conversation_lock

logger = logging.getLogger(__name__)


class TurnTimedOut(MetaMageError):
    code = "turn_timeout"


@dataclass
class TurnLease:
    """The lock one turn holds on its conversation: ``owner`` is this turn's token."""

    locks: LocksRepository
    conversation_id: str
    seconds: int
    owner: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def name(self) -> str:
        return conversation_lock(self.conversation_id)

    @classmethod
    async def take(cls, locks: LocksRepository, conversation_id: str, seconds: int) -> TurnLease | None:
        """The lease, or None when another turn holds the conversation (LockUnavailable when DynamoDB did
        not answer)."""
        lease = cls(locks, conversation_id, seconds)
        # boto3 blocks: every DynamoDB call runs off the event loop
        taken = await asyncio.to_thread(locks.acquire, lease.name, lease.owner, seconds)
        return lease if taken else None

    async def run(self, turn: AsyncIterator[AgentEvent], deadline_seconds: float) -> AsyncIterator[AgentEvent]:
        """``turn``'s events while the lease is kept; an ``error`` event ends a turn stopped at its deadline
        or for want of its lease. The lock is released once the turn has finished or been stopped."""
        events: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        lost = asyncio.Event()
        loop = asyncio.get_running_loop()
        held_until = loop.time() + self.seconds

        async def produce() -> None:
            try:
                async with asyncio.timeout(deadline_seconds):
                    async for event in turn:
                        events.put_nowait(event)
            except TimeoutError:
                logger.warning("turn of %s stopped at its %gs deadline", self.conversation_id, deadline_seconds)
                stopped = TurnTimedOut(
                    f"This answer took longer than {deadline_seconds:g} seconds and was stopped; nothing of it "
                    "was saved. Please ask again, perhaps a narrower question.",
                )
                events.put_nowait(AgentEvent("error", stopped.to_dict()))
            except asyncio.CancelledError:
                if lost.is_set():
                    lock_lost = LockLost(
                        "This answer was stopped: the conversation's lock could not be renewed, so nothing of it "
                        "was saved. Please ask again.",
                        field="conversation_id",
                    )
                    events.put_nowait(AgentEvent("error", lock_lost.to_dict()))
                raise
            finally:
                events.put_nowait(None)

        async def keep(producer: asyncio.Task[None]) -> None:
            nonlocal held_until
            interval = self.seconds / 3
            while True:
                await asyncio.sleep(interval)
                try:
                    renewed: bool | None = await asyncio.to_thread(
                        self.locks.renew, self.name, self.owner, self.seconds
                    )
                except LockUnavailable as exc:
                    logger.warning("lock of %s not renewed: %s", self.conversation_id, exc.message)
                    renewed = None
                now = loop.time()
                if renewed:
                    held_until = now + self.seconds
                    continue
                # lost, or the lease would run out before the next try: stop the turn while it is still ours
                if renewed is False or now + interval >= held_until:
                    logger.warning("turn of %s stopped: its lock could not be kept", self.conversation_id)
                    lost.set()
                    producer.cancel()
                    return

        producer = asyncio.create_task(produce())
        keeper = asyncio.create_task(keep(producer))
        try:
            while (event := await events.get()) is not None:
                yield event
        finally:
            # shielded: after a client disconnect this generator's scope is cancelled, and an unshielded await
            # would be cancelled too, leaving the turn running or the lock held until its lease runs out
            with anyio.CancelScope(shield=True):
                keeper.cancel()
                producer.cancel()
                await asyncio.gather(producer, keeper, return_exceptions=True)
                await anyio.to_thread.run_sync(self.locks.release, self.name, self.owner)
