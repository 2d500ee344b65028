"""The tournament sources are declared readers (``models.sources``): ingest, analytics and sync ask the registry."""

import csv
import json
import re
from pathlib import Path

import pytest

from meta_mage.analytics.sources import describe_sources
from meta_mage.archetypes.classifier import Classification
from meta_mage.ingest.tournaments import event_key, parse_tournament
from meta_mage.models import sources
from meta_mage.models.sources import MELEE, MTGO, UNLISTED, Quirk, SourceReader
from meta_mage.sync.run import SyncFilter

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"

TOPDECK = SourceReader(  # a source no module declares: registered by the test alone
    kind="topdeck",
    host="topdeck.gg",
    folders=("TopDeck", "topdeck.gg"),
    key_prefix="topdeck",
    event_id=re.compile(r"topdeck\.gg/event/(\w+)"),
    matches_of="Swiss matches of",
    event="TopDeck event",
    events="TopDeck events",
    quirks=frozenset({Quirk.SWISS_AND_PLAYOFFS}),
)


def classify(fmt: str, main: dict[str, int], side: dict[str, int]) -> Classification:
    return Classification("Burn", "Burn", "R", "aggro", "archetype")


def event_file(uri: str) -> dict[str, object]:
    return {
        "Tournament": {"Date": "2025-11-01", "Name": "Test Open", "Uri": uri, "Formats": "Modern"},
        "Decks": [{"Player": "Ann", "Mainboard": [{"Count": 4, "CardName": "Lightning Bolt"}]}],
        "Rounds": [{"RoundName": "Round 1", "Matches": [{"Player1": "Ann", "Player2": "-", "Result": "2-0-0"}]}],
    }


@pytest.mark.parametrize(
    ("uri", "kind", "key"),
    [
        ("https://www.mtgo.com/decklist/modern-challenge-64-2025-11-0112822690", "MTGO", "mtgo:12822690"),
        ("https://melee.gg/Tournament/View/351317", "melee", "melee:351317"),
        ("https://example.org/my-event", "other", None),
    ],
)
def test_each_file_is_read_as_its_source_declares(uri: str, kind: str, key: str | None) -> None:
    parsed = parse_tournament(event_file(uri), "t.json", classify)
    assert parsed.source == kind
    assert parsed.event_key == key if key else parsed.event_key.startswith("uri:")


def test_a_registered_reader_is_recognised_by_ingest_named_by_analytics_and_kept_by_sync(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a source declared in one reader, and registered
    uri = "https://topdeck.gg/event/abc123"
    assert parse_tournament(event_file(uri), "t.json", classify).source == "other"
    monkeypatch.setattr(sources, "SOURCES", (*sources.SOURCES, TOPDECK))
    # When a file of it is ingested, its window described and its upstream folder filtered
    parsed = parse_tournament(event_file(uri), "t.json", classify)
    described = describe_sources({"sources": {"topdeck": {"events": 2, "matches": 30}, "MTGO": {"events": 1}}})
    # Then the ingest names its kind and event id, analytics its words, and the sync its folders
    assert (parsed.source, parsed.event_key) == ("topdeck", "topdeck:abc123")
    assert event_key(uri, "renamed", "2025-11-02", "Modern") == "topdeck:abc123"
    assert described == "0 top-8 playoff matches of one MTGO Challenge, 30 Swiss matches of 2 TopDeck events"
    assert SyncFilter.of(["topdeck"]).wants_source("TopDeck")
    assert not SyncFilter.of(["topdeck"]).wants_source("MTGO")


@pytest.mark.parametrize(
    ("wanted", "folder", "kept"),
    [
        ("mtgo", "MTGO", True),
        ("mtgo", "mtgo.com", True),
        ("mtgo", "mtgo.com_limited_data", True),
        ("melee", "MTGmelee", True),
        ("melee", "melee.gg", True),
        ("mtgmelee", "MTGmelee", True),
        ("melee", "MTGO", False),
        ("mtgo", "topdeck.gg", False),
        ("topdeck", "topdeck.gg", True),  # a folder no source declares: matched by its name or stem alone
    ],
)
def test_sync_filter_keeps_a_source_kinds_folders(wanted: str, folder: str, kept: bool) -> None:
    assert SyncFilter.of([wanted]).wants_source(folder) is kept
    assert SyncFilter.of([]).wants_source(folder)


def test_the_other_kind_names_no_event_and_is_described_last() -> None:
    assert UNLISTED.event_key("https://melee.gg/Tournament/View/1") is None
    assert sources.listed_kinds()[-1] == "other"
    assert sources.source_of_kind("nothing") is UNLISTED
    assert describe_sources({"sources": {"other": {"events": 1, "matches": 3}}}) == "3 matches of one other event"


def test_declared_quirks_are_the_ones_the_data_shows() -> None:
    assert Quirk.PLAYOFFS_ONLY in MTGO.quirks and Quirk.DRAW_LISTED_TWICE not in MTGO.quirks
    assert {Quirk.DRAW_LISTED_TWICE, Quirk.BYE_AGAINST_DASH} <= MELEE.quirks


@pytest.mark.skipif(not (DATA / "INDEX.csv").exists(), reason="needs ../shared/data")
def test_every_shared_file_is_recognised_by_the_source_owning_its_folder() -> None:
    rows = list(csv.DictReader((DATA / "INDEX.csv").open(encoding="utf-8")))
    for row in rows[:: max(1, len(rows) // 40)]:  # 40 files across both sources
        folder = row["path"].split("/")[1]
        uri = json.loads((DATA / "tournaments" / row["path"]).read_text(encoding="utf-8"))["Tournament"]["Uri"]
        reader = sources.source_of_folder(folder)
        assert reader is not None and sources.source_of_uri(uri) is reader, (folder, uri)
        assert (event_key(uri, "", "", "") or "").startswith(reader.key_prefix + ":"), uri
