"""What can target a card, from its rules text: Devoid makes it colourless, hexproof and shroud stop every
opponent's targeted spell, protection the spells of its colours, ward a spell that does not pay its cost."""

from __future__ import annotations

from meta_mage.card_rules.answers import answered_by, verdicts
from tests.unit.test_card_answers_table import card


def test_devoid_cards_are_colourless_whatever_their_cost() -> None:
    assert card("Eldrazi Linebreaker").colours == set() and card("Kozilek's Return").colours == set()
    assert card("Lightning Bolt").colours == {"R"}


def test_targeting_facts_are_read_from_the_text_it_has_from_the_start() -> None:
    assert card("Slippery Bogle").hexproof and not card("Lightning Bolt").hexproof
    assert card("Sanctifier en-Vec").protection_from == {"B", "R"}
    assert card("Hexdrinker").protection_from == frozenset()  # from everything only at level 8
    assert card("Tolarian Terror").ward == "{2}"


def test_a_ward_cost_is_the_condition_of_a_targeted_answer() -> None:
    [words] = answered_by(card("Snap"), card("Tolarian Terror"))
    assert "paying its ward ({2})" in words


def test_protection_and_hexproof_say_why_in_words() -> None:
    assert [v.detail for v in verdicts(card("Lightning Bolt"), card("Sanctifier en-Vec"))] == [
        "it has protection from red"
    ]
    assert {v.detail for v in verdicts(card("Journey to Nowhere"), card("Slippery Bogle"))} == {"it has hexproof"}
