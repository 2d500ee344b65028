"""Injected faults (issue 6), one at a time: DynamoDB throttling and 500s on reads and on checkpoint
writes (answered by the SDK's own retries), Bedrock throttling, timeouts and malformed tool calls, a
tool that raises or hangs, the MCP tool server down, a client that disconnects mid-stream, and the
server killed between two turns.

After each fault the conversation must still be consistent: the next turn works, the history holds
whole turns only (every question with its answer, nothing half written) and nothing already answered
is lost. Every fault adds a row (fault, what the user saw, the state afterwards) to a table printed
at the end of the module (visible with ``pytest -s``).

DynamoDB faults are injected with botocore's ``before-send`` hook: the hook answers the HTTP attempt
with the service's own error (status and JSON body) instead of sending it, so the SDK parses and
retries it as it would a real one. The SDK's backoff delays are scaled down 500x for this module (its
decisions — what is retried, how often, the adaptive client's rate limiting — are untouched): with
the real delays, exhausting the checkpointer's 6 attempts (5 retries) on throttling takes about 17 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ClientError, ReadTimeoutError
from botocore.retries.bucket import TokenBucket
from botocore.retries.standard import ExponentialBackoff
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk

from meta_mage.agent.conversation import AgentEvent, Conversations
from meta_mage.agent.testing import ScriptedChatModel, tool_call
from meta_mage.agent.tools import ToolExecutor, in_process_executor
from meta_mage.agent.turn_lease import TurnLease
from meta_mage.api.chat_app import create_app
from meta_mage.api.reads import ReadApi
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.local.chat_client import sse_events, stream_chat
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.locks import IssuedConversations, LocksRepository
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables
from meta_mage.tools import build_registry
from meta_mage.wiring import Wiring, coach_from_settings
from tests.conftest import demo_members, put_demo_cards, write_members
from tests.servers import free_port, serving, wait_until_answers

SDK_TIME_SCALE = 500
MODERN_FILES = 8  # a small subset of the demo Modern events keeps seeding near 2 s

Q_RANKINGS = "What are the top decks in Modern over the last 30 days?"
Q_MATCHUPS = "And the matchups?"
Q_DAYS = "14 days"
Q_MATCHUPS_MODERN = "What are the matchups in Modern over the last 30 days?"

# --- the rows of the fault table ---------------------------------------------------------------------

RESULTS: list[tuple[str, str, str, float]] = []


def record(fault: str, saw: str, after: str, seconds: float) -> None:
    RESULTS.append((fault, saw, after, seconds))


def fault_table() -> str:
    header = ("fault", "what the user saw", "state afterwards", "s")
    rows = [header, *((f, s, a, f"{t:.2f}") for f, s, a, t in RESULTS)]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


# --- the world: an embedded moto DynamoDB server with a small demo subset ------------------------------


@pytest.fixture(scope="module")
def fast_sdk_backoff() -> Iterator[None]:
    """The SDK's retry backoff and adaptive rate limiter, 500x faster (same decisions, shorter sleeps)."""
    patcher = pytest.MonkeyPatch()
    scaled = {key: value / SDK_TIME_SCALE for key, value in ExponentialBackoff._DEFAULT_BACKOFF_CONFIG.items()}
    patcher.setattr(ExponentialBackoff, "_DEFAULT_BACKOFF_CONFIG", scaled)
    patcher.setattr(TokenBucket.__init__, "__defaults__", (TokenBucket._MIN_RATE * SDK_TIME_SCALE,))
    yield
    patcher.undo()


@pytest.fixture(scope="module")
def world(fast_sdk_backoff: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """moto's server on loopback (a real HTTP endpoint: the SDK's whole send/retry path runs), seeded
    with the demo cards and a few Modern events; every client of the module is made after the backoff
    is scaled."""
    settings = Settings(
        meta_table="faults-meta",
        cards_table="faults-cards",
        drafts_table="faults-drafts",
        checkpoint_table="faults-checkpoints",
        locks_table="faults-locks",
        model="offline",
    )
    files = write_members(sorted(demo_members(formats=("Modern",)))[:MODERN_FILES], tmp_path_factory.mktemp("faults"))
    with embedded_dynamodb() as url:
        db = dynamodb_resource(settings)
        create_tables(db, settings)
        put_demo_cards(settings)
        report = ingest_tournaments(
            files, MetaRepository(db.Table(settings.meta_table)), get_classifier(settings.archetype_rules_dir)
        )
        assert report.ok, report.summary()
        yield {
            "url": url,
            "settings": settings,
            "db": db,
            "registry": build_registry(),
            "context": Wiring(settings, db).tool_context,
        }


def coach(
    world: dict[str, Any],
    *,
    model: ScriptedChatModel | None = None,
    executor: ToolExecutor | None = None,
    **overrides: Any,
) -> Conversations:
    """A fresh coach (its own checkpointer client, so no retry state carries over between faults)."""
    settings = world["settings"].model_copy(update=overrides)
    return coach_from_settings(settings, dynamodb=world["db"], model=model, executor=executor)


# --- turns and consistency ---------------------------------------------------------------------------


@dataclass
class Turn:
    events: list[AgentEvent] = field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return [e.event for e in self.events]

    @property
    def conversation_id(self) -> str:
        return str(next(e.data["conversation_id"] for e in self.events if e.event == "metadata"))

    @property
    def text(self) -> str:
        return "".join(e.data["text"] for e in self.events if e.event == "content")

    @property
    def error(self) -> dict[str, Any] | None:
        return next((e.data for e in self.events if e.event == "error"), None)

    @property
    def state(self) -> dict[str, Any]:
        return next((e.data for e in self.events if e.event == "state"), {})

    def tools(self, status: str) -> list[dict[str, Any]]:
        return [e.data for e in self.events if e.event == "tool_call" and e.data["status"] == status]

    @property
    def completed(self) -> bool:
        return self.kinds[-2:] == ["state", "done"] and self.error is None


async def run_turn(conversations: Conversations, message: str, conversation_id: str | None = None) -> Turn:
    turn = Turn()
    async for event in conversations.turn(message, conversation_id):
        turn.events.append(event)
    return turn


async def history(conversations: Conversations, conversation_id: str) -> list[tuple[str, str]]:
    view = await conversations.view(conversation_id)
    return [(m["role"], m["content"]) for m in view["messages"]]


async def assert_consistent(
    conversations: Conversations, conversation_id: str, before: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Whole turns only (user, assistant, user, assistant ...), no run left half-way, nothing lost."""
    messages = await history(conversations, conversation_id)
    roles = [role for role, _ in messages]
    assert roles == ["user", "assistant"] * (len(roles) // 2), f"half a turn in the history: {messages}"
    assert all(content.strip() for _, content in messages), f"an empty message in the history: {messages}"
    assert messages[: len(before)] == before, "an earlier turn was lost"
    snapshot = await conversations.graph.aget_state({"configurable": {"thread_id": conversation_id}})
    assert snapshot.next == (), f"the checkpoint holds an unfinished run (next: {snapshot.next})"
    return messages


def short(message: str, limit: int = 75) -> str:
    message = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", message)
    return message if len(message) <= limit else message[: limit - 3] + "..."


NOTES = {"could not route": "routed by keywords", "answering from the data": "answering from the data"}


def describe(turn: Turn) -> str:
    """What the user saw, in a few words."""
    parts: list[str] = []
    thinking = " ".join(e.data["content"] for e in turn.events if e.event == "thinking")
    parts += [f"note: {label}" for cue, label in NOTES.items() if cue in thinking]
    failed = turn.tools("error")
    if failed:
        parts.append(f"{len(failed)} tool_call error(s) ('{failed[0]['summary'][:60]}...')")
    if turn.text:
        parts.append(f"answer ({len(turn.text)} chars)")
    if turn.error:
        parts.append(f"error event {turn.error['error']}: '{short(turn.error['message'])}'")
    elif turn.completed:
        parts.append("state, done")
    return "; ".join(parts) or "nothing"


# --- DynamoDB fault injection --------------------------------------------------------------------------

DYNAMODB_ERRORS = {
    "ProvisionedThroughputExceededException": (400, "com.amazonaws.dynamodb.v20120810#"),
    "ThrottlingException": (400, "com.amazon.coral.availability#"),
    "InternalServerError": (500, "com.amazonaws.dynamodb.v20120810#"),
}
READS = ("Query", "GetItem", "BatchGetItem")
WRITES = ("PutItem", "BatchWriteItem", "TransactWriteItems")


class _Body(BytesIO):
    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.read()


@dataclass
class Injected:
    attempts: int = 0
    failed: int = 0


@contextlib.contextmanager
def dynamodb_fault(
    client: Any, operations: tuple[str, ...], code: str, failures: int | None, table: str | None = None
) -> Iterator[Injected]:
    """Answer the first ``failures`` HTTP attempts (every attempt when None) of ``operations`` (on
    ``table`` only, when given) with DynamoDB's ``code`` error, before they are sent."""
    status, namespace = DYNAMODB_ERRORS[code]
    seen = Injected()

    def before_send(request: Any, **_: Any) -> AWSResponse | None:
        if table is not None and json.loads(request.body or b"{}").get("TableName") != table:
            return None
        seen.attempts += 1
        if failures is not None and seen.failed >= failures:
            return None
        seen.failed += 1
        body = json.dumps({"__type": namespace + code, "message": f"injected {code}"}).encode()
        headers = {"content-type": "application/x-amz-json-1.0", "x-amzn-requestid": f"fault-{seen.failed}"}
        return AWSResponse(request.url, status, headers, _Body(body))  # type: ignore[arg-type]

    events = [f"before-send.dynamodb.{operation}" for operation in operations]
    for event in events:
        client.meta.events.register_first(event, before_send)
    try:
        yield seen
    finally:
        for event in events:
            client.meta.events.unregister(event, before_send)


@pytest.mark.parametrize("failures", [2, None], ids=["first-2-attempts", "every-attempt"])
@pytest.mark.parametrize("code", list(DYNAMODB_ERRORS))
@pytest.mark.parametrize("where", ["checkpoint read", "checkpoint write"])
async def test_dynamodb_fault_on_the_checkpoint(
    world: dict[str, Any], where: str, code: str, failures: int | None
) -> None:
    conversations = coach(world)
    first = await run_turn(conversations, Q_RANKINGS)
    assert first.completed
    cid = first.conversation_id
    before = await assert_consistent(conversations, cid, [])
    operations = READS if where == "checkpoint read" else WRITES

    started = time.perf_counter()
    with dynamodb_fault(conversations.checkpointer.client, operations, code, failures) as injected:
        second = await run_turn(conversations, Q_MATCHUPS, cid)
    seconds = time.perf_counter() - started

    if failures is not None:
        # the SDK retried and the turn never knew
        assert second.completed, second.events
        assert injected.failed == failures and injected.attempts > failures
        after = await assert_consistent(conversations, cid, before)
        assert len(after) == 4 and after[2] == ("user", Q_MATCHUPS)
        state = f"whole turn saved ({len(after)} messages); SDK retried {injected.failed}x"
    else:
        # retries exhausted: a clear error event ends the turn, nothing of it is saved
        assert second.error is not None and "done" not in second.kinds, second.events
        assert "try again" in second.error["message"].lower()
        expected = "conversation_unavailable" if where == "checkpoint read" else "storage_unavailable"
        assert second.error["error"] == expected
        assert injected.failed == injected.attempts >= 3  # the SDK's own attempts, all refused
        assert await assert_consistent(conversations, cid, before) == before
        third = await run_turn(conversations, Q_MATCHUPS, cid)
        assert third.completed, third.events
        after = await assert_consistent(conversations, cid, before)
        assert len(after) == 4
        state = f"failed turn not saved ({injected.attempts} attempts refused); next turn OK ({len(after)} messages)"
    pattern = "first 2 attempts" if failures else "every attempt"
    record(f"DynamoDB {code} on {where}, {pattern}", describe(second), state, seconds)


@pytest.mark.parametrize(("code", "failures"), [("ThrottlingException", 2), ("InternalServerError", None)])
async def test_dynamodb_fault_on_a_tool_read(world: dict[str, Any], code: str, failures: int | None) -> None:
    conversations = coach(world)
    first = await run_turn(conversations, Q_RANKINGS)
    assert first.completed
    cid = first.conversation_id
    before = await assert_consistent(conversations, cid, [])
    meta_table = world["settings"].meta_table

    started = time.perf_counter()
    with dynamodb_fault(world["db"].meta.client, READS, code, failures, table=meta_table) as injected:
        second = await run_turn(conversations, Q_MATCHUPS, cid)
    seconds = time.perf_counter() - started

    assert second.completed, second.events
    after = await assert_consistent(conversations, cid, before)
    assert len(after) == 4
    if failures is not None:
        assert not second.tools("error") and "matchup" in second.text.lower()
        state = f"whole turn saved; SDK retried {injected.failed}x"
    else:
        assert second.tools("error") and "went wrong" in second.text
        assert injected.failed == injected.attempts
        third = await run_turn(conversations, Q_MATCHUPS, cid)
        assert third.completed and not third.tools("error")
        after = await assert_consistent(conversations, cid, before)
        state = f"turn saved with the error sentence; next turn OK ({len(after)} messages)"
    pattern = "first 2 attempts" if failures else "every attempt"
    record(f"DynamoDB {code} on a tool's Query, {pattern}", describe(second), state, seconds)


# --- the model -----------------------------------------------------------------------------------------


def bedrock_throttling() -> ClientError:
    return ClientError(
        {"Error": {"Code": "ThrottlingException", "Message": "Too many requests, please wait before trying again."}},
        "ConverseStream",
    )


def bedrock_timeout() -> ReadTimeoutError:
    return ReadTimeoutError(endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream")


class FaultyStreamModel(ScriptedChatModel):
    """The scripted model streaming as Bedrock's Converse does (content blocks, tool-call chunks), plus
    two faults a provider shows mid-stream: a tool call whose arguments are not JSON
    (``additional_kwargs['broken_args']``) and a stream cut after a few words (``['cut_after']``)."""

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        extra = message.additional_kwargs
        if "broken_args" in extra:
            call = {"name": extra["tool"], "args": extra["broken_args"], "id": "call-broken", "index": 0}
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=[], tool_call_chunks=[{**call, "type": "tool_call_chunk"}])  # type: ignore[list-item]
            )
            return
        words = [piece for piece in re.split(r"(\s)", str(message.content)) if piece]
        for index, word in enumerate(words):
            if index == extra.get("cut_after"):
                raise bedrock_timeout()
            yield ChatGenerationChunk(message=AIMessageChunk(content=[{"type": "text", "text": word, "index": 0}]))
        for index, call in enumerate(message.tool_calls):
            chunk = {"name": call["name"], "args": json.dumps(call["args"]), "id": call["id"], "index": index + 1}
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=[], tool_call_chunks=[{**chunk, "type": "tool_call_chunk"}])  # type: ignore[list-item]
            )


# what the model does in the faulty turn; any further call in that turn finds Bedrock still throttling
MODEL_FAULTS: dict[str, list[Any]] = {
    "Bedrock ThrottlingException on every call of the turn": [],
    "Bedrock read timeout on the answer (after the tool call)": [bedrock_timeout()],
    "Bedrock stream cut mid-answer": [
        AIMessage("The most played deck is clearly the best one here.", additional_kwargs={"cut_after": 4}),
    ],
    "model's answer is a tool call with arguments that are not JSON": [
        AIMessage("", additional_kwargs={"tool": "get_format_meta_rankings", "broken_args": "group_by=strategy"}),
    ],
    "model's answer is a tool call it was not offered": [
        tool_call("get_format_meta_rankings", group_by="colour-ish"),
    ],
}
RECOVERED_ANSWER = "The matchup table is above."


@pytest.mark.parametrize("fault", list(MODEL_FAULTS))
async def test_model_fault(world: dict[str, Any], fault: str) -> None:
    bedrock = {"down": True}

    def script() -> Iterator[Any]:
        yield from MODEL_FAULTS[fault]
        while bedrock["down"]:
            yield bedrock_throttling()
        yield RECOVERED_ANSWER

    conversations = coach(world, model=FaultyStreamModel(messages=script()))
    started = time.perf_counter()
    first = await run_turn(conversations, Q_RANKINGS)
    seconds = time.perf_counter() - started
    assert first.completed, first.events
    assert first.text.strip(), "the user got no answer at all"
    cid = first.conversation_id
    before = await assert_consistent(conversations, cid, [])
    assert before[1][1] in first.text  # what is stored is what the user was shown

    # Bedrock is back: the next turn goes through the model, with the conversation so far
    bedrock["down"] = False
    second = await run_turn(conversations, Q_MATCHUPS, cid)
    # the model's prose, then the matchup table from the tool result (LLM mode's tables are the tools' own)
    assert second.completed and second.text.startswith(RECOVERED_ANSWER + "\n\n|")
    after = await assert_consistent(conversations, cid, before)
    assert after[2:] == [("user", Q_MATCHUPS), ("assistant", second.text)]
    shown = "as streamed" if before[1][1] == first.text else f"{len(before[1][1])} of the {len(first.text)} chars shown"
    state = f"turn saved (answer {shown}); next turn through the model OK ({len(after)} messages)"
    record(fault, describe(first), state, seconds)


# --- a failing node, a consumer that stops reading -------------------------------------------------------


@pytest.mark.parametrize("new_conversation", [False, True], ids=["existing", "new"])
async def test_a_node_raises(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, new_conversation: bool) -> None:
    from meta_mage.agent import offline

    conversations = coach(world)
    cid: str | None = None
    before: list[tuple[str, str]] = []
    if not new_conversation:
        cid = (await run_turn(conversations, Q_RANKINGS)).conversation_id
        before = await assert_consistent(conversations, cid, [])
    writer = offline.answer
    monkeypatch.setattr(offline, "answer", lambda *args: (_ for _ in ()).throw(KeyError("injected: a template bug")))

    started = time.perf_counter()
    failed = await run_turn(conversations, Q_MATCHUPS_MODERN, cid)
    seconds = time.perf_counter() - started
    assert failed.error is not None and failed.error["error"] == "internal" and "done" not in failed.kinds
    assert failed.tools("complete"), "the turn failed after its tool ran"
    cid = failed.conversation_id
    assert await assert_consistent(conversations, cid, before) == before  # no question without its answer

    monkeypatch.setattr(offline, "answer", writer)
    again = await run_turn(conversations, Q_MATCHUPS_MODERN, cid)
    assert again.completed, again.events
    after = await assert_consistent(conversations, cid, before)
    assert len(after) == len(before) + 2
    which = "a new conversation's first turn" if new_conversation else "turn 2"
    state = f"failed turn not stored (no half turn); same id, next turn OK ({len(after)} messages)"
    record(f"a node raises in {which} (offline answer writer)", describe(failed), state, seconds)


async def test_the_consumer_stops_reading_mid_turn(world: dict[str, Any]) -> None:
    conversations = coach(world)
    cid = (await run_turn(conversations, Q_RANKINGS)).conversation_id
    before = await assert_consistent(conversations, cid, [])

    started = time.perf_counter()
    seen: list[str] = []
    async with contextlib.aclosing(conversations.turn(Q_MATCHUPS, cid)) as events:
        async for event in events:
            seen.append(event.event)
            if event.event == "tool_call":
                break
    seconds = time.perf_counter() - started
    await asyncio.sleep(0.2)  # LangGraph's run is finalised (and tries to save) when it is collected
    assert await assert_consistent(conversations, cid, before) == before

    again = await run_turn(conversations, Q_MATCHUPS, cid)
    assert again.completed
    after = await assert_consistent(conversations, cid, before)
    state = f"abandoned turn not stored; next turn OK ({len(after)} messages)"
    record("turn() generator closed mid-turn (CLI Ctrl-C, caller gone)", f"events {', '.join(seen)}", state, seconds)


# --- tools ---------------------------------------------------------------------------------------------


def faulty_executor(world: dict[str, Any], tool: str, fault: Callable[[], Awaitable[dict[str, Any]]]) -> Any:
    """The in-process tools, with ``tool`` failing through ``fault`` while ``armed`` is set."""
    inner = in_process_executor(world["registry"], world["context"])

    async def execute(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == tool and execute.armed:  # type: ignore[attr-defined]
            execute.calls += 1  # type: ignore[attr-defined]
            return await fault()
        return await inner(name, arguments)

    execute.armed = True  # type: ignore[attr-defined]
    execute.calls = 0  # type: ignore[attr-defined]
    return execute


async def _raise() -> dict[str, Any]:
    raise RuntimeError("injected: the tool's code failed")


async def _hang() -> dict[str, Any]:
    await asyncio.sleep(60)
    return {}


@pytest.mark.parametrize("fault", ["raises", "hangs past its timeout"])
async def test_tool_fault(world: dict[str, Any], fault: str) -> None:
    executor = faulty_executor(world, "get_format_matchup_stats", _raise if fault == "raises" else _hang)
    # 1 s: short for the hang, and room for the real tools (and routing lookups) that run under it too
    conversations = coach(world, executor=executor, tool_timeout_seconds=1.0)
    first = await run_turn(conversations, Q_RANKINGS)
    cid = first.conversation_id
    before = await assert_consistent(conversations, cid, [])

    started = time.perf_counter()
    second = await run_turn(conversations, Q_MATCHUPS, cid)
    seconds = time.perf_counter() - started
    assert second.completed, second.events
    errors = second.tools("error")
    assert errors and len(errors) == executor.calls
    expected = "injected" if fault == "raises" else "did not answer within 1 second"
    assert expected in errors[0]["summary"] and "went wrong" in second.text
    if fault != "raises":
        assert seconds < 1.0 * executor.calls + 2
    after = await assert_consistent(conversations, cid, before)

    executor.armed = False
    # the same conversation once the tool is healthy again, under the default timeout: the 1 s above is for the
    # fault, and a real call on a busy machine (over moto's server) can take longer than that
    healthy = coach(world, executor=executor)
    third = await run_turn(healthy, Q_MATCHUPS, cid)
    assert third.completed and not third.tools("error")
    after = await assert_consistent(healthy, cid, after)
    state = f"turn saved with the error sentence; next turn OK ({len(after)} messages)"
    record(f"tool {fault} (get_format_matchup_stats, {executor.calls} calls)", describe(second), state, seconds)


async def test_mcp_server_down(world: dict[str, Any]) -> None:
    from meta_mage.mcp.server import build_mcp_app

    port = free_port()  # nothing listens there
    conversations = coach(world, mcp_url=f"http://127.0.0.1:{port}/mcp", tool_timeout_seconds=5)
    started = time.perf_counter()
    first = await run_turn(conversations, Q_RANKINGS)
    seconds = time.perf_counter() - started
    assert first.completed, first.events
    errors = first.tools("error")
    assert errors and "unreachable" in errors[0]["summary"] and f"127.0.0.1:{port}" in errors[0]["summary"]
    cid = first.conversation_id
    before = await assert_consistent(conversations, cid, [])

    # the server comes back on its address: the same coach (same executor) works again
    with serving(build_mcp_app(world["settings"], world["db"]), port=port):
        second = await run_turn(conversations, Q_RANKINGS, cid)
    assert second.completed and not second.tools("error"), second.events
    after = await assert_consistent(conversations, cid, before)
    state = f"turn saved with the error sentence; once the server is back the next turn works ({len(after)} messages)"
    record("MCP tool server down (connection refused)", describe(first), state, seconds)


# --- HTTP: a client that goes away mid-stream -------------------------------------------------------


@contextlib.contextmanager
def chat_server(world: dict[str, Any], conversations: Conversations) -> Iterator[str]:
    settings = conversations.settings
    table = world["db"].Table(settings.locks_table)
    reads = ReadApi(world["registry"], world["context"])
    with serving(
        create_app(settings, conversations, reads, LocksRepository(table), IssuedConversations(table))
    ) as base:
        yield base


async def first_turn_over_http(
    http: httpx.AsyncClient, conversations: Conversations
) -> tuple[str, list[tuple[str, str]]]:
    """A new conversation with one answered question (over ``POST /chat``): its id and history."""
    first = sse_events((await http.post("/chat", json={"message": Q_RANKINGS})).text)
    cid = str(first[0][1]["conversation_id"])
    return cid, await assert_consistent(conversations, cid, [])


async def _slow() -> dict[str, Any]:
    await asyncio.sleep(3)
    raise RuntimeError("the turn should have been cancelled")


async def test_client_disconnects_mid_stream(world: dict[str, Any]) -> None:
    executor = faulty_executor(world, "get_format_matchup_stats", _slow)
    conversations = coach(world, executor=executor)

    with chat_server(world, conversations) as base:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            cid, before = await first_turn_over_http(http, conversations)

            # the client reads until the slow tool is called, then closes the connection
            seen: list[str] = []
            async with contextlib.aclosing(
                stream_chat(http, {"message": Q_MATCHUPS, "conversation_id": cid})
            ) as events:
                async for event in events:
                    seen.append(event.event)
                    if event.event == "tool_call":
                        break
            closed = time.perf_counter()

            # the next turn on the same conversation is taken as soon as the server sees the disconnect
            executor.armed = False
            conflicts = 0
            while True:
                response = await http.post("/chat", json={"message": Q_MATCHUPS, "conversation_id": cid})
                if response.status_code != 409 or time.perf_counter() - closed > 5:
                    break
                conflicts += 1
                await asyncio.sleep(0.05)
            lock_held = time.perf_counter() - closed
            assert response.status_code == 200, response.text
            third = sse_events(response.text)
            assert [k for k, _ in third][-2:] == ["state", "done"]
            await asyncio.sleep(0.2)  # anything the cancelled turn still had to write has been written
            after = await assert_consistent(conversations, cid, before)
            view = (await http.get(f"/conversations/{cid}")).json()
            assert [m["content"] for m in view["messages"]] == [content for _, content in after]
    assert len(after) == 4  # cancelled before its finish node: none of the disconnected turn is stored
    assert after[-2] == ("user", Q_MATCHUPS)
    assert executor.calls == 1
    state = (
        f"disconnected turn not stored; lock free {lock_held:.2f}s after the close ({conflicts} x 409); "
        f"next turn OK ({len(after)} messages)"
    )
    record("client disconnects mid-stream (HTTP, uvicorn)", f"events {', '.join(seen)}; then closed", state, lock_held)


# --- HTTP: DynamoDB failing under the API --------------------------------------------------------------


@pytest.mark.parametrize("where", ["checkpoint read", "lock take", "lock release"])
async def test_http_dynamodb_fault_every_attempt(world: dict[str, Any], where: str) -> None:
    """DynamoDB failing after the SDK's retries under ``POST /chat``: a JSON error (never a dropped
    connection or a half-sent stream), and the conversation takes the next message."""
    conversations = coach(world)
    settings = world["settings"]
    locks = LocksRepository(world["db"].Table(settings.locks_table))
    if where == "checkpoint read":
        fault = dynamodb_fault(conversations.checkpointer.client, READS, "InternalServerError", None)
    else:
        operation = ("PutItem",) if where == "lock take" else ("DeleteItem",)
        fault = dynamodb_fault(world["db"].meta.client, operation, "ThrottlingException", None, settings.locks_table)
    with chat_server(world, conversations) as base:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            cid, before = await first_turn_over_http(http, conversations)
            body = {"message": Q_MATCHUPS, "conversation_id": cid}

            started = time.perf_counter()
            with fault as injected:
                response = await http.post("/chat", json=body)
            seconds = time.perf_counter() - started
            assert injected.failed == injected.attempts > 1
            if where == "lock release":
                # the answer went out whole; only the lock stays behind, until its ttl
                events = sse_events(response.text)
                assert response.status_code == 200 and [k for k, _ in events][-2:] == ["state", "done"]
                saw = f"200, whole stream ({len(events)} events, state, done)"
                held = await http.post("/chat", json=body)
                assert held.status_code == 409 and held.json()["error"] == "conflict"
                item = locks.table.get_item(Key={"pk": f"conversation#{cid}"})["Item"]
                assert int(item["ttl"]) <= time.time() + settings.chat_lock_seconds
                locks.table.update_item(  # as if chat_lock_seconds had passed
                    Key={"pk": f"conversation#{cid}"},
                    UpdateExpression="SET #ttl = :past",
                    ExpressionAttributeNames={"#ttl": "ttl"},
                    ExpressionAttributeValues={":past": int(time.time()) - 1},
                )
                kept = 4
            else:
                assert response.status_code == 503 and response.headers["content-type"] == "application/json"
                error = response.json()
                assert error["error"] == (
                    "conversation_unavailable" if where == "checkpoint read" else "lock_unavailable"
                )
                assert "try again" in error["message"]
                saw = f"{response.status_code} JSON {error['error']}: '{short(error['message'])}'"
                kept = 2
            assert len(await assert_consistent(conversations, cid, before)) == kept

            nxt = await http.post("/chat", json=body)
            assert nxt.status_code == 200 and [k for k, _ in sse_events(nxt.text)][-2:] == ["state", "done"]
            after = await assert_consistent(conversations, cid, before)
            assert len(after) == kept + 2
    if where == "lock release":
        state = f"lock held until its ttl (chat_lock_seconds={settings.chat_lock_seconds}): 409 meanwhile; then OK"
    else:
        state = f"nothing written, no lock left; next POST OK ({len(after)} messages)"
    record(f"POST /chat: DynamoDB failing every attempt on {where}", saw, state, seconds)


# --- the conversation's lock: a renewed lease, a deadline, a fenced write ------------------------------

LEASE = 2  # seconds: short, so the tests see several renewals and an expiry in a few seconds


def _slow_then_real(world: dict[str, Any], seconds: float) -> Callable[[], Awaitable[dict[str, Any]]]:
    """A fault that only delays: the matchup table, ``seconds`` late."""
    inner = in_process_executor(world["registry"], world["context"])

    async def slow() -> dict[str, Any]:
        await asyncio.sleep(seconds)
        return await inner("get_format_matchup_stats", {"format": "Modern", "days": 30})

    return slow


async def test_a_turn_longer_than_its_lease_keeps_the_conversation(world: dict[str, Any]) -> None:
    """The probe's race: T1 outlives the lock's lease and T2 arrives after the lease would have run out.
    Renewed, the lock still refuses T2 (409); T1 is stored; T2 then runs and both turns stay."""
    executor = faulty_executor(world, "get_format_matchup_stats", _slow_then_real(world, 2.5 * LEASE))
    conversations = coach(world, executor=executor, chat_lock_seconds=LEASE)
    with chat_server(world, conversations) as base:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            cid, before = await first_turn_over_http(http, conversations)

            started = time.perf_counter()
            slow = asyncio.create_task(http.post("/chat", json={"message": Q_MATCHUPS, "conversation_id": cid}))
            await asyncio.sleep(1.5 * LEASE)  # past the lease taken when T1 started
            late = await http.post("/chat", json={"message": Q_DAYS, "conversation_id": cid})
            assert late.status_code == 409 and late.json()["error"] == "conflict", late.text
            answered = await slow
            seconds = time.perf_counter() - started
            assert seconds > 2 * LEASE and [k for k, _ in sse_events(answered.text)][-2:] == ["state", "done"]
            mid = await assert_consistent(conversations, cid, before)
            assert mid[-2] == ("user", Q_MATCHUPS)

            executor.armed = False
            again = await http.post("/chat", json={"message": Q_DAYS, "conversation_id": cid})
            assert [k for k, _ in sse_events(again.text)][-2:] == ["state", "done"]
            after = await assert_consistent(conversations, cid, mid)
    assert [content for role, content in after if role == "user"] == [Q_RANKINGS, Q_MATCHUPS, Q_DAYS]
    record(
        f"turn outlives its lock's lease ({LEASE}s), second turn sent meanwhile",
        f"T1 answered in {seconds:.1f}s; T2 during it: 409 conflict",
        f"lease renewed; T1 stored, T2 sent again OK; nothing lost ({len(after)} messages)",
        seconds,
    )


async def test_a_lease_that_cannot_be_renewed_stops_the_turn(world: dict[str, Any]) -> None:
    """DynamoDB refuses every renewal: the turn is stopped before its lease runs out (so no other turn can
    start while it runs), says why, stores nothing, and frees the conversation."""
    executor = faulty_executor(world, "get_format_matchup_stats", _slow_then_real(world, 3 * LEASE))
    conversations = coach(world, executor=executor, chat_lock_seconds=LEASE)
    settings = conversations.settings
    with chat_server(world, conversations) as base:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            cid, before = await first_turn_over_http(http, conversations)

            renewals = dynamodb_fault(
                world["db"].meta.client, ("UpdateItem",), "ThrottlingException", None, settings.locks_table
            )
            started = time.perf_counter()
            with renewals as injected:
                response = await http.post("/chat", json={"message": Q_MATCHUPS, "conversation_id": cid})
            seconds = time.perf_counter() - started
            events = sse_events(response.text)
            error = events[-1][1]
            assert events[-1][0] == "error" and error["error"] == "lock_lost", events
            assert "nothing of it was saved" in error["message"]
            assert injected.attempts > 1 and seconds < LEASE + 0.5  # stopped while the lease was still its own
            assert await assert_consistent(conversations, cid, before) == before

            executor.armed = False
            again = await http.post("/chat", json={"message": Q_MATCHUPS, "conversation_id": cid})
            assert again.status_code == 200 and [k for k, _ in sse_events(again.text)][-2:] == ["state", "done"]
            after = await assert_consistent(conversations, cid, before)
    assert len(after) == 4
    record(
        "lock renewals refused by DynamoDB (every attempt) during a slow turn",
        f"error event lock_lost after {seconds:.1f}s: '{short(error['message'])}'",
        f"turn not stored; conversation free at once; next turn OK ({len(after)} messages)",
        seconds,
    )


async def test_a_turn_that_lost_its_lock_cannot_overwrite_the_next(world: dict[str, Any]) -> None:
    """The fence alone (as if T1's process had been paused past its lease, so it never noticed): T2 takes
    the expired lock and is stored; T1's final write is refused with a clear error and T2 is kept."""
    executor = faulty_executor(world, "get_format_matchup_stats", _slow_then_real(world, 1.0))
    conversations = coach(world, executor=executor, chat_lock_seconds=LEASE)
    locks = LocksRepository(world["db"].Table(conversations.settings.locks_table))
    cid = (await run_turn(conversations, Q_RANKINGS)).conversation_id
    before = await assert_consistent(conversations, cid, [])

    first = await TurnLease.take(locks, cid, LEASE)
    assert first is not None
    t1 = Turn()

    async def run_t1() -> None:  # no heartbeat: T1 holds its lease only by its ttl
        async for event in conversations.turn(Q_MATCHUPS, cid, lock_owner=first.owner):
            t1.events.append(event)

    started = time.perf_counter()
    running = asyncio.create_task(run_t1())
    await asyncio.sleep(0.3)
    locks.table.update_item(  # T1's lease runs out while it is still busy
        Key={"pk": first.name},
        UpdateExpression="SET #ttl = :past",
        ExpressionAttributeNames={"#ttl": "ttl"},
        ExpressionAttributeValues={":past": int(time.time()) - 1},
    )
    second = await TurnLease.take(locks, cid, LEASE)
    assert second is not None, "the expired lock was not free"
    executor.armed = False
    t2 = Turn()
    async for event in second.run(conversations.turn(Q_DAYS, cid, lock_owner=second.owner), 30):
        t2.events.append(event)
    assert t2.completed, t2.events
    await running
    seconds = time.perf_counter() - started
    assert t1.text and t1.error is not None and t1.error["error"] == "lock_lost", t1.events
    assert "not saved" in t1.error["message"]
    after = await assert_consistent(conversations, cid, before)
    assert [content for role, content in after if role == "user"] == [Q_RANKINGS, Q_DAYS]
    record(
        "turn outlives its lease unnoticed (paused process); the next turn takes the lock",
        f"T1: answer, then error event lock_lost: '{short(t1.error['message'])}'",
        f"T1's write refused by the fence; T2 kept ({len(after)} messages)",
        seconds,
    )


async def test_a_turn_stops_at_its_deadline(world: dict[str, Any]) -> None:
    executor = faulty_executor(world, "get_format_matchup_stats", _slow_then_real(world, 5))
    conversations = coach(world, executor=executor, turn_deadline_seconds=1)
    with chat_server(world, conversations) as base:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            cid, before = await first_turn_over_http(http, conversations)

            started = time.perf_counter()
            response = await http.post("/chat", json={"message": Q_MATCHUPS, "conversation_id": cid})
            seconds = time.perf_counter() - started
            events = sse_events(response.text)
            assert events[-1][0] == "error" and events[-1][1]["error"] == "turn_timeout", events
            assert "longer than 1 seconds" in events[-1][1]["message"] and seconds < 2.5
            assert await assert_consistent(conversations, cid, before) == before

            executor.armed = False
            again = await http.post("/chat", json={"message": Q_MATCHUPS, "conversation_id": cid})
            assert again.status_code == 200 and [k for k, _ in sse_events(again.text)][-2:] == ["state", "done"]
            after = await assert_consistent(conversations, cid, before)
    record(
        "turn runs past its deadline (turn_deadline_seconds=1, a 5 s tool)",
        f"error event turn_timeout after {seconds:.1f}s: '{short(events[-1][1]['message'])}'",
        f"turn not stored; lock released; next turn OK ({len(after)} messages)",
        seconds,
    )


# --- the server process killed between two turns -----------------------------------------------------

KILL_LEASE = 2  # the served app's chat_lock_seconds: how long a killed turn can keep its conversation


@dataclass
class Served:
    """A ``meta-mage serve`` process and its base URL."""

    process: subprocess.Popen[bytes]
    base: str


class ServeProcesses:
    """``meta-mage serve`` processes over the module's DynamoDB, each on its own port, logging to one file. A
    server a test leaves running is the next test's first (each start costs about 1.5 s of CPU, nearly all of it
    importing the app)."""

    def __init__(self, world: dict[str, Any], log: Path) -> None:
        self.world, self.log = world, log
        self.started: list[Served] = []
        self.live: Served | None = None

    def launch(self) -> Served:
        """Start a server; it is not waited for (see ``ready``)."""
        settings = self.world["settings"]
        env = {
            **os.environ,
            "META_MAGE_META_TABLE": settings.meta_table,
            "META_MAGE_CARDS_TABLE": settings.cards_table,
            "META_MAGE_DRAFTS_TABLE": settings.drafts_table,
            "META_MAGE_CHECKPOINT_TABLE": settings.checkpoint_table,
            "META_MAGE_LOCKS_TABLE": settings.locks_table,
            "META_MAGE_MODEL": "offline",
            "META_MAGE_MCP_URL": "",
            "META_MAGE_CHAT_LOCK_SECONDS": str(KILL_LEASE),
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        port = free_port()
        command = [
            str(Path(sys.executable).with_name("meta-mage")),
            *("serve", "--dynamodb-endpoint", self.world["url"], "--no-seed", "--port", str(port)),
        ]
        with self.log.open("ab") as out:
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        served = Served(process, f"http://127.0.0.1:{port}")
        self.started.append(served)
        return served

    def ready(self, served: Served) -> Served:
        """Wait until ``served`` answers; it is then the live server."""
        try:
            wait_until_answers(served.process, f"{served.base}/healthz", self.log)
        except AssertionError:
            served.process.kill()
            raise
        self.live = served
        return served

    def start(self) -> Served:
        return self.ready(self.launch())

    def current(self) -> Served:
        """The live server, or a new one when there is none."""
        if self.live is not None and self.live.process.poll() is None:
            return self.live
        return self.start()

    def stop(self) -> None:
        for served in self.started:
            if served.process.poll() is None:
                served.process.kill()
                served.process.wait(5)


@pytest.fixture(scope="module")
def servers(world: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcesses]:
    processes = ServeProcesses(world, tmp_path_factory.mktemp("serve") / "serve.log")
    try:
        yield processes
    finally:
        processes.stop()


def _kill(served: Served) -> None:
    served.process.send_signal(signal.SIGKILL)
    assert served.process.wait(5) == -signal.SIGKILL


def test_server_killed_between_two_turns(servers: ServeProcesses) -> None:
    started = time.perf_counter()
    first_server = servers.current()
    second_server = servers.launch()  # a new process, started while the first one answers
    with httpx.Client(timeout=120) as http:  # one client: each one made builds an SSL context (20-40 ms of CPU)
        base = first_server.base
        first = sse_events(http.post(f"{base}/chat", json={"message": Q_RANKINGS}).text)
        assert [k for k, _ in first][-2:] == ["state", "done"]
        cid = first[0][1]["conversation_id"]
        before = http.get(f"{base}/conversations/{cid}").json()

        _kill(first_server)

        base = servers.ready(second_server).base
        resumed = http.get(f"{base}/conversations/{cid}").json()
        assert resumed == before and len(resumed["messages"]) == 2
        assert resumed["state"]["format"] == "Modern" and resumed["state"]["days"] == 30

        # "14 days" only fills a slot: it resumes the last request from the state read back from DynamoDB
        second = sse_events(http.post(f"{base}/chat", json={"message": Q_DAYS, "conversation_id": cid}).text)
        assert [k for k, _ in second][-2:] == ["state", "done"], second
        state = next(d for k, d in second if k == "state")
        assert state["format"] == "Modern" and state["days"] == 14
        after = http.get(f"{base}/conversations/{cid}").json()
    assert after["messages"][:2] == before["messages"] and len(after["messages"]) == 4
    assert [m["role"] for m in after["messages"]] == ["user", "assistant"] * 2
    assert "Traceback" not in servers.log.read_text()
    seconds = time.perf_counter() - started
    record(
        "server killed (SIGKILL) between two turns",
        "turn 1 answered; server gone; new server on the same DynamoDB",
        "history and state (Modern, 30 days) read back; '14 days' resumed the rankings (4 messages)",
        seconds,
    )


# --- the server process killed in the middle of a turn ------------------------------------------------


def _deck_question() -> str:
    from tests.agent.conftest import modern_deck

    deck, _ = modern_deck("Boros Energy")
    return f"Here is my deck:\n{deck}\n\nWhat are my worst matchups over the last 30 days in Modern?"


def _is_call(tool: str) -> Callable[[str, dict[str, Any]], bool]:
    return lambda kind, data: kind == "tool_call" and data.get("tool") == tool and data.get("status") == "calling"


# where to kill, and whether the turn was already stored there (its checkpoint is written before `state`)
KILL_POINTS: dict[str, tuple[Callable[[str, dict[str, Any]], bool], bool]] = {
    "after metadata": (lambda kind, _: kind == "metadata", False),
    "during get_enriched_deck": (_is_call("get_enriched_deck"), False),
    "during classify_deck": (_is_call("classify_deck"), False),
    "mid-content": (lambda kind, _: kind == "content", False),
    "after state, before done": (lambda kind, _: kind == "state", True),
}


def _stream_until(
    http: httpx.Client, base: str, body: dict[str, Any], stop: Callable[[str, dict[str, Any]], bool]
) -> list[str]:
    """POST /chat and read its events until ``stop`` says so; the kinds read."""
    seen: list[str] = []
    with http.stream("POST", f"{base}/chat", json=body) as response:
        assert response.status_code == 200, response.read()
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and kind:
                seen.append(kind)
                if stop(kind, json.loads(line.split(":", 1)[1])):
                    return seen
    raise AssertionError(f"the turn ended before the kill point: {seen}")


def test_server_killed_in_the_middle_of_a_turn(servers: ServeProcesses) -> None:
    """SIGKILL at five points of a deck-coaching turn (a Lambda timeout or out-of-memory kill is the same):
    a new server answers the conversation as soon as the killed turn's lease runs out, with every earlier
    turn kept and nothing of the killed one stored."""
    question = _deck_question()
    server = servers.current()
    with httpx.Client(timeout=120) as http:  # one client for every request (see above)
        for point, (stop, stored) in KILL_POINTS.items():
            base = server.base
            first = sse_events(http.post(f"{base}/chat", json={"message": Q_RANKINGS}).text)
            cid = first[0][1]["conversation_id"]
            before = http.get(f"{base}/conversations/{cid}").json()["messages"]

            started = time.perf_counter()
            seen = _stream_until(http, base, {"message": question, "conversation_id": cid}, stop)
            _kill(server)
            killed = time.perf_counter()
            server = servers.start()
            base = server.base
            restarted = time.perf_counter()

            conflicts = 0
            while True:
                response = http.post(f"{base}/chat", json={"message": Q_DAYS, "conversation_id": cid})
                if response.status_code != 409 or time.perf_counter() - killed > KILL_LEASE + 10:
                    break
                conflicts += 1
                time.sleep(0.1)
            free_after = time.perf_counter() - killed
            assert response.status_code == 200, response.text
            assert [k for k, _ in sse_events(response.text)][-2:] == ["state", "done"]
            assert free_after <= (restarted - killed) + KILL_LEASE + 1.5, f"{point}: locked for {free_after:.1f}s"

            after = http.get(f"{base}/conversations/{cid}").json()["messages"]
            assert after[: len(before)] == before, f"{point}: an earlier turn was lost"
            turns = 3 if stored else 2
            assert [m["role"] for m in after] == ["user", "assistant"] * turns, f"{point}: {after}"
            assert [m["content"] for m in after if m["role"] == "user"][1:] == [question] * stored + [Q_DAYS]
            record(
                f"server killed (SIGKILL) mid-turn: {point}",
                f"events {', '.join(dict.fromkeys(seen))}; connection dropped",
                f"killed turn {'kept whole' if stored else 'not stored'}; conversation free {free_after:.1f}s after "
                "the kill "
                f"(restart {restarted - killed:.1f}s, {conflicts} x 409); next turn OK",
                time.perf_counter() - started,
            )
    assert "Traceback" not in servers.log.read_text()


# --- the table -------------------------------------------------------------------------------------------


def test_zz_print_the_fault_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Print what each injected fault looked like (run with -s to see it in place)."""
    assert RESULTS, "no fault was injected"
    with capsys.disabled():
        sys.stdout.write(f"\n\nInjected faults ({len(RESULTS)}):\n{fault_table()}\n")
        sys.stdout.flush()
