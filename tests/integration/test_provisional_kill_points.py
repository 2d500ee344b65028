"""An ingest that names a provisional archetype, killed at any of its writes (the provisional item, the events
re-labelled, the format's registry and models): repair leaves every storage invariant holding, and ingesting the
same files again ends in exactly the tables an uninterrupted run makes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.repair import repair_storage
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from tests.conftest import demo_members, top_eight
from tests.integration.test_kill_at_every_write import cloned, contents, fresh_meta
from tests.kill_points import run_killed, writes_of

# Three Pioneer events whose top 8s hold 7 Mono Red Hero Aggro lists (the second most played Pioneer deck)
EVENTS = ("2025-11-0112822646", "2025-11-0212822702", "2025-11-0212822707")


def _files() -> list[SourceFile]:
    members = sorted(demo_members(formats=("Pioneer",)))
    return [SourceFile(name, top_eight(data)) for name, data in members if any(e in name for e in EVENTS)]


def test_the_provisional_step_killed_at_every_write_is_repaired(dynamodb: Any, tmp_path: Path) -> None:
    # Given the rules less HeroAggro.json, and the three events' top 8s
    shutil.copytree(DEMO_DATA_DIR / "archetypes", tmp_path / "rules")
    (tmp_path / "rules/Formats/Pioneer/Archetypes/HeroAggro.json").unlink()
    classifier = ArchetypeClassifier(tmp_path / "rules")
    files = _files()
    client = dynamodb.meta.client

    def ingest(repository: Any) -> Any:
        return ingest_tournament_sources(files, repository, classifier, provisional=True)

    # Given the events stored by an ingest that named no provisional archetype
    given = fresh_meta(dynamodb, "prov-given")
    assert ingest_tournament_sources(files, given, classifier).ok
    reference = cloned(dynamodb, given, "prov-reference")
    reports: list[Any] = []
    writes = writes_of(client, lambda: reports.append(ingest(reference)))
    [report] = reports
    assert report.provisional == [
        "Pioneer: New deck: Mono Red Burst Lightning (provisional), 7 lists from 3 events, 1 event win"
    ]
    assert report.outcomes == {"unchanged": 3, "re-labelled": 3}
    expected = contents(reference)
    assert writes > 10  # the provisional item, then the three events written again

    for write in range(1, writes + 1):
        repository = cloned(dynamodb, given, f"prov-kill{write}")
        # When the ingest is killed at this write of its provisional step, Then repair leaves every invariant
        # holding (its own check afterwards is part of report.ok)
        assert run_killed(client, write, lambda r=repository: ingest(r))
        repaired = repair_storage(repository, ["Pioneer"])
        assert repaired.ok, (write, repaired.lines())
        # And ingesting the same files again ends exactly where an uninterrupted run ends (killed between the day
        # put that drops "Aggro" and the deletion of its archetype item, repair deletes the item: see the next test)
        again = ingest(repository)
        assert again.ok, (write, again.summary())
        assert contents(repository) == expected, f"killed at write {write}"


# the day put that drops "Aggro" from 2025-11-01 or 2025-11-02, before the transaction deleting its archetype item
ORPHAN_KILL_POINTS = (12, 17)


def _named_by_no_day(key: tuple[str, str], items: dict[tuple[str, str], dict[str, Any]]) -> bool:
    """Whether ``key`` is an archetype's day item (``ARCH#<format>#<archetype>`` / ``DAY#<date>``) whose day
    does not name that archetype."""
    pk, sk = key
    if not pk.startswith("ARCH#"):
        return False
    _, fmt, archetype = pk.split("#", 2)
    day = items.get((f"FMT#{fmt}", sk[:14]), {})
    return archetype not in day.get("archetype_names", [])


def test_no_archetype_item_outlives_its_day_after_a_kill(dynamodb: Any, tmp_path: Path) -> None:
    shutil.copytree(DEMO_DATA_DIR / "archetypes", tmp_path / "rules")
    (tmp_path / "rules/Formats/Pioneer/Archetypes/HeroAggro.json").unlink()
    classifier, files = ArchetypeClassifier(tmp_path / "rules"), _files()
    repository = fresh_meta(dynamodb, "prov-orphan")
    assert ingest_tournament_sources(files, repository, classifier).ok
    # When the naming ingest is killed between the day put that drops "Aggro" and the deletion of its item
    run = lambda: ingest_tournament_sources(files, repository, classifier, provisional=True)  # noqa: E731
    assert run_killed(dynamodb.meta.client, ORPHAN_KILL_POINTS[0], run)
    assert repair_storage(repository, ["Pioneer"]).ok
    assert run().ok
    # Then no archetype item is left that its day does not name (repair deleted it)
    found = contents(repository)
    assert not [key for key in found if _named_by_no_day(key, found)]
