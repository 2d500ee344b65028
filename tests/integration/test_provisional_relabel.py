"""Events stored before a provisional archetype was named are re-labelled: read again from the ingest's paths
(or, when their files are not among them, named in a note until they are ingested again)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest import tournament_ingest
from meta_mage.ingest.invariants import check_storage
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.storage.meta import MetaRepository
from tests.conftest import demo_members, top_eight, write_members

# Three Pioneer events whose top 8s hold 7 Mono Red Hero Aggro lists (the second most played Pioneer deck)
EVENTS = ("2025-11-0112822646", "2025-11-0212822702", "2025-11-0212822707")
NAME = "Mono Red Burst Lightning (provisional)"


@pytest.fixture()
def world(tmp_path: Path, dynamodb: Any, settings: Any) -> dict[str, Any]:
    """The rules less HeroAggro.json, the three events' top 8s in two folders (two events, then one)."""
    shutil.copytree(DEMO_DATA_DIR / "archetypes", tmp_path / "rules")
    (tmp_path / "rules/Formats/Pioneer/Archetypes/HeroAggro.json").unlink()
    members = sorted((n, top_eight(d)) for n, d in demo_members(formats=("Pioneer",)) if any(e in n for e in EVENTS))
    (tmp_path / "first").mkdir()
    (tmp_path / "later").mkdir()
    write_members(members[:2], tmp_path / "first")
    write_members(members[2:], tmp_path / "later")
    return {
        "classifier": ArchetypeClassifier(tmp_path / "rules"),
        "meta": MetaRepository(dynamodb.Table(settings.meta_table)),
        "first": tmp_path / "first",
        "later": tmp_path / "later",
    }


def _names(meta: MetaRepository) -> Counter[str]:
    return Counter(d.archetype for d in meta.format_decks("Pioneer", "2025-10-01", "2025-11-30"))


def test_events_stored_earlier_are_named_in_a_note_then_relabelled_by_the_next_ingest(world: dict[str, Any]) -> None:
    meta, classifier = world["meta"], world["classifier"]
    # Given two events ingested: 4 Hero lists, too few to name
    first = ingest_tournaments([world["first"]], meta, classifier, provisional=True)
    assert first.ok and first.provisional == [] and _names(meta)[NAME] == 0
    # When the third event is ingested alone, Then the deck is named, its event re-labelled, and the two
    # events stored earlier (their files are not among this ingest's paths) are named in a note
    later = ingest_tournaments([world["later"]], meta, classifier, provisional=True)
    assert later.ok and later.provisional == [f"Pioneer: New deck: {NAME}, 7 lists from 3 events, 1 event win"]
    assert len(later.relabel_pending) == 2 and "ingest their files again" in later.notes[-1]
    assert _names(meta)[NAME] == 3
    # And ingesting them again re-labels them: all 7 lists carry the name, and the invariants hold
    again = ingest_tournaments([world["first"]], meta, classifier, provisional=True)
    assert again.ok and again.outcomes == {"replaced": 2}
    assert _names(meta)[NAME] == 7 and check_storage(meta, ["Pioneer"]).ok


def test_events_not_kept_in_memory_are_read_again_from_the_paths(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    meta, classifier = world["meta"], world["classifier"]
    # Given the three events stored without provisional names, and no file kept in memory
    assert ingest_tournaments([world["first"], world["later"]], meta, classifier).ok
    monkeypatch.setattr(tournament_ingest, "MAX_REMEMBERED_BYTES", 0)
    # When they are ingested with provisional names
    report = ingest_tournaments([world["first"], world["later"]], meta, classifier, provisional=True)
    # Then the three events are read again from the paths and re-labelled
    assert report.ok and report.outcomes == {"unchanged": 3, "re-labelled": 3}, report.summary()
    assert report.relabel_pending == [] and _names(meta)[NAME] == 7 and check_storage(meta, ["Pioneer"]).ok
