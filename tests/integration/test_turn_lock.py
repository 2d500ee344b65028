"""The conversation lock in DynamoDB: a lease its owner renews, and the fence that keeps a turn which lost
its lock from storing its checkpoint (LocksTable and CheckpointTable from template.yaml, moto)."""

import time
from typing import Any

import boto3
import pytest

from meta_mage.agent.checkpointer import make_checkpointer
from meta_mage.agent.conversation import AgentEvent, Conversations
from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region
from meta_mage.storage.locks import LocksRepository, conversation_lock
from meta_mage.wiring import coach_from_settings

QUESTION = "hello"


@pytest.fixture()
def locks(dynamodb: Any, settings: Settings) -> LocksRepository:
    return LocksRepository(dynamodb.Table(settings.locks_table))


def expire(locks: LocksRepository, name: str) -> None:
    """As if the lease had run out (DynamoDB's TTL deletes late, so the lock item is still there)."""
    locks.table.update_item(
        Key={"pk": name},
        UpdateExpression="SET #ttl = :past",
        ExpressionAttributeNames={"#ttl": "ttl"},
        ExpressionAttributeValues={":past": int(time.time()) - 1},
    )


def test_only_the_owner_renews_an_unexpired_lease(locks: LocksRepository) -> None:
    # Given a lock taken by "a" for 5 s
    assert locks.acquire("conversation#x", "a", 5)
    assert not locks.acquire("conversation#x", "b", 5)

    # When its owner renews it for 60 s, it holds that long; another owner cannot renew it
    renewed_at = int(time.time())
    assert locks.renew("conversation#x", "a", 60)
    assert int(locks.table.get_item(Key={"pk": "conversation#x"})["Item"]["ttl"]) >= renewed_at + 60
    assert not locks.renew("conversation#x", "b", 60)

    # Then once expired, not even its owner renews it, and another turn takes it
    expire(locks, "conversation#x")
    assert not locks.renew("conversation#x", "a", 60)
    assert locks.acquire("conversation#x", "b", 5)
    assert not locks.renew("conversation#x", "a", 60)
    assert not locks.renew("conversation#missing", "a", 60)


async def turn(conv: Conversations, conversation_id: str | None, owner: str | None) -> list[AgentEvent]:
    return [e async for e in conv.turn(QUESTION, conversation_id, lock_owner=owner)]


async def test_a_fenced_turn_stores_what_the_saver_stores(
    dynamodb: Any, settings: Settings, locks: LocksRepository
) -> None:
    """The fenced write (payload, then the metadata item in one transaction with the lock check) leaves the
    same items as DynamoDBSaver's own ``put``, and the stock saver reads them back."""
    conv = coach_from_settings(settings, dynamodb=dynamodb)
    client = boto3.client("dynamodb", region_name=aws_region(settings))

    # Given one conversation stored without a fence and one under a lock its turn holds
    plain, fenced = await conv.start(), await conv.start()
    assert (await turn(conv, plain, None))[-1].event == "done"
    assert locks.acquire(conversation_lock(fenced), "owner-1", 30)
    events = await turn(conv, fenced, "owner-1")
    assert events[-1].event == "done", events

    # Then both have the same kinds of items with the same attributes
    def shape(conversation_id: str) -> list[tuple[str, tuple[str, ...]]]:
        items = client.scan(TableName=settings.checkpoint_table)["Items"]
        return sorted((i["PK"]["S"].split("_")[0], tuple(sorted(i))) for i in items if conversation_id in i["PK"]["S"])

    assert {kind for kind, _ in shape(fenced)} == {"CHECKPOINT", "CHUNK"}
    assert set(shape(fenced)) == set(shape(plain))
    # and the conversation reads back, its turn whole, through a fresh stock saver
    fresh = make_checkpointer(settings)
    stored = await fresh.aget_tuple({"configurable": {"thread_id": fenced}})
    assert stored is not None and [m.type for m in stored.checkpoint["channel_values"]["messages"]] == ["human", "ai"]


async def test_a_turn_that_no_longer_holds_the_lock_stores_nothing(
    dynamodb: Any, settings: Settings, locks: LocksRepository
) -> None:
    conv = coach_from_settings(settings, dynamodb=dynamodb)
    conversation_id = await conv.start()
    before = await conv.view(conversation_id)

    # Given the turn's lease ran out and another turn took the lock
    assert locks.acquire(conversation_lock(conversation_id), "owner-1", 30)
    expire(locks, conversation_lock(conversation_id))
    assert locks.acquire(conversation_lock(conversation_id), "owner-2", 30)

    # When the first turn ends, its answer streamed, its write is refused with a clear error
    events = await turn(conv, conversation_id, "owner-1")
    assert any(e.event == "content" for e in events)
    assert events[-1].event == "error" and events[-1].data["error"] == "lock_lost", events
    assert "not saved" in str(events[-1].data["message"])

    # Then the conversation is as it was; the owner of the lock can store its turn
    assert await conv.view(conversation_id) == before
    assert (await turn(conv, conversation_id, "owner-2"))[-1].event == "done"
    assert [m["role"] for m in (await conv.view(conversation_id))["messages"]] == ["user", "assistant"]
