"""The blocking rules on plain data: ``check`` (the guard node's next step) and ``tool_precondition``
(the same rules applied to each call an LLM asks for), one table row per branch."""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from meta_mage.agent.guards import DAYS_QUESTION, check, stats_fit, tool_precondition
from meta_mage.agent.state import ConversationState
from meta_mage.models.decks import EnrichedDeck, UnresolvedCard
from tests.unit.routing_data import CARDS, matchup_stats

FORMATS = ["Modern", "Pioneer"]
MODERN_30 = {"format": "Modern", "days": 30}
EMPTY_DECK = EnrichedDeck(card_details=[], counts={}, unresolved=[], corrected={}, skipped_lines=[])
STATS = matchup_stats(archetype="boros energy")
DECK_STATE = {**MODERN_30, "deck_text": "20 Mountain", "card_details": CARDS, "archetype": "Boros Energy"}
STRATEGY_READY = {**DECK_STATE, "opponent_archetype": "Jeskai Blink", "matchup_stats": STATS}


def result(name: str, content: str = "{}", status: str = "success", artifact: Any = None) -> ToolMessage:
    return ToolMessage(content=content, name=name, tool_call_id=f"call-{name}", status=status, artifact=artifact)


# state, workflow, task, this turn's messages, expected (kind, missing, calls), words of the question
CHECKS: list[tuple[dict[str, Any], str, str, list[Any], tuple[str, str, list[str]], list[str]]] = [
    # rule 1: every tool needs the format (cube drafts do not)
    ({}, "meta_research", "rankings", [], ("ask", "format", []), ["Which format", "Modern, Pioneer"]),
    ({"days": 30}, "deck_coaching", "deck_review", [], ("ask", "format", []), ["Which format"]),
    ({}, "cube_draft", "list_drafts", [], ("proceed", "", []), []),
    ({}, "cube_draft", "draft_pool", [], ("ask", "draft", []), []),  # the graph lists the drafts
    ({"draft_id": "tarkir"}, "cube_draft", "draft_pool", [], ("proceed", "", []), []),
    # rule 5: a window
    ({"format": "Modern"}, "meta_research", "rankings", [], ("ask", "days", []), [DAYS_QUESTION]),
    ({"format": "Modern"}, "meta_research", "matchups", [], ("ask", "days", []), [DAYS_QUESTION]),
    ({"format": "Modern"}, "meta_research", "archetypes", [], ("ask", "days", []), [DAYS_QUESTION]),
    (MODERN_30, "meta_research", "rankings", [], ("proceed", "", []), []),
    (MODERN_30, "meta_research", "none", [], ("proceed", "", []), []),
    (
        {"format": "Modern", "archetype": "Boros Energy"},
        "deck_coaching",
        "deck_matchups",
        [],
        ("ask", "days", []),
        [DAYS_QUESTION],
    ),
    # rule 2: a pasted list is read first; reading it can fail
    (
        {**MODERN_30, "deck_text": "20 Mountain"},
        "deck_coaching",
        "deck_review",
        [],
        ("call", "", ["get_enriched_deck"]),
        [],
    ),
    (
        {**MODERN_30, "deck_text": "20 Mountain"},
        "deck_coaching",
        "strategy",
        [],
        ("call", "", ["get_enriched_deck"]),
        [],
    ),
    (
        {**MODERN_30, "deck_text": "20 Mountain"},
        "deck_coaching",
        "deck_review",
        [result("get_enriched_deck", "the list is empty.", status="error")],
        ("ask", "deck", []),
        ["could not read your deck", "the list is empty."],
    ),
    (
        {**MODERN_30, "deck_text": "20 Mountan"},
        "deck_coaching",
        "deck_review",
        [result("get_enriched_deck")],
        ("ask", "deck", []),
        ["could not match any card"],
    ),
    ({**MODERN_30}, "deck_coaching", "optimize_sideboard", [], ("ask", "deck", []), ["paste your decklist"]),
    ({**MODERN_30}, "deck_coaching", "optimize_mainboard", [], ("ask", "deck", []), ["paste your decklist"]),
    (
        {**MODERN_30, "archetype": "Boros Energy"},
        "deck_coaching",
        "strategy",
        [],
        ("ask", "deck", []),
        ["paste your decklist"],
    ),
    ({**MODERN_30}, "deck_coaching", "deck_review", [], ("ask", "deck", []), ["paste your decklist", "review"]),
    # rule 3: the archetype, classified and confirmed
    ({**MODERN_30, "card_details": CARDS}, "deck_coaching", "deck_review", [], ("call", "", ["classify_deck"]), []),
    (
        {**MODERN_30, "card_details": CARDS, "suggested_archetype": "Boros Energy"},
        "deck_coaching",
        "deck_matchups",
        [],
        ("ask", "archetype_confirmation", []),
        ["looks like **Boros Energy** in Modern", "Is that right?"],
    ),
    (
        {**MODERN_30, "card_details": CARDS},
        "deck_coaching",
        "deck_review",
        [result("classify_deck")],
        ("ask", "archetype", []),
        ["could not match your list to a known archetype"],
    ),
    (
        {**MODERN_30, "card_details": CARDS, "rejected_archetype": "Boros Energy"},
        "deck_coaching",
        "deck_review",
        [],
        ("ask", "archetype", []),
        [],
    ),  # the graph lists the other archetypes
    ({**MODERN_30}, "deck_coaching", "deck_matchups", [], ("ask", "archetype", []), ["Which archetype is your deck"]),
    ({**MODERN_30, "archetype": "Boros Energy"}, "deck_coaching", "deck_review", [], ("proceed", "", []), []),
    ({**MODERN_30, "archetype": "Boros Energy"}, "deck_coaching", "deck_matchups", [], ("proceed", "", []), []),
    (DECK_STATE, "deck_coaching", "optimize_mainboard", [], ("proceed", "", []), []),
    (DECK_STATE, "deck_coaching", "optimize_sideboard", [], ("proceed", "", []), []),
    # rule 4: strategy needs the opponent and the deck's matchup statistics, fetched by the agent
    (DECK_STATE, "deck_coaching", "strategy", [], ("ask", "opponent", []), ["Which archetype are you playing against"]),
    (
        {**DECK_STATE, "opponent_archetype": "Jeskai Blink"},
        "deck_coaching",
        "strategy",
        [],
        ("call", "", ["get_deck_matchup_stats"]),
        [],
    ),
    ({**STRATEGY_READY, "days": 14}, "deck_coaching", "strategy", [], ("call", "", ["get_deck_matchup_stats"]), []),
    (
        {**DECK_STATE, "opponent_archetype": "Jeskai Blink"},
        "deck_coaching",
        "strategy",
        [result("get_deck_matchup_stats", "no such archetype", status="error")],
        ("ask", "archetype", []),
        ["could not get matchup statistics", "no such archetype"],
    ),
    (STRATEGY_READY, "deck_coaching", "strategy", [], ("proceed", "", []), []),
]


@pytest.mark.parametrize(("state", "workflow", "task", "turn", "expected", "words"), CHECKS)
def test_check(
    state: dict[str, Any],
    workflow: str,
    task: str,
    turn: list[Any],
    expected: tuple[str, str, list[str]],
    words: list[str],
) -> None:
    step = check(ConversationState.of(state), workflow, task, turn, FORMATS)
    assert (step.kind, step.missing if step.kind == "ask" else "", [call.tool for call in step.calls]) == expected
    for word in words:
        assert word in step.question
    assert "None" not in step.question


def test_the_confirmation_says_how_the_typed_names_were_read() -> None:
    enriched = result(
        "get_enriched_deck",
        artifact=EnrichedDeck(
            card_details=[],
            counts={"mainboard": 0, "sideboard": 0},
            unresolved=[UnresolvedCard(name="Foo", quantity=1, section="mainboard", suggestions=[])],
            corrected={"Lightning Blot": "Lightning Bolt"},
            skipped_lines=[],
        ),
    )
    state = ConversationState.of({**MODERN_30, "card_details": CARDS, "suggested_archetype": "Boros Energy"})
    step = check(state, "deck_coaching", "deck_review", [AIMessage("reading"), enriched], FORMATS)
    assert step.question.startswith("I read “Lightning Blot” as **Lightning Bolt**. I could not find “Foo”;")
    assert "looks like **Boros Energy** in Modern" in step.question
    plain = check(state, "deck_coaching", "deck_review", [result("get_enriched_deck", artifact=EMPTY_DECK)], FORMATS)
    assert plain.question.startswith("Your deck looks like **Boros Energy**")


@pytest.mark.parametrize(
    ("stats", "fits"),
    [
        (STATS, True),
        ({**STATS, "archetype": "Boros Energy"}, True),  # names compared without case
        ({**STATS, "format": "Pioneer"}, False),
        ({**STATS, "archetype": "Jeskai Blink"}, False),
        (matchup_stats(archetype="boros energy", days=14), False),
        ({**STATS, "metadata": {}}, False),  # stored in a shape that no longer validates: fetched again
        (None, False),
    ],
)
def test_stats_fit(stats: dict[str, Any] | None, fits: bool) -> None:
    assert stats_fit(ConversationState.of({**DECK_STATE, "matchup_stats": stats})) is fits


BLOCKED_FORMAT = "no format is chosen"
BLOCKED_DAYS = "no number of days is chosen"
NO_CARDS = "your decklist has not been read"
NO_ARCHETYPE = "archetype is not confirmed"
NO_OPPONENT = "not run yet: the opponent's archetype is not known"
NO_STATS = "matchup statistics come first"
NO_DECK = "no decklist"
NO_DRAFT = "which draft is not known"

# tool, state, workflow, None when the call may run, else words of the reason
PRECONDITIONS: list[tuple[str, dict[str, Any], str, str | None]] = [
    ("list_formats", {}, "meta_research", None),
    ("list_drafts", {}, "cube_draft", None),
    ("get_format_meta_rankings", {}, "meta_research", BLOCKED_FORMAT),
    ("get_format_meta_rankings", {"format": "Modern"}, "meta_research", BLOCKED_DAYS),
    ("get_format_meta_rankings", MODERN_30, "meta_research", None),
    ("get_format_matchup_stats", {"format": "Modern"}, "meta_research", BLOCKED_DAYS),
    ("get_format_archetypes", {}, "meta_research", BLOCKED_FORMAT),
    ("get_format_archetypes", MODERN_30, "meta_research", None),
    ("classify_deck", {}, "deck_coaching", BLOCKED_FORMAT),
    ("classify_deck", {"format": "Modern"}, "deck_coaching", NO_DECK),
    ("classify_deck", {"format": "Modern", "deck_text": "20 Mountain"}, "deck_coaching", None),
    ("get_enriched_deck", {}, "deck_coaching", NO_DECK),
    ("get_enriched_deck", {"deck_text": "20 Mountain"}, "deck_coaching", None),
    # deck matchup statistics: the deck's archetype in coaching, any archetype in meta research
    ("get_deck_matchup_stats", MODERN_30, "deck_coaching", NO_ARCHETYPE),
    ("get_deck_matchup_stats", MODERN_30, "meta_research", None),
    ("get_deck_matchup_stats", {**MODERN_30, "archetype": "Boros Energy"}, "deck_coaching", None),
    ("get_deck_matchup_stats", {"format": "Modern"}, "meta_research", BLOCKED_DAYS),
    # optimising needs the read deck and its archetype
    ("optimize_mainboard", MODERN_30, "deck_coaching", NO_CARDS),
    ("optimize_sideboard", {**MODERN_30, "card_details": CARDS}, "deck_coaching", NO_ARCHETYPE),
    ("optimize_sideboard", {"format": "Modern", "card_details": CARDS}, "deck_coaching", BLOCKED_DAYS),
    ("optimize_mainboard", DECK_STATE, "deck_coaching", None),
    ("optimize_sideboard", DECK_STATE, "deck_coaching", None),
    # strategy: all of it, the statistics fitting the state
    ("generate_deck_matchup_strategy", {}, "deck_coaching", BLOCKED_FORMAT),
    ("generate_deck_matchup_strategy", {"format": "Modern"}, "deck_coaching", NO_CARDS),
    ("generate_deck_matchup_strategy", {"format": "Modern", "card_details": CARDS}, "deck_coaching", NO_ARCHETYPE),
    ("generate_deck_matchup_strategy", DECK_STATE, "deck_coaching", NO_OPPONENT),
    ("generate_deck_matchup_strategy", {**DECK_STATE, "opponent_archetype": "Jeskai Blink"}, "deck_coaching", NO_STATS),
    ("generate_deck_matchup_strategy", {**STRATEGY_READY, "days": 14}, "deck_coaching", NO_STATS),
    ("generate_deck_matchup_strategy", STRATEGY_READY, "deck_coaching", None),
    ("get_draft_pool", {}, "cube_draft", NO_DRAFT),
    ("get_draft_pool", {"draft_id": "tarkir"}, "cube_draft", None),
]


@pytest.mark.parametrize(("name", "state", "workflow", "reason"), PRECONDITIONS)
def test_tool_precondition(name: str, state: dict[str, Any], workflow: str, reason: str | None) -> None:
    problem = tool_precondition(name, ConversationState.of(state), workflow)
    if reason is None:
        assert problem is None
    else:
        assert problem is not None and problem.startswith("not run yet: ") and reason in problem, problem


def test_what_a_rule_tells_the_player_names_no_field_and_no_tool() -> None:
    """The words a player sees when a step cannot run yet (the tool step's line) are the player's words: no
    internal field (``card_details``), no tool name (``get_enriched_deck``), no instruction meant for a model."""
    from meta_mage.tools import rules
    from meta_mage.tools.catalog import TOOLS, decks  # decks: MATCHUP_STATS, beside the record that fetches it

    declared = [*vars(rules).values(), *vars(decks).values()]
    said = [value.blocked for value in declared if isinstance(value, rules.Rule)]
    assert len(said) >= 9
    for words in said:
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", words), words
        assert not any(name in words for name in TOOLS), words
        assert "ask the user" not in words and "call " not in words, words
