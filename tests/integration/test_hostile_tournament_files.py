"""Hostile or broken tournament files are refused one by one, with their reason; the good ones of the same run
are stored, and nothing a refused file holds reaches the aggregates."""

from __future__ import annotations

import copy
import gzip
import json
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import MAX_TOURNAMENT_BYTES, SourceFile
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.storage.meta import MetaRepository
from tests.conftest import demo_members


def real_event() -> dict[str, Any]:
    _, data = demo_members(formats=("Modern",))[0]
    return json.loads(data)


def as_file(name: str, document: Any) -> SourceFile:
    return SourceFile(name, json.dumps(document).encode())


def variant(change: Any) -> dict[str, Any]:
    document = copy.deepcopy(real_event())
    change(document)
    return document


def _pair_rematches(document: dict[str, Any]) -> None:
    match = next(m for r in document["Rounds"] for m in r["Matches"] if m["Player2"] != "-")
    document["Rounds"] = [{"RoundName": f"Round {i + 1}", "Matches": [dict(match)]} for i in range(10)]


def _ten_thousand_rounds(document: dict[str, Any]) -> None:
    match = next(m for r in document["Rounds"] for m in r["Matches"] if m["Player2"] != "-")
    document["Rounds"] = [{"RoundName": f"Round {i + 1}", "Matches": [dict(match)]} for i in range(10_000)]


def _one_round_flood(document: dict[str, Any]) -> None:
    player = document["Decks"][0]["Player"]
    document["Rounds"][0]["Matches"] += [
        {"Player1": player, "Player2": f"ghost{i}", "Result": "2-0-0"} for i in range(50)
    ]


def _huge_deck(document: dict[str, Any]) -> None:
    document["Decks"][0]["Mainboard"] = [{"CardName": f"Flooded card line {i:05d}", "Count": 1} for i in range(20_000)]


HOSTILE: list[tuple[str, bytes, str]] = [
    ("deep.json", b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    ("deep-object.json", b'{"Tournament": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested too deeply"),
    ("list.json", b"[1, 2, 3]", "expected a JSON object"),
    ("latin1.json", json.dumps(real_event()).replace("Modern", "Modérn").encode("latin-1"), "not UTF-8"),
    (
        "bomb.json.gz",
        gzip.compress(b" " * (MAX_TOURNAMENT_BYTES + 10)),
        "compressed more than 100:1 (a decompression bomb)",
    ),
    ("cut.json.gz", gzip.compress(json.dumps(real_event()).encode())[:-20], "truncated or corrupt gzip"),
    ("future.json", json.dumps(variant(lambda d: d["Tournament"].update(Date="9999-12-31"))).encode(), "future"),
    ("t1.json", json.dumps(variant(lambda d: d["Tournament"].update(Date="2025-11-16T1"))).encode(), "not a date"),
    ("week.json", json.dumps(variant(lambda d: d["Tournament"].update(Date="2025-W46-7"))).encode(), "not a date"),
    (
        "ancient.json",
        json.dumps(variant(lambda d: d["Tournament"].update(Date="2001-01-01"))).encode(),
        "before Modern",
    ),
    ("rounds.json", json.dumps(variant(_ten_thousand_rounds)).encode(), "10,000 rounds"),
    ("rematch.json", json.dumps(variant(_pair_rematches)).encode(), "meet in more than 3 rounds"),
    ("flood.json", json.dumps(variant(_one_round_flood)).encode(), "plays more than 2 matches"),
    ("huge-deck.json", json.dumps(variant(_huge_deck)).encode(), "20,000 card lines; a list has at most 250"),
]


@pytest.mark.parametrize(("name", "data", "reason"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_hostile_file_is_refused_with_its_reason_and_the_good_one_stored(
    dynamodb: Any, settings: Settings, name: str, data: bytes, reason: str
) -> None:
    # Given a hostile file between... nothing else: then a good file in the same run
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    good = as_file("good.json", real_event())
    # When both are ingested
    report = ingest_tournament_sources(
        [SourceFile(name, data), good], repository, get_classifier(settings.archetype_rules_dir)
    )
    # Then the hostile one is one failure naming it and why, not a DynamoDB error (no retry would help)
    assert report.outcomes["added"] == 1 and len(report.failures) == 1, report.summary()
    ((source, why),) = report.failures
    assert source == name and reason in why, why
    assert report.storage_failures == set()
    # and only the good event counts
    summary = repository.get_format("Modern")
    assert summary is not None and summary.tournaments == 1


def test_a_timestamped_date_is_stored_as_its_day(dynamodb: Any, settings: Settings) -> None:
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    document = variant(lambda d: d["Tournament"].update(Date="2025-11-16T23:00:00+00:00"))
    report = ingest_tournament_sources(
        [as_file("t.json", document)], repository, get_classifier(settings.archetype_rules_dir)
    )
    assert report.ok
    assert repository.get_format("Modern").last_date == "2025-11-16"  # type: ignore[union-attr]


def test_an_event_without_decks_is_stored_but_never_moves_the_window(dynamodb: Any, settings: Settings) -> None:
    # Given a format with one real event
    repository = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)
    real = real_event()
    assert ingest_tournament_sources([as_file("real.json", real)], repository, classifier).ok
    before = repository.get_format("Modern")
    # When an event of no deck, dated later, is ingested
    empty = {
        "Tournament": dict(real["Tournament"], Date="2025-12-20", Uri="https://example.org/empty", Name="Empty"),
        "Decks": [],
        "Rounds": [],
    }
    assert ingest_tournament_sources([as_file("empty.json", empty)], repository, classifier).ok
    # Then it is counted as a tournament, but the format's dates (and so its default window) stay
    after = repository.get_format("Modern")
    assert before is not None and after is not None
    assert (after.first_date, after.last_date) == (before.first_date, before.last_date)
    assert after.tournaments == before.tournaments + 1 and after.decks == before.decks
