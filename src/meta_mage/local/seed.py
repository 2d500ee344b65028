"""Load the bundled demo data (cards, tournaments, the ``tarkir`` cube draft) into DynamoDB.

An empty database gets the snapshot that ``scripts/build_demo_snapshot.py`` makes from a real ingest
of the same files (a test keeps the two equal), which loads in seconds instead of re-running the
ingest. The ingest itself runs when the snapshot does not match (other archetype rules, edited demo
files) or the tables already hold data. A marker item records what was loaded, so a second start
against the same database skips the work unless ``reseed`` asks for it.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meta_mage.analytics.aggregate import AGGREGATE_VERSION
from meta_mage.archetypes.playbooks import PLAYBOOK_FILE
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.files import SourceFile, iter_archive
from meta_mage.ingest.repair import repair_storage
from meta_mage.ingest.report import IngestReport
from meta_mage.local.embedded import bulk_load
from meta_mage.storage.dynamo import aws_region
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshot,
    item_counts,
    load_items,
    read_header,
    read_snapshot,
)
from meta_mage.storage.tables import create_tables

DEMO_CARDS = DEMO_DATA_DIR / "cards.json.gz"
DEMO_TOURNAMENTS = DEMO_DATA_DIR / "tournaments.tar.gz"
DEMO_DRAFTS = DEMO_DATA_DIR / "drafts"
DEMO_SNAPSHOT = DEMO_DATA_DIR / "snapshot.jsonl.gz"
SNAPSHOT_TABLES = ("MetaTable", "CardsTable", "DraftsTable")  # conversations and locks are not demo data


@dataclass
class SeedResult:
    """How the demo data got into the tables, in how long, and the ingest reports when it was ingested."""

    how: str  # "snapshot", "ingest" or "already stored"
    seconds: float
    why: str = ""
    items: dict[str, int] = field(default_factory=dict)
    contents: dict[str, int] = field(default_factory=dict)  # cards, tournaments, drafts: what a user counts
    reports: list[IngestReport] = field(default_factory=list)
    kept: OwnEvents | None = None  # a reseed: the user's own events, counted again

    @property
    def ok(self) -> bool:
        return all(report.ok for report in self.reports)

    def lines(self) -> list[str]:
        """What to print: a headline, then one line per ingest report."""
        if self.how == "already stored":
            return ["Demo data already stored (the same files and rules); --reseed loads it again"]
        if self.how == "snapshot":
            counts = ", ".join(f"{n:,} {noun if n == 1 else noun + 's'}" for noun, n in self.contents.items())
            items = sum(self.items.values())
            lines = [f"Demo data loaded from its snapshot in {self.seconds:.1f}s: {counts} ({items:,} items)"]
            if self.kept:
                lines.append(f"  {self.kept.line()}")
            return lines
        return [f"Demo data ingested in {self.seconds:.1f}s ({self.why})"] + [
            "  " + line for report in self.reports for line in report.summary().splitlines()
        ]


def demo_digest(rules_dir: Path) -> str:
    """A digest of everything a demo ingest reads: the bundled files, the archetype rules, the shapes."""
    digest = hashlib.sha256(f"snapshot {SNAPSHOT_FORMAT} aggregate {AGGREGATE_VERSION}\n".encode())
    files = [DEMO_CARDS, DEMO_TOURNAMENTS, *sorted(DEMO_DRAFTS.glob("*.json"))]
    # Playbooks (Formats/<Format>/playbook.toml) are read by the coach, never by an ingest: editing one keeps the
    # snapshot valid, as it keeps the classifier's fingerprint.
    rules = sorted(path for path in rules_dir.rglob("*") if path.is_file() and path.name != PLAYBOOK_FILE)
    for path in files + rules:
        name = path.relative_to(rules_dir) if path in rules else path.name
        digest.update(f"{name}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def seed_demo(settings: Settings, dynamodb: Any, reseed: bool = False) -> SeedResult:
    """Create the tables and put the demo data in them, the fastest correct way (idempotent; safe to run
    twice at once). A damaged snapshot raises ``SnapshotDamaged`` before any item is loaded."""
    started = time.perf_counter()
    create_tables(dynamodb, settings)
    meta = MetaRepository(dynamodb.Table(settings.meta_table))
    digest = demo_digest(settings.archetype_rules_dir)
    stored = meta.seeded_digest()
    if stored == digest and not reseed:
        return SeedResult("already stored", time.perf_counter() - started)
    why = why_not_snapshot(digest, stored, meta)
    if why is None:
        snapshot = read_snapshot(DEMO_SNAPSHOT)
        names = snapshot_table_names(settings)
        # a load stopped half-way (this marker still stored) may have put the demo's days over the user's events
        resumed = stored == _loading(digest)
        if reseed or resumed:
            meta.mark_seeded(_loading(digest))  # first: whatever stops this load, the next seed finishes it
        if not bulk_load(aws_region(settings), names, snapshot.items) or _short(
            item_counts(dynamodb, names), snapshot.counts
        ):
            meta.mark_seeded(_loading(digest))  # first: a seed running meanwhile sees this load, not other data
            load_items(dynamodb, names, snapshot.items)  # the DynamoDB API: any server, any load left short
        result = SeedResult("snapshot", 0.0, items=snapshot.counts, contents=snapshot_contents(snapshot))
        if reseed or resumed:
            result.kept = keep_own_events(meta, snapshot_events(snapshot))
    else:
        result = SeedResult("ingest", 0.0, why=why, reports=ingest_demo(settings, dynamodb))
    if result.ok:
        meta.mark_seeded(digest)  # last: an interrupted load is loaded again next time
    result.seconds = time.perf_counter() - started
    return result


def why_not_snapshot(digest: str, stored: str | None, meta: MetaRepository) -> str | None:
    """Why the snapshot cannot stand in for an ingest of the data with ``digest``, or None when it can.

    It can over empty tables, or over the same snapshot (``stored``, a reseed): it only puts items, so
    over other data it would leave that data's stale items (an archetype renamed by new rules) behind,
    which the ingest replaces. Items under a marker of this snapshot (a load meanwhile, or one cut short)
    are its own."""
    if not DEMO_SNAPSHOT.exists():
        return "no snapshot in this install"
    if read_header(DEMO_SNAPSHOT)["source_digest"] != digest:
        return "the archetype rules or demo files differ from the snapshot's"
    if stored != digest and meta.holds_items() and meta.seeded_digest() not in (digest, _loading(digest)):
        return "the tables hold other data, which the ingest updates in place"
    return None


@dataclass(frozen=True)
class OwnEvents:
    """The events a reseed found beside the demo's, and the days it rebuilt to count them."""

    events: int
    days_rebuilt: int

    def line(self) -> str:
        if not self.events:
            return "no event of your own to keep"
        return f"kept {self.events} event(s) of your own ({self.days_rebuilt} day(s) rebuilt to count them)"


def keep_own_events(meta: MetaRepository, demo_events: set[str]) -> OwnEvents:
    """After the snapshot is put over tables that may hold events of the user's own: the snapshot replaced
    the demo's own items only (it deletes nothing), but its days and format registry do not count those
    events. Repair every violation of the storage invariants: the days that miss one, the registries."""
    report = repair_storage(meta)
    return OwnEvents(len(report.events - demo_events), len(report.rebuilt))


def snapshot_contents(snapshot: Snapshot) -> dict[str, int]:
    """What the snapshot holds as a user counts it (a draft is one, not its hundreds of items)."""
    return {
        "card": sum(1 for item in snapshot.items.get("CardsTable", []) if not item["pk"]["S"].startswith("#")),
        "tournament": len(snapshot_events(snapshot)),
        "draft": sum(1 for item in snapshot.items.get("DraftsTable", []) if item["pk"]["S"] == "DRAFTS"),
    }


def snapshot_events(snapshot: Snapshot) -> set[str]:
    """The event keys the snapshot holds (its event headers)."""
    return {
        item["pk"]["S"].removeprefix("EVENT#")
        for item in snapshot.items.get("MetaTable", [])
        if item["sk"]["S"] == "#HEADER" and item["pk"]["S"].startswith("EVENT#")
    }


def _short(counts: dict[str, int], expected: dict[str, int]) -> bool:
    """Whether a table holds fewer items than the snapshot put in it (more: the user's own data is there too)."""
    return any(counts.get(table, 0) < n for table, n in expected.items())


def _loading(digest: str) -> str:
    """The marker of a snapshot load through the API under way (the bulk load is one step: it needs none)."""
    return f"{digest} loading"


def ingest_demo(settings: Settings, dynamodb: Any) -> list[IngestReport]:
    """Ingest the bundled files into existing tables through the same path as ``meta-mage ingest`` (about
    25 s on moto). Files are named from the package (``demo_data/...``), not by where it is installed, so
    every install stores the same items."""
    from meta_mage.archetypes.classifier import get_classifier
    from meta_mage.ingest.card_ingest import ingest_card_sources
    from meta_mage.ingest.drafts import ingest_draft, load_draft
    from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
    from meta_mage.storage.cards import CardsRepository
    from meta_mage.storage.drafts import DraftsRepository

    cards = CardsRepository(dynamodb.Table(settings.cards_table))
    demo_cards = SourceFile(_package_name(DEMO_CARDS), DEMO_CARDS.read_bytes())
    reports = [ingest_card_sources([demo_cards], cards)]
    meta = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)
    archive = iter_archive(_package_name(DEMO_TOURNAMENTS), DEMO_TOURNAMENTS)
    reports.append(ingest_tournament_sources(archive, meta, classifier))
    drafts = DraftsRepository(dynamodb.Table(settings.drafts_table))
    for path in sorted(DEMO_DRAFTS.glob("*.json")):
        reports.append(ingest_draft(load_draft(path), _package_name(path), drafts, cards))
    return reports


def _package_name(path: Path) -> str:
    """A bundled file's name from the package (``demo_data/...``), the same wherever it is installed."""
    return str(path.relative_to(DEMO_DATA_DIR.parent))


def build_demo_snapshot(settings: Settings, dynamodb: Any) -> Snapshot:
    """Ingest the demo data into empty tables and take every item of them (the snapshot's contents)."""
    from meta_mage.storage.snapshot import dump_tables

    create_tables(dynamodb, settings)
    reports = ingest_demo(settings, dynamodb)
    failed = [line for report in reports if not report.ok for line in report.summary().splitlines()]
    if failed:
        raise RuntimeError("the demo ingest failed, no snapshot written:\n" + "\n".join(failed))
    items = dump_tables(dynamodb, snapshot_table_names(settings))
    return Snapshot(demo_digest(settings.archetype_rules_dir), items)


def snapshot_table_names(settings: Settings) -> dict[str, str]:
    """The snapshot's tables: logical id → this configuration's physical name."""
    names = settings.table_names()
    return {logical_id: names[logical_id] for logical_id in SNAPSHOT_TABLES}
