"""What can target a card, from its rules text: Devoid makes it colourless, hexproof and shroud stop every
opponent's targeted spell, protection the spells and abilities of what it is from (a colour, multicolored, spells
that are one or more colors, the chosen player) and the damage they deal, ward a spell that does not pay its cost."""

from __future__ import annotations

import pytest

from meta_mage.card_rules.answers import answered_by, verdicts
from meta_mage.card_rules.facts import CHOSEN_PLAYER, COLOURED_SPELLS, MULTICOLOURED
from meta_mage.card_rules.filters import Clause, Filter
from meta_mage.card_rules.roles import Role, answer
from tests.unit.test_card_answers_table import card


def test_devoid_cards_are_colourless_whatever_their_cost() -> None:
    assert card("Eldrazi Linebreaker").colours == set() and card("Kozilek's Return").colours == set()
    assert card("Lightning Bolt").colours == {"R"}


def test_targeting_facts_are_read_from_the_text_it_has_from_the_start() -> None:
    assert card("Slippery Bogle").hexproof and not card("Lightning Bolt").hexproof
    assert card("Sanctifier en-Vec").protection_from == {"B", "R"}
    assert card("Hexdrinker").protection_from == frozenset()  # from everything only at level 8
    assert card("Tolarian Terror").ward == "{2}"


@pytest.mark.parametrize(
    ("name", "protection"),
    [
        ("Argentum Masticore", {MULTICOLOURED}),  # "First strike, protection from multicolored"
        ("Stonecoil Serpent", {MULTICOLOURED}),  # "Reach, trample, protection from multicolored"
        ("Soldier of the Pantheon", {MULTICOLOURED}),
        ("Emrakul, the Aeons Torn", {COLOURED_SPELLS}),  # "Flying, protection from ..., annihilator 6"
        ("True-Name Nemesis", {CHOSEN_PLAYER}),  # "This creature has protection from the chosen player"
        ("Mirran Crusader", {"B", "G"}),  # "Double strike, protection from black and from green"
        ("Progenitus", {"everything"}),
        ("Baneslayer Angel", set()),  # from Demons and from Dragons: a creature type is not read
    ],
)
def test_protection_is_read_from_a_keyword_list_and_beyond_colours(name: str, protection: set[str]) -> None:
    assert card(name).protection_from == protection


def _details(answer: str, target: str) -> set[str]:
    return {v.detail for v in verdicts(card(answer), card(target))}


def test_a_multicoloured_source_cannot_target_protection_from_multicolored() -> None:
    # Kolaghan's Command (black and red) cannot aim its damage or its artifact removal at Argentum Masticore
    assert "it has protection from multicolored" in _details("Kolaghan's Command", "Argentum Masticore")
    assert not any(
        "destroys" in w or "damage" in w for w in answered_by(card("Kolaghan's Command"), card("Argentum Masticore"))
    )
    assert answered_by(card("Lightning Helix"), card("Soldier of the Pantheon")) == []
    assert answered_by(card("Lightning Bolt"), card("Soldier of the Pantheon")) != []  # one colour: it can
    assert answered_by(card("Fatal Push"), card("Stonecoil Serpent")) != []


def test_no_coloured_spell_can_target_emrakul_but_an_ability_can() -> None:
    emrakul = card("Emrakul, the Aeons Torn")
    assert answered_by(card("Swords to Plowshares"), emrakul) == []
    assert _details("Swords to Plowshares", "Emrakul, the Aeons Torn") == {
        "it has protection from spells that are one or more colors"
    }
    assert answered_by(card("Path to Exile"), emrakul) == []
    # Solitude's exile is a triggered ability of a white creature, not a spell: it can target Emrakul
    assert answered_by(card("Solitude"), emrakul) == ["exiles creatures"]
    # by the role's source: a coloured spell is stopped; a colourless spell or a coloured ability is not
    creatures = Filter((Clause("type", frozenset({"creature"})),))
    for source, spell, outcome in (
        (frozenset({"W"}), True, "no"),
        (frozenset(), True, "yes"),
        (frozenset("W"), False, "yes"),
    ):
        role = Role("removal", "exiles", creatures, source=source, spell=spell)
        assert answer(role, emrakul).outcome == outcome, (source, spell)


def test_nothing_of_the_chosen_player_can_target_or_damage_true_name_nemesis() -> None:
    # its controller chooses the opponent: every spell and ability the user controls misses it
    nemesis = card("True-Name Nemesis")
    for targeted in ("Lightning Bolt", "Swords to Plowshares", "Solitude", "Fatal Push", "Hydroblast"):
        assert answered_by(card(targeted), nemesis) == [], targeted
    assert "it has protection from the chosen player (you)" in _details("Swords to Plowshares", "True-Name Nemesis")
    # damage from its sources is prevented even without a target; -X/-X, "destroy all" and an edict still work
    assert answered_by(card("Pyroclasm"), nemesis) == []
    assert "its protection from the chosen player (you) prevents the damage" in _details(
        "Pyroclasm", "True-Name Nemesis"
    )
    assert answered_by(card("Wrath of God"), nemesis) == ["destroys all creatures"]
    assert answered_by(card("Toxic Deluge"), nemesis) != []
    assert {v.outcome for v in verdicts(card("Sheoldred's Edict"), nemesis)} >= {"choice"}


def test_protection_from_a_colour_prevents_damage_from_a_sweeper_of_that_colour() -> None:
    assert answered_by(card("Anger of the Gods"), card("Sanctifier en-Vec")) == []
    assert answered_by(card("Wrath of God"), card("Sanctifier en-Vec")) == ["destroys all creatures"]
    assert answered_by(card("Toxic Deluge"), card("Sanctifier en-Vec")) != []  # -X/-X is no damage


def test_a_ward_cost_is_the_condition_of_a_targeted_answer() -> None:
    [words] = answered_by(card("Snap"), card("Tolarian Terror"))
    assert "paying its ward ({2})" in words


def test_protection_and_hexproof_say_why_in_words() -> None:
    assert [v.detail for v in verdicts(card("Lightning Bolt"), card("Sanctifier en-Vec"))] == [
        "it has protection from red"
    ]
    assert {v.detail for v in verdicts(card("Journey to Nowhere"), card("Slippery Bogle"))} == {"it has hexproof"}


def test_sunburst_reaches_only_as_many_colours_as_the_deck_spends() -> None:
    explosives, karn = card("Engineered Explosives"), card("Karn, the Great Creator")
    assert answered_by(explosives, karn) != []  # five colours could reach mana value 4
    assert answered_by(explosives, karn, colours_available=2) == []  # a blue-black deck reaches 2 at most
    [words] = answered_by(explosives, card("Ragavan, Nimble Pilferer"), colours_available=2)
    assert "2" in words and "5" not in words
    assert answered_by(card("Prismatic Ending"), karn, colours_available=3) == []  # converge alike


def test_a_deck_spends_the_colours_its_spells_name() -> None:
    from meta_mage.decks.cards import deck_colours
    from meta_mage.models.decks import CardDetail

    dimir = [
        CardDetail(name="Counterspell", quantity=4, section="mainboard", mana_cost="{U}{U}", type_line="Instant"),
        CardDetail(name="Fatal Push", quantity=4, section="mainboard", mana_cost="{B}", type_line="Instant"),
        CardDetail(name="Watery Grave", quantity=4, section="mainboard", mana_cost=None, type_line="Land"),
        CardDetail(
            name="Engineered Explosives", quantity=1, section="mainboard", mana_cost="{X}", type_line="Artifact"
        ),
    ]
    assert deck_colours(dimir) == {"U", "B"}
