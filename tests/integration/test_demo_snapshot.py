"""The demo data's snapshot (``demo_data/snapshot.jsonl.gz``) stays what a real ingest of the bundled files
stores, loads through the DynamoDB API into any server, and is skipped when the database already holds it."""

import gzip
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from meta_mage.config import Settings
from meta_mage.local import seed
from meta_mage.local.seed import (
    DEMO_SNAPSHOT,
    SNAPSHOT_TABLES,
    build_demo_snapshot,
    demo_digest,
    seed_demo,
    snapshot_table_names,
    why_not_snapshot,
)
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshot,
    SnapshotDamaged,
    dump_tables,
    items_digest,
    read_header,
    read_snapshot,
    write_snapshot,
)
from meta_mage.storage.tables import create_tables
from tests.conftest import prefixed_settings

REBUILD = "the demo snapshot is stale: run scripts/build_demo_snapshot.py and commit demo_data/snapshot.jsonl.gz"


def test_the_snapshot_is_what_a_fresh_ingest_stores(tmp_path: Path) -> None:
    # Given empty tables, When the bundled files are ingested as `meta-mage ingest` would
    settings = prefixed_settings("fresh")
    with mock_aws():
        db = dynamodb_resource(settings)
        create_tables(db, settings)
        fresh = build_demo_snapshot(settings, db)
    # Then every stored item is in the shipped snapshot, and nothing else is
    shipped = read_snapshot(DEMO_SNAPSHOT)
    assert shipped.source_digest == fresh.source_digest == demo_digest(settings.archetype_rules_dir), REBUILD
    assert shipped.counts == fresh.counts, REBUILD
    for table in SNAPSHOT_TABLES:
        assert shipped.items[table] == fresh.items[table], f"{table}: {REBUILD}"
    # and writing it again gives the same bytes (a rebuild shows in git only when the data changed)
    write_snapshot(tmp_path / "again.jsonl.gz", fresh)
    assert (tmp_path / "again.jsonl.gz").read_bytes() == DEMO_SNAPSHOT.read_bytes()
    assert fresh.counts["MetaTable"] > 10_000 and fresh.counts["CardsTable"] > 4_000


def part_of_the_demo_snapshot(path: Path) -> Path:
    """The shipped snapshot cut to the first 300 items of each table: the same loader at a fiftieth of the
    writes (the whole one loads through the API in test_cli's `serve` against `meta-mage dynamodb`)."""
    whole = read_snapshot(DEMO_SNAPSHOT)
    write_snapshot(path, Snapshot(whole.source_digest, {table: items[:300] for table, items in whole.items.items()}))
    return path


def test_the_snapshot_loads_through_the_api_then_is_not_loaded_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = prefixed_settings("api")
    snapshot = part_of_the_demo_snapshot(tmp_path / "demo.jsonl.gz")
    monkeypatch.setattr(seed, "DEMO_SNAPSHOT", snapshot)
    with mock_aws():  # no embedded server in this process: every item goes through BatchWriteItem
        db = dynamodb_resource(settings)
        # Given empty tables, When the demo data is seeded, Then it comes from the snapshot
        first = seed_demo(settings, db)
        assert first.how == "snapshot" and first.ok and first.items == read_snapshot(snapshot).counts
        assert "loaded from its snapshot" in first.lines()[0]
        # and the tables hold exactly its items (plus the marker)
        stored = dump_tables(db, snapshot_table_names(settings))
        marker = [item for item in stored["MetaTable"] if item["pk"] == {"S": "SEED"}]
        assert marker == [
            {"pk": {"S": "SEED"}, "sk": {"S": "demo"}, "digest": {"S": demo_digest(settings.archetype_rules_dir)}}
        ]
        stored["MetaTable"].remove(marker[0])
        assert stored == read_snapshot(snapshot).items
        # When it is seeded again, Then nothing is loaded, and the user is told how to force it
        again = seed_demo(settings, db)
        assert again.how == "already stored" and "--reseed" in again.lines()[0]


def test_other_rules_or_other_data_get_the_ingest(tmp_path: Path, dynamodb: Any, settings: Settings) -> None:
    meta = MetaRepository(dynamodb.Table(settings.meta_table))
    digest = demo_digest(settings.archetype_rules_dir)
    # Given the bundled rules and empty tables, the snapshot stands in for the ingest
    assert why_not_snapshot(digest, None, meta) is None
    # Given other archetype rules, it cannot
    rules = tmp_path / "rules"
    shutil.copytree(settings.archetype_rules_dir, rules)
    next(p for p in rules.rglob("*.json") if p.is_file()).write_text("{}")
    assert demo_digest(rules) != digest
    assert "archetype rules" in (why_not_snapshot(demo_digest(rules), None, meta) or "")
    # Given tables holding other data, it cannot either (stale items would stay); over itself (a reseed) it can
    dynamodb.Table(settings.meta_table).put_item(Item={"pk": "FORMATS", "sk": "Modern", "first_date": "2020-01-01"})
    assert "other data" in (why_not_snapshot(digest, None, meta) or "")
    assert why_not_snapshot(digest, digest, meta) is None


def test_the_shipped_snapshot_is_refused_when_edited_or_cut(tmp_path: Path) -> None:
    """Needs a snapshot built by this version (its header holds the items digest): see REBUILD."""
    lines = gzip.decompress(DEMO_SNAPSHOT.read_bytes()).splitlines(keepends=True)
    header = read_header(DEMO_SNAPSHOT)
    assert header["format"] == SNAPSHOT_FORMAT and header.get("items_digest") == items_digest(lines[1:]), REBUILD
    # Given one Modern deck count set to 999,999, When the file is read, Then it is refused naming it
    at = next(i for i, line in enumerate(lines) if i and b'"Modern"' in line and b'"decks": {"N": "' in line)
    lines[at] = re.sub(rb'"decks": \{"N": "[0-9]+"\}', b'"decks": {"N": "999999"}', lines[at], count=1)
    tampered = tmp_path / "tampered.jsonl.gz"
    tampered.write_bytes(gzip.compress(b"".join(lines)))
    with pytest.raises(
        SnapshotDamaged, match=r"tampered\.jsonl\.gz is damaged \(items digest differs from its header\)"
    ):
        read_snapshot(tampered)
    # and so is the file cut short, to whole lines or mid-stream
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(b"".join(lines[:1000])))
    with pytest.raises(SnapshotDamaged, match=r"cut\.jsonl\.gz is damaged \(items digest differs"):
        read_snapshot(cut)
    cut.write_bytes(DEMO_SNAPSHOT.read_bytes()[:100_000])
    with pytest.raises(SnapshotDamaged, match=r"cut\.jsonl\.gz is damaged \(not a whole gzip file"):
        read_snapshot(cut)
