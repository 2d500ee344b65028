"""The play plan's parts on real cards: speed, deciders with answers, keeps with their chances."""

from __future__ import annotations

from math import comb

import pytest

from meta_mage.card_rules.answers import answered_by
from meta_mage.card_rules.facts import CardFacts
from meta_mage.decks.play_plan import TheirCard, YourCard, at_least_one, lands_between, play_plan
from tests.unit.test_card_answers_table import card


def _answers(mine: CardFacts, theirs: CardFacts) -> str:
    ways = answered_by(mine, theirs)
    return ways[0] if ways else ""


def _yours(cards: dict[str, int]) -> list[YourCard]:
    return [YourCard(card(name), n) for name, n in cards.items()]


def _theirs(cards: dict[str, float]) -> list[TheirCard]:
    return [TheirCard(card(name), rate, rate / 25) for name, rate in cards.items()]


BURN_CONTROL = {
    "Counterspell": 4,
    "Lightning Bolt": 4,
    "Fire // Ice": 2,
    "Archmage's Charm": 3,
    "Island": 20,
    "Teferi, Hero of Dominaria": 2,
    "Supreme Verdict": 2,
    "Snapcaster Mage": 4,
    "Memory Deluge": 3,
    "Mountain": 16,
}
AGGRO = {
    "Ragavan, Nimble Pilferer": 100.0,
    "Guide of Souls": 90.0,
    "Ocelot Pride": 80.0,
    "Phlage, Titan of Fire's Fury": 70.0,
    "Sacred Foundry": 100.0,
}


def test_against_a_faster_deck_you_are_the_control_and_keep_early_answers() -> None:
    # Given a control deck against Boros Energy's key cards
    plan = play_plan(_theirs(AGGRO), _yours(BURN_CONTROL), _answers)
    # Then it is the control deck; their first key spells come down on turn 1
    assert plan.speed.role == "control" and plan.speed.their_first_turn == 1
    # their most played card is named with the answers to it
    top = plan.deciders[0]
    assert top.name == "Ragavan, Nimble Pilferer"
    assert any(a.startswith("Lightning Bolt (") for a in top.your_answers)
    # the keep rules give the chance a seven holds each, computed from the 60
    early = plan.keep[1]
    assert "Lightning Bolt" in early.cards and "Supreme Verdict" not in early.cards
    assert early.chance == at_least_one(early.copies, 60)
    assert plan.keep[0].chance == lands_between(36, 60, 2, 4)


def test_the_faster_deck_is_the_beatdown() -> None:
    mine = _yours({"Ragavan, Nimble Pilferer": 4, "Guide of Souls": 4, "Lightning Bolt": 4, "Mountain": 20})
    theirs = _theirs({"Teferi, Hero of Dominaria": 90.0, "Memory Deluge": 80.0, "Supreme Verdict": 70.0})
    plan = play_plan(theirs, mine, _answers)
    assert plan.speed.role == "beatdown"
    assert "Ragavan, Nimble Pilferer" in plan.keep[1].cards


@pytest.mark.parametrize(("copies", "deck"), [(4, 60), (8, 60), (1, 40), (0, 60)])
def test_at_least_one_is_the_hypergeometric_complement(copies: int, deck: int) -> None:
    expected = 0.0 if copies == 0 else round(100 * (1 - comb(deck - copies, 7) / comb(deck, 7)), 1)
    assert at_least_one(copies, deck) == expected


def test_lands_between_sums_to_all_hands() -> None:
    assert lands_between(24, 60, 0, 7) == 100.0


RUBY_STORM = {
    "Desperate Ritual": 4,
    "Pyretic Ritual": 4,
    "Manamorphose": 4,
    "Ruby Medallion": 4,
    "Reckless Impulse": 4,
    "Wrenn's Resolve": 4,
    "Past in Flames": 3,
    "Grapeshot": 1,
    "Mountain": 18,
}
BOROS_WITH_HATE = {**AGGRO, "Voice of Victory": 98.0, "Thraben Charm": 99.0}


def test_a_combo_deck_races_and_sees_first_what_stops_its_combo() -> None:
    # Given Ruby Storm against Boros Energy, whose lists play Voice of Victory and Thraben Charm
    plan = play_plan(_theirs(BOROS_WITH_HATE), _yours(RUBY_STORM), _answers, ("combo", "aggro"))
    # Then Storm is the combo deck, not "the control deck" (their curve is lower), and what stops it comes first
    assert plan.speed.role == "combo"
    assert {d.name for d in plan.deciders[:2]} == {"Voice of Victory", "Thraben Charm"}
    # and a seven is not asked to hold an answer to their creatures: it plays around what it cannot answer
    assert [k.advice for k in plan.keep[1:]] == [f"nothing in your main deck answers {plan.deciders[0].name}; "
                                                 "play around it or board in"]  # fmt: skip
    # Without declared strategies the curves alone decide, as before
    assert play_plan(_theirs(BOROS_WITH_HATE), _yours(RUBY_STORM), _answers).speed.role == "control"


@pytest.mark.parametrize(
    ("strategies", "role"),
    [
        (("aggro", "combo"), "beatdown"),  # a fast deck races a combo deck
        (("midrange", "combo"), "against combo"),  # anything else disrupts it
        (("unknown", "combo"), "against combo"),
        (("combo", "combo"), "combo"),  # two combo decks race each other
        (("combo", "unknown"), "combo"),
        (("ramp", "aggro"), "ramp"),  # a ramp deck goes over the top: not "the control deck" (Amulet Titan)
        (("aggro", "ramp"), "beatdown"),  # anything races a ramp deck
        (("ramp", "combo"), "against combo"),
        (("midrange", "control"), "beatdown"),
        (("control", "midrange"), "control"),
    ],
)
def test_the_part_each_deck_plays_is_the_first_row_that_holds(strategies: tuple[str, str], role: str) -> None:
    plan = play_plan(_theirs(BOROS_WITH_HATE), _yours(RUBY_STORM), _answers, strategies)
    assert plan.speed.role == role


def test_a_free_counterspell_is_not_a_five_drop() -> None:
    # Given Izzet Tempo's Force of Will and Daze (their alternative costs put them on the table at once)
    theirs = _theirs({"Force of Will": 100.0, "Daze": 100.0, "Dragon's Rage Channeler": 100.0})
    plan = play_plan(theirs, _yours(RUBY_STORM), _answers, ("combo", "tempo"))
    # Then each says how it comes sooner (Force of Will for a card from hand on turn 1, Daze by its alternative
    # cost), and neither counts in their curve: only the one-drop does
    found = {d.name: (d.turn, d.sooner_by) for d in plan.deciders}
    assert found["Force of Will"] == (1, "cast for free (a card from hand)")
    assert found["Daze"][1] == "its alternative cost"
    assert plan.speed.their_curve == 1.0


def test_a_card_their_deck_puts_onto_the_battlefield_lands_with_what_puts_it_there() -> None:
    # Given Greasefang's Parhelion II, which is never cast, and Recommission, which returns Greasefang one turn early
    theirs = _theirs({"Greasefang, Okiba Boss": 100.0, "Parhelion II": 100.0, "Recommission": 50.0})
    plan = play_plan(theirs, _yours(RUBY_STORM), _answers, ("combo", "combo"))
    sooner = {d.name: d.sooner_by for d in plan.deciders}
    # Then Parhelion II is not an eight-drop: Greasefang puts it in; a one-turn shortcut is not worth a word
    assert sooner["Parhelion II"] == "Greasefang, Okiba Boss putting it onto the battlefield"
    assert sooner["Greasefang, Okiba Boss"] == ""
    # and their curve counts the cards they cast, not the one they cheat in
    assert plan.speed.their_curve == round((3 * 4 + 2 * 2) / 6, 2)


@pytest.mark.parametrize(("lands", "kept"), [(14, (1, 3)), (16, (1, 3)), (17, (2, 4)), (24, (2, 4))])
def test_a_deck_with_few_lands_keeps_a_one_lander(lands: int, kept: tuple[int, int]) -> None:
    # Given a 60-card deck with this many lands (Affinity plays 14 beside its Moxen and Urza's Saga)
    mine = _yours({"Mountain": lands, "Lightning Bolt": 60 - lands})
    plan = play_plan(_theirs(AGGRO), mine, _answers)
    # Then the lands a seven keeps on lands alone follow the deck's share of lands
    low, high = kept
    assert plan.keep[0].advice == f"{low} to {high} lands ({lands} in your 60)"
    assert plan.keep[0].chance == lands_between(lands, 60, low, high)
