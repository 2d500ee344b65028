"""Routing reads the format's archetype names for the window the turn is about (30 days, the coach's
default, when it names none), not a year of matchups; a year's names only when a deck is named by a word."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.agent.lookups import NAMES_DAYS, Lookups
from meta_mage.agent.router import rule_route
from meta_mage.agent.state import ConversationState
from meta_mage.models.meta import MAX_DAYS
from tests.unit.routing_data import FakeTools, runner


@pytest.mark.parametrize(
    ("message", "state", "days"),
    [
        ("How does Boros Energy do against Jeskai Blink in Modern?", {}, NAMES_DAYS),
        ("How does Boros Energy do against Jeskai Blink in Modern over the last 90 days?", {}, 90),
        ("How does Boros Energy do against Jeskai Blink?", {"format": "Modern", "days": 14}, 14),
        ("Boros Energy vs Jeskai Blink, last 2 weeks", {"format": "Modern", "days": 60}, 14),  # the turn's wins
    ],
)
async def test_names_are_read_for_the_turns_window(message: str, state: dict[str, Any], days: int) -> None:
    tools = FakeTools()
    decision = await rule_route(message, ConversationState.of(state), Lookups(runner(tools)))
    assert (decision.archetype, decision.opponent) == ("Boros Energy", "Jeskai Blink")
    assert tools.calls == [("get_format_archetypes", {"format": "Modern", "days": days})]


async def test_names_are_cached_per_format_and_window() -> None:
    tools = FakeTools()
    names = Lookups(runner(tools))
    await names.archetypes("Modern")
    await names.archetypes("Modern", NAMES_DAYS)
    await names.archetypes("Modern", 90)
    assert tools.calls == [
        ("get_format_archetypes", {"format": "Modern", "days": 30}),
        ("get_format_archetypes", {"format": "Modern", "days": 90}),
    ]


async def test_a_year_of_names_is_read_only_when_a_deck_is_named_by_a_word() -> None:
    # Given a question naming decks by one word each ("Prowess", "Zoo")
    tools = FakeTools()
    decision = await rule_route(
        "How does Prowess do against Zoo in Modern?", ConversationState(), Lookups(runner(tools))
    )
    # Then the window's names decide, and a year's names are read for a deck named in full outside the window
    assert (decision.archetype, decision.opponent) == ("Izzet Prowess", "Domain Zoo")
    assert tools.calls == [
        ("get_format_archetypes", {"format": "Modern", "days": NAMES_DAYS}),
        ("get_format_archetypes", {"format": "Modern", "days": MAX_DAYS}),
    ]
