"""Card-name matching past an exact lookup (rapidfuzz), on plain name lists and through enrich_deck."""

from typing import Any

import pytest

from meta_mage.decks.enrich import enrich_deck
from meta_mage.decks.names import CardNameIndex, closest_names, name_index
from meta_mage.models.cards import Card
from meta_mage.storage.cards import CardsRepository

NAMES = [
    "Lightning Bolt",
    "Lightning Helix",
    "Lim-Dûl's Vault",
    "Phlage, Titan of Fire's Fury",
    "Ajani, Nacatl Pariah",
    "Ajani, Sleeper Agent",
    "Wear // Tear",
    "Mountain",
    "Fountain",
    "Counterspell",
]


def closest(name: str) -> tuple[str | None, list[str]]:
    return CardNameIndex(NAMES).closest(name)


def test_a_short_name_finds_its_card() -> None:
    assert closest("Phlage") == ("Phlage, Titan of Fire's Fury", ["Phlage, Titan of Fire's Fury"])
    assert closest("phlage") == ("Phlage, Titan of Fire's Fury", ["Phlage, Titan of Fire's Fury"])


def test_a_short_name_comes_before_a_spelling_mistake() -> None:
    # "Phlage" is also one letter from "Phlager"
    index = CardNameIndex([*NAMES, "Phlager"])
    assert index.closest("Phlage") == ("Phlage, Titan of Fire's Fury", ["Phlage, Titan of Fire's Fury"])


def test_a_short_name_of_two_cards_falls_back_to_spelling() -> None:
    assert closest("Ajani") == (None, [])  # two cards: neither is taken, and no name is within 2 edits


def test_one_mistake_is_corrected_case_insensitively() -> None:
    assert closest("Lightnig Helix") == ("Lightning Helix", ["Lightning Helix"])
    assert closest("LIGHTNING BOLTT") == ("Lightning Bolt", ["Lightning Bolt"])


def test_the_front_face_is_matched() -> None:
    assert closest("Waer") == ("Wear // Tear", ["Wear // Tear"])


def test_the_closest_of_several_wins_and_suggestions_are_closest_first() -> None:
    # "Fountaim" is one edit from Fountain and two from Mountain
    assert closest("Fountaim") == ("Fountain", ["Fountain", "Mountain"])


def test_a_tie_gives_no_correction_but_both_suggestions() -> None:
    # "Bountain" is one letter from both Mountain and Fountain
    assert closest("Bountain") == (None, ["Fountain", "Mountain"])


def test_more_than_two_mistakes_only_suggest_similar_names() -> None:
    best, suggestions = closest("Lihgtnign Bolt")  # 4 edits, still 85 % similar
    assert best is None and suggestions[0] == "Lightning Bolt" and len(suggestions) <= 3


def test_a_name_with_extra_symbols_suggests_the_card() -> None:
    best, suggestions = closest("Lim-Dûl's Vault 🧙\u200d♂️")
    assert best is None and suggestions == ["Lim-Dûl's Vault"]


def test_nothing_alike_suggests_nothing() -> None:
    assert closest("Xyzzy Plugh") == (None, [])


def test_the_index_is_built_once_per_name_list() -> None:
    names = list(NAMES)
    assert name_index(names) is name_index(names)
    assert name_index(list(NAMES)) is not name_index(names)  # a new list (cards were added): a new index
    assert closest_names("Lightnig Helix", names) == ("Lightning Helix", ["Lightning Helix"])


@pytest.fixture()
def cards(dynamodb: Any) -> CardsRepository:
    repository = CardsRepository(dynamodb.Table("meta-mage-cards"))
    repository.put_cards(
        [
            Card(name="Lightning Bolt", mana_cost="{R}", cmc=1, type_line="Instant"),
            Card(name="Lightning Helix", mana_cost="{R}{W}", cmc=2, type_line="Instant"),
            Card(name="Phlage, Titan of Fire's Fury", mana_cost="{1}{R}{W}", cmc=3, type_line="Legendary Creature"),
            Card(name="Mountain", type_line="Basic Land — Mountain"),
            Card(name="Fountain", type_line="Land"),
        ]
    )
    return repository


def test_enrich_corrects_resolves_and_suggests(cards: CardsRepository) -> None:
    deck = enrich_deck("4 lightning bolt\n4 Lightnig Helix\n2 Phlage\n10 Mountain\n1 Bountain\n1 Xyzzy Plugh", cards)
    assert deck.corrected == {"Lightnig Helix": "Lightning Helix", "Phlage": "Phlage, Titan of Fire's Fury"}
    assert [(c.name, c.quantity) for c in deck.card_details] == [
        ("Lightning Bolt", 4),
        ("Lightning Helix", 4),
        ("Phlage, Titan of Fire's Fury", 2),
        ("Mountain", 10),
        ("Bountain", 1),  # unknown cards stay at their count (the deck still adds up), marked unknown
        ("Xyzzy Plugh", 1),
    ]
    assert [c.name for c in deck.card_details if c.unknown] == ["Bountain", "Xyzzy Plugh"]
    assert [(u.name, u.suggestions) for u in deck.unresolved] == [
        ("Bountain", ["Fountain", "Mountain"]),
        ("Xyzzy Plugh", []),
    ]
