"""`seed --reseed` replaces the demo's own items and keeps the events a user ingested beside them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.local import seed
from meta_mage.local.embedded import put_into_moto
from meta_mage.local.seed import seed_demo
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.snapshot import Snapshot
from tests.conftest import SHARED_DATA, demo_snapshot

MELEE = SHARED_DATA / "tournaments" / "Tournaments" / "MTGmelee" / "2025" / "10"
# Two real Modern events the demo data leaves out (they precede its window); one is re-dated into the window
OUTSIDE = MELEE / "19" / "mit-championship-modern-354900-2025-10-19.json"
REDATED = MELEE / "18" / "saturday-modern-super-qualifier-f2ftour-edmonton-371545-2025-10-18.json"
DEMO_DAY = "2025-11-09"


def cached_demo_snapshot(path: Path) -> Snapshot:
    """The shipped demo snapshot as tests/conftest.py read it once for this process (the seed reads no other)."""
    assert path == seed.DEMO_SNAPSHOT
    return demo_snapshot()


@pytest.mark.skipif(not OUTSIDE.exists(), reason="needs ../shared/data")
def test_reseed_keeps_the_users_own_events(dynamodb: Any, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    # the snapshot is put straight into moto, as `serve` loads its embedded server (test_demo_snapshot loads it
    # through the API)
    monkeypatch.setattr(seed, "bulk_load", put_into_moto)
    # and read once per process (both seeds read the same file; reading it is test_demo_snapshot's)
    monkeypatch.setattr(seed, "read_snapshot", cached_demo_snapshot)
    # Given the demo data and two events of the user's own, one of them on a day the demo data has
    assert seed_demo(settings, dynamodb).how == "snapshot"
    meta = MetaRepository(dynamodb.Table(settings.meta_table))
    demo = meta.get_format("Modern")
    redated = json.loads(REDATED.read_bytes())
    redated["Tournament"]["Date"] = DEMO_DAY
    files = [SourceFile("outside.json", OUTSIDE.read_bytes()), SourceFile("redated.json", json.dumps(redated).encode())]
    classifier = get_classifier(settings.archetype_rules_dir)
    added = ingest_tournament_sources(files, meta, classifier)
    assert added.outcomes["added"] == 2 and added.ok, added.summary()
    mine = meta.get_format("Modern")
    assert demo is not None and mine is not None and mine.tournaments == demo.tournaments + 2
    day = meta.format_days("Modern", DEMO_DAY, DEMO_DAY)[0].data["tournaments"]

    # When the demo data is loaded again
    result = seed_demo(settings, dynamodb, reseed=True)

    # Then the format still counts the user's events, their day too, and the output says so
    assert result.how == "snapshot"
    assert meta.get_format("Modern") == mine
    assert meta.format_days("Modern", DEMO_DAY, DEMO_DAY)[0].data["tournaments"] == day
    assert "kept 2 event(s) of your own (1 day(s) rebuilt to count them)" in "\n".join(result.lines())
    # and ingesting the user's files again changes nothing
    again = ingest_tournament_sources(files, meta, classifier)
    assert again.outcomes["unchanged"] == 2, again.summary()
