"""`meta-mage repair --check` reads and reports every violation, changing nothing; `meta-mage repair` fixes
them and says per event what it did (it printed "rebuilt … 0 → 0 tournaments" for uncommitted events)."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.cli import main
from meta_mage.config import Settings
from meta_mage.ingest import tournaments
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.storage.meta import MetaRepository
from tests.conftest import demo_members

GENOVA = "lega-pauper-genova-autumn-season-lunedi-3-novembre-ore-2030-376817-2025-11-03.json"


def test_repair_check_reports_then_repair_fixes_a_kill_before_the_registry(
    dynamodb: Any, settings: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given two Pioneer events stored, then an ingest of two more killed after its commits, before the registry
    members = [SourceFile(name, data) for name, data in demo_members(formats=("Pioneer",))[:4]]
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)
    assert ingest_tournament_sources(members[:2], repository, classifier).ok

    def killed(*_: Any) -> None:
        raise SystemExit("killed before the registry")

    monkeypatch.setattr(MetaRepository, "refresh_format", killed)
    with pytest.raises(SystemExit):
        ingest_tournament_sources(members[2:], repository, classifier)
    monkeypatch.undo()
    assert repository.get_format("Pioneer").tournaments == 2  # type: ignore[union-attr]  # 4 are stored
    capsys.readouterr()

    # When `repair --check` runs, Then it names the violation, exits 1 and changes nothing
    assert main(["repair", "--check"]) == 1
    out = capsys.readouterr().out
    assert "1 violation(s)" in out and "[5] Pioneer: the registry differs from its days: decks 64 (days say" in out
    assert "tournaments 2 (days say 4)" in out
    assert "run 'meta-mage repair'" in out
    assert repository.get_format("Pioneer").tournaments == 2  # type: ignore[union-attr]

    # When `repair` runs, Then it fixes it and says so, and a check afterwards is clean
    assert main(["repair"]) == 0
    out = capsys.readouterr().out
    assert "repair: 1 violation(s) found, 1 fixed; check afterwards: 0 left" in out
    assert "fixed [5] Pioneer: the registry differs" in out and "rewritten from its days" in out
    assert repository.get_format("Pioneer").tournaments == 4  # type: ignore[union-attr]
    assert main(["repair", "--check"]) == 0
    assert "0 violation(s)" in capsys.readouterr().out


def test_repair_names_the_file_to_ingest_again_for_a_write_it_cannot_finish(
    dynamodb: Any, settings: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an ingest killed while writing its decks (its intent stored, no aggregate)
    [member] = [SourceFile(name, data) for name, data in demo_members(formats=("Pioneer",))[:1]]
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    real_put = repository.table.put_item

    def put(**kwargs: Any) -> Any:
        if kwargs["Item"]["pk"].endswith("#EVENTS"):
            raise SystemExit("killed before the aggregate")
        return real_put(**kwargs)

    monkeypatch.setattr(repository.table, "put_item", put)
    with pytest.raises(SystemExit):
        ingest_tournament_sources([member], repository, get_classifier(settings.archetype_rules_dir))
    monkeypatch.undo()
    capsys.readouterr()
    # When repair runs, Then it removes what was written and names the file to ingest again
    assert main(["repair"]) == 0
    out = capsys.readouterr().out
    assert "an ingest of " + member.name + " was interrupted (stopped before its aggregate)" in out
    assert f"removed what was written of it (32 deck(s)); ingest {member.name} again" in out
    assert repository.write_intents("Pioneer") == [] and repository.stored_aggregates("Pioneer") == []
    assert not [item for item in repository.table.scan()["Items"] if item["pk"].startswith("EVENT#")]  # no deck left
    assert main(["repair", "--check"]) == 0


def test_an_event_stored_with_its_draws_listed_twice_is_rewritten_by_a_reingest_and_repair_check_agrees(
    dynamodb: Any, settings: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a real melee.gg event stored as the ingest stored it before a match listed twice was one match: its
    # four draws, each listed once for each player, counted as eight, under the aggregate version of then
    [member] = [SourceFile(n, d) for n, d in demo_members(formats=("Pauper",)) if n.endswith(GENOVA)]
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)

    def every_row(raw_round: Any, number: int, source: str, warnings: list[str]) -> list[Any]:
        name = raw_round.get("RoundName") or f"Round {number}"
        return [tournaments._match(raw, name, number) for raw in raw_round["Matches"]]

    monkeypatch.setattr(tournaments, "_round_matches", every_row)
    monkeypatch.setattr(tournaments, "AGGREGATE_VERSION", 3)
    assert ingest_tournament_sources([member], repository, classifier).ok
    monkeypatch.undo()
    day = repository.format_total("Pauper", "2025-11-03", "2025-11-03")
    assert (day.matches, day.draws) == (59, 8)

    # When the file is ingested again
    report = ingest_tournament_sources([member], repository, classifier)

    # Then the stored event is replaced: its day and its format count each match once
    assert report.ok and report.outcomes["replaced"] == 1, report.summary()
    day = repository.format_total("Pauper", "2025-11-03", "2025-11-03")
    assert (day.matches, day.draws) == (55, 4)
    assert repository.get_format("Pauper").matches == 55  # type: ignore[union-attr]
    # and `repair --check` finds the header, the aggregate, the decks, the day and the registry in agreement
    capsys.readouterr()
    assert main(["repair", "--check"]) == 0
    assert "0 violation(s)" in capsys.readouterr().out
    # and a third ingest changes nothing
    assert ingest_tournament_sources([member], repository, classifier).outcomes["unchanged"] == 1
