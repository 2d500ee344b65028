"""The conversation's state is one typed model: the route and the pending request (and every other model slot)
go into the real checkpointer (DynamoDBSaver on moto, LangGraph's serializer) as JSON and are read back as the
models; conversations stored before that, as models under their old module, still load and resume."""

from typing import Any

import pytest

from meta_mage.agent.checkpointer import ConversationSaver
from meta_mage.agent.conversation import AgentEvent, Conversations
from meta_mage.agent.state import ConversationState, Pending, Route
from meta_mage.wiring import coach_from_settings

ASKED = "How does Boros Energy do against Jeskai Blink over the last 30 days?"
SNAPSHOT_KEYS = {
    "has_deck",
    "format",
    "archetype",
    "days",
    "opponent_archetype",
    "draft_id",
    "current_workflow",
    "suggested_archetype",
    "has_matchup_stats",
}


async def run(conv: Conversations, message: str, conversation_id: str) -> list[AgentEvent]:
    events = [event async for event in conv.turn(message, conversation_id)]
    assert [e.event for e in events if e.event in ("error", "done")] == ["done"], events
    return events


async def test_route_and_pending_round_trip_as_models(modern_world: dict[str, Any]) -> None:
    conv = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    # Given a question the coach cannot answer before it knows the format
    cid = await conv.start()
    await run(conv, ASKED, cid)

    # When the conversation is read back through the checkpointer
    known = ConversationState.of(await conv.load(cid))
    stored = await conv.checkpointer.aget_tuple({"configurable": {"thread_id": cid}})

    # Then the route and the pending request are the models written, stored as JSON (no classes of ours)
    route, pending = known.route, known.pending
    assert isinstance(route, Route) and isinstance(pending, Pending)
    assert (route.workflow, route.question, route.days) == ("meta_research", ASKED, 30)
    assert (pending.workflow, pending.task, pending.missing, pending.route) == (
        "meta_research",
        route.task,
        "format",
        route,
    )
    channels = stored.checkpoint["channel_values"]
    assert channels["route"] == route.model_dump(mode="json") and channels["pending"]["route"] == channels["route"]
    # and the spec's state snapshot keeps its shape
    assert set((await conv.view(cid))["state"]) == SNAPSHOT_KEYS

    # When the user answers, the pending request resumes and is cleared
    await run(conv, "Modern", cid)
    known = ConversationState.of(await conv.load(cid))
    assert known.pending is None and known.route is not None
    assert (known.route.task, known.route.format, known.route.question) == ("matchups", "Modern", f"{ASKED}\nModern")
    assert (known.route.archetype, known.route.opponent) == ("Boros Energy", "Jeskai Blink")


async def test_a_conversation_stored_with_dicts_still_loads_and_resumes(modern_world: dict[str, Any]) -> None:
    conv = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    # Given a conversation written before the route and the pending request were models: both dicts
    cid = await conv.start()
    route = {
        "workflow": "meta_research",
        "task": "matchups",
        "confidence": 0.85,
        "format": None,
        "days": 30,
        "archetype": "Boros Energy",
        "opponent": "Jeskai Blink",
        "draft": None,
        "card_filter": None,
        "has_decklist": False,
        "confirms_archetype": None,
        "question": ASKED,
    }
    pending = {"workflow": "meta_research", "task": "matchups", "missing": "format", "route": route}
    legacy = {"route": route, "pending": pending, "current_workflow": "meta_research", "current_task": "matchups"}
    await conv.graph.aupdate_state({"configurable": {"thread_id": cid}}, legacy, as_node="finish")
    values = await conv.load(cid)
    assert values["pending"] == pending and values["route"] == route  # stored and read back as dicts
    assert set((await conv.view(cid))["state"]) == SNAPSHOT_KEYS

    # When the user answers the question that was pending
    events = await run(conv, "Modern", cid)

    # Then the old pending request is read as one: the matchup asked about is answered in Modern
    known = ConversationState.of(await conv.load(cid))
    assert known.pending is None and known.route is not None
    assert (known.route.format, known.route.days) == ("Modern", 30)
    assert (known.route.archetype, known.route.opponent) == ("Boros Energy", "Jeskai Blink")
    assert any(e.event == "tool_call" for e in events)


def test_route_and_pending_stored_under_their_old_module_still_load(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a checkpoint written when Route and Pending were defined in agent.state (they now live in
    # models.conversation, and LangGraph's serializer names a model by its module)
    route = Route(workflow="meta_research", task="rankings", confidence=0.85, question="top decks?")
    pending = Pending(workflow="meta_research", task="rankings", missing="days", route=route)
    for model in (Route, Pending):
        monkeypatch.setattr(model, "__module__", "meta_mage.agent.state")
    stored = ConversationSaver.serde.dumps_typed({"route": route, "pending": pending})
    monkeypatch.undo()
    assert b"meta_mage.agent.state" in stored[1]

    # When the checkpointer reads it back
    values = ConversationSaver.serde.loads_typed(stored)

    # Then both are the models, not dicts
    assert values == {"route": route, "pending": pending}
    assert isinstance(values["route"], Route) and isinstance(values["pending"], Pending)


async def test_a_conversation_stored_with_removed_slots_still_loads_and_resumes(modern_world: dict[str, Any]) -> None:
    conv = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    # Given a conversation stored when the state still had the welcome's tool catalog and workflows
    cid = await conv.start({"message": "Welcome!", "available_formats": ["Modern"]})
    config = {"configurable": {"thread_id": cid, "checkpoint_ns": ""}}
    stored = await conv.checkpointer.aget_tuple(config)
    checkpoint = {**stored.checkpoint}
    removed = {"tool_catalog": [{"name": "list_formats"}], "workflows": [{"name": "meta_research"}]}
    checkpoint["channel_values"] = {**checkpoint["channel_values"], **removed}
    checkpoint["channel_versions"] = {**checkpoint["channel_versions"], **dict.fromkeys(removed, 1)}
    await conv.checkpointer.aput(stored.config, checkpoint, stored.metadata, dict.fromkeys(removed, 1))
    assert {**(await conv.checkpointer.aget_tuple(config)).checkpoint["channel_values"]}.keys() >= removed.keys()

    # When it is loaded and the user asks a question
    known = ConversationState.of(await conv.load(cid))
    await run(conv, ASKED.replace("?", " in Modern?"), cid)

    # Then it loads (the removed slots are ignored) and the turn is answered
    assert known.available_formats == ["Modern"]
    after = ConversationState.of(await conv.load(cid))
    assert after.route is not None and after.route.format == "Modern"
