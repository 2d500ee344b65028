"""A sync killed at any of its writes, its cursor commit included, is finished by the next sync: every file
stored once, every invariant holding, the cursor at the head."""

from __future__ import annotations

from typing import Any

from meta_mage.config import Settings
from meta_mage.ingest.invariants import check_storage
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import table_definitions
from tests.conftest import top_eight
from tests.kill_points import run_killed, writes_of
from tests.sync.conftest import files, run, tournaments_per_format
from tests.sync.fake_github import FakeGitHub, day

REPO = "fbettega/MTG_decklistcache"


def test_a_sync_killed_at_every_write_is_finished_by_the_next(
    dynamodb: Any, settings: Settings, github: FakeGitHub
) -> None:
    # Given one commit of three files upstream (each cut to its top 8: the sync runs once per write)
    head = github.repository.commit({path: top_eight(data) for path, data in files(0, 3).items()}, day(1))

    def fresh(name: str) -> MetaRepository:
        return MetaRepository(dynamodb.create_table(TableName=name, **table_definitions()["MetaTable"]))

    reference = fresh("reference")
    writes = writes_of(dynamodb.meta.client, lambda: run(github, reference, settings))
    expected = tournaments_per_format(reference)
    assert sum(expected.values()) == 3 and reference.sync_cursor(REPO, "main") == head.sha
    for write in range(1, writes + 1):
        meta = fresh(f"kill{write}")
        # When a sync is killed at this write (the last is the cursor's), and the next daily sync runs
        assert run_killed(dynamodb.meta.client, write, lambda m=meta: run(github, m, settings))
        assert meta.sync_cursor(REPO, "main") is None
        report = run(github, meta, settings)
        # Then it stores what the first did not, moves the cursor, and every invariant holds
        assert report.ok, (write, report.summary())
        assert meta.sync_cursor(REPO, "main") == head.sha
        assert tournaments_per_format(meta) == expected, f"killed at write {write}"
        check = check_storage(meta)
        assert check.ok, (write, check.lines())
