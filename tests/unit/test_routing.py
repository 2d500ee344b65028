"""Offline routing on plain data, table-driven: ``rule_route``, ``find_archetypes``, ``resumed_question``,
``tidy`` and the ``Lookups`` they read names through (a fake executor, no DynamoDB). The routing decisions
the end-to-end scenarios of tests/agent/ rely on are asserted here too, one turn or one conversation at a time."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.agent.follow_ups import CONTINUATIONS, FOLLOW_UPS, FollowUp
from meta_mage.agent.guards import DAYS_QUESTION
from meta_mage.agent.lookups import MAX_LOOKUPS, Lookups
from meta_mage.agent.router import resumed_question, rule_route, tidy
from meta_mage.agent.state import ConversationState, RouteDecision
from meta_mage.agent.tasks import WORKFLOW_TASKS
from meta_mage.agent.words import extract_decklist, find_archetypes, find_days, find_format, with_places
from meta_mage.models.tournaments import FORMATS as ALL_FORMATS
from tests.unit.routing_data import ARCHETYPES, CARDS, DECK, FakeTools, Talk, lookups, runner

MODERN_30 = {"format": "Modern", "days": 30}

# message, state, expected decision fields (those not named are not checked)
SINGLE_TURNS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # meta research: rankings, the format and the window
    (
        "What are the top decks right now?",
        {},
        {"workflow": "meta_research", "task": "rankings", "format": None, "days": None},
    ),
    (
        "What are the top decks in Modern?",
        {},
        {"workflow": "meta_research", "task": "rankings", "format": "Modern", "days": None},
    ),
    ("Show me the meta", MODERN_30, {"workflow": "meta_research", "task": "rankings"}),
    (
        "What are the top decks in Modern over the last 30 days?",
        {},
        {"task": "rankings", "format": "Modern", "days": 30},
    ),
    ("What are the top decks in Modern over the last 21 days?", {}, {"task": "rankings", "days": 21}),
    ("Top decks in Modern, last 30 days", {}, {"workflow": "meta_research", "task": "rankings", "days": 30}),
    ("what's trending up in modern the last 2 weeks?", {}, {"task": "rankings", "format": "Modern", "days": 14}),
    ("top decks in modern this month", {}, {"task": "rankings", "format": "Modern", "days": 30}),
    ("top decks in moderm over the last 30 days", {}, {"task": "rankings", "format": "Modern", "days": 30}),
    ("What are the top Pioneer decks?", {}, {"task": "rankings", "format": "Pioneer", "days": None}),
    (
        "What's the meta share of Ruby Storm in Modern over the last 30 days?",
        {},
        {"workflow": "meta_research", "task": "rankings", "archetype": "Ruby Storm"},
    ),
    # meta research: matchups and archetypes
    (
        "How does Boros Energy do against Jeskai Blink in Modern over 30 days?",
        {},
        {
            "workflow": "meta_research",
            "task": "matchups",
            "archetype": "Boros Energy",
            "opponent": "Jeskai Blink",
            "days": 30,
        },
    ),
    (
        "How does Boros Energy do against Jeskai Blink in Modern, last 30 days?",
        {},
        {"task": "matchups", "archetype": "Boros Energy", "opponent": "Jeskai Blink"},
    ),
    # without a format no names are known yet: the format is asked for first
    (
        "How does Boros Energy do against Jeskai Blink?",
        {},
        {"workflow": "meta_research", "format": None, "archetype": None, "opponent": None},
    ),
    # an archetype's page: its stock list, best finish, playbook, record and matchups
    (
        "tell me about izzet prowess in modern",
        {},
        {"workflow": "meta_research", "task": "archetype_page", "archetype": "Izzet Prowess", "days": None},
    ),
    ("tell me about Boros Energy", MODERN_30, {"workflow": "meta_research", "task": "archetype_page"}),
    (
        "what does the stock Boros Energy list look like?",
        MODERN_30,
        {"workflow": "meta_research", "task": "archetype_page", "archetype": "Boros Energy", "card": None},
    ),
    (
        "show me the Affinity decklist",
        MODERN_30,
        {"workflow": "meta_research", "task": "archetype_page", "archetype": "Izzet Affinity"},
    ),
    (
        "Show me the Boros Energy decklist in Modern over the last 14 days",
        {},
        {"task": "archetype_page", "format": "Modern", "days": 14, "archetype": "Boros Energy"},
    ),
    ("what's the typical Ruby Storm list?", MODERN_30, {"task": "archetype_page", "archetype": "Ruby Storm"}),
    # ... but not a matchup, a share or the player's own list
    ("tell me about Boros Energy against Jeskai Blink", MODERN_30, {"task": "matchups"}),
    ("tell me about my deck", MODERN_30, {"workflow": "deck_coaching"}),
    (
        "What is the matchup spread of Amulet Titan in Modern over 30 days?",
        {},
        {"task": "matchups", "archetype": "Amulet Titan", "days": 30},
    ),
    (
        "What is the matchup spread of Tron in Modern over 30 days?",
        {},
        {"task": "matchups", "archetype": "Eldrazi Tron"},
    ),
    (
        "Show me the Modern matchups for the last 30 days",
        {},
        {"workflow": "meta_research", "task": "matchups", "archetype": None, "opponent": None},
    ),
    ("List all the archetypes in Modern for the last 30 days", {}, {"task": "archetypes", "days": 30}),
    ("List the archetypes in Modern over the last 14 days", {}, {"task": "archetypes", "days": 14}),
    ("list the archetypes", MODERN_30, {"workflow": "meta_research", "task": "archetypes"}),
    # deck coaching
    ("Optimize my sideboard", MODERN_30, {"workflow": "deck_coaching", "task": "optimize_sideboard"}),
    ("Optimize my mainboard", MODERN_30, {"workflow": "deck_coaching", "task": "optimize_mainboard"}),
    ("What are my deck's bad matchups?", MODERN_30, {"workflow": "deck_coaching", "task": "deck_matchups"}),
    ("Can you review my deck?", MODERN_30, {"workflow": "deck_coaching", "task": "deck_review"}),
    # bringing cards in is sideboarding, not "what should I play?"
    (
        "back to my deck: what should I bring in against Domain Zoo?",
        {**MODERN_30, "deck_text": DECK, "archetype": "Boros Energy"},
        {"workflow": "deck_coaching", "task": "strategy", "opponent": "Domain Zoo"},
    ),
    ("What should I bring to a Modern RCQ?", {}, {"workflow": "meta_research", "task": "recommend"}),
    (
        "How should I play against Jeskai Blink?",
        MODERN_30,
        {"workflow": "deck_coaching", "task": "strategy", "opponent": "Jeskai Blink", "archetype": None},
    ),
    (
        f"Here is my deck:\n{DECK}",
        MODERN_30,
        {"workflow": "deck_coaching", "task": "deck_review", "has_decklist": True},
    ),
    (f"My deck:\n{DECK}", MODERN_30, {"workflow": "deck_coaching", "task": "deck_review", "has_decklist": True}),
    (
        f"How should I play against Jeskai Blink?\n{DECK}",
        MODERN_30,
        {"workflow": "deck_coaching", "task": "strategy", "opponent": "Jeskai Blink", "has_decklist": True},
    ),
    (f"Now my deck, how are its matchups?\n{DECK}", MODERN_30, {"workflow": "deck_coaching", "task": "deck_matchups"}),
    ("how should I mulligan?", {"archetype": "Boros Energy", **MODERN_30}, {"task": "strategy"}),
    (
        "what are its worst matchups? last 14 days",
        {"archetype": "Boros Energy", **MODERN_30},
        {"workflow": "deck_coaching", "task": "deck_matchups", "days": 14},
    ),
    (
        "what are my worst matchups?",
        {"archetype": "Boros Energy", **MODERN_30},
        {"workflow": "deck_coaching", "task": "deck_matchups"},
    ),
    # "my" names the player's deck even before it is given: the coach asks for it, then answers about it
    ("what are my worst matchups?", MODERN_30, {"workflow": "deck_coaching", "task": "deck_matchups"}),
    ("which cards should I cut from my deck?", MODERN_30, {"workflow": "deck_coaching", "task": "optimize_mainboard"}),
    # cube drafts
    (
        "What green creatures were available in the Tarkir draft?",
        {},
        {
            "workflow": "cube_draft",
            "task": "draft_pool",
            "draft": "tarkir",
            "card_filter": {"color": "G", "type_contains": "Creature"},
        },
    ),
    ("What green creatures were in the cube?", {}, {"workflow": "cube_draft", "task": "draft_pool", "draft": None}),
    (
        "Show me the cube draft pool",
        {},
        {"workflow": "cube_draft", "task": "draft_pool", "draft": None, "card_filter": None},
    ),
    ("Which drafts do you have?", {}, {"workflow": "cube_draft", "task": "list_drafts"}),
    (
        "Who drafted the black instants in the tarkir cube?",
        {},
        {
            "workflow": "cube_draft",
            "task": "draft_pool",
            "draft": "tarkir",
            "card_filter": {"color": "B", "type_contains": "Instant"},
        },
    ),
    (
        "Who drafted Arc Lightning in the tarkir draft?",
        {},
        {"draft": "tarkir", "card_filter": {"name_contains": "Arc Lightning"}},
    ),
    (
        "What did kheru_lich pick in the tarkir draft?",
        {},
        {"draft": "tarkir", "card_filter": {"drafter": "kheru_lich"}},
    ),
    (
        "what did arborist77 pick in the Warband draft? tell me their name",
        {},
        {"draft": "warband", "card_filter": {"drafter": "arborist77"}},
    ),
    ("which white or red cards were in the tarkir draft?", {}, {"card_filter": None}),  # two colours: no filter
    # a player's shorthand: every word of a name, short ones too, and "what should I play" (a recommendation)
    (
        "How does Prowess do against Zoo in Modern over the last 30 days?",
        {},
        {"task": "matchups", "archetype": "Izzet Prowess", "opponent": "Domain Zoo"},
    ),
    ("Is Tron good against Zoo in Modern?", {}, {"archetype": "Eldrazi Tron", "opponent": "Domain Zoo"}),
    ("What should I play in Pauper right now?", {}, {"workflow": "meta_research", "task": "recommend"}),
    ("what's good in Modern this week?", {}, {"workflow": "meta_research", "task": "rankings", "days": 7}),
    (
        "What should I play in Modern instead?",
        {"format": "Modern", "archetype": "Boros Energy", "card_details": CARDS},
        {"workflow": "meta_research", "task": "recommend"},
    ),
    # a question about a card is a card question, the card as typed and the deck it is asked against apart
    (
        "Is Fatal Push good against Boros Energy in Modern?",
        {},
        {"workflow": "meta_research", "task": "card_question", "card": "Fatal Push", "opponent": "Boros Energy"},
    ),
    (
        "should I play Thoughtseize in Modern?",
        {},
        {"workflow": "meta_research", "task": "card_question", "card": "Thoughtseize", "opponent": None},
    ),
    (
        "What does Blood Moon do against Amulet Titan?",
        MODERN_30,
        {"task": "card_question", "card": "Blood Moon", "opponent": "Amulet Titan"},
    ),
    (
        "how good is Unholy Heat vs Boros?",
        MODERN_30,
        {"task": "card_question", "card": "Unholy Heat", "opponent": "Boros Energy"},
    ),
    # ... with the player's deck too, and not when it names a deck or the player's own list
    (
        "is Surgical Extraction good against Tron?",
        {**MODERN_30, "deck_text": DECK, "archetype": "Boros Energy", "card_details": CARDS},
        {"task": "card_question", "card": "Surgical Extraction", "opponent": "Eldrazi Tron"},
    ),
    ("Is Jeskai Blink good in Modern?", {}, {"task": "matchups", "card": None, "archetype": "Jeskai Blink"}),
    ("is my deck good against Jeskai Blink?", MODERN_30, {"card": None}),
    # a window outside 1-365 days: clamped, and the number asked is kept to be said
    ("top decks in Modern over the last 9999 days", {}, {"days": 365, "days_asked": 9999}),
    ("top decks in Modern over the last 400 weeks", {}, {"days": 365, "days_asked": 2800}),
    # nothing to go on
    ("hello there", {}, {"workflow": "clarify", "task": "none", "confidence": 0.3}),
    ("hello there", {"format": "Modern"}, {"workflow": "clarify"}),  # a format alone is no request
]


@pytest.mark.parametrize(("message", "state", "expected"), SINGLE_TURNS)
async def test_one_message_is_routed(message: str, state: dict[str, Any], expected: dict[str, Any]) -> None:
    decision = tidy(await rule_route(message, ConversationState.of(state), lookups()), message)
    assert {key: getattr(decision, key) for key in expected} == expected


async def test_a_bare_window_over_the_limit_is_clamped_and_said() -> None:
    talk = Talk()
    await talk.say("What are the top Modern decks?")
    assert talk.step is not None and talk.step.question == DAYS_QUESTION and "1 to 365" in DAYS_QUESTION
    turn = await talk.say("999")
    assert (turn.task, turn.days, turn.days_asked) == ("rankings", 365, 999)


async def test_a_short_answer_completes_the_question_the_coach_asked() -> None:
    talk = Talk()
    await talk.say("What are the top decks right now?")
    assert talk.step is not None and talk.step.missing == "format" and "Which format" in talk.step.question
    decision = await talk.say("Modern, last 14 days")
    assert (decision.workflow, decision.task, decision.format, decision.days) == (
        "meta_research",
        "rankings",
        "Modern",
        14,
    )
    assert talk.state["format"] == "Modern" and talk.state["days"] == 14 and talk.step.kind == "proceed"


async def test_a_bare_number_answers_the_window_question() -> None:
    talk = Talk()
    await talk.say("What are the top decks in Modern?")
    assert talk.step is not None and talk.step.question == DAYS_QUESTION
    decision = await talk.say("30")
    assert (decision.task, decision.days, talk.state["days"]) == ("rankings", 30, 30)


async def test_short_answers_complete_the_matchup_question_they_answer() -> None:
    talk = Talk()
    await talk.say("How does Boros Energy do against Jeskai Blink?")
    assert talk.step is not None and talk.step.missing == "format"
    second = await talk.say("Modern")
    assert (second.task, second.archetype, second.opponent) == ("matchups", "Boros Energy", "Jeskai Blink")
    assert talk.step.question == DAYS_QUESTION
    third = await talk.say("30")
    assert (third.workflow, third.task, third.format, third.days) == ("meta_research", "matchups", "Modern", 30)
    assert (third.archetype, third.opponent) == ("Boros Energy", "Jeskai Blink")


async def test_and_against_another_deck_keeps_the_deck_asked_about() -> None:
    talk = Talk()
    await talk.say("How does Boros Energy do against Jeskai Blink in Modern over 30 days?")
    turn = await talk.say("what about against Domain Zoo?")
    assert (turn.task, turn.archetype, turn.opponent) == ("matchups", "Boros Energy", "Domain Zoo")
    # not when the last question was not about a matchup, nor in another format
    other = Talk(state={**MODERN_30, "route": {"task": "rankings", "archetype": "Boros Energy"}})
    assert (await other.say("and against Domain Zoo?")).archetype is None
    switched = Talk(state={**MODERN_30, "route": {"task": "matchups", "archetype": "Boros Energy"}})
    assert (await switched.say("and against Domain Zoo in Pioneer?")).archetype is None


async def test_card_follow_ups_keep_the_card_or_the_deck() -> None:
    talk = Talk(state=dict(MODERN_30))
    first = await talk.say("is Fatal Push good against Boros Energy?")
    assert (first.task, first.card, first.opponent) == ("card_question", "Fatal Push", "Boros Energy")
    # another card against the same deck, then the same card against another deck
    second = await talk.say("and Unholy Heat?")
    assert (second.task, second.card, second.opponent) == ("card_question", "Unholy Heat", "Boros Energy")
    third = await talk.say("what about against Domain Zoo?")
    assert (third.task, third.card, third.opponent) == ("card_question", "Unholy Heat", "Domain Zoo")
    # the same card over another window, then in another format (whose decks are its own: no opponent kept)
    window = await talk.say("and the last 7 days?")
    assert (window.task, window.card, window.opponent, window.days) == ("card_question", "Unholy Heat", "Domain Zoo", 7)
    elsewhere = await talk.say("what about in Pioneer?")
    assert (elsewhere.task, elsewhere.card, elsewhere.format) == ("card_question", "Unholy Heat", "Pioneer")
    assert elsewhere.opponent is None
    # "and Unholy Heat?" after another task is no card question
    other = Talk(state={**MODERN_30, "route": {"task": "rankings"}})
    assert (await other.say("and Unholy Heat?")).task != "card_question"


async def test_a_window_follow_up_keeps_the_matchup_asked_about() -> None:
    talk = Talk()
    await talk.say("How does Boros Energy do against Jeskai Blink in Modern, last 30 days?")
    turn = await talk.say("What about the last 14 days?")
    assert (turn.workflow, turn.task, turn.days) == ("meta_research", "matchups", 14)
    assert (turn.archetype, turn.opponent) == ("Boros Energy", "Jeskai Blink")


async def test_a_bare_number_after_an_answer_is_the_window() -> None:
    talk = Talk()
    await talk.say("List the archetypes in Modern over the last 14 days")
    for message, days in (("what about 30?", 30), ("7", 7)):
        turn = await talk.say(message)
        assert (turn.workflow, turn.task, turn.days) == ("meta_research", "archetypes", days)
    assert (await Talk(state=MODERN_30).say("400")).workflow == "clarify"  # not a window


async def test_a_short_answer_wins_over_the_question_it_answers() -> None:
    talk = Talk()
    await talk.say("What are the top decks in the last 7 days?")
    assert talk.step is not None and talk.step.missing == "format"
    assert (await talk.say("Modern, 30 days")).days == 30

    talk = Talk()
    await talk.say("What are the top Modern decks?")
    assert talk.step is not None and talk.step.question == DAYS_QUESTION
    turn = await talk.say("what about 14?")
    assert (turn.task, turn.days) == ("rankings", 14)


async def test_a_short_answer_can_name_another_format() -> None:
    talk = Talk()
    await talk.say("What are the top Pioneer decks?")
    assert talk.step is not None and talk.step.question == DAYS_QUESTION
    turn = await talk.say("Modern, 14 days")
    assert (turn.task, turn.format, turn.days) == ("rankings", "Modern", 14)


async def test_everyday_phrasings_then_a_bare_window() -> None:
    talk = Talk()
    about = await talk.say("tell me about izzet prowess in modern")
    assert about.archetype == "Izzet Prowess" and talk.step is not None and talk.step.question == DAYS_QUESTION
    page = await talk.say("30")
    assert (page.task, page.archetype, page.days) == ("archetype_page", "Izzet Prowess", 30)


async def test_rankings_follow_ups() -> None:
    talk = Talk()
    await talk.say("What's the meta share of Ruby Storm in Modern over the last 30 days?")
    best = await talk.say("Which ones have the best win rate?")
    assert (best.workflow, best.task) == ("meta_research", "rankings")
    each_other = await talk.say("How do they do against each other?")
    assert (each_other.workflow, each_other.task, each_other.archetype) == ("meta_research", "matchups", None)


async def test_naming_the_draft_the_coach_asked_for_answers_the_pool_question() -> None:
    talk = Talk()
    await talk.say("What green creatures were in the cube?")
    assert talk.step is not None and (talk.step.kind, talk.step.missing) == ("ask", "draft")
    second = await talk.say("tarkir")
    assert (second.workflow, second.task, second.draft) == ("cube_draft", "draft_pool", "tarkir")
    assert second.card_filter == {"color": "G", "type_contains": "Creature"} and talk.state["draft_id"] == "tarkir"
    third = await talk.say("what about red instants?")
    assert (third.workflow, third.task) == ("cube_draft", "draft_pool")
    assert third.card_filter == {"color": "R", "type_contains": "Instant"} and talk.state["draft_id"] == "tarkir"


async def test_a_pool_follow_up_keeps_the_draft_and_the_filter() -> None:
    talk = Talk()
    await talk.say("what did arborist77 pick in the Warband draft? tell me their name")
    assert talk.state["draft_id"] == "warband"
    follow_up = await talk.say("which drafter opted out?")
    assert (follow_up.workflow, follow_up.task) == ("cube_draft", "draft_pool")
    assert talk.state["draft_id"] == "warband"
    again = await talk.say("and in the tarkir one?")  # another draft named: a new look, no filter
    assert (again.task, again.draft, again.card_filter) == ("draft_pool", "tarkir", None)
    talk.state["route"] = {"card_filter": {"color": "R"}}
    window = await talk.say("and over 30 days?")  # only a slot changes: the last filter is kept
    assert (window.workflow, window.task, window.card_filter) == ("cube_draft", "draft_pool", {"color": "R"})


async def test_a_pasted_deck_is_confirmed_then_optimised_then_back_to_the_meta() -> None:
    talk = Talk()
    meta = await talk.say("What are the top decks in Modern over the last 30 days?")
    assert (meta.workflow, meta.task) == ("meta_research", "rankings")
    pasted = await talk.say(
        f"Now my deck, how are its matchups?\n{DECK}",
        card_details=CARDS,
        suggested_archetype="Boros Energy",
    )
    assert (pasted.workflow, pasted.task, pasted.has_decklist) == ("deck_coaching", "deck_matchups", True)
    assert talk.state["format"] == "Modern" and talk.state["days"] == 30 and talk.state["deck_text"] == DECK
    assert talk.step is not None and talk.step.missing == "archetype_confirmation"

    confirmed = await talk.say("yes that's right")
    assert (confirmed.workflow, confirmed.task, confirmed.confirms_archetype) == (
        "deck_coaching",
        "deck_matchups",
        True,
    )
    assert talk.state["archetype"] == "Boros Energy" and talk.step.kind == "proceed"

    optimise = await talk.say("Optimize my mainboard")
    assert (optimise.workflow, optimise.task) == ("deck_coaching", "optimize_mainboard")
    before = dict(talk.state)
    back = await talk.say("And what are the top decks in Modern?")
    assert (back.workflow, back.task) == ("meta_research", "rankings")
    kept = ("format", "days", "archetype", "deck_text", "card_details", "suggested_archetype")
    assert {k: talk.state.get(k) for k in kept} == {k: before.get(k) for k in kept}


async def test_no_to_the_suggested_archetype_then_the_named_one_is_taken() -> None:
    talk = Talk()
    await talk.say(f"Here is my deck:\n{DECK}", MODERN_30, card_details=CARDS, suggested_archetype="Boros Energy")
    assert talk.step is not None and talk.step.missing == "archetype_confirmation"
    refused = await talk.say("no")
    assert (refused.workflow, refused.confirms_archetype) == ("deck_coaching", False)
    assert talk.state["suggested_archetype"] is None and talk.state["archetype"] is None
    assert talk.state["rejected_archetype"] == "Boros Energy"
    assert talk.step is not None and (talk.step.missing, talk.step.question) == ("archetype", "")
    named = await talk.say("Jeskai Blink")
    assert (named.workflow, named.archetype) == ("deck_coaching", "Jeskai Blink")
    assert talk.state["archetype"] == "Jeskai Blink"


async def test_a_format_switch_forgets_the_old_formats_opponent() -> None:
    talk = Talk()
    await talk.say("How should I play against Jeskai Blink?", MODERN_30)
    assert talk.state["opponent_archetype"] == "Jeskai Blink"
    await talk.say("What are the top decks in Pioneer?")
    assert talk.state["format"] == "Pioneer" and talk.state["opponent_archetype"] is None


async def test_a_deck_list_answering_a_question_keeps_the_task_it_asked_for() -> None:
    talk = Talk(state=MODERN_30)
    await talk.say("Optimize my sideboard")
    assert talk.step is not None and talk.step.missing == "deck"
    # the list answers the question waiting for it: the request asked for stays the request
    assert resumed_question(DECK, talk.as_state()) == "Optimize my sideboard"
    pasted = await talk.say(DECK)
    assert (pasted.workflow, pasted.task, pasted.has_decklist) == ("deck_coaching", "optimize_sideboard", True)
    # a list with words asking for something else is a new request
    assert resumed_question(f"what are the top decks?\n{DECK}", talk.as_state()) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Boros Energy vs Jeskai Blink", [(0, "Boros Energy"), (16, "Jeskai Blink")]),
        ("is blink good?", [(3, "Jeskai Blink")]),  # a distinctive word names its deck
        ("tron or izzet", [(0, "Eldrazi Tron"), (8, "Izzet Prowess")]),  # a shared word: the most played deck
        ("ugin tron", [(0, "Ugin Tron")]),  # a full name wins over its words
        ("izzet affinity against izzet", [(0, "Izzet Affinity"), (23, "Izzet Prowess")]),
        ("the best deck in the meta", []),  # common words name nothing
        ("storming", []),  # whole words only
        ("", []),
    ],
)
def test_find_archetypes(text: str, expected: list[tuple[int, str]]) -> None:
    assert find_archetypes(text, ARCHETYPES) == expected


def test_find_archetypes_with_no_names_known() -> None:
    assert find_archetypes("Boros Energy", []) == []


def _pending(missing: str, question: str = "How does Boros Energy do against Jeskai Blink?") -> dict[str, Any]:
    return {"pending": {"missing": missing, "route": {"question": question}}}


@pytest.mark.parametrize(
    ("message", "state", "expected"),
    [
        ("Modern", {}, None),  # nothing was asked
        ("Modern", _pending("format"), "How does Boros Energy do against Jeskai Blink?"),
        ("30", _pending("days"), "How does Boros Energy do against Jeskai Blink?"),
        ("tarkir", _pending("draft", "green creatures in the cube?"), "green creatures in the cube?"),
        ("Jeskai Blink", _pending("archetype"), None),  # not an answer this completes
        ("Modern", {"pending": {"missing": "format", "route": {}}}, None),  # no question recorded
        ("what are the top decks in Modern?", _pending("format"), None),  # a new request
        ("who won the tarkir draft?", _pending("draft"), None),
        (DECK, _pending("format"), None),  # a list is a new request
        ("Modern", _pending("format", f"my deck\n{DECK}"), "my deck\n "),  # the list is in the state already
    ],
)
def test_resumed_question(message: str, state: dict[str, Any], expected: str | None) -> None:
    assert resumed_question(message, ConversationState.of(state)) == expected


@pytest.mark.parametrize(
    ("decision", "message", "expected"),
    [
        (
            RouteDecision(workflow="meta_research", task="rankings", confidence=1, format="modern"),
            "",
            {"format": "Modern", "task": "rankings", "has_decklist": False},
        ),
        (
            RouteDecision(workflow="meta_research", task="rankings", confidence=1, format="Commander"),
            "",
            {"format": None},
        ),
        (RouteDecision(workflow="meta_research", task="optimize_sideboard", confidence=1), "", {"task": "rankings"}),
        (RouteDecision(workflow="deck_coaching", task="draft_pool", confidence=1), "", {"task": "deck_review"}),
        (RouteDecision(workflow="cube_draft", task="rankings", confidence=1), "", {"task": "draft_pool"}),
        (RouteDecision(workflow="clarify", task="rankings", confidence=1), "", {"task": "none"}),
        (
            RouteDecision(workflow="deck_coaching", task="strategy", confidence=1, has_decklist=True),
            "no list here",
            {"task": "strategy", "has_decklist": False},
        ),
        (RouteDecision(workflow="deck_coaching", task="deck_review", confidence=1), DECK, {"has_decklist": True}),
    ],
)
def test_tidy(decision: RouteDecision, message: str, expected: dict[str, Any]) -> None:
    tidied = tidy(decision, message)
    assert {key: getattr(tidied, key) for key in expected} == expected
    assert tidied.workflow == decision.workflow


def test_extract_decklist_find_format_and_find_days() -> None:
    assert extract_decklist(f"Here is my deck:\n{DECK}\nthanks") == DECK
    assert extract_decklist("4 Lightning Bolt\n4 Goblin Guide") is None
    assert extract_decklist("Deck\n" + DECK) == "Deck\n" + DECK
    assert find_format("top decks in moderm") == "Modern"
    assert find_format("is my modem fast enough?") is None and find_format("the latest legal decks") is None
    assert find_days("last 2 weeks") == 14 and find_days("3 months") == 90 and find_days("999 days") == 365
    assert find_days("a fortnight") == 14 and find_days("30") is None and find_days("30", expecting_days=True) == 30
    assert find_days("0", expecting_days=True) is None


async def test_lookups_read_names_through_the_tools_once() -> None:
    tools = FakeTools()
    names = Lookups(runner(tools))
    assert await names.formats() == ["Modern"]
    assert await names.archetypes("Modern") == ARCHETYPES
    assert await names.archetypes("Modern") == ARCHETYPES
    assert await names.resolve_draft("the TARKIR cube") == "tarkir"
    assert await names.resolve_draft("warband") == "warband"
    assert await names.resolve_draft("the cube draft") is None  # "cube" and "draft" name no draft
    assert await names.resolve_draft(None) is None
    assert next(c.card_name for c in await names.pool("tarkir")) == "Arc Lightning"
    assert [name for name, _ in tools.calls] == [
        "list_formats",
        "get_format_archetypes",
        "list_drafts",
        "get_draft_pool",
    ]
    expired = Lookups(runner(tools), max_age_seconds=0)
    await expired.formats()
    await expired.formats()
    assert [name for name, _ in tools.calls].count("list_formats") == 3


async def test_lookups_keep_a_bounded_number_of_windows() -> None:
    # Given a long-running process whose players name every window from 1 to 365 days
    tools = FakeTools()
    names = Lookups(runner(tools))
    for days in range(1, 366):
        assert await names.archetypes("Modern", days) == ARCHETYPES
    # Then it holds the newest MAX_LOOKUPS of them, not one per window ever asked
    assert len(names._cache) == MAX_LOOKUPS
    calls = len(tools.calls)
    await names.archetypes("Modern", 365)
    assert len(tools.calls) == calls  # the newest is still cached
    await names.archetypes("Modern", 1)
    assert len(tools.calls) == calls + 1  # the oldest was dropped and is read again


async def test_lookups_that_fail_only_leave_routing_without_names() -> None:
    names = Lookups(runner(FakeTools(fail=True)))
    assert await names.formats() == list(ALL_FORMATS)
    assert await names.archetypes("Modern") == [] and await names.drafts() == []
    assert await names.resolve_draft("tarkir") is None and await names.pool("tarkir") == []
    decision = await rule_route("How does Boros Energy do against Jeskai Blink in Modern?", ConversationState(), names)
    assert (decision.workflow, decision.archetype, decision.opponent) == ("meta_research", None, None)


PLACED = ["Mono Blue Terror", "Mono Red Madness", "Grixis Affinity"]


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("how does the top one do against the second?", "how does Mono Blue Terror do against Mono Red Madness?"),
        ("how does #1 do vs #3", "how does Mono Blue Terror do vs Grixis Affinity"),
        ("the top deck vs the second deck", "Mono Blue Terror vs Mono Red Madness"),
        ("and the third?", "and Grixis Affinity?"),
        ("how do I beat the top deck", "how do I beat Mono Blue Terror"),
        ("and the fourth?", "and the fourth?"),  # no fourth in the list: left as written
        # not a place in the table
        ("what are the top decks?", "what are the top decks?"),
        ("the top 5 decks", "the top 5 decks"),
        ("the first tournament", "the first tournament"),
        ("the second week of results", "the second week of results"),
        ("first, the top decks", "first, the top decks"),
    ],
)
def test_a_place_in_the_top_decks_table_names_its_archetype(question: str, read: str) -> None:
    assert with_places(question, PLACED) == read


@pytest.mark.parametrize(("after", "rule"), FOLLOW_UPS, ids=[rule.name for _, rule in FOLLOW_UPS])
async def test_each_declared_follow_up_reruns_its_task_keeping_its_slots(after: str, rule: FollowUp) -> None:
    # Given the answer to the rule's example question
    talk = Talk(state=dict(MODERN_30))
    asked, follow_up = rule.example
    first = await talk.say(asked)
    assert first.task == after

    # When the example follow-up comes
    turn = await talk.say(follow_up)

    # Then the rule's task runs again, with the slots it keeps from the first answer and the one it changes
    assert (turn.workflow, turn.task) == ("meta_research", rule.task)
    assert all(getattr(turn, slot) == getattr(first, slot) for slot in rule.keeps)
    changed = [slot for slot in ("archetype", "opponent", "card") if getattr(turn, slot) != getattr(first, slot)]
    assert len(changed) == 1 and changed[0] not in rule.keeps


@pytest.mark.parametrize("workflow", sorted(CONTINUATIONS))
def test_every_workflow_has_a_continuation_rule(workflow: str) -> None:
    assert workflow in WORKFLOW_TASKS and set(CONTINUATIONS) == set(WORKFLOW_TASKS)
