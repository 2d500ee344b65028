"""Conditional halves of interaction and the casting facts the coach reads, on real cards of the corpus.

Firespout deals its damage to creatures without flying only if {R} was spent to cast it, and to creatures with
flying only if {G} was: each half is an "if" answer naming its condition, and a deck's colours resolve it.
"""

from __future__ import annotations

import pytest

from meta_mage.card_rules.answers import answered_by, role_labels, verdicts
from meta_mage.card_rules.casting import (
    casting_of,
    fills_graveyard,
    puts_into_play_early,
    takes_whole_graveyard,
    uses_graveyard,
)
from meta_mage.card_rules.profile import profile_of
from meta_mage.card_rules.reader import roles_of
from meta_mage.card_rules.roles import condition_holds, spent_colours
from tests.unit.test_card_answers_table import card

RED_DECK = frozenset("RW")  # Boros: makes red, never green
GREEN_DECK = frozenset("GU")


def test_firespout_reads_as_two_halves_each_with_its_condition() -> None:
    # Given Firespout, When its roles are read, Then each half keeps the colour it needs spent
    assert role_labels(card("Firespout")) == [
        "deals 3 damage to all creatures without flying (if {R} was spent)",
        "deals 3 damage to all creatures with flying (if {G} was spent)",
    ]
    assert [role.condition for role in roles_of(card("Firespout"))] == ["if {R} was spent", "if {G} was spent"]


@pytest.mark.parametrize("target", ["Ragavan, Nimble Pilferer", "Guide of Souls", "Ocelot Pride"])
def test_firespout_answers_boros_creatures_if_red_was_spent(target: str) -> None:
    # Given Boros Energy's ground creatures, When Firespout meets them without a deck, Then the answer is "if",
    # naming the red half's condition; from a red deck the condition holds; from a deck without red it does not
    found = verdicts(card("Firespout"), card(target))
    assert [v.outcome for v in found] == ["if", "no"]
    assert "if {R} was spent" in found[0].words()
    assert answered_by(card("Firespout"), card(target), deck_colours=RED_DECK) == [
        "deals 3 damage to all creatures without flying (if {R} was spent)"
    ]
    assert [v.outcome for v in verdicts(card("Firespout"), card(target), RED_DECK)] == ["yes", "no"]
    assert answered_by(card("Firespout"), card(target), deck_colours=GREEN_DECK) == []
    assert "your deck makes no red mana" in verdicts(card("Firespout"), card(target), GREEN_DECK)[0].detail


def test_firespout_reaches_fliers_only_from_a_deck_that_makes_green() -> None:
    siren = card("Spyglass Siren")  # a 1/1 flier
    assert answered_by(card("Firespout"), siren, deck_colours=RED_DECK) == []
    assert answered_by(card("Firespout"), siren, deck_colours=GREEN_DECK) == [
        "deals 3 damage to all creatures with flying (if {G} was spent)"
    ]


def test_a_colour_condition_on_an_enters_trigger_resolves_the_same_way() -> None:
    hooligan, opal = card("Tin Street Hooligan"), card("Mox Opal")
    assert [v.outcome for v in verdicts(hooligan, opal)] == ["if"]
    assert answered_by(hooligan, opal, deck_colours=frozenset("R")) == []
    assert answered_by(hooligan, opal, deck_colours=frozenset("RG")) == ["destroys artifacts (if {G} was spent)"]


@pytest.mark.parametrize(
    ("answer", "target", "condition"),
    [
        ("Tear Asunder", "Ragavan, Nimble Pilferer", "if kicked"),
        ("Bloodchief's Thirst", "Sheoldred, the Apocalypse", "if kicked"),
        ("Scrapshooter", "Urza's Saga", "if the gift was promised"),
        ("Long River's Pull", "Lightning Bolt", "if the gift was promised"),
        ("Troublemaker Ouphe", "Mox Opal", "if bargained"),
    ],
)
def test_an_optional_cost_stays_an_if_whatever_the_deck_makes(answer: str, target: str, condition: str) -> None:
    # Given a half that needs kicker, a gift or bargain, Then it answers "if", naming it, with or without a deck:
    # paying it is the player's choice in the game
    for colours in (None, frozenset("WUBRG")):
        found = [v for v in verdicts(card(answer), card(target), colours) if v]
        assert [v.outcome for v in found] == ["if"], found
        assert condition in found[0].words()


def test_conditions_in_words() -> None:
    assert spent_colours("if {R} was spent") == frozenset("R")
    assert spent_colours("if at least three red mana was spent") == frozenset("R")
    assert spent_colours("if kicked") == frozenset()
    assert condition_holds("if {G} was spent", frozenset("GW")) is True
    assert condition_holds("if {G} was spent", frozenset("RW")) is False
    assert condition_holds("if {G} was spent", None) is None
    assert condition_holds("if kicked", frozenset("WUBRG")) is None


@pytest.mark.parametrize(
    ("name", "reach"),
    [
        ("Bojuka Bog", {"all"}),
        ("Tormod's Crypt", {"all"}),
        ("Surgical Extraction", {"some"}),
        ("Scavenging Ooze", {"some"}),
        ("Rest in Peace", {"all", "ongoing"}),  # "When Rest in Peace enters, exile all graveyards", then the lock
        ("Leyline of the Void", {"ongoing"}),
        ("Grafdigger's Cage", {"ongoing"}),
    ],
)
def test_graveyard_hate_says_how_much_it_takes(name: str, reach: set[str]) -> None:
    # Given a graveyard hate card, Then its roles and its casting facts say the same reach
    assert {r.reach for r in roles_of(card(name)) if r.kind == "graveyard"} == reach
    assert casting_of(card(name)).graveyard_hate == reach
    assert takes_whole_graveyard(casting_of(card(name))) == ("all" in reach)


def test_relic_of_progenitus_takes_a_card_or_the_whole_graveyard() -> None:
    assert {r.reach for r in roles_of(card("Relic of Progenitus"))} == {"all", "some"}
    assert takes_whole_graveyard(profile_of(card("Relic of Progenitus")).casting)


@pytest.mark.parametrize(
    ("name", "early"),
    [
        ("Ancient Tomb", True),  # two mana from one land
        ("Eldrazi Temple", True),
        ("Show and Tell", True),  # puts a card from hand onto the battlefield, uncast
        ("Thoughtcast", True),  # affinity
        ("Thought-Knot Seer", False),
        ("Emrakul, the Aeons Torn", False),
        ("Lightning Bolt", False),
    ],
)
def test_what_puts_cards_into_play_before_the_land_count_says(name: str, early: bool) -> None:
    assert puts_into_play_early(profile_of(card(name)).casting) is early


def test_a_mill_and_reanimate_plan_reads_as_a_graveyard_plan() -> None:
    # Given a self-mill card and a reanimation spell, Then one fills the graveyard and the other uses it
    assert fills_graveyard(casting_of(card("Thought Scour")))
    assert not uses_graveyard(casting_of(card("Thought Scour")))
    reanimate = casting_of(card("Reanimate"))
    assert uses_graveyard(reanimate) and reanimate.cheat_from == {"graveyard"}
    assert casting_of(card("Entomb")).graveyard_use == {"fill"}
