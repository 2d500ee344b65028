"""``merge_slots`` on plain data: dropdown context, then the message's own slots, and what a new list, a
new format or a new archetype makes stale."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.agent.state import ConversationState, RouteDecision, TurnContext, merge_slots
from tests.unit.routing_data import CARDS, DECK, matchup_stats

CLARIFY = RouteDecision(workflow="clarify", confidence=0)
STALE = {
    "card_details": None,
    "matchup_stats": None,
    "suggested_archetype": None,
    "rejected_archetype": None,
    "deck_format": None,
    "deck_archetype": None,
}
DERIVED = {"card_details": CARDS, "matchup_stats": matchup_stats()}


def decide(workflow: str = "meta_research", **slots: Any) -> RouteDecision:
    return RouteDecision(workflow=workflow, confidence=0.9, **slots)  # type: ignore[arg-type]


# state, decision, context, message, draft_id, expected updates (exactly)
MERGES: list[tuple[dict[str, Any], RouteDecision, dict[str, Any] | None, str, str | None, dict[str, Any]]] = [
    ({}, CLARIFY, None, "", None, {}),
    # dropdown values fill the slots of the same name; the format is normalised
    ({}, CLARIFY, {"format": "modern", "days": 30}, "", None, {"format": "Modern", "days": 30}),
    (
        {},
        CLARIFY,
        {"opponent_archetype": "Jeskai Blink", "draft_id": "tarkir"},
        "",
        None,
        {"opponent_archetype": "Jeskai Blink", "draft_id": "tarkir"},
    ),
    ({}, CLARIFY, {"archetype": "Boros Energy"}, "", None, {"archetype": "Boros Energy", "matchup_stats": None}),
    # a dropdown list is a new list, with the dropdown's archetype
    (
        {},
        CLARIFY,
        {"deck_text": DECK, "archetype": "Boros Energy"},
        "",
        None,
        {"deck_text": DECK, "archetype": "Boros Energy", **STALE},
    ),
    # the message's slots win over the dropdown's
    (
        {},
        decide(format="Pioneer", days=14),
        {"format": "Modern", "days": 30},
        "",
        None,
        {"format": "Pioneer", "days": 14},
    ),
    (
        {"format": "Modern"},
        decide(opponent="Domain Zoo"),
        {"opponent_archetype": "Jeskai Blink"},
        "",
        None,
        {"opponent_archetype": "Domain Zoo"},
    ),
    ({}, decide("cube_draft"), None, "", "tarkir", {"draft_id": "tarkir"}),
    # the archetype is the user's deck only in deck coaching
    ({"format": "Modern"}, decide(archetype="Boros Energy"), None, "", None, {}),
    (
        {"format": "Modern"},
        decide("deck_coaching", archetype="Boros Energy"),
        None,
        "",
        None,
        {"archetype": "Boros Energy", "matchup_stats": None},
    ),
    (
        {"format": "Modern", "archetype": "Boros Energy", **DERIVED},
        decide("deck_coaching", archetype="Boros Energy"),
        None,
        "",
        None,
        {"archetype": "Boros Energy"},
    ),  # the same archetype keeps its statistics
    # a pasted list replaces what was derived from the old one
    (
        {"format": "Modern", "archetype": "Boros Energy", "deck_text": "old", **DERIVED},
        decide("deck_coaching", has_decklist=True),
        None,
        f"my deck\n{DECK}",
        None,
        {"deck_text": DECK, "archetype": None, **STALE},
    ),
    (
        {"format": "Modern", "archetype": "Boros Energy", "deck_text": DECK, **DERIVED},
        decide("deck_coaching", has_decklist=True),
        None,
        f"my deck\n{DECK}",
        None,
        {"deck_text": DECK, "deck_format": "Modern", "deck_archetype": "Boros Energy"},
    ),  # the same list: confirmed in Modern as Boros Energy, which stay with it
    # back to the deck after a question about another format: the deck's own format and archetype return
    (
        {"format": "Pioneer", "deck_text": DECK, "deck_format": "Modern", "deck_archetype": "Boros Energy", **DERIVED},
        decide("deck_coaching", opponent="Jeskai Blink"),
        None,
        "back to my deck: how do I play against Jeskai Blink?",
        None,
        {
            "format": "Modern",
            "archetype": "Boros Energy",
            "opponent_archetype": "Jeskai Blink",
            "matchup_stats": None,
            "suggested_archetype": None,
        },
    ),
    # ...unless the message names a format: then the deck is looked at there
    (
        {"format": "Modern", "deck_text": DECK, "deck_format": "Modern", "deck_archetype": "Boros Energy"},
        decide("deck_coaching", format="Pioneer"),
        None,
        "how does my deck do in Pioneer?",
        None,
        {
            "format": "Pioneer",
            "matchup_stats": None,
            "suggested_archetype": None,
            "archetype": None,
            "opponent_archetype": None,
        },
    ),
    (
        {"deck_text": "old"},
        decide("deck_coaching"),
        {"archetype": "Jeskai Blink"},
        DECK,
        None,
        {"deck_text": DECK, "archetype": "Jeskai Blink", **STALE},
    ),
    (
        {"deck_text": "old", "archetype": "Boros Energy"},
        decide("deck_coaching", archetype="Jeskai Blink"),
        None,
        DECK,
        None,
        {"deck_text": DECK, "archetype": "Jeskai Blink", **STALE},
    ),
    # a yes takes the suggestion; a no sets it aside for good
    (
        {"suggested_archetype": "Boros Energy"},
        decide("deck_coaching", confirms_archetype=True),
        None,
        "yes",
        None,
        {"archetype": "Boros Energy", "matchup_stats": None},
    ),
    (
        {"suggested_archetype": "Boros Energy"},
        decide("deck_coaching", confirms_archetype=False),
        None,
        "no",
        None,
        {"suggested_archetype": None, "rejected_archetype": "Boros Energy"},
    ),
    (
        {"suggested_archetype": "Boros Energy", "archetype": "Jeskai Blink"},
        decide("deck_coaching", confirms_archetype=True),
        None,
        "yes",
        None,
        {},
    ),  # already set: a yes changes nothing
    (
        {"suggested_archetype": "Boros Energy", "archetype": "Jeskai Blink"},
        decide("deck_coaching", confirms_archetype=False),
        None,
        "no",
        None,
        {},
    ),
    ({}, decide("deck_coaching", confirms_archetype=True), None, "yes", None, {}),  # nothing was suggested
    # a new format: names and statistics of the old format's metagame go
    (
        {
            "format": "Modern",
            "archetype": "Boros Energy",
            "opponent_archetype": "Jeskai Blink",
            **DERIVED,
            "suggested_archetype": "Boros Energy",
        },
        decide(format="Pioneer"),
        None,
        "",
        None,
        {
            "format": "Pioneer",
            "matchup_stats": None,
            "suggested_archetype": None,
            "archetype": None,
            "opponent_archetype": None,
        },
    ),
    (
        {"format": "Modern", "opponent_archetype": "Jeskai Blink"},
        decide("deck_coaching", format="Pioneer", opponent="Rakdos Midrange"),
        None,
        "",
        None,
        {
            "format": "Pioneer",
            "matchup_stats": None,
            "suggested_archetype": None,
            "archetype": None,
            "opponent_archetype": "Rakdos Midrange",
        },
    ),
    (
        {"format": "Modern", "opponent_archetype": "Jeskai Blink"},
        decide(format="Modern"),
        None,
        "",
        None,
        {"format": "Modern"},
    ),  # the same format keeps them
    ({}, decide(format="Modern"), None, "", None, {"format": "Modern"}),  # a first format forgets nothing
]


@pytest.mark.parametrize(("state", "decision", "context", "message", "draft_id", "expected"), MERGES)
def test_merge_slots(
    state: dict[str, Any],
    decision: RouteDecision,
    context: dict[str, Any] | None,
    message: str,
    draft_id: str | None,
    expected: dict[str, Any],
) -> None:
    turn_context = TurnContext.model_validate(context) if context is not None else None
    assert merge_slots(ConversationState.of(state), decision, turn_context, message, draft_id) == expected


def test_a_context_with_nothing_set_changes_nothing() -> None:
    state = {"format": "Modern", "days": 30, "archetype": "Boros Energy"}
    assert merge_slots(ConversationState.of(state), CLARIFY, TurnContext(), "", None) == {}


def test_a_bad_context_format_is_refused() -> None:
    with pytest.raises(ValueError, match="Commander"):
        merge_slots(ConversationState(), CLARIFY, TurnContext(format="Commander"), "", None)
