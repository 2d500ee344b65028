"""A demo snapshot is loaded only when it is what ``write_snapshot`` wrote: every damaged variant (cut,
edited, not gzip) is refused whole, with one line naming the file and what to do, before any item is
loaded; and two seeds at once both succeed."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from meta_mage.cli import main
from meta_mage.config import Settings
from meta_mage.local import seed
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.local.seed import demo_digest, seed_demo, snapshot_table_names
from meta_mage.storage.dynamo import aws_region, dynamodb_resource
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.snapshot import (
    REBUILD,
    Snapshot,
    SnapshotDamaged,
    item_counts,
    items_digest,
    load_items,
    read_header,
    read_snapshot,
    write_snapshot,
)
from meta_mage.storage.tables import create_tables
from tests.conftest import prefixed_settings
from tests.servers import free_port

SEED_WITH = (  # `meta-mage <args>` in a new process, loading the snapshot at argv[1] as the demo's
    "import sys; from pathlib import Path; import meta_mage.local.seed as s; s.DEMO_SNAPSHOT = Path(sys.argv[1]); "
    "from meta_mage.cli import main; sys.exit(main(sys.argv[2:]))"
)


def small_snapshot(source_digest: str) -> Snapshot:
    """A few items of each demo table in typed JSON, binaries as base64 (as a build writes them)."""
    blob = base64.b64encode(b"\x00packed\xff").decode()
    events = [
        {
            "pk": {"S": f"EVENT#t:{n}"},
            "sk": {"S": "#HEADER"},
            "format": {"S": "Modern"},
            "decks": {"N": str(30 + n)},
            "tags": {"SS": ["a", "b"]},
            "rounds": {"L": [{"M": {"n": {"N": "1"}, "done": {"BOOL": True}}}, {"NULL": True}]},
        }
        for n in range(30)
    ]
    cards = [{"pk": {"S": f"CARD#{n}"}, "data": {"B": blob}, "sets": {"BS": [blob]}} for n in range(20)]
    drafts = [{"pk": {"S": "DRAFT#d"}, "sk": {"S": f"PICK#{n:03}"}, "card": {"S": f"c{n}"}} for n in range(10)]
    return Snapshot(source_digest, {"MetaTable": events, "CardsTable": cards, "DraftsTable": drafts})


@pytest.fixture()
def good(tmp_path: Path) -> Path:
    """A small snapshot that stands for the bundled demo data (its source digest is this checkout's)."""
    path = tmp_path / "good" / "snapshot.jsonl.gz"
    path.parent.mkdir()
    write_snapshot(path, small_snapshot(demo_digest(Settings().archetype_rules_dir)))
    return path


def _lines(path: Path) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).splitlines(keepends=True)


def _edit(line_word: bytes, old: bytes, new: bytes) -> Callable[[bytes, list[bytes]], bytes]:
    """An editor of the first item line holding ``line_word``: ``old`` replaced by ``new`` in it."""

    def edit(packed: bytes, lines: list[bytes]) -> bytes:
        at = next(i for i, line in enumerate(lines) if i and line_word in line)
        lines[at] = lines[at].replace(old, new, 1)
        return gzip.compress(b"".join(lines), mtime=0)

    return edit


# What a probe did to the file, and the reason the refusal gives
DAMAGED: dict[str, tuple[Callable[[bytes, list[bytes]], bytes], str]] = {
    "truncated bytes": (lambda packed, lines: packed[: len(packed) // 2], "not a whole gzip file: "),
    "truncated lines": (lambda packed, lines: gzip.compress(b"".join(lines[:-7])), "items digest differs"),
    "cut line": (lambda packed, lines: gzip.compress(b"".join(lines)[:-40]), "items digest differs"),
    "unknown table": (_edit(b"CardsTable", b'"CardsTable"', b'"UsersTable"'), "items digest differs"),
    "wrong type": (_edit(b'"decks"', b'{"N": "3', b'{"S": "3'), "items digest differs"),
    "tampered value": (_edit(b'"decks"', b'"decks": {"N": "30"}', b'"decks": {"N": "999999"}'), "items digest differs"),
    "not gzip": (lambda packed, lines: b"".join(lines), "not a whole gzip file: Not a gzipped file"),
    "empty": (lambda packed, lines: b"", "its first line is not a snapshot header"),
    "garbage header": (lambda packed, lines: gzip.compress(b"<html>\n" + b"".join(lines[1:])), "not a snapshot header"),
    "flipped byte": (lambda packed, lines: packed[:200] + bytes([packed[200] ^ 0xFF]) + packed[201:], "gzip file"),
}


@pytest.mark.parametrize("damage", DAMAGED, ids=list(DAMAGED))
def test_a_damaged_snapshot_is_refused_in_one_line_naming_the_file(good: Path, tmp_path: Path, damage: str) -> None:
    # Given a snapshot damaged as a probe (or a bad disk, or a cut download) would
    edit, reason = DAMAGED[damage]
    path = tmp_path / "snapshot.jsonl.gz"
    path.write_bytes(edit(good.read_bytes(), _lines(good)))
    # When it is read, Then it is refused whole, in one line that names it and says what to do
    with pytest.raises(SnapshotDamaged) as refused:
        read_snapshot(path)
    message = refused.value.message
    assert message.startswith(f"{path} is damaged (") and message.endswith(f"): {REBUILD}"), message
    assert reason in message and "\n" not in message


def _rewritten(good: Path, tmp_path: Path, lines: list[bytes], **header: Any) -> Path:
    """``lines`` under ``good``'s header (with ``header``'s changes) and a digest that matches them: what a
    broken build would write."""
    fields = {**read_header(good), "items_digest": items_digest(lines[1:]), **header}
    path = tmp_path / "rewritten.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(fields) + "\n").encode() + b"".join(lines[1:])))
    return path


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (b'"table": "CardsTable"', b'"table": "UsersTable"', "table 'UsersTable' is not in its header"),
        (b'{"N": "30"}', b'{"Q": "30"}', "an attribute is not DynamoDB typed JSON"),
        (b'{"N": "30"}', b'{"N": "thirty"}', "an attribute is not DynamoDB typed JSON"),
        (b'{"N": "30"}', b'{"N": 30}', "an attribute is not DynamoDB typed JSON"),
        (b'{"B": "', b'{"B": "!', "an attribute is not DynamoDB typed JSON"),
        (b'"item": {', b'"item": 7, "x": {', "an attribute is not DynamoDB typed JSON"),
        (b'{"item"', b'not json {"item"', "is not JSON"),
    ],
)
def test_a_snapshot_whose_digest_matches_is_still_checked_line_by_line(
    good: Path, tmp_path: Path, old: bytes, new: bytes, reason: str
) -> None:
    lines = _lines(good)
    at = next(i for i, line in enumerate(lines) if i and old in line)
    lines[at] = lines[at].replace(old, new, 1)
    with pytest.raises(SnapshotDamaged, match=f"line {at + 1}.*{reason}"):
        read_snapshot(_rewritten(good, tmp_path, lines))


def test_a_header_that_does_not_add_up_is_refused(good: Path, tmp_path: Path) -> None:
    lines = _lines(good)
    with pytest.raises(SnapshotDamaged, match=r"holds .* items, its header says"):
        read_snapshot(_rewritten(good, tmp_path, lines, counts={"MetaTable": 30, "CardsTable": 21, "DraftsTable": 10}))
    with pytest.raises(SnapshotDamaged, match="holds no items digest"):
        read_snapshot(_rewritten(good, tmp_path, lines, items_digest=None))
    # and a snapshot of another format (one built before the digest) is not read as this one
    with pytest.raises(SnapshotDamaged, match="snapshot format 1, this version reads 2"):
        read_snapshot(_rewritten(good, tmp_path, lines, format=1))


def test_a_good_snapshot_reads_back_as_written(good: Path, tmp_path: Path) -> None:
    written = small_snapshot(demo_digest(Settings().archetype_rules_dir))
    assert read_snapshot(good) == written
    # and writing it again gives the same bytes, replacing the file whole (no partial file left)
    write_snapshot(tmp_path / "again.jsonl.gz", written)
    assert (tmp_path / "again.jsonl.gz").read_bytes() == good.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.jsonl.gz", "good"]


def _tampered(good: Path, tmp_path: Path) -> Path:
    path = tmp_path / "tampered.jsonl.gz"
    path.write_bytes(DAMAGED["tampered value"][0](good.read_bytes(), _lines(good)))
    return path


def test_seeding_a_tampered_snapshot_loads_nothing_and_marks_nothing(
    good: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = prefixed_settings("tampered")
    with mock_aws():
        db = dynamodb_resource(settings)
        # Given the demo's snapshot with one deck count edited, When the demo data is seeded, Then it is refused
        monkeypatch.setattr(seed, "DEMO_SNAPSHOT", _tampered(good, tmp_path))
        with pytest.raises(SnapshotDamaged, match="items digest differs"):
            seed_demo(settings, db)
        # and nothing was loaded or marked as seeded
        meta = MetaRepository(db.Table(settings.meta_table))
        assert not meta.holds_items() and meta.seeded_digest() is None
        assert set(item_counts(db, snapshot_table_names(settings)).values()) == {0}
        # Given the file whole again, Then it loads
        monkeypatch.setattr(seed, "DEMO_SNAPSHOT", good)
        loaded = seed_demo(settings, db)
        assert loaded.how == "snapshot" and loaded.items == {"MetaTable": 30, "CardsTable": 20, "DraftsTable": 10}


def test_a_load_under_way_or_cut_short_is_the_snapshots_own_not_other_data(
    good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seed that starts while another loads through the API sees that load's marker, not "other data"
    (which would run the whole ingest over it); so does the next start after a load cut short."""
    settings = prefixed_settings("halfway")
    monkeypatch.setattr(seed, "DEMO_SNAPSHOT", good)
    monkeypatch.setattr(seed, "ingest_demo", lambda *_: pytest.fail("the ingest ran over the snapshot's own items"))
    with mock_aws():
        db = dynamodb_resource(settings)
        create_tables(db, settings)
        # Given a load through the API that has put its marker and some items, and then stopped
        snapshot = read_snapshot(good)
        MetaRepository(db.Table(settings.meta_table)).mark_seeded(f"{snapshot.source_digest} loading")
        names = snapshot_table_names(settings)
        load_items(db, names, {"MetaTable": snapshot.items["MetaTable"][:12]})
        # When the demo data is seeded, Then the snapshot is loaded (again), whole, and marked
        loaded = seed_demo(settings, db)
        assert loaded.how == "snapshot" and item_counts(db, names) == {
            "MetaTable": 31,
            "CardsTable": 20,
            "DraftsTable": 10,
        }
        assert seed_demo(settings, db).how == "already stored"


def test_cli_seed_prints_one_line_and_fails(
    good: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dynamodb: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    tampered = _tampered(good, tmp_path)
    monkeypatch.setattr(seed, "DEMO_SNAPSHOT", tampered)
    assert main(["seed"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"seed: {tampered} is damaged (items digest differs from its header): {REBUILD}\n"


def test_cli_serve_refuses_a_damaged_snapshot_before_serving(good: Path, tmp_path: Path) -> None:
    # Given `meta-mage serve` (embedded DynamoDB) over a snapshot cut short
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(good.read_bytes()[:-100])
    env = {**os.environ, "META_MAGE_MODEL": "offline"}
    command = [sys.executable, "-c", SEED_WITH, str(cut), "serve", "--port", str(free_port())]
    # When it starts, Then it stops with one line, no traceback, and a non-zero status
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"serve: {cut} is damaged (not a whole gzip file: ")
    assert done.stderr.endswith(f"): {REBUILD}\n") and done.stderr.count("\n") == 1
    assert "Serving" not in done.stdout


def _create_at_once(settings: Settings) -> list[list[str] | BaseException]:
    """``create_tables`` from two threads (a client each) released together; what each returned or raised."""
    start = threading.Barrier(2)
    outcomes: list[list[str] | BaseException] = []

    def create() -> None:
        db = boto3.session.Session().resource("dynamodb", region_name=aws_region(settings))
        start.wait()
        try:
            outcomes.append(create_tables(db, settings))
        except BaseException as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return outcomes


def test_two_threads_creating_the_tables_at_once_both_succeed() -> None:
    with embedded_dynamodb():
        for trial in range(5):
            settings = prefixed_settings(f"threads{trial}")
            first, second = _create_at_once(settings)
            # Then neither failed, and each table was made by exactly one of them
            assert isinstance(first, list) and isinstance(second, list), (first, second)
            assert sorted(first + second) == sorted(settings.table_names().values())


def test_two_seeds_at_once_against_one_dynamodb_both_succeed(
    good: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a fresh `meta-mage dynamodb` in its own process
    port = free_port()
    log = tmp_path / "dynamodb.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-u", "-m", "meta_mage.cli", "dynamodb", "--port", str(port)], stdout=out, stderr=out
        )
    try:
        deadline = time.time() + 30
        while b"Ctrl-C to stop" not in log.read_bytes():
            assert server.poll() is None and time.time() < deadline, log.read_text()
            time.sleep(0.05)
        # When two `meta-mage seed` run at once against it
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{port}")
        command = [sys.executable, "-c", SEED_WITH, str(good), "seed"]
        seeds = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outputs = [process.communicate(timeout=60) for process in seeds]
        # Then both succeed, and the tables hold the snapshot's items and the marker
        assert [process.returncode for process in seeds] == [0, 0], outputs
        loaded, stored = "Demo data loaded from its snapshot", "Demo data already stored (the same files and rules)"
        headlines = sorted(out.split(" in ", 1)[0].split(";", 1)[0] for out, _ in outputs)
        assert headlines in ([loaded, loaded], [stored, loaded]), outputs  # the later one may find it stored
        settings = Settings()
        counts = item_counts(dynamodb_resource(settings), snapshot_table_names(settings))
        assert counts == {"MetaTable": 30 + 1, "CardsTable": 20, "DraftsTable": 10}
        assert (
            MetaRepository(dynamodb_resource(settings).Table(settings.meta_table)).seeded_digest()
            == read_header(good)["source_digest"]
        )
    finally:
        server.terminate()
        server.wait(10)
