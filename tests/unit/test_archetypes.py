"""The classifier on a hand-made rules directory in the MTGOFormatData layout."""

import json
from pathlib import Path

import pytest

from meta_mage.archetypes.classifier import ArchetypeClassifier


@pytest.fixture()
def rules(tmp_path: Path) -> ArchetypeClassifier:
    fmt = tmp_path / "Formats" / "Modern"
    (fmt / "Archetypes").mkdir(parents=True)
    (fmt / "Fallbacks").mkdir()
    (fmt / "Archetypes" / "Tron.json").write_text(
        json.dumps(
            {
                "Name": "Tron",
                "IncludeColorInName": False,
                "Strategy": "ramp",
                "Conditions": [
                    {"Type": "TwoOrMoreInMainboard", "Cards": ["Urza's Tower", "Urza's Mine", "Urza's Power Plant"]}
                ],
                "Variants": [
                    {
                        "Name": "Eldrazi Tron",
                        "IncludeColorInName": False,
                        "Conditions": [{"Type": "InMainboard", "Cards": ["Thought-Knot Seer"]}],
                    }
                ],
            }
        )
    )
    # Trailing comma on purpose: some upstream files have them.
    (fmt / "Archetypes" / "Prowess.json").write_text(
        '{"Name": "Prowess", "IncludeColorInName": true, "Conditions": ['
        '{"Type": "InMainboard", "Cards": ["Monastery Swiftspear"]},'
        '{"Type": "DoesNotContain", "Cards": ["Goblin Guide"]},]}'
    )
    (fmt / "Fallbacks" / "Aggro.json").write_text(
        json.dumps({"Name": "Aggro", "IncludeColorInName": True, "CommonCards": ["Goblin Guide", "Lightning Bolt"]})
    )
    (tmp_path / "Formats" / "card_colors.json").write_text(
        json.dumps(
            {
                "Lands": [{"Name": "Steam Vents", "Color": "UR"}, {"Name": "Mountain", "Color": "R"}],
                "NonLands": [
                    {"Name": "Monastery Swiftspear", "Color": "R"},
                    {"Name": "Expressive Iteration", "Color": "UR"},
                    {"Name": "Goblin Guide", "Color": "R"},
                    {"Name": "Lightning Bolt", "Color": "R"},
                ],
            }
        )
    )
    return ArchetypeClassifier(tmp_path)


def test_conditions_variants_and_colour_prefix(rules: ArchetypeClassifier) -> None:
    tron = rules.classify("Modern", {"Urza's Tower": 4, "Urza's Mine": 4}, {})
    assert (tron.archetype, tron.strategy, tron.kind) == ("Tron", "ramp", "archetype")
    assert (
        rules.classify("modern", {"Urza's Tower": 4, "Urza's Mine": 4, "Thought-Knot Seer": 4}, {}).archetype
        == "Eldrazi Tron"
    )
    izzet = rules.classify("Modern", {"Monastery Swiftspear": 4, "Expressive Iteration": 4, "Steam Vents": 4}, {})
    assert (izzet.archetype, izzet.colors) == ("Izzet Prowess", "UR")


def test_does_not_contain_then_fallback_then_unknown(rules: ArchetypeClassifier) -> None:
    deck = {"Monastery Swiftspear": 4, "Goblin Guide": 4, "Mountain": 18, "Lightning Bolt": 4}
    verdict = rules.classify("Modern", deck, {})
    assert (verdict.archetype, verdict.kind) == ("Mono Red Aggro", "fallback")
    assert rules.classify("Modern", {"Island": 20, "Opt": 4}, {}).archetype == "Unknown"
    assert rules.classify("Pauper", {"Island": 20}, {}).archetype == "Unknown"  # no rules for the format


def test_names_are_normalised_to_front_faces(rules: ArchetypeClassifier) -> None:
    deck = {"URZA'S TOWER": 4, "Urza's Mine // Something": 4}
    assert rules.classify("Modern", deck, {}).archetype == "Tron"


def test_an_archetypes_defining_cards_are_those_its_rule_asks_for() -> None:
    # Given our Modern rules, Then the cards a guide never cuts without evidence include what a deck is named after
    from meta_mage.config import Settings

    classifier = ArchetypeClassifier(Settings().archetype_rules_dir)
    assert "goryo's vengeance" in classifier.defining_cards("Modern", "Goryo's Reanimator")
    assert {"amulet of vigor", "primeval titan"} <= classifier.defining_cards("Modern", "Amulet Titan")
    assert classifier.defining_cards("Modern", "No Such Deck") == frozenset()
