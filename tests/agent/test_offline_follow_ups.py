"""Follow-ups in offline mode, as users phrase them: short answers to the coach's questions, "and
against X?", pool filters, questions about "its" matchups (found by playing the coach as users)."""

from __future__ import annotations

import json
import re
from typing import Any

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.guards import DAYS_QUESTION
from meta_mage.agent.words import find_format
from meta_mage.models.drafts import REDACTED
from tests.agent.conftest import modern_deck, run_turn
from tests.conftest import NAMED_OPT_OUT, call


def without_cost(text: str) -> str:
    """A card line's name without the mana cost written after it ("Multiversal Hydra (XG)")."""
    return re.sub(r" \([^()]*\)$", "", text)


async def test_and_against_another_deck_keeps_the_deck_asked_about(offline: Conversations) -> None:
    first = await run_turn(offline, "How does Boros Energy do against Jeskai Blink in Modern over 30 days?")
    turn = await run_turn(offline, "what about against Domain Zoo?", first.conversation_id)
    assert turn.arguments("get_deck_matchup_stats")["archetype"] == "Boros Energy"
    assert "Against **Domain Zoo**" in turn.text and "**Boros Energy in Modern**" in turn.text


async def test_short_answers_complete_the_matchup_question_they_answer(offline: Conversations) -> None:
    # Given a matchup question without a format or a window
    first = await run_turn(offline, "How does Boros Energy do against Jeskai Blink?")
    assert first.tools() == [] and "Which format" in first.text
    # When the user answers the format, then the window
    second = await run_turn(offline, "Modern", first.conversation_id)
    assert second.tools() == [] and DAYS_QUESTION in second.text
    third = await run_turn(offline, "30", first.conversation_id)
    # Then the matchup asked about is answered, not the format's rankings
    assert third.tools() == ["get_deck_matchup_stats"]
    assert third.arguments("get_deck_matchup_stats") == {"format": "Modern", "archetype": "Boros Energy", "days": 30}
    assert "Against **Jeskai Blink**" in third.text


async def test_naming_the_draft_the_coach_asked_for_answers_the_pool_question(offline: Conversations) -> None:
    first = await run_turn(offline, "What green creatures were in the cube?")
    assert first.tools() == [] and "Which cube draft do you mean?" in first.text
    second = await run_turn(offline, "tarkir", first.conversation_id)
    assert second.tools() == ["get_draft_pool"]
    assert second.arguments("get_draft_pool")["color"] == "G"
    assert second.arguments("get_draft_pool")["type_contains"] == "Creature"

    # and a new filter is a new look at the same pool
    third = await run_turn(offline, "what about red instants?", first.conversation_id)
    arguments = third.arguments("get_draft_pool")
    assert (arguments["draft_id"], arguments["color"], arguments["type_contains"]) == ("tarkir", "R", "Instant")
    assert "instants with red in their colour identity" in third.text


async def test_its_matchups_are_the_confirmed_decks(offline: Conversations, modern_world: dict[str, Any]) -> None:
    deck, _ = modern_deck("Boros Energy")
    pasted = await run_turn(offline, f"Here is my deck:\n{deck}", context={"format": "Modern", "days": 30})
    await run_turn(offline, "yes", pasted.conversation_id)
    turn = await run_turn(offline, "what are its worst matchups? last 14 days", pasted.conversation_id)
    assert turn.tools() == ["get_deck_matchup_stats"]
    assert turn.state["archetype"] == "Boros Energy" and turn.state["days"] == 14
    assert "Boros Energy" in turn.text and "Matchups in Modern" not in turn.text


async def test_everyday_phrasings_are_understood(offline: Conversations) -> None:
    trending = await run_turn(offline, "what's trending up in modern the last 2 weeks?")
    assert trending.arguments("get_format_meta_rankings")["current_days"] == 14

    month = await run_turn(offline, "top decks in modern this month")
    assert month.arguments("get_format_meta_rankings")["current_days"] == 30

    about = await run_turn(offline, "tell me about izzet prowess in modern")
    assert about.tools() == [] and DAYS_QUESTION in about.text
    page = await run_turn(offline, "30", about.conversation_id)
    assert page.arguments("get_archetype_page")["archetype"] == "Izzet Prowess"


async def test_questions_about_one_card_or_one_drafter(
    offline: Conversations, modern_world: dict[str, Any], named_opt_out_draft: dict[str, Any]
) -> None:
    pool = call(modern_world, "get_draft_pool", draft_id="tarkir", include_draft_results=True)["cards"]
    twice = next(c for c in pool if c.get("additional_picks"))  # a card two drafters took

    # a card: every drafter who took a copy
    card = await run_turn(offline, f"Who drafted {twice['card_name']} in the tarkir draft?")
    assert card.arguments("get_draft_pool")["name_contains"] == twice["card_name"]
    takers = [(twice["drafted_by"], twice["drafted_pick_n"])]
    takers += [(p["drafted_by"], p["drafted_pick_n"]) for p in twice["additional_picks"]]
    assert ", ".join(f"{who} (pick {n})" for who, n in takers) in card.text

    # a drafter: that drafter's picks only
    drafter = next(c["drafted_by"] for c in pool if c.get("drafted_by") and c["drafted_by"] != REDACTED)
    theirs = sorted(
        (n, c["card_name"])
        for c in pool
        for who, n in [(c.get("drafted_by"), c.get("drafted_pick_n"))]
        + [(p["drafted_by"], p["drafted_pick_n"]) for p in c.get("additional_picks") or []]
        if who == drafter
    )
    picks = await run_turn(offline, f"What did {drafter} pick in the tarkir draft?")
    assert f"{drafter} took {len(theirs)} cards, in pick order:" in picks.text
    listed = [line for line in picks.text.splitlines() if line.startswith("- Pick ")]
    assert [(int(line[7:].split(":")[0]), without_cost(line.split(": ", 1)[1])) for line in listed] == theirs

    # each drafter's first pick
    firsts = sorted(
        (who, c["card_name"])
        for c in pool
        for who, n in [(c.get("drafted_by"), c.get("drafted_pick_n"))]
        + [(p["drafted_by"], p["drafted_pick_n"]) for p in c.get("additional_picks") or []]
        if n == 1
    )
    first = await run_turn(offline, "What were the first picks in the tarkir draft?")
    assert f"pick 1 of each drafter ({len(firsts)}):" in first.text and len(firsts) == 9
    assert [without_cost(line[2:]) for line in first.text.splitlines() if line.startswith("- ")] == [
        f"{who}: {name}" for who, name in firsts
    ]

    # the opted-out drafter stays unnamed, and the coach says why
    hidden = await run_turn(
        offline, "Which cards did the [REDACTED] drafter take in the tarkir cube? Tell me their name"
    )
    assert "asked not to be named" in hidden.text

    # and a drafter the import named in opt_outs is never named back, even when asked for by name
    draft_id, draft_name = named_opt_out_draft["draft_id"], named_opt_out_draft["draft_name"]
    assert named_opt_out_draft["opt_outs"] == [NAMED_OPT_OUT]
    asked = await run_turn(offline, f"what did {NAMED_OPT_OUT} pick in the {draft_name} draft? tell me their name")
    follow_up = await run_turn(offline, "which drafter opted out?", asked.conversation_id)
    for turn in (asked, follow_up):
        assert turn.arguments("get_draft_pool")["draft_id"] == draft_id
        assert NAMED_OPT_OUT not in turn.text and NAMED_OPT_OUT not in json.dumps(turn.tool_events)
        assert REDACTED in turn.text and "asked not to be named" in turn.text


async def test_rankings_answer_what_was_asked_about_them(offline: Conversations, modern_world: dict[str, Any]) -> None:
    rows = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30, previous_days=30)["rows"]
    # a deck outside the top ten: its own row is shown too
    far = rows[12]
    share = await run_turn(offline, f"What's the meta share of {far['name']} in Modern over the last 30 days?")
    assert f"| {far['rank']} | {far['name']} | {far['meta_share']:.1f}% |" in share.text

    # "best win rate": every deck with a decided match, ordered on the shrunk estimate, renumbered from 1
    best = await run_turn(offline, "Which ones have the best win rate?", share.conversation_id)
    decided = [r for r in rows if r["current"]["estimate"] is not None]
    top = max(decided, key=lambda r: (r["current"]["estimate"], r["decks"]))
    table = [line for line in best.text.splitlines() if line.startswith("| ") and "Archetype" not in line]
    assert table[0].startswith(f"| 1 | {top['name']} |") and "best estimated match win rate first" in best.text
    assert [line.split(" | ")[0] for line in table] == [f"| {n}" for n in range(1, len(table) + 1)]
    estimates = [float(line.rstrip(" |").rsplit(" | ", 1)[1].split("%")[0]) for line in table]
    assert estimates == sorted(estimates, reverse=True)

    # "against each other": the format's matchup table
    each_other = await run_turn(offline, "How do they do against each other?", share.conversation_id)
    assert each_other.tools() == ["get_format_matchup_stats"]


async def test_a_bare_number_after_an_answer_is_the_window(offline: Conversations) -> None:
    first = await run_turn(offline, "List the archetypes in Modern over the last 14 days")
    for message in ("what about 30?", "7"):
        turn = await run_turn(offline, message, first.conversation_id)
        assert turn.tools() == ["get_format_archetypes"], turn.text
    assert turn.arguments("get_format_archetypes")["days"] == 7


async def test_a_short_answer_wins_over_the_question_it_answers(offline: Conversations) -> None:
    # the window in the answer replaces the question's
    first = await run_turn(offline, "What are the top decks in the last 7 days?")
    assert "Which format" in first.text
    answer = await run_turn(offline, "Modern, 30 days", first.conversation_id)
    assert answer.arguments("get_format_meta_rankings")["current_days"] == 30

    # "what about 14?" answers the window question
    asked = await run_turn(offline, "What are the top Modern decks?")
    assert DAYS_QUESTION in asked.text
    answer = await run_turn(offline, "what about 14?", asked.conversation_id)
    assert answer.arguments("get_format_meta_rankings")["current_days"] == 14


async def test_a_short_answer_can_name_another_format(offline: Conversations) -> None:
    asked = await run_turn(offline, "What are the top Pioneer decks?")
    assert DAYS_QUESTION in asked.text
    answer = await run_turn(offline, "Modern, 14 days", asked.conversation_id)
    assert answer.arguments("get_format_meta_rankings") == {"format": "Modern", "current_days": 14, "previous_days": 14}


async def test_a_one_letter_slip_in_a_format_still_names_it(offline: Conversations) -> None:
    turn = await run_turn(offline, "top decks in moderm over the last 30 days")
    assert turn.arguments("get_format_meta_rankings")["format"] == "Modern"
    assert find_format("is my modem fast enough?") is None and find_format("the latest legal decks") is None


async def test_one_word_for_several_decks_says_which_was_taken(offline: Conversations) -> None:
    archetypes = await offline.deps.lookups.archetypes("Modern")
    words = [w for name in archetypes for w in name.split() if len(w) > 3]
    shared = next(w for w in dict.fromkeys(words) if sum(w in name.split() for name in archetypes) > 1)
    turn = await run_turn(offline, f"What is the matchup spread of {shared} in Modern over 30 days?")
    taken = turn.arguments("get_deck_matchup_stats")["archetype"]
    assert (
        f"I read “{shared.capitalize()}” as **{taken}**, the most played Modern deck with that name; other decks"
        in turn.text
    )
    named = await run_turn(offline, f"What is the matchup spread of {taken} in Modern over 30 days?")
    assert "I read" not in named.text
