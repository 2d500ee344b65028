"""Repairs commit only what was stored whole, and ``repair --check`` sees corruption (issue 51, parts 4 and 6):
a day of the most events with the longest keys fits its item; a file reported FAILED is never committed by a
later repair; a NOT FIXED line names the file and clears once it is ingested; a corrupted day total, day
statistics, a missing or an unlisted archetype item are reported, and repair recomputes them from the events."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.invariants import check_storage
from meta_mage.ingest.repair import repair_storage
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.models.tournament_file import MAX_URI_CHARS
from meta_mage.storage.dynamo import pack, unpack
from meta_mage.storage.meta import MAX_EVENTS_PER_DAY, MAX_ITEM_BYTES, MetaRepository, item_size
from tests.conftest import demo_members, top_eight

PIONEER = "Tournaments/MTGO/2025/10/23/pioneer-challenge-32-2025-10-2312821665.json"
DAY = "2025-10-23"


def real_event() -> SourceFile:
    """The top 8 of a real Pioneer challenge (8 decks, 7 matches)."""
    [data] = [data for name, data in demo_members(formats=("Pioneer",)) if name == PIONEER]
    return SourceFile(PIONEER, top_eight(data))


def long_id_copies(count: int) -> list[SourceFile]:
    """``count`` copies of that top 8, each under its own MTGO id as long as a URI admits: event keys of 476
    characters, the longest a day can list."""
    document = json.loads(real_event().data)
    prefix = f"https://www.mtgo.com/decklist/pioneer-challenge-32-{DAY}"
    digits = MAX_URI_CHARS - len(prefix)
    files = []
    for number in range(count):
        document["Tournament"]["Uri"] = prefix + f"{number + 1:0{digits}d}"
        files.append(SourceFile(f"long-id-{number:03d}.json", json.dumps(document).encode()))
    return files


def meta(dynamodb: Any, settings: Settings) -> MetaRepository:
    return MetaRepository(dynamodb.Table(settings.meta_table))


def ingest(repository: MetaRepository, files: list[SourceFile], settings: Settings) -> Any:
    return ingest_tournament_sources(files, repository, get_classifier(settings.archetype_rules_dir))


def test_a_day_of_the_most_events_with_the_longest_keys_fits_its_item(dynamodb: Any, settings: Settings) -> None:
    # Given as many events as a day counts, each with the longest event key a URI admits (the probe: 450 such
    # events pushed the day item over 400 KB, and all 450 files were reported FAILED)
    repository = meta(dynamodb, settings)
    files = long_id_copies(MAX_EVENTS_PER_DAY)
    assert len(files[0].name) and len(json.loads(files[0].data)["Tournament"]["Uri"]) == MAX_URI_CHARS
    # When they are ingested in one run
    started = time.perf_counter()
    report = ingest(repository, files, settings)
    seconds = time.perf_counter() - started
    # Then every one is stored and counted, and the day item fits with room to spare
    assert report.ok and report.outcomes == {"added": MAX_EVENTS_PER_DAY}, report.summary()
    day = repository.table.get_item(Key={"pk": "FMT#Pioneer", "sk": f"DAY#{DAY}"})["Item"]
    size = item_size(day)
    print(f"day item at the cap, longest keys: {size:,} bytes ({len(day['digests'])} events), {seconds:.1f} s")
    assert size <= MAX_ITEM_BYTES - 4 * 1024
    assert repository.get_format("Pioneer").tournaments == MAX_EVENTS_PER_DAY  # type: ignore[union-attr]
    assert check_storage(repository, ["Pioneer"]).ok


def refuse_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """DynamoDB refusing the day item (ValidationException, as it refuses an item over 400 KB)."""

    def refused(*_: Any, **__: Any) -> None:
        raise ClientError({"Error": {"Code": "ValidationException", "Message": "Item size has exceeded"}}, "PutItem")

    monkeypatch.setattr(MetaRepository, "_put_day", refused)


def test_an_event_reported_failed_is_never_committed_by_repair(
    dynamodb: Any, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an event whose day DynamoDB refused: its file is reported FAILED (its decks and aggregate are stored)
    repository = meta(dynamodb, settings)
    refuse_day(monkeypatch)
    report = ingest(repository, [real_event()], settings)
    assert report.outcomes == {"failed": 1}, report.summary()
    monkeypatch.undo()
    # When repair runs (DynamoDB takes the day again)
    repaired = repair_storage(repository, ["Pioneer"])
    # Then the failed version is not committed: removed, and the NOT FIXED line names the file to ingest
    assert repository.get_event_header("mtgo:12821665") is None
    assert repository.get_format("Pioneer") is None
    [(violation, advice)] = repaired.left
    assert violation.kind == "failed write" and f"ingest {PIONEER} again" in advice, repaired.lines()
    # and so does the next repair, until the file is ingested; then it clears
    assert not repair_storage(repository, ["Pioneer"]).ok
    assert ingest(repository, [real_event()], settings).outcomes == {"added": 1}
    assert repair_storage(repository, ["Pioneer"]).ok
    assert check_storage(repository, ["Pioneer"]).ok
    assert repository.get_format("Pioneer").decks == 8  # type: ignore[union-attr]


def test_a_not_fixed_line_names_the_file_and_clears_once_it_is_ingested(dynamodb: Any, settings: Settings) -> None:
    # Given a committed event that lost one of its decks
    repository = meta(dynamodb, settings)
    assert ingest(repository, [real_event()], settings).ok
    repository.table.delete_item(Key={"pk": "EVENT#mtgo:12821665", "sk": _deck_keys(repository)[0]})
    # When repair runs, Then it names the file to ingest, and the event leaves the statistics until then
    first = repair_storage(repository, ["Pioneer"])
    [(violation, advice)] = first.left
    assert violation.kind == "missing decks" and f"ingest {PIONEER} again" in advice, first.lines()
    second = repair_storage(repository, ["Pioneer"])
    assert [line for line in second.lines() if "NOT FIXED" in line and PIONEER in line], second.lines()
    assert repository.get_format("Pioneer") is None
    # When the file is ingested, Then the line clears and the event is whole again
    assert ingest(repository, [real_event()], settings).ok
    assert repair_storage(repository, ["Pioneer"]).ok
    assert len(_deck_keys(repository)) == 8


def _deck_keys(repository: MetaRepository) -> list[str]:
    items = repository.table.query(
        KeyConditionExpression="pk = :p AND begins_with(sk, :d)",
        ExpressionAttributeValues={":p": "EVENT#mtgo:12821665", ":d": "DECK#"},
    )["Items"]
    return sorted(str(item["sk"]) for item in items)


def test_a_corrupted_day_total_is_reported_and_repair_recounts_it_from_the_events(
    dynamodb: Any, settings: Settings
) -> None:
    # Given a stored day whose decks total was corrupted
    repository = meta(dynamodb, settings)
    assert ingest(repository, [real_event()], settings).ok
    repository.table.update_item(
        Key={"pk": "FMT#Pioneer", "sk": f"DAY#{DAY}"},
        UpdateExpression="SET decks = :d",
        ExpressionAttributeValues={":d": 80},
    )
    # When the storage is checked, Then the day is reported against its events
    check = check_storage(repository, ["Pioneer"])
    assert [(v.invariant, v.date) for v in check.violations if v.invariant == 6] == [(6, DAY)], check.lines()
    assert "decks 80 (its events say 8)" in "\n".join(check.lines())
    # When it is repaired, Then the day and the registry hold the events' totals (the corrupted one is not copied)
    assert repair_storage(repository, ["Pioneer"]).ok
    assert repository.day_state("Pioneer", DAY).decks == 8  # type: ignore[union-attr]
    assert repository.get_format("Pioneer").decks == 8  # type: ignore[union-attr]


def test_corrupted_day_statistics_are_reported_and_recounted(dynamodb: Any, settings: Settings) -> None:
    # Given a stored day whose statistics (not its totals) were corrupted: one archetype's count doubled
    repository = meta(dynamodb, settings)
    assert ingest(repository, [real_event()], settings).ok
    key = {"pk": "FMT#Pioneer", "sk": f"DAY#{DAY}"}
    data = unpack(repository.table.get_item(Key=key)["Item"]["data"])
    archetype = sorted(data["archetypes"])[0]
    data["archetypes"][archetype]["decks"] *= 2
    repository.table.update_item(
        Key=key,
        UpdateExpression="SET #d = :d",
        ExpressionAttributeNames={"#d": "data"},
        ExpressionAttributeValues={":d": pack(data)},
    )
    # When checked, Then reported; When repaired, Then the statistics are the events' again
    check = check_storage(repository, ["Pioneer"])
    assert "its statistics are not the sum of its events'" in "\n".join(check.lines()), check.lines()
    assert repair_storage(repository, ["Pioneer"]).ok
    [day] = repository.format_days("Pioneer", DAY, DAY)
    assert day.data["archetypes"][archetype]["decks"] * 2 == data["archetypes"][archetype]["decks"]


def test_a_missing_archetype_item_is_reported_and_rewritten(dynamodb: Any, settings: Settings) -> None:
    # Given a day whose archetype item was lost
    repository = meta(dynamodb, settings)
    assert ingest(repository, [real_event()], settings).ok
    state = repository.day_state("Pioneer", DAY)
    assert state is not None
    archetype = sorted(state.archetypes)[0]
    before = repository.archetype_days("Pioneer", archetype, DAY, DAY)
    repository.table.delete_item(Key={"pk": f"ARCH#Pioneer#{archetype}", "sk": f"DAY#{DAY}"})
    # When checked, Then reported; When repaired, Then rewritten from the events
    check = check_storage(repository, ["Pioneer"])
    assert [v.kind for v in check.violations] == ["missing archetype items"], check.lines()
    assert archetype in check.violations[0].detail
    assert repair_storage(repository, ["Pioneer"]).ok
    assert repository.archetype_days("Pioneer", archetype, DAY, DAY) == before


def test_an_archetype_item_its_day_does_not_list_is_reported_and_deleted(dynamodb: Any, settings: Settings) -> None:
    # Given an archetype item its day does not list (as a kill between a day put dropping an archetype and the
    # deletion of its item leaves it)
    repository = meta(dynamodb, settings)
    assert ingest(repository, [real_event()], settings).ok
    state = repository.day_state("Pioneer", DAY)
    assert state is not None and "Rakdos Vampires" not in state.archetypes
    orphan = {"pk": "ARCH#Pioneer#Rakdos Vampires", "sk": f"DAY#{DAY}"}
    repository.table.put_item(Item={**orphan, "data": pack({"decks": 1})})
    # When checked, Then reported; When repaired, Then deleted
    check = check_storage(repository, ["Pioneer"])
    assert [v.kind for v in check.violations] == ["unlisted archetype items"], check.lines()
    assert repair_storage(repository, ["Pioneer"]).ok
    assert "Item" not in repository.table.get_item(Key=orphan)
