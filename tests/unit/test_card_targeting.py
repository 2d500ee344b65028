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


def test_sunburst_reaches_only_as_many_colours_as_the_deck_spends() -> None:
    explosives, karn = card("Engineered Explosives"), card("Karn, the Great Creator")
    assert answered_by(explosives, karn) != []  # five colours could reach mana value 4
    assert answered_by(explosives, karn, colours_available=2) == []  # a blue-black deck reaches 2 at most
    [words] = answered_by(explosives, card("Ragavan, Nimble Pilferer"), colours_available=2)
    assert "2" in words and "5" not in words
    assert answered_by(card("Prismatic Ending"), karn, colours_available=3) == []  # converge alike


def test_a_deck_spends_the_colours_its_spells_name() -> None:
    from meta_mage.decks.coach import deck_colours
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
