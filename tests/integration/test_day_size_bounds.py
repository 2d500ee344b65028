"""No day can grow past DynamoDB's item limit: a day's aggregates are split into parts that each fit an item,
whatever the day holds, and one day that cannot be written never stops the others, a repair or a sync."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from botocore.exceptions import ClientError

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.invariants import check_storage
from meta_mage.ingest.repair import repair_storage
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.models.tournament_file import MAX_CARD_NAME_CHARS, MAX_LINES_PER_LIST
from meta_mage.storage.dynamo import pack
from meta_mage.storage.meta import MAX_ITEM_BYTES, MetaRepository, item_size
from tests.conftest import demo_members

DAY = "2025-11-05"


def unnamed_names(rng: random.Random, count: int) -> list[str]:
    """Card names as long as the validator admits, random enough that compression barely shrinks them."""
    return [
        f"{rng.getrandbits(4 * (MAX_CARD_NAME_CHARS - 1)):0{MAX_CARD_NAME_CHARS - 1}x}"[:MAX_CARD_NAME_CHARS]
        for _ in range(count)
    ]


def widest_event(number: int, decks: int, rng: random.Random) -> SourceFile:
    """A Modern event whose decks each list as many distinct, maximally long card names as a list may hold
    (no archetype rule knows them: every deck is one archetype, "Unknown"), all paired in one round."""
    players = [f"player{number}-{i}" for i in range(decks)]
    document = {
        "Tournament": {
            "Date": f"{DAY}T00:00:00Z",
            "Name": f"Widest Modern {number}",
            "Uri": f"https://example.org/widest/{number}",
            "Formats": "Modern",
        },
        "Decks": [
            {
                "Player": player,
                "Result": "",
                "Mainboard": [{"CardName": name, "Count": 1} for name in unnamed_names(rng, MAX_LINES_PER_LIST)],
                "Sideboard": [],
            }
            for player in players
        ],
        "Rounds": [
            {
                "RoundName": "Round 1",
                "Matches": [
                    {"Player1": players[i], "Player2": players[i + 1], "Result": "2-1-0"} for i in range(0, decks, 2)
                ],
            }
        ],
    }
    return SourceFile(f"widest-{number}.json", json.dumps(document).encode())


def all_items(repository: MetaRepository) -> list[dict[str, Any]]:
    items, kwargs = [], {}
    while True:
        page = repository.table.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_a_day_of_the_widest_events_is_stored_in_items_that_fit(dynamodb: Any, settings: Settings) -> None:
    # Given three events of one day, each as wide as an event item allows (the day's card statistics for its
    # one archetype pack to more than DynamoDB's item limit: the day could not be written before)
    rng = random.Random(33)
    events = [widest_event(number, 8, rng) for number in range(3)]
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)
    # When they are ingested (one run, then one more on the same day in another run)
    first = ingest_tournament_sources(events[:2], repository, classifier)
    second = ingest_tournament_sources(events[2:], repository, classifier)
    # Then every event is stored, no item passes the limit, and the day's parts add up to every card
    assert first.ok and second.ok and first.outcomes["added"] == 2, (first.summary(), second.summary())
    sizes = [item_size(item) for item in all_items(repository)]
    assert max(sizes) <= MAX_ITEM_BYTES
    state = repository.day_state("Modern", DAY)
    assert state is not None and state.tournaments == 3 and state.archetype_parts.get("Unknown", 1) >= 2
    [day] = repository.archetype_days("Modern", "Unknown", DAY, DAY)
    assert len(pack(day.data)) > MAX_ITEM_BYTES  # what one item held before, and DynamoDB refused
    assert len(day.data["main"]) == 3 * 8 * MAX_LINES_PER_LIST and day.data["decks"] == 24
    [format_day] = repository.format_days("Modern", DAY, DAY)
    assert format_day.data["tournaments"] == 3
    assert check_storage(repository, ["Modern"]).ok
    assert repository.get_format("Modern").tournaments == 3  # type: ignore[union-attr]


def refused_by_dynamodb(*_: Any, **__: Any) -> Any:
    raise ClientError({"Error": {"Code": "ValidationException", "Message": "Item size has exceeded"}}, "PutItem")


def test_a_day_dynamodb_refuses_stops_no_other_day_and_is_not_retried(
    dynamodb: Any, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given two Pioneer events on different days, and DynamoDB refusing (ValidationException) one day's write
    [(name_a, a), (name_b, b)] = [m for m in demo_members(formats=("Pioneer",)) if "/10/2" in m[0]][:2]
    assert name_a.split("/")[-2] != name_b.split("/")[-2]
    refused_day = name_a.split("/")[-1][-23:-13]  # the date in its MTGO file name
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    real = MetaRepository._put_day

    def put_day(self: MetaRepository, day_item: dict[str, Any], *args: Any) -> None:
        if day_item["sk"] == f"DAY#{refused_day}":
            return refused_by_dynamodb()  # type: ignore[no-any-return]
        return real(self, day_item, *args)

    monkeypatch.setattr(MetaRepository, "_put_day", put_day)
    files = [SourceFile(name_a, a), SourceFile(name_b, b)]
    report = ingest_tournament_sources(files, repository, get_classifier(settings.archetype_rules_dir))
    # Then the other day's event is stored and counted, and the refused file is a bad file, not a retry
    assert report.outcomes["added"] == 1 and report.outcomes["failed"] == 1, report.summary()
    assert report.storage_failures == set()
    assert "DynamoDB refused an item of this event while updating Pioneer" in report.summary()
    assert repository.get_format("Pioneer").tournaments == 1  # type: ignore[union-attr]
    # and repair, the refusal still there, never commits the failed file: it removes what was written of it and
    # names the file to ingest again
    report_repair = repair_storage(repository, ["Pioneer"])
    assert [violation.date for violation, _ in report_repair.left] == [refused_day], report_repair.lines()
    assert f"ingest {name_a} again" in "\n".join(report_repair.lines())
    monkeypatch.undo()
    # and once DynamoDB takes it, repair still does not commit it; ingesting the file stores it and clears the line
    assert not repair_storage(repository, ["Pioneer"]).ok
    assert repository.get_format("Pioneer").tournaments == 1  # type: ignore[union-attr]
    again = ingest_tournament_sources(files, repository, get_classifier(settings.archetype_rules_dir))
    assert again.outcomes == {"added": 1, "unchanged": 1}, again.summary()
    assert repair_storage(repository, ["Pioneer"]).ok
    assert repository.get_format("Pioneer").tournaments == 2  # type: ignore[union-attr]


def test_an_event_too_wide_for_one_item_is_refused_before_anything_is_written(
    dynamodb: Any, settings: Settings
) -> None:
    # Given one event within every bound of the validator whose own aggregate cannot fit an item
    event = widest_event(9, 24, random.Random(34))
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    # When it is ingested, Then it is one failed file naming the limit, and nothing of it is stored
    report = ingest_tournament_sources([event], repository, get_classifier(settings.archetype_rules_dir))
    assert report.outcomes["failed"] == 1 and report.storage_failures == set(), report.summary()
    assert "over DynamoDB's 400 KB item limit" in report.summary()
    assert all_items(repository) == []
