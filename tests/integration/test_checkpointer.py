"""Conversation memory: the DynamoDBSaver as configured passes LangGraph's checkpointer conformance
suite on the CheckpointTable of template.yaml, its items expire by TTL, and old conversations read as
expired."""

import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace
from typing import Any

import boto3
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import CapabilityReport

from meta_mage.agent.checkpointer import make_checkpointer
from meta_mage.agent.conversation import AgentEvent, ConversationExpired, ConversationNotFound, Conversations
from meta_mage.config import Settings
from meta_mage.errors import InvalidArgument, StorageUnavailable
from meta_mage.storage.dynamo import aws_region
from meta_mage.storage.tables import ttl_attributes
from meta_mage.wiring import coach_from_settings

BASE_CAPABILITIES = {"put", "put_writes", "get_tuple", "list", "delete_thread"}
QUESTION = "What are the top decks in Modern over the last 30 days?"


def summary(report: CapabilityReport) -> str:
    """One line: ``capability: passed/failed`` for every detected capability."""
    parts = [
        f"{name}: {result.tests_passed}/{result.tests_failed}"
        for name, result in report.results.items()
        if result.detected
    ]
    skipped = sorted(name for name, result in report.results.items() if not result.detected)
    return (
        f"conformance {report.checkpointer_name} {report.conformance_level()} (passed/failed) "
        + ", ".join(parts)
        + f"; not implemented: {', '.join(skipped) or '-'}"
    )


async def collect(events: AsyncIterator[AgentEvent]) -> list[AgentEvent]:
    """Every event of one turn."""
    return [event async for event in events]


async def test_configured_saver_passes_the_conformance_suite(dynamodb: Any, settings: Settings) -> None:
    """Every capability the saver implements passes LangGraph's official conformance suite."""

    # Given the checkpointer exactly as the app builds it, on the table made from template.yaml
    @checkpointer_test(name="meta-mage DynamoDBSaver")
    async def configured_saver() -> AsyncGenerator[Any, None]:
        yield make_checkpointer(settings)

    # When the suite runs against it (inside the moto mock held by the fixture)
    report = await validate(configured_saver)
    print("\n" + summary(report))

    # Then the base capabilities are detected and every detected capability passed
    detected = {name for name, result in report.results.items() if result.detected}
    assert detected >= BASE_CAPABILITIES
    failures = {
        name: result.failures for name, result in report.results.items() if result.detected and result.tests_failed
    }
    assert not failures
    assert report.passed_all(), report.to_dict()
    assert all(report.results[name].tests_passed > 0 for name in detected)


async def test_checkpoint_items_carry_a_ttl_three_hours_ahead(dynamodb: Any, settings: Settings) -> None:
    """The CheckpointTable expires items on ``ttl``; a turn writes items with ``ttl`` ≈ now + 3 h."""
    # (a plain client: the resource's own client deserialises, hiding the attribute types)
    client = boto3.client("dynamodb", region_name=aws_region(settings))
    table = settings.checkpoint_table

    # Given the table from template.yaml has TTL enabled on ``ttl``
    assert ttl_attributes()["CheckpointTable"] == "ttl"
    described = client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert described["TimeToLiveStatus"] == "ENABLED"
    assert described["AttributeName"] == "ttl"
    assert settings.conversation_ttl_seconds == 10800

    # When one offline turn runs (nothing behind the tools: the items are what matter here)
    conv = coach_from_settings(settings, dynamodb=dynamodb)
    assert conv.offline
    before = time.time()
    events = await collect(conv.turn("hello", None))
    after = time.time()
    assert events[0].event == "metadata" and events[-1].event == "done"

    # Then every checkpoint item carries a numeric ttl about now + 10800 s
    items = client.scan(TableName=table)["Items"]
    assert items
    for item in items:
        assert set(item["ttl"]) == {"N"}, item["ttl"]
        expires = float(item["ttl"]["N"])
        assert before + 10800 - 5 <= expires <= after + 10800 + 5


@pytest.fixture()
def world_conversations(modern_world: dict[str, Any]) -> Conversations:
    """Offline Conversations over the session's Modern world (default settings name no model)."""
    conv = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    assert conv.offline
    return conv


async def first_turn(conv: Conversations) -> str:
    conversation_id = await conv.start()
    events = await collect(conv.turn(QUESTION, conversation_id))
    assert [e.event for e in events if e.event in ("error", "done")] == ["done"], events
    return conversation_id


async def test_conversation_idle_over_three_hours_reads_expired_then_not_found(
    world_conversations: Conversations,
) -> None:
    """Past the TTL a conversation reads as expired once (by load or by a turn), its thread is
    deleted, and from then on it reads as not found."""
    conv = world_conversations
    # Given two conversations with one answered turn each
    by_load, by_turn = await first_turn(conv), await first_turn(conv)
    assert (await conv.load(by_load))["messages"]

    # When the clock moves 3 h + 1 s past now
    now = time.time()
    conv.deps.clock = lambda: now + 10800 + 1

    # Then loading one says expired
    with pytest.raises(ConversationExpired) as expired:
        await conv.load(by_load)
    assert expired.value.code == "conversation_expired"
    assert expired.value.field == "conversation_id"
    # And a turn on the other yields a single error event saying expired
    events = await collect(conv.turn("hello", by_turn))
    assert [e.event for e in events] == ["error"]
    assert events[0].data["error"] == "conversation_expired"

    # And both threads are gone: load says not found, and so does a later turn
    for conversation_id in (by_load, by_turn):
        with pytest.raises(ConversationNotFound):
            await conv.load(conversation_id)
    events = await collect(conv.turn("hello", by_load))
    assert [(e.event, e.data["error"]) for e in events] == [("error", "conversation_not_found")]
    assert not await conv.checkpointer.aget_tuple({"configurable": {"thread_id": by_load}})


async def test_conversation_idle_just_under_three_hours_still_loads(world_conversations: Conversations) -> None:
    """One second short of the TTL the conversation is intact."""
    conv = world_conversations
    conversation_id = await first_turn(conv)
    now = time.time()
    conv.deps.clock = lambda: now + 10800 - 1

    values = await conv.load(conversation_id)

    assert [type(m).__name__ for m in values["messages"]][:1] == ["HumanMessage"]
    assert values["messages"][0].content == QUESTION


async def test_unknown_and_malformed_ids(world_conversations: Conversations) -> None:
    """An unknown uuid4 is not found; anything but a UUID is an invalid argument."""
    with pytest.raises(ConversationNotFound):
        await world_conversations.load(str(uuid.uuid4()))
    for bad in ("not-a-uuid", "", "12345"):
        with pytest.raises(InvalidArgument) as invalid:
            await world_conversations.load(bad)
        assert invalid.value.field == "conversation_id"


async def test_an_id_in_another_spelling_is_echoed_in_its_own(world_conversations: Conversations) -> None:
    conversation_id = await first_turn(world_conversations)
    for spelling in (f"urn:uuid:{conversation_id}", conversation_id.upper(), "{" + conversation_id + "}"):
        view = await world_conversations.view(spelling)
        assert view["conversation_id"] == conversation_id


async def test_a_turn_under_another_spelling_continues_the_conversation(world_conversations: Conversations) -> None:
    """The turn's load read the canonical thread and its run the id as spelled: the run started a thread of
    its own, and the conversation lost the turn."""
    conversation_id = await first_turn(world_conversations)
    events = await collect(world_conversations.turn("and over 14 days?", conversation_id.upper()))
    assert [e.event for e in events if e.event in ("error", "done")] == ["done"], events
    view = await world_conversations.view(conversation_id)
    assert [m["role"] for m in view["messages"]] == ["user", "assistant"] * 2


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(10800, "3 hours"), (3600, "1 hour"), (2700, "45 minutes"), (60, "1 minute"), (90, "90 seconds")],
)
async def test_expiry_says_how_long_in_its_unit(world_conversations: Conversations, seconds: int, said: str) -> None:
    """A TTL under an hour said "expired after 0 hours"."""
    conv = Conversations(world_conversations.deps, world_conversations.checkpointer, world_conversations.model_choice)
    conv.settings = conv.settings.model_copy(update={"conversation_ttl_seconds": seconds})
    conversation_id = await first_turn(conv)
    now = time.time()
    conv.deps = replace(conv.deps, clock=lambda: now + seconds + 1)
    with pytest.raises(ConversationExpired) as expired:
        await conv.load(conversation_id)
    assert f"expired after {said} without activity" in expired.value.message


async def test_sdk_errors_come_out_as_storage_unavailable(dynamodb: Any, settings: Settings) -> None:
    """Every DynamoDB call of the saver turns the SDK's error into ``StorageUnavailable`` naming the table
    and the operation (callers never meet botocore)."""
    # Given a saver pointed at a table that does not exist
    saver = make_checkpointer(settings.model_copy(update={"checkpoint_table": "no-such-table"}))
    config: Any = {"configurable": {"thread_id": str(uuid.uuid4()), "checkpoint_ns": ""}}

    # When each kind of call reaches DynamoDB, Then each raises StorageUnavailable
    with pytest.raises(StorageUnavailable, match=r"ResourceNotFoundException.*no-such-table, checkpoint get_tuple"):
        await saver.aget_tuple(config)
    with pytest.raises(StorageUnavailable, match=r"checkpoint list"):
        [item async for item in saver.alist(config)]
    with pytest.raises(StorageUnavailable, match=r"checkpoint delete_thread"):
        await saver.adelete_thread(config["configurable"]["thread_id"])
    with pytest.raises(StorageUnavailable, match=r"checkpoint put"):
        await saver.aput(config, empty_checkpoint(), {}, {})


def test_a_turn_reads_its_checkpoint_from_dynamodb_once(dynamodb: Any, settings: Settings) -> None:
    """A turn's load and its run ask for the same checkpoint: within ``reading_once`` DynamoDB is asked once and
    the second read gets a copy of the first's answer; a write ends that, and outside a turn every read asks."""
    saver = make_checkpointer(settings)
    thread = str(uuid.uuid4())
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    saver.put(config, empty_checkpoint(), {}, {})
    requests: list[str] = []
    saver.client.meta.events.register("before-call.dynamodb", lambda model, **_: requests.append(model.name))
    # Given no turn, When the checkpoint is read twice, Then DynamoDB is asked twice
    saver.get_tuple(config)
    one_read = len(requests)
    saver.get_tuple(config)
    assert one_read > 0 and len(requests) == 2 * one_read
    requests.clear()
    with saver.reading_once(thread):
        # Given a turn, When its load and its run read the checkpoint, Then DynamoDB is asked once
        first = saver.get_tuple(config)
        first.checkpoint["channel_values"]["changed"] = True  # a copy is handed out: the second is as read
        second = saver.get_tuple(config)
        assert len(requests) == one_read
        assert (
            second.checkpoint["id"] == first.checkpoint["id"] and "changed" not in second.checkpoint["channel_values"]
        )
        # When the turn writes, Then the next read asks DynamoDB again and sees the write
        written = saver.put(second.config, empty_checkpoint(), {}, {})
        requests.clear()
        third = saver.get_tuple(config)
        assert third.checkpoint["id"] == written["configurable"]["checkpoint_id"]
        assert len(requests) == one_read
