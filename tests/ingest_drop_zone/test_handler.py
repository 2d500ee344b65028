"""IngestFunction on moto: S3 event → handler → tables; bad files → the failure queue, tables untouched."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from functools import lru_cache
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.lambda_handler import IngestRetryError
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.models.cards import card_key
from meta_mage.storage.dynamo import storage_operation
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables
from tests.conftest import archive_of, demo_members
from tests.ingest_drop_zone.conftest import BUCKET, EVENTS, ROOT, DropWorld, s3_event

TARKIR = DEMO_DATA_DIR / "drafts" / "tarkir.json"
SAMPLE_KEY = "tournaments/MTGO/2025/10/21/modern-challenge-32-2025-10-2112820757.json"


@lru_cache(maxsize=1)
def sample_file() -> bytes:
    """The file of the sample event: a real Modern Challenge 32 (MTGO, 2025-10-21)."""
    [(_, data)] = demo_members(prefix="Tournaments/MTGO/2025/10/21/modern-challenge-32")
    return data


@lru_cache(maxsize=8)
def format_members(fmt: str) -> tuple[tuple[str, bytes], ...]:
    """The demo archive's files of one format (parsing every member is slow: once per format)."""
    return tuple(demo_members(formats=(fmt,)))


def good_files(fmt: str, n: int) -> list[tuple[str, bytes]]:
    return [(f"tournaments/{name.split('/')[-1]}", data) for name, data in format_members(fmt)[:n]]


def test_sample_event_ingests_the_file_into_the_tables(world: DropWorld) -> None:
    # Given the sample event's object in the bucket
    document = json.loads(sample_file())
    world.put(SAMPLE_KEY, sample_file())

    # When the sample event reaches the function's entry point
    response = world.invoke(json.loads((EVENTS / "ingest_s3_put.json").read_text()))

    # Then the event is stored and counted
    [result] = response["objects"]
    assert (result["key"], result["kind"], result["status"]) == (SAMPLE_KEY, "tournaments", "ingested")
    assert result["outcomes"] == {"added": 1} and result["totals"]["decks"] == len(document["Decks"])
    [modern] = world.meta.list_formats()
    assert (modern.format, modern.tournaments, modern.decks) == ("Modern", 1, len(document["Decks"]))
    assert modern.matches == result["totals"]["matches with a result"] == 7  # an MTGO top-8 bracket
    header = world.meta.get_event_header("mtgo:12820757")
    assert header is not None and header["source_file"] == SAMPLE_KEY
    assert world.messages() == []


def test_same_file_twice_or_under_another_key_changes_nothing(world: DropWorld) -> None:
    first = world.drop(SAMPLE_KEY, sample_file())
    before = world.snapshot()

    again = world.drop(SAMPLE_KEY, sample_file())
    renamed = world.drop("tournaments/copy/renamed.json.gz", gzip.compress(sample_file()))

    assert first["status"] == "ingested"
    assert again["status"] == renamed["status"] == "unchanged"
    assert again["outcomes"] == renamed["outcomes"] == {"unchanged": 1}
    assert world.snapshot() == before
    assert [f.tournaments for f in world.meta.list_formats()] == [1]
    assert world.messages() == []


def truncated() -> bytes:
    return sample_file()[:5000]


def without_rounds() -> bytes:
    document = json.loads(sample_file())
    del document["Rounds"]
    return json.dumps(document).encode()


def bad_last_match() -> bytes:
    """Valid up to its very last match: proves a file is parsed completely before any write."""
    document = json.loads(sample_file())
    document["Rounds"][-1]["Matches"][-1]["Result"] = "2-x-0"
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("key", "make", "error_code", "reason_has"),
    [
        ("tournaments/truncated.json", truncated, "invalid_file", "invalid JSON at line"),
        ("tournaments/no-rounds.json", without_rounds, "invalid_file", "missing 'Rounds'"),
        ("tournaments/bad-final.json", bad_last_match, "invalid_file", "needs Player1, Player2 and Result"),
        ("decklists/modern.json", sample_file, "unknown_prefix", "allowed: tournaments/, cards/, drafts/"),
        ("tournaments/modern.txt", sample_file, "unsupported_file", "must end with .json, .json.gz, .tar.gz"),
        ("cards/modern.tar.gz", sample_file, "unsupported_file", "must end with .json, .json.gz"),
        ("cards/not-cards.json", sample_file, "invalid_file", "not a card corpus"),
        ("drafts/not-a-draft.json", sample_file, "invalid_file", "draft_id: Field required"),
    ],
)
def test_bad_file_goes_to_the_failure_queue_and_writes_nothing(
    world: DropWorld, key: str, make: Any, error_code: str, reason_has: str
) -> None:
    # Given tables that already hold an event
    world.drop("tournaments/vintage.json", good_files("Vintage", 1)[0][1])
    before = world.snapshot()

    # When a bad file is dropped
    result = world.drop(key, make())

    # Then the function returns normally (no async retry), reports the file once, writes nothing
    assert result["status"] == "failed"
    [message] = world.messages()
    assert message["bucket"] == BUCKET and message["key"] == message["source"] == key
    assert message["error_code"] == error_code and reason_has in message["reason"], message
    assert world.snapshot() == before


def test_a_good_and_a_bad_record_in_one_event(world: DropWorld) -> None:
    [(good_key, good)] = good_files("Pauper", 1)
    world.put(good_key, good)
    world.put("tournaments/no-rounds.json", without_rounds())

    response = world.invoke(s3_event("tournaments/no-rounds.json", good_key))

    assert [o["status"] for o in response["objects"]] == ["failed", "ingested"]
    assert [(f.format, f.tournaments) for f in world.meta.list_formats()] == [("Pauper", 1)]
    assert [m["key"] for m in world.messages()] == ["tournaments/no-rounds.json"]


def test_archive_members_are_ingested_one_by_one(world: DropWorld, tmp_path: Any) -> None:
    members = [*format_members("Legacy")[:3], ("broken/no-rounds.json", without_rounds())]
    archive = archive_of(members, tmp_path / "legacy.tar.gz").read_bytes()

    result = world.drop("tournaments/2025/legacy.tar.gz", archive)

    assert result["status"] == "partial" and result["outcomes"] == {"added": 3, "failed": 1}
    [message] = world.messages()
    assert message["key"] == "tournaments/2025/legacy.tar.gz"
    assert message["source"] == "tournaments/2025/legacy.tar.gz:broken/no-rounds.json"
    assert [f.tournaments for f in world.meta.list_formats()] == [3]

    # an unreadable archive is one failure
    assert world.drop("tournaments/cut.tar.gz", archive[:2000])["status"] == "failed"
    assert "unreadable archive" in world.messages()[0]["reason"]


def test_keys_are_url_decoded(world: DropWorld) -> None:
    key = "tournaments/Modern Challenge (Oct 21)/modern+challenge é.json"
    world.put(key, sample_file())
    event = s3_event(key)
    assert "Modern+Challenge+%28Oct+21%29" in event["Records"][0]["s3"]["object"]["key"]

    [result] = world.invoke(event)["objects"]

    assert (result["key"], result["status"]) == (key, "ingested")


@lru_cache(maxsize=1)
def tarkir_cards() -> bytes:
    """The demo corpus cut down to the tarkir cube's cards (real MTGJSON data, a fast ingest)."""
    cube = {card_key(e["name"]) for e in json.loads(TARKIR.read_bytes())["cube"]}
    corpus = json.loads(gzip.decompress((DEMO_DATA_DIR / "cards.json.gz").read_bytes()))
    return gzip.compress(json.dumps([c for c in corpus if card_key(c["name"]) in cube]).encode())


def test_cards_and_draft_through_the_drop_zone_idempotently(world: DropWorld) -> None:
    cards = world.drop("cards/tarkir/cards.json.gz", tarkir_cards())
    draft = world.drop("drafts/tarkir.json", TARKIR.read_bytes())
    assert cards["status"] == draft["status"] == "ingested", (cards, draft)
    stored = world.cards.count()
    assert stored == cards["totals"]["cards stored"] >= 540
    assert draft["totals"]["pool cards"] == 540
    assert [d.draft_id for d in world.drafts.list_drafts()] == ["tarkir"]
    before = world.snapshot()

    again = [
        world.drop("cards/tarkir/cards.json.gz", tarkir_cards()),
        world.drop("drafts/tarkir.json", TARKIR.read_bytes()),
    ]

    assert again[1]["status"] == "unchanged"
    assert world.cards.count() == stored and world.snapshot() == before
    assert world.messages() == []


def test_draft_problems_are_reported(world: DropWorld) -> None:
    tarkir = TARKIR.read_bytes()
    # cube cards must be in the card data: nothing ingested yet
    assert world.drop("drafts/tarkir.json", tarkir)["status"] == "failed"
    header = {"draft_id": "x", "draft_name": "X", "draft_date": "2025-12-01", "pool_csv": "pool.csv"}
    assert world.drop("drafts/x.json", json.dumps(header).encode())["status"] == "failed"
    first, second = world.messages()
    assert "not in the card data" in first["reason"] and "ingest the card corpus first" in first["reason"]
    assert "names pool_csv" in second["reason"] and "meta-mage ingest draft" in second["reason"]
    assert world.drafts.list_drafts() == []


def test_folder_markers_deleted_objects_and_other_events(world: DropWorld) -> None:
    response = world.invoke(
        {
            "Records": [
                *s3_event("tournaments/")["Records"],  # the console's "Create folder"
                *s3_event("tournaments/gone.json")["Records"],  # deleted before it was read
                *s3_event("tournaments/x.json", event_name="ObjectRemoved:Delete")["Records"],
            ]
        }
    )

    assert [o["status"] for o in response["objects"]] == ["skipped", "failed"]
    [message] = world.messages()
    assert (message["key"], message["error_code"]) == ("tournaments/gone.json", "not_found")


def test_storage_errors_raise_for_lambda_retry_and_report_nothing(world: DropWorld) -> None:
    world.put(SAMPLE_KEY, sample_file())
    world.db.Table(world.settings.meta_table).delete()  # DynamoDB "fails"

    with pytest.raises(IngestRetryError, match="DynamoDB error"):
        world.invoke(s3_event(SAMPLE_KEY))

    assert world.messages() == []
    create_tables(world.db, world.settings)  # DynamoDB is back: Lambda's retry ingests the file
    assert world.invoke(s3_event(SAMPLE_KEY))["objects"][0]["status"] == "ingested"


def test_other_records_are_still_processed_when_one_hits_an_infrastructure_error(
    world: DropWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given DynamoDB failing while one event (the flaky file) is written
    [(good_key, good)] = good_files("Standard", 1)
    world.put(good_key, good)
    world.put("tournaments/flaky.json", sample_file())
    real = MetaRepository.write_event

    def flaky_write(self: MetaRepository, tournament: Any, *args: Any, **kwargs: Any) -> None:
        if tournament.source_file == "tournaments/flaky.json":
            raise EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com")
        real(self, tournament, *args, **kwargs)

    monkeypatch.setattr(MetaRepository, "write_event", storage_operation(flaky_write))  # as the repository reports it

    # Then the good record is stored, the flaky one makes Lambda retry and is not reported as bad
    with pytest.raises(IngestRetryError, match=r"flaky\.json: DynamoDB error: Could not connect"):
        world.invoke(s3_event("tournaments/flaky.json", good_key))
    assert [(f.format, f.tournaments) for f in world.meta.list_formats()] == [("Standard", 1)]
    assert world.messages() == []

    # and the retry, with DynamoDB back, stores the flaky file and leaves the good one unchanged
    monkeypatch.setattr(MetaRepository, "write_event", real)
    retried = world.invoke(s3_event("tournaments/flaky.json", good_key))["objects"]
    assert [o["status"] for o in retried] == ["ingested", "unchanged"]
    assert sorted(f.format for f in world.meta.list_formats()) == ["Modern", "Standard"]


def test_unexpected_exception_is_reported_not_retried(world: DropWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    from meta_mage.ingest import drop_zone

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(drop_zone, "ingest_tournament_sources", broken)
    result = world.drop(SAMPLE_KEY, sample_file())

    assert result["status"] == "failed"
    [message] = world.messages()
    assert message["error_code"] == "internal_error" and "KeyError" in message["reason"]


def test_failure_queue_refusing_a_report_makes_lambda_retry(world: DropWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    from meta_mage.ingest import lambda_handler

    monkeypatch.setenv("META_MAGE_INGEST_FAILURE_QUEUE_URL", world.queue_url + "-missing")
    lambda_handler.runtime.cache_clear()
    world.put("tournaments/no-rounds.json", without_rounds())

    with pytest.raises(IngestRetryError, match="failure queue refused"):
        world.invoke(s3_event("tournaments/no-rounds.json"))


def test_without_a_failure_queue_failures_are_only_logged(
    world: DropWorld, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from meta_mage.ingest import lambda_handler

    monkeypatch.delenv("META_MAGE_INGEST_FAILURE_QUEUE_URL")
    lambda_handler.runtime.cache_clear()

    result = world.drop("tournaments/no-rounds.json", without_rounds())

    assert result["status"] == "failed" and world.messages() == []
    assert "no failure queue configured" in caplog.text


def test_ingest_function_imports_no_llm_or_web_framework() -> None:
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('fn', {str(ROOT / 'functions' / 'ingest' / 'app.py')!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "heavy = {'langchain', 'langchain_core', 'langgraph', 'langchain_aws', 'fastapi', 'starlette', 'uvicorn',\n"
        "         'mcp', 'moto'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_drop_zone_stores_exactly_what_meta_mage_ingest_stores(world: DropWorld, tmp_path: Any) -> None:
    # Given four real Pioneer files in an archive
    archive = archive_of(list(format_members("Pioneer")[:4]), tmp_path / "pioneer.tar.gz")

    # When one copy is dropped in the bucket and the other ingested by the CLI's code into another table
    assert world.drop("tournaments/pioneer.tar.gz", archive.read_bytes())["outcomes"] == {"added": 4}
    cli = world.settings.model_copy(update={"meta_table": "cli-meta"})
    assert create_tables(world.db, cli) == ["cli-meta"]
    try:
        report = ingest_tournaments(
            [archive], MetaRepository(world.db.Table("cli-meta")), get_classifier(cli.archetype_rules_dir)
        )
        assert report.ok and report.outcomes == {"added": 4}

        # Then both tables hold the same items (only the recorded source file name differs)
        def items(table: str) -> list[dict[str, Any]]:
            return [{k: v for k, v in i.items() if k != "source_file"} for i in world.scan(table)]

        assert items("cli-meta") == items(world.settings.meta_table)
    finally:
        world.db.Table("cli-meta").delete()
