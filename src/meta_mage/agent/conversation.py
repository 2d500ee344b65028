"""Conversations: one turn as an async generator of the spec's SSE events, reading, starting and
expiring conversations. Knows nothing of HTTP; the API wraps it."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from pydantic import ValidationError

from meta_mage.agent.checkpointer import LOCK_OWNER
from meta_mage.agent.graph import AgentDeps, build_graph
from meta_mage.agent.llm import ModelChoice
from meta_mage.agent.state import TURN_OPEN, ConversationState, TurnContext, last_active_of, messages_of, snapshot
from meta_mage.errors import InvalidArgument, MetaMageError, NotFound, StorageUnavailable
from meta_mage.models.json import JsonObject
from meta_mage.tools.registry import invalid_argument

if TYPE_CHECKING:
    from meta_mage.storage.locks import IssuedConversations

logger = logging.getLogger(__name__)


class ConversationNotFound(NotFound):
    """No conversation is stored under the id (never made, or deleted)."""

    code = "conversation_not_found"


class ConversationExpired(NotFound):
    """The conversation was idle longer than its time to live; it is deleted as it is found."""

    code = "conversation_expired"


class ConversationUnavailable(MetaMageError):
    """The conversation's memory could not be read (DynamoDB kept failing after the SDK's retries)."""

    code = "conversation_unavailable"


@dataclass(frozen=True)
class AgentEvent:
    """One server-sent event: its type (``metadata``, ``thinking``, ``tool_call``, ``content``,
    ``state``, ``done`` or ``error``) and its JSON payload."""

    event: str
    data: JsonObject


@dataclass(frozen=True)
class TurnRequest:
    """One user turn, its input checked once (``Conversations.request``) and not again: the message
    text, the dropdown context, the conversation's id (None for a new one), whether to create the
    conversation under that id, and the owner of its lock (the turn is stored only while it holds it)."""

    message: str
    context: TurnContext
    conversation_id: str | None = None
    create: bool = False
    lock_owner: str | None = None


def _config(conversation_id: str, lock_owner: str | None = None) -> RunnableConfig:
    configurable: JsonObject = {"thread_id": conversation_id}
    if lock_owner:
        configurable[LOCK_OWNER] = lock_owner  # the turn's checkpoint is written only while this owner holds the lock
    return {"configurable": configurable, "recursion_limit": 50}


def canonical_id(conversation_id: str) -> str:
    """The id in its one spelling (lower-case UUID); InvalidArgument when it is not one the server makes."""
    try:
        parsed = uuid.UUID(conversation_id)  # not version=4: that would rewrite the version bits, not check them
        if parsed.version != 4:
            raise ValueError(conversation_id)
        return str(parsed)
    except (ValueError, AttributeError, TypeError):
        raise InvalidArgument(
            "conversation_id must be an id this server made (a UUID) or null for a new conversation",
            field="conversation_id",
        ) from None


def _duration(seconds: int) -> str:
    """``seconds`` in the largest whole unit: "3 hours", "90 minutes", "45 seconds"."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


class Conversations:
    """The coach's conversations over the compiled graph and its DynamoDB checkpointer."""

    def __init__(self, deps: AgentDeps, checkpointer: Any, model_choice: ModelChoice) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.checkpointer = checkpointer
        self.model_choice = model_choice
        self.graph = build_graph(deps, checkpointer)

    @property
    def offline(self) -> bool:
        return self.model_choice.offline

    async def load(self, conversation_id: str) -> dict[str, Any]:
        """The conversation's state; NotFound when unknown, ConversationExpired when idle too long."""
        conversation_id = canonical_id(conversation_id)
        try:
            found = await self.graph.aget_state(_config(conversation_id))
        except Exception as exc:
            logger.exception("reading conversation %s failed", conversation_id)
            raise ConversationUnavailable(
                f"conversation {conversation_id} could not be read ({type(exc).__name__}); please try again",
                field="conversation_id",
            ) from exc
        values: dict[str, Any] = dict(found.values or {})
        last_active = last_active_of(values)
        if last_active is None:
            raise ConversationNotFound(f"conversation {conversation_id} does not exist", field="conversation_id")
        idle = self.deps.clock() - last_active
        if idle > self.settings.conversation_ttl_seconds:
            await self.checkpointer.adelete_thread(conversation_id)
            raise ConversationExpired(
                f"conversation {conversation_id} expired after {_duration(self.settings.conversation_ttl_seconds)} "
                "without activity; start a new one",
                field="conversation_id",
            )
        return values

    async def view(self, conversation_id: str) -> JsonObject:
        """The spec's ``GET /conversations/{id}`` body."""
        conversation_id = canonical_id(conversation_id)  # echoed in its one spelling, however it was given
        values = await self.load(conversation_id)
        # .text: Bedrock's answers are lists of content blocks, not strings
        messages = [
            {"role": "user" if isinstance(m, HumanMessage) else "assistant", "content": m.text}
            for m in messages_of(values)
            if isinstance(m, HumanMessage) or (isinstance(m, AIMessage) and not m.tool_calls and m.text)
        ]
        return {
            "conversation_id": conversation_id,
            "state": snapshot(ConversationState.of(values)),
            "messages": messages,
        }

    async def start(self, welcome: JsonObject | None = None, conversation_id: str | None = None) -> str:
        """Create a conversation holding the /welcome context and message; its id is made here unless
        ``conversation_id`` is one the server already issued (the small ``/welcome`` function's)."""
        conversation_id = canonical_id(conversation_id) if conversation_id else str(uuid.uuid4())
        now = self.deps.clock()
        values: JsonObject = {"created_at": now, "last_active": now}
        if welcome:
            values["available_formats"] = welcome.get("available_formats")
            if welcome.get("message"):
                values["messages"] = [AIMessage(welcome["message"])]
        await self.graph.aupdate_state(_config(conversation_id), values, as_node="finish")
        return conversation_id

    async def claim(
        self, conversation_id: str, issued: IssuedConversations, waits: tuple[float, ...] = (0.1, 0.3)
    ) -> str:
        """The conversation's canonical id; ``ConversationNotFound`` unless it exists or ``/welcome`` issued it
        (it is then created here, holding the welcome message). A request that finds neither looks again after
        each of ``waits`` (seconds): another request may be creating it right now."""
        conversation_id = canonical_id(conversation_id)
        pending = iter(waits)
        while True:
            try:
                await self.load(conversation_id)
                return conversation_id
            except ConversationNotFound:
                welcome = await asyncio.to_thread(issued.claim, conversation_id)
                if welcome is not None:
                    break
                wait = next(pending, None)
                if wait is None:
                    raise
                await asyncio.sleep(wait)
        try:
            await self.start(welcome, conversation_id=conversation_id)
        except Exception:
            # put the id back, so the conversation can still be started with it
            await asyncio.to_thread(issued.issue, conversation_id, welcome, self.settings.conversation_ttl_seconds)
            raise
        return conversation_id

    def request(
        self,
        message: Any,
        context: Any = None,
        conversation_id: str | None = None,
        *,
        create: bool = False,
        lock_owner: str | None = None,
    ) -> TurnRequest:
        """The turn as a ``TurnRequest``: the message and dropdown context checked like any user input
        (InvalidArgument naming the field otherwise). The one place a turn's input is checked: the HTTP
        layer calls it once per ``/chat`` body, ``turn`` once for in-process callers."""
        text, turn_context = self._validate(message, context)
        if conversation_id is not None:  # the load and the run read one thread, however the id was spelled
            conversation_id = canonical_id(conversation_id)
        return TurnRequest(text, turn_context, conversation_id, create=create, lock_owner=lock_owner)

    def _validate(self, message: Any, context: Any) -> tuple[str, TurnContext]:
        if not isinstance(message, str) or not message.strip():
            raise InvalidArgument("message must be a non-empty string", field="message")
        if len(message) > self.settings.max_message_chars:
            raise InvalidArgument(
                f"message is {len(message)} characters; the limit is {self.settings.max_message_chars}",
                field="message",
            )
        try:
            turn_context = TurnContext.model_validate(context or {})
        except ValidationError as exc:
            error = invalid_argument(exc)
            raise InvalidArgument(f"context.{error.message}", field=f"context.{error.field}") from None
        if turn_context.format:
            from meta_mage.models.meta import normalise_format

            try:
                turn_context.format = normalise_format(turn_context.format)
            except ValueError as exc:
                raise InvalidArgument(f"context.format: {exc}", field="context.format") from None
        # one line ending: a list pasted on Windows ("\r\n") is then found and cut from the message like any other
        return message.replace("\r\n", "\n").replace("\r", "\n"), turn_context

    async def turn(
        self,
        message: Any,
        conversation_id: str | None = None,
        context: Any = None,
        *,
        create: bool = False,
        lock_owner: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Check the message and context (``request``), then run the turn (``run``); input that fails the
        check is one ``error`` event. For in-process callers (the CLI, tests, benchmarks); the API checks
        the body itself and calls ``run``."""
        try:
            request = self.request(message, context, conversation_id, create=create, lock_owner=lock_owner)
        except MetaMageError as exc:
            yield AgentEvent("error", exc.to_dict())
            return
        async with aclosing(self.run(request)) as events:  # closed with this one (a cancelled stream)
            async for event in events:
                yield event

    async def run(self, request: TurnRequest) -> AsyncGenerator[AgentEvent, None]:
        """Run one checked user turn (not checked again), yielding ``metadata`` first, then progress and
        answer events, then ``state`` and ``done`` (or ``error``).

        ``request.conversation_id`` None starts a new conversation under a new id; ``create=True`` starts
        one under that id (an id the server has just made, e.g. to lock it first). With ``lock_owner``
        the turn is stored only while that owner still holds the conversation's lock.
        """
        # the turn's load and its run read the same checkpoint: DynamoDB is asked once
        reading = getattr(self.checkpointer, "reading_once", None)
        cid = request.conversation_id
        with reading(cid) if reading and cid and not request.create else nullcontext():
            async with aclosing(self._run(request)) as events:
                async for event in events:
                    yield event

    async def _run(self, request: TurnRequest) -> AsyncGenerator[AgentEvent, None]:
        text, turn_context, conversation_id = request.message, request.context, request.conversation_id
        lock_owner = request.lock_owner
        try:
            state: dict[str, Any] = {}
            if conversation_id is None:
                conversation_id = str(uuid.uuid4())
            elif not request.create:
                state = await self.load(conversation_id)
        except MetaMageError as exc:
            yield AgentEvent("error", exc.to_dict())
            return
        known = ConversationState.of(state)
        yield AgentEvent(
            "metadata",
            {
                "conversation_id": conversation_id,
                "format": turn_context.format or known.format,
                "archetype": turn_context.archetype or known.archetype,
                "mode": "offline" if self.offline else "llm",
            },
        )
        now = self.deps.clock()
        graph_input: JsonObject = {
            "messages": [HumanMessage(text)],
            "context": turn_context.model_dump(exclude_none=True),
            "last_active": now,
            TURN_OPEN: True,  # until the finish node: the checkpointer never stores an unfinished turn
        }
        if not state:
            graph_input["created_at"] = now
        config = _config(conversation_id, lock_owner)
        final: JsonObject = {}
        try:
            # durability="exit": one checkpoint per turn, written when the run ends; one that ends before
            # the finish node (an error, a cancelled stream) still has TURN_OPEN set and is not stored,
            # so the conversation stays as the previous turn left it
            stream = self.graph.astream(graph_input, config, stream_mode=["custom", "values"], durability="exit")
            async for mode, chunk in stream:
                data = cast(JsonObject, chunk)
                if mode == "values":
                    final = data  # the state after each step; the last is what the turn leaves
                else:
                    yield AgentEvent(data["event"], data["data"])
        except Exception as exc:
            error: dict[str, object]
            if isinstance(exc, StorageUnavailable):  # the checkpoint could not be read or written
                logger.warning("turn failed in conversation %s: %s", conversation_id, exc.message)
                error = {
                    "error": exc.code,
                    "message": f"The conversation store failed ({exc.message}); this turn was not kept. "
                    "Please try again.",
                }
            elif isinstance(exc, MetaMageError):  # e.g. LockLost: the turn was refused storage, and says why
                logger.warning("turn failed in conversation %s: %s", conversation_id, exc.message)
                error = exc.to_dict()
            else:
                logger.exception("turn failed in conversation %s", conversation_id)
                error = {
                    "error": "internal",
                    "message": f"Something went wrong answering that ({type(exc).__name__}). Please try again.",
                }
            if not state:  # the id was given out in `metadata`: keep it usable for the next message
                await self._create_quietly(_config(conversation_id), now)
            yield AgentEvent("error", error)
            return
        yield AgentEvent("state", snapshot(ConversationState.of(final)))
        yield AgentEvent("done", {})

    async def _create_quietly(self, config: RunnableConfig, now: float) -> None:
        """Store an empty conversation after its first turn failed (best effort: storage may be what failed)."""
        try:
            await self.graph.aupdate_state(config, {"created_at": now, "last_active": now}, as_node="finish")
        except Exception:
            logger.warning("could not store the new conversation %s either", config["configurable"]["thread_id"])
