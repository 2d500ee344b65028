"""What the guides read of a card beyond its answers, on real cards: the weakest cards in a kind of matchup
(``decks/matchup.py`` ``WEAK_HERE``), the sideboard cards a wish fetches, a ramp deck's mana sources."""

from __future__ import annotations

from meta_mage.decks.cards import put_in_by, ramps, wished_by
from meta_mage.decks.guide import names_card
from meta_mage.decks.matchup import Matchup, answers, their_choice
from meta_mage.models.decks import CardDetail
from tests.unit.test_card_answers_table import card

BOROS = ["Ragavan, Nimble Pilferer", "Guide of Souls", "Ocelot Pride", "Phlage, Titan of Fire's Fury"]


def against_boros(own_strategy: str) -> Matchup:
    return Matchup("aggro", [card(name) for name in BOROS], {}, 2.0, own_strategy=own_strategy)


def test_card_flow_is_slow_against_a_fast_deck_unless_it_digs_for_a_combo() -> None:
    # Given a two-mana draw spell that leaves the board alone, against Boros Energy
    resolve = card("Wrenn's Resolve")
    # Then in a midrange deck it is among the weakest cards of the matchup
    assert against_boros("midrange").slow_here(resolve).startswith("card advantage that leaves the board alone")
    assert against_boros("unknown").slow_here(resolve)
    # but in a combo deck it digs for the combo that is the deck's answer to a fast deck: not slow
    assert against_boros("combo").slow_here(resolve) == ""


def test_a_wish_fetches_the_sideboard_cards_its_words_name() -> None:
    targets = ["Grapeshot", "Past in Flames", "Prismatic Ending", "Mycosynth Lattice", "Tarmogoyf", "Brainstorm"]

    def fetched(wish: str) -> list[str]:
        return [name for name in targets if wished_by(card(name), [card("Lightning Bolt"), card(wish)]) == wish]

    assert fetched("Wish") == targets  # any card
    assert fetched("Burning Wish") == ["Grapeshot", "Past in Flames", "Prismatic Ending"]  # sorceries
    assert fetched("Karn, the Great Creator") == ["Mycosynth Lattice"]  # artifacts
    assert fetched("Living Wish") == ["Tarmogoyf"]  # creature or land
    assert fetched("Cunning Wish") == ["Brainstorm"]
    assert wished_by(card("Grapeshot"), [card("Lightning Bolt")]) == ""


def test_a_ramp_card_makes_mana_or_puts_lands_into_play() -> None:
    ramp = ["Talisman of Impulse", "Utopia Sprawl", "Icetill Explorer", "Llanowar Elves", "Search for Tomorrow"]
    not_ramp = ["Ancient Stirrings", "Expedition Map", "Lightning Bolt", "Eldrazi Temple", "Devourer of Destiny"]
    assert [name for name in ramp + not_ramp if ramps(card(name))] == ramp


def as_detail(name: str) -> CardDetail:
    facts = card(name)
    return CardDetail(
        name=name,
        quantity=1,
        section="mainboard",
        mana_cost=facts.mana_cost,
        type_line=facts.type_line,
        oracle_text=facts.oracle_text,
    )


def test_an_edict_reaches_a_creature_deck_as_they_choose() -> None:
    # Given Chainer's Edict against Boros Energy's creatures, and against a deck of spells only
    creatures = against_boros("midrange")
    spells = Matchup("combo", [card(name) for name in ("Desperate Ritual", "Grapeshot")], {}, 2.0)
    # Then it answers none of the creatures (they pick what goes) but is live against them; dead against spells
    edict = as_detail("Chainer's Edict")
    assert answers(edict, creatures) == {} and their_choice(edict, creatures)
    assert not their_choice(edict, spells)
    # a removal spell is an answer, not their choice
    assert answers(as_detail("Fatal Push"), creatures) and not their_choice(as_detail("Fatal Push"), creatures)


def test_a_card_put_onto_the_battlefield_names_what_puts_it_there() -> None:
    cheats = [card(name) for name in ("Lightning Bolt", "Greasefang, Okiba Boss", "Goryo's Vengeance", "Recommission")]
    assert put_in_by(card("Parhelion II"), cheats) == card("Greasefang, Okiba Boss")  # a Vehicle
    assert put_in_by(card("Griselbrand"), cheats) == card("Goryo's Vengeance")  # a legendary creature
    assert put_in_by(card("Archon of Cruelty"), cheats) is None  # not legendary, mana value over Recommission's 3
    assert put_in_by(card("Greasefang, Okiba Boss"), cheats[3:]) == card("Recommission")  # mana value 3 or less


def test_the_card_an_archetype_is_named_for() -> None:
    assert names_card("Dragonstorm Omniscience", "Omniscience")
    assert names_card("Greasefang", "Greasefang, Okiba Boss")
    assert names_card("Yawgmoth Samwise", "Yawgmoth, Thran Physician")
    assert names_card("Living End", "Living End")
    assert not names_card("Goryo's Reanimator", "Goryo's Vengeance")  # the whole short name, not a word of it
    assert not names_card("Mono Red Aggro", "Red Elemental Blast")
    assert not names_card("Izzet Prowess", "Prowess Monk")
