"""Rule suggestions on the real Modern demo decklists (parsed in memory, no DynamoDB): cluster size, overlaps with
the decks the rules name, the rule file's shape, and files never overwritten."""

from __future__ import annotations

import json
import shutil
import tarfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from meta_mage.archetypes.classifier import ArchetypeClassifier, get_classifier, read_lenient_json
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.rule_suggestions import (
    RuleSuggestion,
    cluster_decks,
    file_stem,
    jaccard,
    suggest_rules,
    unnamed_names,
    write_suggestions,
)
from meta_mage.ingest.tournaments import parse_tournament
from meta_mage.models.cards import card_key
from meta_mage.storage.meta import StoredDeck as Deck

BUNDLED = DEMO_DATA_DIR / "archetypes"
ENERGY_CARDS = set(read_lenient_json(BUNDLED / "Formats/Modern/Archetypes/Energy.json")["Conditions"][0]["Cards"])


@pytest.fixture(scope="module")
def modern() -> list[Deck]:
    """Every Modern decklist of the demo tournaments, named by the bundled rules."""
    classifier = get_classifier(BUNDLED)
    decks = []
    with tarfile.open(DEMO_DATA_DIR / "tournaments.tar.gz") as archive:
        for member in archive.getmembers():
            document = json.loads(archive.extractfile(member).read())  # type: ignore[union-attr]
            if document["Tournament"].get("Formats") != "Modern":
                continue
            event = parse_tournament(document, member.name, classifier.classify)
            decks += [
                Deck(
                    event.event_key,
                    event.name,
                    event.date,
                    d.player,
                    d.placing,
                    d.archetype,
                    d.colors,
                    d.mainboard,
                    d.sideboard,
                )
                for d in event.decks
                if d.archetype
            ]
    return decks


def _rules(folder: Path, extra: dict[str, dict[str, object]] | None = None) -> Path:
    """The bundled rules without Energy.json, plus ``extra`` Modern rule files."""
    shutil.copytree(BUNDLED, folder)
    (folder / "Formats/Modern/Archetypes/Energy.json").unlink()
    for name, body in (extra or {}).items():
        (folder / "Formats/Modern/Archetypes" / name).write_text(json.dumps(body))
    return folder


def _energy(suggestions: list[RuleSuggestion]) -> RuleSuggestion:
    (found,) = [s for s in suggestions if len(ENERGY_CARDS & set(s.condition_cards)) >= 3]
    return found


def test_the_rule_file_has_the_bundled_shape_and_loads(modern: list[Deck], tmp_path: Path) -> None:
    # Given the demo Modern decks and the rules without Energy.json
    rules = _rules(tmp_path / "rules")
    # When rules are suggested
    energy = _energy(suggest_rules(modern, "Modern", rules))
    # Then the rule has the keys of the bundled Archetypes files, cards spelled as in the decklists
    assert list(energy.rule) == ["Name", "IncludeColorInName", "Strategy", "Conditions"]
    assert energy.rule["Name"] == energy.name and energy.rule["IncludeColorInName"] is True
    assert energy.rule["Strategy"] == "aggro"  # what the "Aggro" fallback said of these decks
    assert all(set(c) == {"Type", "Cards"} and c["Cards"] for c in energy.rule["Conditions"])
    spelled = {card for deck in modern for card in deck.mainboard}
    assert set(energy.condition_cards) <= spelled
    # And the name is a card's, its file stem the bundled style's
    assert energy.name in {card.split(",")[0] for card in energy.condition_cards}
    assert energy.file_stem == file_stem(energy.name) and energy.file_stem.isalnum()
    # And the classifier reads the file and names the former Energy decks with it
    (path,) = write_suggestions([energy], tmp_path / "out")
    shutil.copy(path, rules / "Formats/Modern/Archetypes" / f"{energy.file_stem}.json")
    classifier = ArchetypeClassifier(rules)
    renamed = [
        classifier.classify("Modern", d.mainboard, d.sideboard).base_name for d in modern if "Energy" in d.archetype
    ]
    assert renamed.count(energy.name) >= 0.95 * len(renamed)


def test_no_suggestion_for_a_cluster_under_the_minimum(modern: list[Deck], tmp_path: Path) -> None:
    # Given four of the Boros Energy decks the missing rule leaves unnamed, among every deck the rules name
    rules = _rules(tmp_path / "rules")
    four = [d for d in modern if d.archetype == "Boros Energy"][:4]
    unnamed = unnamed_names(get_classifier(BUNDLED).rules_for("Modern"), {d.archetype for d in modern})
    decks = [d for d in modern if "Energy" not in d.archetype and d.archetype not in unnamed] + four
    # When rules are suggested with at least five decks a cluster, Then there is none
    assert suggest_rules(decks, "Modern", rules, min_cluster=5, min_events=1) == []
    # And with four, those four make one (min_events=1: they may come from one event)
    (suggestion,) = suggest_rules(decks, "Modern", rules, min_cluster=4, min_events=1)
    assert suggestion.decks == suggestion.matched == 4
    assert {(e.player, e.event) for e in suggestion.examples} == {(d.player, d.event_name) for d in four}
    # And the whole window's cluster is not suggested under a minimum above its size
    energy = _energy(suggest_rules(modern, "Modern", rules, min_cluster=5))
    assert all(s.decks > energy.decks for s in suggest_rules(modern, "Modern", rules, min_cluster=energy.decks + 1))


def test_a_cluster_from_one_event_is_not_yet_an_archetype(modern: list[Deck], tmp_path: Path) -> None:
    # Given the Boros Energy decks of the one event that had the most of them, among every deck the rules name
    rules = _rules(tmp_path / "rules")
    energy = [d for d in modern if d.archetype == "Boros Energy"]
    busiest = Counter(d.event_key for d in energy).most_common(1)[0][0]
    one_event = [d for d in energy if d.event_key == busiest]
    unnamed = unnamed_names(get_classifier(BUNDLED).rules_for("Modern"), {d.archetype for d in modern})
    decks = [d for d in modern if "Energy" not in d.archetype and d.archetype not in unnamed] + one_event
    assert len(one_event) >= 3
    # When rules are suggested, Then one event's decks make no suggestion by default (two events at least)
    assert suggest_rules(decks, "Modern", rules, min_cluster=3) == []
    # And they do when one event is allowed
    (suggestion,) = suggest_rules(decks, "Modern", rules, min_cluster=3, min_events=1)
    assert suggestion.events == 1 and suggestion.decks == len(one_event)


def test_cards_of_decks_the_rules_name_are_excluded(modern: list[Deck], tmp_path: Path) -> None:
    # Given a rule naming the Energy decks that play Haliya (a few), the others left unnamed
    haliya = {
        "Name": "Haliya Energy",
        "IncludeColorInName": False,
        "Conditions": [
            {"Type": "InMainboard", "Cards": ["Haliya, Guided by Light"]},
            {"Type": "TwoOrMoreInMainboard", "Cards": sorted(ENERGY_CARDS)},
        ],
    }
    rules = _rules(tmp_path / "rules", {"HaliyaEnergy.json": haliya})
    named = ArchetypeClassifier(rules)
    with_haliya = [d for d in modern if named.classify("Modern", d.mainboard, d.sideboard).base_name == "Haliya Energy"]
    assert 3 <= len(with_haliya) <= 20
    # When rules are suggested
    energy = _energy(suggest_rules(modern, "Modern", rules))
    # Then the suggestion keeps off them with a DoesNotContainMainboard condition, and reports no overlap
    assert energy.rule["Conditions"][-1]["Type"] == "DoesNotContainMainboard"
    assert energy.overlaps == {} and energy.takes_over == {}
    (path,) = write_suggestions([energy], tmp_path / "out")
    shutil.copy(path, rules / "Formats/Modern/Archetypes/Suggested.json")
    after = ArchetypeClassifier(rules)
    assert {after.classify("Modern", d.mainboard, d.sideboard).base_name for d in with_haliya} == {"Haliya Energy"}


def test_overlaps_that_mainboard_cards_cannot_avoid_are_reported(modern: list[Deck], tmp_path: Path) -> None:
    # Given a rule naming the Energy decks by a sideboard card, which no mainboard condition can tell apart
    chant = {
        "Name": "Chant Energy",
        "IncludeColorInName": False,
        "Conditions": [
            {"Type": "InSideboard", "Cards": ["Orim's Chant"]},
            {"Type": "TwoOrMoreInMainboard", "Cards": sorted(ENERGY_CARDS)},
        ],
    }
    rules = _rules(tmp_path / "rules", {"ChantEnergy.json": chant})
    named = ArchetypeClassifier(rules)
    with_chant = [d for d in modern if named.classify("Modern", d.mainboard, d.sideboard).base_name == "Chant Energy"]
    assert len(with_chant) >= 10
    # When rules are suggested
    energy = _energy(suggest_rules(modern, "Modern", rules))
    # Then the decks of Chant Energy its conditions still match are reported, and those it would rename
    (path,) = write_suggestions([energy], tmp_path / "out")
    shutil.copy(path, rules / "Formats/Modern/Archetypes/Suggested.json")
    (rule,) = [r for r in ArchetypeClassifier(rules).rules_for("Modern").archetypes if r.name == energy.name]
    still = [
        d
        for d in with_chant
        if rule.matches(*({card_key(k): v for k, v in p.items()} for p in (d.mainboard, d.sideboard)))
    ]
    assert still and energy.overlaps == {"Chant Energy": len(still)}
    assert energy.takes_over == {"Chant Energy": len(still)}  # more conditions: the more specific rule wins
    readme = (tmp_path / "out/Formats/Modern/README.md").read_text()
    assert f"Chant Energy {len(still)}; it would rename Chant Energy {len(still)}" in readme


def test_an_existing_file_is_never_overwritten(modern: list[Deck], tmp_path: Path) -> None:
    # Given a suggestion, and an output folder that already holds the rules (Energy.json included)
    rules = _rules(tmp_path / "rules")
    energy = _energy(suggest_rules(modern, "Modern", rules))
    out = tmp_path / "out"
    shutil.copytree(BUNDLED, out)
    named_like_a_rule = replace(energy, file_stem="Energy")
    existing = out / "Formats/Modern/Archetypes/Energy.json"
    rule_file = existing.read_bytes()
    # When it is written under an existing rule's stem, Then the rule file is untouched
    (first,) = write_suggestions([named_like_a_rule], out)
    assert first == existing.with_name("Energy.suggested.json") and existing.read_bytes() == rule_file
    # And a second run with the same suggestion leaves its file as it is
    assert write_suggestions([named_like_a_rule], out) == [first]
    # And a suggestion file a person edited is kept: the new one goes beside it
    first.write_text(first.read_text().replace(energy.name, "Boros Energy"))
    edited = first.read_text()
    (second,) = write_suggestions([named_like_a_rule], out)
    assert second == existing.with_name("Energy-2.suggested.json") and first.read_text() == edited
    assert json.loads(second.read_text()) == energy.rule
    # And two suggestions with one stem in one run get two files
    assert len(set(write_suggestions([named_like_a_rule, replace(named_like_a_rule, rule={})], out))) == 2
    # And the rules directory in use is refused as the output
    with pytest.raises(ValueError, match="rules directory in use"):
        write_suggestions([energy], rules, rules_dir=rules)


def test_unnamed_names_are_unknown_and_fallbacks_not_colour_named_archetypes() -> None:
    modern = get_classifier(BUNDLED).rules_for("Modern")
    stored = {"Unknown", "Aggro", "Control", "Combo", "Azorius Control", "Boros Energy", "Affinity", "Boros Aggro"}
    # the Control fallback reads "Control"; the Control archetype always has a colour ("Azorius Control")
    assert unnamed_names(modern, stored) == {"Unknown", "Aggro", "Control", "Combo"}


def test_clustering_joins_similar_decks_and_is_deterministic(modern: list[Deck]) -> None:
    # Given the distinct mainboard cards of the Affinity and Ritual Storm decks of one week
    week = [d for d in modern if d.archetype in ("Affinity", "Ritual Storm") and d.date <= "2025-10-27"]
    cards = [frozenset(d.mainboard) for d in week]
    # When they are clustered, Then the two archetypes fall apart and each cluster holds one
    clusters = cluster_decks(cards, 0.3)
    assert clusters == cluster_decks(cards, 0.3)
    assert all(len({week[i].archetype for i in c}) == 1 for c in clusters)
    first, second = clusters[:2]  # (a third, small one: the Emry / Jeskai Ascendancy build of Affinity)
    assert {week[first[0]].archetype, week[second[0]].archetype} == {"Affinity", "Ritual Storm"}
    assert len(first) + len(second) >= 0.85 * len(week)
    assert jaccard(frozenset(), frozenset()) == 0.0 and jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3
