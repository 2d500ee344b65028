"""Versions of one event converge: a corrected file replaces the stored one and says so, and two versions
ingested at once end with one of them stored whole (header, decks and day counts agree)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.invariants import check_storage
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables, table_definitions
from tests.conftest import demo_members, prefixed_settings, top_eight
from tests.kill_points import interleaved_at, writes_of

EVENT = "mtgo:12821673"


def versions(cut: bool = False) -> tuple[SourceFile, SourceFile]:
    """A real Pioneer challenge and an upstream correction of it (its winner's first card count changed);
    ``cut``: both cut to the top 8."""
    name, data = next((n, d) for n, d in demo_members(formats=("Pioneer",)) if EVENT.split(":")[1] in n)
    data = top_eight(data) if cut else data
    corrected = json.loads(data)
    line = corrected["Decks"][0]["Mainboard"][0]
    line["Count"] = 1 + line["Count"] % 4
    return SourceFile(name, data), SourceFile("correction/" + name, json.dumps(corrected).encode())


def stored_version(repository: MetaRepository) -> tuple[str, int, int]:
    """The committed version's digest, its deck count, and the day's count of tournaments."""
    header = repository.get_event_header(EVENT)
    assert header is not None
    state = repository.day_state("Pioneer", header["date"])
    assert state is not None and state.digests[EVENT] == header["digest"]
    return header["digest"], int(header["decks"]), state.tournaments


def test_a_corrected_version_replaces_the_stored_one_and_says_so(dynamodb: Any, settings: Settings) -> None:
    original, correction = versions()
    classifier = get_classifier(settings.archetype_rules_dir)
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    assert ingest_tournament_sources([original], repository, classifier).ok
    first = stored_version(repository)
    # When the corrected file arrives
    report = ingest_tournament_sources([correction], repository, classifier)
    # Then it replaces the stored version (it was "duplicates skipped … kept the first" for every correction)
    assert report.ok and report.outcomes["replaced"] == 1, report.summary()
    assert f"  {correction.name}: replaced" in report.summary()
    second = stored_version(repository)
    assert second[0] != first[0] and second[1:] == first[1:]
    assert check_storage(repository).ok
    # and ingesting it again is unchanged; the original again replaces it back
    assert ingest_tournament_sources([correction], repository, classifier).outcomes["unchanged"] == 1
    assert ingest_tournament_sources([original], repository, classifier).outcomes["replaced"] == 1
    assert stored_version(repository) == first


@pytest.mark.parametrize("same", [False, True], ids=["two versions", "one version twice"])
def test_two_versions_interleaved_at_every_write_converge(dynamodb: Any, settings: Settings, same: bool) -> None:
    """The other version's whole ingest runs just before each write of this one, in turn (every interleaving
    of two writers that a switch between processes at a write can make). Two runs of one version count it once."""
    original, correction = versions(cut=True)
    if same:
        correction = original
    classifier = get_classifier(settings.archetype_rules_dir)
    client = dynamodb.meta.client

    def fresh(name: str) -> MetaRepository:
        return MetaRepository(dynamodb.create_table(TableName=name, **table_definitions()["MetaTable"]))

    probe = fresh("probe")
    writes = writes_of(client, lambda: ingest_tournament_sources([original], probe, classifier))
    for write in range(1, writes + 1):
        repository = fresh(f"race{write}")
        reports: list[Any] = []
        other = lambda r=repository, out=reports: out.append(ingest_tournament_sources([correction], r, classifier))  # noqa: E731
        with interleaved_at(client, write, other):
            reports.append(ingest_tournament_sources([original], repository, classifier))
        # Then both runs end cleanly, one version is stored whole, and every invariant holds
        assert all(report.ok for report in reports), [report.summary() for report in reports]
        check = check_storage(repository)
        assert check.ok, (write, check.lines())
        _, decks, tournaments = stored_version(repository)
        assert tournaments == 1 and decks == 8
        outcomes = sorted(outcome for report in reports for outcome in report.outcomes)
        if same:  # counted once: two concurrent syncs reported "4 ingested" each
            assert outcomes in (["added", "unchanged"], ["added", "day repaired"]), (write, outcomes)
        else:
            assert outcomes in (["added", "superseded"], ["added", "replaced"]), (write, outcomes)


def _version_worker(index: int, files: list[tuple[str, bytes]], trials: int, barrier: Any, rules: str) -> None:
    classifier = get_classifier(Path(rules))
    for trial in range(trials):
        settings = prefixed_settings(f"versions{trial}")
        repository = MetaRepository(dynamodb_resource(settings).Table(settings.meta_table))
        barrier.wait(timeout=60)
        report = ingest_tournament_sources([SourceFile(*files[index])], repository, classifier)
        assert report.ok, report.summary()


def test_two_processes_ingesting_two_versions_at_once_converge(settings: Settings) -> None:
    """Two processes started together, each ingesting one version of the event, against the embedded DynamoDB
    (the probe saw 4 of 10 trials leave the header, the day and the decks disagreeing)."""
    trials = 10
    files = [(source.name, source.data) for source in versions(cut=True)]
    context = multiprocessing.get_context("spawn")
    with embedded_dynamodb():
        for trial in range(trials):
            create_tables(dynamodb_resource(settings), prefixed_settings(f"versions{trial}"))
        barrier = context.Barrier(2)
        workers = [
            context.Process(target=_version_worker, args=(i, files, trials, barrier, str(settings.archetype_rules_dir)))
            for i in range(2)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=240)
        assert [worker.exitcode for worker in workers] == [0, 0]
        for trial in range(trials):
            trial_settings = prefixed_settings(f"versions{trial}")
            repository = MetaRepository(dynamodb_resource(trial_settings).Table(trial_settings.meta_table))
            check = check_storage(repository, ["Pioneer"])
            assert check.ok, (trial, check.lines())
            assert stored_version(repository)[1:] == (8, 1)
