"""A run killed at any of its writes leaves only what `meta-mage repair` fixes: every write point of ingest,
repair and reseed, enumerated (the sync's cursor commit is in tests/sync/test_sync_kill.py).

After each kill, repair (or, after a reseed, the next `seed`) leaves every storage invariant holding, and
ingesting the same files again ends in exactly the tables an uninterrupted run makes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.invariants import check_storage
from meta_mage.ingest.repair import repair_storage
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.ingest.tournaments import content_digest, parse_tournament
from meta_mage.local import seed
from meta_mage.local.embedded import copy_in_moto
from meta_mage.local.seed import demo_digest, seed_demo, snapshot_table_names
from meta_mage.storage.dynamo import unpack
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.snapshot import Snapshot, dump_tables, write_snapshot
from meta_mage.storage.tables import create_tables, table_definitions
from tests.conftest import demo_members, prefixed_settings, top_eight
from tests.kill_points import run_killed, writes_of

DAY = "2025-10-24"  # two Pioneer challenges of the demo data share this day
VOLATILE = {"version", "archetypes_version", "started_at", "synced_at"}  # differ with the number of rebuilds


def pioneer_files() -> tuple[SourceFile, SourceFile, SourceFile, SourceFile]:
    """A and B on one day, C on another, and A corrected (a second version of A: one deck's count changed); each
    cut to its top 8."""
    members = [(name, top_eight(data)) for name, data in demo_members(formats=("Pioneer",))]
    same_day = [(name, data) for name, data in members if DAY in name]
    other = next((name, data) for name, data in members if DAY not in name)
    (a_name, a_data), (b_name, b_data) = same_day
    corrected = json.loads(a_data)
    corrected["Decks"][0]["Mainboard"][0]["Count"] = 1 + corrected["Decks"][0]["Mainboard"][0]["Count"] % 4
    return (
        SourceFile(a_name, a_data),
        SourceFile(b_name, b_data),
        SourceFile(other[0], other[1]),
        SourceFile("corrected/" + a_name, json.dumps(corrected).encode()),
    )


def fresh(dynamodb: Any, name: str) -> tuple[Settings, MetaRepository]:
    """Every table of the template under new names (a reseed loads three of them)."""
    settings = prefixed_settings(name)
    create_tables(dynamodb, settings)
    return settings, MetaRepository(dynamodb.Table(settings.meta_table))


def fresh_meta(dynamodb: Any, name: str) -> MetaRepository:
    """A new MetaTable only (what ingest and repair write)."""
    return MetaRepository(dynamodb.create_table(TableName=f"{name}-meta", **table_definitions()["MetaTable"]))


def cloned(dynamodb: Any, given: MetaRepository, name: str) -> MetaRepository:
    """A new MetaTable holding every item of ``given``'s: each kill point starts from the same state, made once."""
    clone = fresh_meta(dynamodb, name)
    copy_items(given.table, clone.table)
    return clone


def cloned_tables(dynamodb: Any, given: Settings, name: str) -> tuple[Settings, MetaRepository]:
    """Every table of the template under new names, the snapshot's tables holding what ``given``'s hold."""
    settings, repository = fresh(dynamodb, name)
    for logical_id, table in snapshot_table_names(given).items():
        copy_items(dynamodb.Table(table), dynamodb.Table(snapshot_table_names(settings)[logical_id]))
    return settings, repository


def copy_items(source: Any, target: Any) -> None:
    """``source``'s items into the empty ``target``, straight in moto (a Scan and BatchWriteItem store the same)."""
    copy_in_moto(source.meta.client.meta.region_name, source.name, target.name)


def scanned(table: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"ConsistentRead": True}
    while True:
        page = table.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def contents(repository: MetaRepository) -> dict[tuple[str, str], dict[str, Any]]:
    """Every item of the MetaTable by key, its aggregates unpacked, without what differs run to run."""
    return {
        (item["pk"], item["sk"]): {k: (unpack(v) if k == "data" else v) for k, v in item.items() if k not in VOLATILE}
        for item in scanned(repository.table)
    }


def assert_sound(repository: MetaRepository) -> None:
    check = check_storage(repository)
    assert check.ok, "\n".join(check.lines())


def parse(source: SourceFile, classifier: Any) -> Any:
    return parse_tournament(source.json(), source.name, classifier.classify)


def digest(source: SourceFile, classifier: Any) -> str:
    return content_digest(parse(source, classifier), classifier.fingerprint())


@pytest.fixture()
def files() -> tuple[SourceFile, SourceFile, SourceFile, SourceFile]:
    return pioneer_files()


def test_ingest_killed_at_every_write_is_repaired(dynamodb: Any, settings: Settings, files: Any) -> None:
    a, b, c, a_corrected = files
    classifier = get_classifier(settings.archetype_rules_dir)
    run = [a_corrected, b, c]

    # Given event A stored and committed
    given = fresh_meta(dynamodb, "given")
    assert ingest_tournament_sources([a], given, classifier).ok
    key, versions = parse(a, classifier).event_key, {digest(f, classifier) for f in (a, a_corrected)}
    reference = cloned(dynamodb, given, "reference")
    writes = writes_of(dynamodb.meta.client, lambda: ingest_tournament_sources(run, reference, classifier))
    expected = contents(reference)
    assert writes > 20  # intents, decks, aggregates, days, archetype items, commits, registry

    for write in range(1, writes + 1):
        repository = cloned(dynamodb, given, f"kill{write}")
        # When the ingest is killed at this write, Then repair leaves every invariant holding (its own check
        # afterwards, report.final, is part of report.ok)
        ingest = lambda r=repository: ingest_tournament_sources(run, r, classifier)  # noqa: E731
        assert run_killed(dynamodb.meta.client, write, ingest)
        report = repair_storage(repository)
        assert report.ok and report.final is not None, (write, report.lines())
        # and A is one whole version, the old or the new (the check proves its decks and days agree with it)
        header = repository.get_event_header(key)
        assert header is not None and header["digest"] in versions, write
        # and ingesting the same files again ends where an uninterrupted run ends
        again = ingest_tournament_sources(run, repository, classifier)
        assert again.ok, (write, again.summary())
        assert contents(repository) == expected, f"killed at write {write}"


def test_repair_killed_at_every_write_is_finished_by_the_next_repair(
    dynamodb: Any, settings: Settings, files: Any
) -> None:
    a, b, c, a_corrected = files
    classifier = get_classifier(settings.archetype_rules_dir)
    run = [a_corrected, b, c]
    reference = fresh_meta(dynamodb, "reference")
    assert ingest_tournament_sources([a], reference, classifier).ok
    assert ingest_tournament_sources(run, reference, classifier).ok
    expected = contents(reference)

    # Given an ingest of the three files killed after their aggregates are written, before any is committed:
    # three interrupted writes, a day counting uncommitted events, a stale registry
    given = fresh_meta(dynamodb, "given")
    assert ingest_tournament_sources([a], given, classifier).ok
    probe = MetaRepository(given.table)

    def stop(*args: Any, **kwargs: Any) -> Any:
        raise SystemExit("killed before the first commit")

    probe.commit_event = stop  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        ingest_tournament_sources(run, probe, classifier)
    assert not check_storage(given).ok

    sample = cloned(dynamodb, given, "sample")
    writes = writes_of(dynamodb.meta.client, lambda: repair_storage(sample))
    assert writes > 5
    for write in range(1, writes + 1):
        repository = cloned(dynamodb, given, f"kill{write}")
        # When repair is killed at this write, Then the next repair finishes the job (its check afterwards too)
        assert run_killed(dynamodb.meta.client, write, lambda r=repository: repair_storage(r))
        report = repair_storage(repository)
        assert report.ok and report.final is not None, (write, report.lines())
        again = ingest_tournament_sources(run, repository, classifier)
        assert again.ok, (write, again.summary())
        assert contents(repository) == expected, f"repair killed at write {write}"


def small_snapshot(dynamodb: Any, settings: Settings, files: list[SourceFile], path: Path) -> Path:
    """A demo snapshot of only ``files`` (the real one takes hundreds of writes to load through the API)."""
    snapshot_settings, repository = fresh(dynamodb, "snapshot")
    assert ingest_tournament_sources(files, repository, get_classifier(settings.archetype_rules_dir)).ok
    items = dump_tables(dynamodb, snapshot_table_names(snapshot_settings))
    write_snapshot(path, Snapshot(demo_digest(settings.archetype_rules_dir), items))
    return path


def test_reseed_killed_at_every_write_keeps_the_users_events(
    dynamodb: Any, settings: Settings, files: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c, _ = files
    classifier = get_classifier(settings.archetype_rules_dir)
    monkeypatch.setattr(seed, "DEMO_SNAPSHOT", small_snapshot(dynamodb, settings, [a, c], tmp_path / "demo.jsonl.gz"))

    # Given the demo data seeded and an event of the user's own (B) on one of its days
    given_settings, given = fresh(dynamodb, "given")
    assert seed_demo(given_settings, dynamodb).how == "snapshot"
    assert ingest_tournament_sources([b], given, classifier).ok
    reference_settings, reference = cloned_tables(dynamodb, given_settings, "reference")
    expected_formats = reference.list_formats()
    assert expected_formats[0].tournaments == 3
    reseed: Callable[[Settings], object] = lambda trial: seed_demo(trial, dynamodb, reseed=True)  # noqa: E731
    writes = writes_of(dynamodb.meta.client, lambda: reseed(reference_settings))
    expected = contents(reference)
    for write in range(1, writes + 1):
        trial, repository = cloned_tables(dynamodb, given_settings, f"kill{write}")
        # When the reseed is killed at this write and then `meta-mage seed` runs (no repair by hand)
        assert run_killed(dynamodb.meta.client, write, lambda t=trial: reseed(t))
        result = seed_demo(trial, dynamodb)
        # Then the user's event is still counted, and every invariant holds
        assert result.ok, (write, result.lines())
        assert repository.list_formats() == expected_formats, f"reseed killed at write {write}"
        assert_sound(repository)
        assert contents(repository) == expected, f"reseed killed at write {write}"
