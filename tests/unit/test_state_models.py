"""The conversation's one typed state: read from checkpoints (models as they are, the shapes older checkpoints hold
— dicts for the route and the pending request, missing keys, numbers as text or Decimal — validated into the same
models, derived facts that no longer validate dropped, so they are derived again) and changed only through checked
updates (a slot that does not exist, or a value not of its type, fails where it is written)."""

from decimal import Decimal
from typing import Any

import pytest

from meta_mage.agent.state import ConversationState, Pending, Route, snapshot
from meta_mage.models.decks import CardDetail
from tests.unit.routing_data import CARDS, DECK, matchup_stats

CARDS_STORED = [CardDetail.model_validate(card).model_dump(mode="json") for card in CARDS]  # as get_enriched_deck wrote
ROUTE = Route(workflow="meta_research", task="rankings", confidence=0.85, format="Modern", question="top decks?")


@pytest.mark.parametrize("value", [None, {}])
def test_nothing_stored_reads_as_none(value: Any) -> None:
    known = ConversationState.of({"route": value, "pending": value})
    assert known.route is None and known.pending is None
    assert ConversationState.of({}) == ConversationState()


def test_a_model_reads_as_itself() -> None:
    pending = Pending(workflow="meta_research", task="rankings", missing="days", route=ROUTE)
    known = ConversationState.of({"route": ROUTE, "pending": pending})
    assert known.route is ROUTE and known.pending is pending


def test_a_dict_from_an_older_checkpoint_is_validated_into_the_model() -> None:
    stored = {"workflow": "meta_research", "task": "rankings", "missing": "days", "route": ROUTE.model_dump()}
    known = ConversationState.of({"pending": stored, "route": ROUTE.model_dump()})
    assert known.pending == Pending(workflow="meta_research", task="rankings", missing="days", route=ROUTE)
    assert known.route == ROUTE


def test_a_partial_dict_keeps_what_it_says() -> None:
    pending = ConversationState.of({"pending": {"missing": "format", "route": {"question": "top decks?"}}}).pending
    assert pending is not None and pending.route is not None
    assert (pending.workflow, pending.task, pending.missing, pending.route.question) == (
        None,
        None,
        "format",
        "top decks?",
    )


def test_a_conversation_stored_in_the_old_shape_loads() -> None:
    # Given a checkpoint's values as an older version wrote them: dicts, Nones, numbers as Decimal and text
    stored = {
        "format": "Modern",
        "days": Decimal("30"),
        "tool_rounds": "2",
        "deck_text": DECK,
        "card_details": CARDS_STORED,
        "archetype": "Boros Energy",
        "suggested_archetype": None,
        "deck_format": "Modern",
        "deck_archetype": "Boros Energy",
        "opponent_archetype": "Jeskai Blink",
        "matchup_stats": matchup_stats(),
        "available_formats": None,
        "current_workflow": "deck_coaching",
        "current_task": "strategy",
        "pending": {"workflow": "deck_coaching", "task": "strategy", "missing": "opponent"},
        "route": {"workflow": "deck_coaching", "task": "strategy", "confidence": 0.9, "question": "how?"},
        "context": None,
        "messages": [],
        "last_active": Decimal("1700000000.5"),
    }

    # When it is read
    known = ConversationState.of(stored)

    # Then every key is where the model says, typed
    assert (known.deck_text, known.archetype, known.deck_format, known.deck_archetype) == (
        DECK,
        "Boros Energy",
        "Modern",
        "Boros Energy",
    )
    assert known.card_details == [CardDetail(name="Mountain", quantity=20, section="mainboard")]
    assert (known.format, known.days, known.opponent_archetype, known.tool_rounds) == ("Modern", 30, "Jeskai Blink", 2)
    assert (known.current_workflow, known.current_task, known.available_formats) == ("deck_coaching", "strategy", [])
    assert known.pending == Pending(workflow="deck_coaching", task="strategy", missing="opponent")
    assert known.route is not None and (known.route.task, known.route.question) == ("strategy", "how?")
    assert known.matchup_stats is not None and known.matchup_stats.metadata.period.days == 30
    # and the tools get the state's values back as JSON, as stored
    assert known.state_value("card_details") == CARDS_STORED
    assert known.state_value("matchup_stats") == matchup_stats()
    assert known.state_value("opponent_archetype") == "Jeskai Blink" and known.state_value("draft_id") is None
    assert snapshot(known) == {
        "has_deck": True,
        "format": "Modern",
        "archetype": "Boros Energy",
        "days": 30,
        "opponent_archetype": "Jeskai Blink",
        "draft_id": None,
        "current_workflow": "deck_coaching",
        "suggested_archetype": None,
        "has_matchup_stats": True,
    }


def test_derived_facts_that_no_longer_validate_are_dropped() -> None:
    # Given cards and statistics stored in a shape the models no longer accept
    known = ConversationState.of(
        {"deck_text": DECK, "card_details": [{"name": "Mountain"}], "matchup_stats": {"format": "x"}}
    )

    # Then they read as absent: the list is read again and the statistics fetched again; the list itself stays
    assert known.deck_text == DECK and known.card_details == [] and known.matchup_stats is None


def test_a_slot_is_changed_only_by_its_name_and_type() -> None:
    # Given a conversation about a Modern deck
    known = ConversationState(format="Modern", deck_text=DECK)

    # When a node writes a slot that does not exist, or a value not of its type, it fails there
    with pytest.raises(ValueError, match="not slots of the conversation state: opponent"):
        known.changes({"opponent": "Jeskai Blink"})
    with pytest.raises(ValueError, match="days"):
        known.changes({"days": "thirty"})

    # Then a well-typed change is returned as the checkpoint stores it (models as JSON), and None resets a slot
    pending = Pending(workflow="meta_research", task="rankings", missing="days")
    changes = known.changes({"days": 30, "pending": pending, "deck_text": None})
    assert changes == {"days": 30, "pending": pending.model_dump(mode="json"), "deck_text": None}
    after = known.applied(changes)
    assert (after.days, after.pending, after.deck_text, after.format) == (30, pending, None, "Modern")
    assert known.days is None  # the state read by the node is never changed in place


def test_every_slot_is_a_channel_of_the_graph() -> None:
    from meta_mage.agent.graph import AgentDeps, build_graph

    graph = build_graph(AgentDeps.__new__(AgentDeps), None)
    assert set(ConversationState.model_fields) <= set(graph.channels)
