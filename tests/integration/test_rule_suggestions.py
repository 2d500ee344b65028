"""Rule suggestions on the real Modern demo tournaments in moto: with the Energy rule file removed, Boros Energy
decks fall back to "Aggro"; the unnamed share rises, the suggestion finds them, and adopting it names them again."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from meta_mage.archetypes.classifier import ArchetypeClassifier, get_classifier
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.rule_suggestions import (
    FallbackShare,
    RuleSuggestion,
    cmd_rules_suggest,
    fallback_shares,
    suggest_rules,
    unnamed_names,
    write_suggestions,
)
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.models.aggregates import merge
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository, StoredDeck, stored_deck
from meta_mage.storage.tables import create_tables
from tests.conftest import archive_of, demo_members, prefixed_settings

REMOVED = "Energy.json"  # Boros Energy, the second most played Modern deck of the demo data
WINDOW = ("2025-10-19", "2025-11-17")  # the 30 days ending at the demo data's last Modern date
ENERGY_CARDS = set(
    json.loads((DEMO_DATA_DIR / "archetypes/Formats/Modern/Archetypes" / REMOVED).read_text())["Conditions"][0]["Cards"]
)


# --- the reference deck listing: one Scan ----------------------------------------------------------------


def _stored(header: dict[str, Any], item: dict[str, Any]) -> StoredDeck:
    return stored_deck(header, item)


class ScannedDecks:
    """The reference deck source: one Scan of the whole table, then filtered."""

    def __init__(self, table: Any) -> None:
        self.items: list[dict[str, Any]] = []
        page: dict[str, Any] = {}
        while True:
            response = table.scan(**page)
            self.items += response["Items"]
            if "LastEvaluatedKey" not in response:
                break
            page["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def format_decks(self, fmt: str, start: str, end: str) -> list[StoredDeck]:
        headers = {
            i["pk"]: i for i in self.items if i["sk"] == "#HEADER" and i["format"] == fmt and start <= i["date"] <= end
        }
        return [
            _stored(headers[i["pk"]], i)
            for i in self.items
            if i["pk"] in headers and i["sk"].startswith("DECK#") and i["archetype"]
        ]


# --- fixtures -----------------------------------------------------------------------------------------------


def _rules_without(folder: Path, *removed: str) -> Path:
    shutil.copytree(DEMO_DATA_DIR / "archetypes", folder)
    for name in removed:
        (folder / "Formats/Modern/Archetypes" / name).unlink()
    return folder


def _ingest(db: Any, table: str, archive: Path, rules: Path) -> MetaRepository:
    meta = MetaRepository(db.Table(table))
    report = ingest_tournaments([archive], meta, ArchetypeClassifier(rules))  # not get_classifier: no cache
    assert report.ok, report.summary()
    return meta


@pytest.fixture(scope="module")
def energy_gone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Moto tables holding the real Modern demo tournaments classified by the bundled rules minus Energy.json."""
    folder = tmp_path_factory.mktemp("suggest")
    settings = prefixed_settings("suggest")
    archive = archive_of(demo_members(formats=("Modern",)), folder / "modern.tar.gz")
    rules = _rules_without(folder / "rules", REMOVED)
    with mock_aws():
        db = dynamodb_resource(settings)
        create_tables(db, settings)
        try:
            meta = _ingest(db, settings.meta_table, archive, rules)
            yield {
                "db": db,
                "settings": settings,
                "archive": archive,
                "rules": rules,
                "meta": meta,
                "scanned": ScannedDecks(meta.table),
                "decks": meta.format_decks("Modern", *WINDOW),  # the last 30 days, as the command reads them
            }
        finally:  # moto's backend is shared with the session's world: leave no table behind
            for name in settings.table_names().values():
                db.Table(name).delete()


def _modern(shares: list[FallbackShare]) -> FallbackShare:
    (share,) = [s for s in shares if s.format == "Modern"]
    return share


def _energy_suggestion(suggestions: list[RuleSuggestion]) -> RuleSuggestion:
    found = [s for s in suggestions if len(ENERGY_CARDS & set(s.condition_cards)) >= 3]
    assert len(found) == 1, [(s.display_name, s.condition_cards) for s in suggestions]
    return found[0]


def _decks_per_archetype(meta: MetaRepository, start: str, end: str) -> dict[str, int]:
    total: dict[str, Any] = {}
    for day in meta.format_days("Modern", start, end):
        merge(total, day.data)
    return {name: a["decks"] for name, a in total["archetypes"].items()}


# --- tests --------------------------------------------------------------------------------------------------


def test_the_unnamed_share_rises_when_a_rule_file_is_removed(
    modern_world: dict[str, Any], energy_gone: dict[str, Any]
) -> None:
    # Given the same tournaments classified with all bundled rules, and without Energy.json
    bundled = MetaRepository(modern_world["db"].Table(modern_world["settings"].meta_table))
    before = _modern(fallback_shares(bundled, get_classifier(modern_world["settings"].archetype_rules_dir)))
    # When the shares of the last 14 days are read
    after = _modern(fallback_shares(energy_gone["meta"], ArchetypeClassifier(energy_gone["rules"])))
    # Then the window ends at the data's last date, not today, and counts the same decks
    assert (before.start, before.end) == (after.start, after.end) == ("2025-11-04", "2025-11-17")
    assert after.total_decks == before.total_decks > 0
    # And the Energy decks, now "Aggro", make the share rise well beyond its 95 % interval
    energy = sum(n for name, n in _decks_per_archetype(bundled, before.start, before.end).items() if "Energy" in name)
    assert energy > 40
    assert after.unnamed_decks == before.unnamed_decks + energy
    assert after.by_name["Aggro"] >= energy
    assert before.ci_high is not None and after.ci_low is not None and after.ci_low > before.ci_high
    assert after.share == pytest.approx(100 * after.unnamed_decks / after.total_decks, abs=0.01)


def test_the_suggestion_finds_the_removed_archetypes_decks_and_cards(
    modern_world: dict[str, Any], energy_gone: dict[str, Any]
) -> None:
    # Given the last 30 days of decks stored without the Energy rule (read with a table Scan)
    decks = energy_gone["scanned"].format_decks("Modern", *WINDOW)
    bundled = get_classifier(modern_world["settings"].archetype_rules_dir)
    was_energy = {
        (d.event_key, d.player)
        for d in decks
        if "Energy" in bundled.classify("Modern", d.mainboard, d.sideboard).archetype
    }
    # When rules are suggested
    suggestions = suggest_rules(decks, "Modern", energy_gone["rules"], min_cluster=5)
    # Then one cluster holds the former Energy decks, its conditions name Energy's signature cards
    energy = _energy_suggestion(suggestions)
    assert energy.decks >= 0.95 * len(was_energy) and energy.coverage >= 0.95
    assert energy.previous_names.get("Aggro", 0) >= 0.95 * energy.decks
    assert energy.display_name.startswith("Boros ") and energy.colors["WR"] >= 0.9 * energy.decks
    assert energy.rule["Conditions"][0]["Type"] == "InMainboard"
    # And it matches no deck the current rules name
    assert energy.overlaps == {} and energy.takes_over == {}
    # And its evidence: card frequencies inside vs outside, real players and events
    shares = {c.card: c for c in energy.cards}
    assert all(shares[card].in_cluster >= 0.8 and shares[card].outside <= 0.1 for card in energy.condition_cards)
    assert len(energy.examples) == 5 and all(e.event.startswith("Modern") for e in energy.examples)
    assert energy.events >= 20 and len({(e.event, e.date) for e in energy.examples}) >= 3  # from several events
    assert any((e.player in {p for _, p in was_energy}) for e in energy.examples)


def test_the_repository_listing_proposed_returns_what_a_scan_finds(energy_gone: dict[str, Any]) -> None:
    # Given the proposed MetaRepository.format_decks (Queries) and a Scan of the table
    meta: MetaRepository = energy_gone["meta"]
    scanned: ScannedDecks = energy_gone["scanned"]
    # When both list a window's decks, Then they agree, and the window's bounds are inclusive
    assert len(energy_gone["decks"]) == 1732  # the demo's 1733 Modern lists, less one without a mainboard
    assert sorted(energy_gone["decks"], key=repr) == sorted(scanned.format_decks("Modern", *WINDOW), key=repr)
    last_day = meta.format_decks("Modern", WINDOW[1], WINDOW[1])
    assert last_day and sorted(last_day, key=repr) == sorted(scanned.format_decks("Modern", *WINDOW[1:] * 2), key=repr)
    assert {d.date for d in last_day} == {WINDOW[1]}
    assert meta.format_decks("Legacy", *WINDOW) == []


def test_adopting_the_suggestion_names_the_decks_again(energy_gone: dict[str, Any], tmp_path: Path) -> None:
    # Given the suggestion for the decks stored without Energy.json, written for review
    rules_before = ArchetypeClassifier(energy_gone["rules"])
    before = _modern(fallback_shares(energy_gone["meta"], rules_before, days=30))
    suggestion = _energy_suggestion(suggest_rules(energy_gone["decks"], "Modern", energy_gone["rules"]))
    (path,) = write_suggestions([suggestion], tmp_path / "out", before, energy_gone["rules"])
    assert path == tmp_path / "out/Formats/Modern/Archetypes" / f"{suggestion.file_stem}.suggested.json"
    readme = (tmp_path / "out/Formats/Modern/README.md").read_text()
    assert suggestion.display_name in readme and path.name in readme and before.line() in readme
    # When a person adopts it as a rule file and the tournaments are ingested again with it
    rules = tmp_path / "rules"
    shutil.copytree(energy_gone["rules"], rules)
    shutil.copy(path, rules / "Formats/Modern/Archetypes" / f"{suggestion.file_stem}.json")
    db, settings = energy_gone["db"], energy_gone["settings"].model_copy(update={"meta_table": "suggest-adopted"})
    create_tables(db, settings)
    try:
        meta = _ingest(db, settings.meta_table, energy_gone["archive"], rules)
        # Then the decks carry the suggested name and the unnamed share drops back
        after = _modern(fallback_shares(meta, ArchetypeClassifier(rules), days=30))
        assert (after.start, after.end, after.total_decks) == (before.start, before.end, before.total_decks)
        assert after.unnamed_decks <= before.unnamed_decks - suggestion.matched
        assert after.ci_high is not None and before.ci_low is not None and after.ci_high < before.ci_low
        named = _decks_per_archetype(meta, after.start, after.end)
        assert sum(n for name, n in named.items() if name.endswith(f" {suggestion.name}")) >= suggestion.matched
        # And nothing else was renamed: the archetypes the rules named keep their counts
        old = _decks_per_archetype(energy_gone["meta"], after.start, after.end)
        kept = set(old) - unnamed_names(rules_before.rules_for("Modern"), old)
        assert {name: named.get(name) for name in kept} == {name: old[name] for name in kept}
    finally:
        db.Table(settings.meta_table).delete()


def test_the_command_prints_the_share_and_each_suggestion(
    energy_gone: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the command's settings pointing at the tables, and the repository able to list decks
    monkeypatch.setattr("meta_mage.config.get_settings", lambda: energy_gone["settings"])
    monkeypatch.setattr(MetaRepository, "format_decks", MetaRepository.format_decks, raising=False)
    args = argparse.Namespace(
        format="modern", days=30, min_decks=5, out=tmp_path / "out", rules_dir=str(energy_gone["rules"])
    )
    # When `meta-mage rules suggest modern --out DIR` runs
    assert cmd_rules_suggest(args) == 0
    out = capsys.readouterr().out.splitlines()
    # Then it prints the share line, one line per suggestion with its deck count and file, and the evidence file
    assert out[0].startswith("Modern: ") and "decks unnamed" in out[0] and "from 2025-10-19 to 2025-11-17" in out[0]
    lines = [line for line in out[1:] if ".suggested.json" in line]
    assert lines and all(re.search(r": \d+ decks \(\d+ events?\), the rule names \d+", line) for line in lines)
    assert any(line.strip().startswith("Boros ") for line in lines)
    assert out[-1] == f"evidence: {tmp_path / 'out/Formats/Modern/README.md'}"
    written = sorted((tmp_path / "out/Formats/Modern/Archetypes").iterdir())
    assert len(written) == len(lines) and all(str(path) in "\n".join(lines) for path in written)
    # And a format without data is refused
    assert cmd_rules_suggest(argparse.Namespace(format="Vintage", rules_dir=None)) == 2
    assert "no tournament data for Vintage; formats with data: Modern" in capsys.readouterr().err
    assert cmd_rules_suggest(argparse.Namespace(format="Modern", days=0)) == 2
