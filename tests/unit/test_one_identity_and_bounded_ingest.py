"""Data no file can skew (issue 51): one identity rule in the bounds and the statistics, one version of an event
kept by its content whatever the file order, the per-day cap within a run and across runs, only regular files
read, and dates with a real time of day. Real files of the bundled demo data (``demo_data/tournaments.tar.gz``,
GPL-3.0: see ``demo_data/LICENSES/TOURNAMENTS-GPL-3.0.txt``)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from meta_mage.analytics.aggregate import summarise_event
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest import tournament_ingest
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.ingest.tournaments import parse_tournament
from meta_mage.models.names import player_identity
from meta_mage.models.tournaments import ParsedTournament
from meta_mage.storage.meta import MetaRepository
from tests.conftest import demo_members, top_eight

BALTIMORE = "oversized-standard-scg-con-baltimore-friday-300-pm-356126-2025-10-24.json"  # a real Standard event
CLASSIFY = get_classifier(DEMO_DATA_DIR / "archetypes").classify


def bundled(name: str) -> dict[str, Any]:
    (data,) = [data for member, data in demo_members() if member.endswith("/" + name)]
    document: dict[str, Any] = json.loads(data)
    return document


def parse(document: dict[str, Any]) -> ParsedTournament:
    return parse_tournament(document, "event.json", CLASSIFY)


def not_land(_: str) -> bool:
    return False


# --- one identity rule ------------------------------------------------------------------------------------------

_FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}
_CYRILLIC = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "A": "\u0410", "E": "\u0415"}
_INVISIBLES = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066")


def spellings(name: str, count: int) -> list[str]:
    """``count`` ways to write ``name`` that read alike: cases, fullwidth letters, Cyrillic look-alikes,
    invisible and bidi characters, each mixed with the others."""
    found: list[str] = []
    for n in range(count):
        places = [i for i, c in enumerate(name) if c.isalpha()]  # n's bits set the case of each letter
        letters = [
            c.upper() if i in places and (n // 3 >> places.index(i)) & 1 else c.lower() for i, c in enumerate(name)
        ]
        if n % 3 == 1:
            letters = [_FULLWIDTH.get(c, c) if i % 2 else c for i, c in enumerate(letters)]
        if n % 3 == 2:
            letters = [_CYRILLIC.get(c, c) for c in letters]
        mark = _INVISIBLES[n % len(_INVISIBLES)]
        letters.insert(n % (len(letters) + 1), mark * (1 + n // 400))
        found.append("".join(letters))
    assert len(set(found)) == count
    return found


def two_real_players(document: dict[str, Any]) -> tuple[str, str]:
    """Two players of the event with decks of two archetypes, who never met."""
    decks = {d.player: d for d in parse(document).decks if d.archetype}
    met = {frozenset((m["Player1"], m["Player2"])) for r in document["Rounds"] for m in r["Matches"]}
    names = sorted(decks)
    return next(
        (a, b)
        for a in names
        for b in names
        if a < b and decks[a].archetype != decks[b].archetype and frozenset((a, b)) not in met
    )


def test_two_players_spelled_hundreds_of_ways_in_many_rounds_are_refused() -> None:
    # Given a real Standard event and ten rounds added in which two of its players, each spelled 200 ways, meet
    document = bundled(BALTIMORE)
    one, other = two_real_players(document)
    ones, others = spellings(one, 200), spellings(other, 200)
    for number in range(10):  # each spelling meets another spelling of the other player every round
        rows = zip(ones, others[number:] + others[:number], strict=True)
        matches = [{"Player1": a, "Player2": b, "Result": "2-0-0"} for a, b in rows]
        document["Rounds"].append({"RoundName": f"Extra {number}", "Matches": matches})
    # When it is read, then it is refused: one pair meeting in ten rounds (it was stored, with 2,000 more matches)
    with pytest.raises(InputFileError) as refusal:
        parse(document)
    assert "meet in more than 3 rounds" in refusal.value.reason


def test_two_players_spelled_two_thousand_ways_in_one_round_are_one_match_of_two_players() -> None:
    # Given a real Standard event and one round added in which two of its players, each spelled 2,000 ways, meet
    original = bundled(BALTIMORE)
    one, other = two_real_players(original)
    document = copy.deepcopy(original)
    rows = zip(spellings(one, 2_000), spellings(other, 2_000), strict=True)
    matches = [{"Player1": a, "Player2": b, "Result": "2-0-0"} for a, b in rows]
    document["Rounds"].append({"RoundName": "Extra", "Matches": matches})
    # and 300 more decks listing the first player's list under 300 of those spellings
    (first_deck,) = [d for d in original["Decks"] if d["Player"] == one]
    document["Decks"] += [{**first_deck, "Player": name} for name in spellings(one, 301)[1:]]
    # When it is read
    parsed = parse(document)
    before, after = summarise_event(parse(original), not_land).format, summarise_event(parsed, not_land).format
    # Then the round is one match between two players (it was 2,000 matches), its winner credited once
    added = [m for m in parsed.matches if m.round_name == "Extra"]
    assert [(player_identity(m.player1), player_identity(m.player2)) for m in added] == [
        (player_identity(one), player_identity(other))
    ]
    assert after.matches == before.matches + 1
    # and the player has one deck (it was 301), their archetype one pilot more than none
    assert len(parsed.decks) == len(original["Decks"])
    arch = next(d.archetype for d in parsed.decks if d.player == one)
    assert after.archetypes[arch].decks == before.archetypes[arch].decks
    assert after.archetypes[arch].pilots == before.archetypes[arch].pilots
    assert f"player {json.dumps(one)[1:-1]!r} has 301 decks in this file, all one list; it is kept once" in (
        parsed.warnings
    )


def test_no_two_entrants_of_a_real_event_are_one_player() -> None:
    # Given every bundled event: its entrants, as its decks and rounds name them
    for member, data in demo_members():
        document = json.loads(data)
        names = {d["Player"].strip() for d in document["Decks"]}
        names |= {m[side].strip() for r in document["Rounds"] for m in r["Matches"] for side in ("Player1", "Player2")}
        # Then the identity rule keeps them apart: as many players as names
        assert len({player_identity(name) for name in names}) == len(names), member


# --- dates ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written", ["2025-10-24T25:61:00", "2025-10-24T24:00:00Z", "2025-10-24T10:60", "2025-10-24T10:00:00+15:00"]
)
def test_a_date_with_an_impossible_time_of_day_or_offset_is_refused(written: str) -> None:
    document = bundled(BALTIMORE)
    document["Tournament"]["Date"] = written
    with pytest.raises(InputFileError) as refusal:
        parse(document)
    assert refusal.value.reason.startswith(f"Tournament.Date {written!r} is not a date")


@pytest.mark.parametrize(
    ("written", "day"),
    [
        ("2025-10-24T23:00:00+00:00", "2025-10-24"),  # as the real files write it
        ("2025-10-24T21:30:00-05:00", "2025-10-25"),  # 02:30 UTC the next day
        ("2025-10-24T01:00:00+02:00", "2025-10-23"),  # 23:00 UTC the day before
        ("2025-10-24T10:00:00Z", "2025-10-24"),
        ("2025-10-24", "2025-10-24"),
    ],
)
def test_a_date_with_an_offset_is_its_utc_day(written: str, day: str) -> None:
    document = bundled(BALTIMORE)
    document["Tournament"]["Date"] = written
    assert parse(document).date == day


# --- ingest: one version by content, the per-day cap -------------------------------------------------------------


@pytest.fixture()
def repository(dynamodb: Any, settings: Settings) -> MetaRepository:
    return MetaRepository(dynamodb.Table(settings.meta_table))


def small_event() -> dict[str, Any]:
    """A real event cut to its top 8 (every kind of item an ingest writes, quickly)."""
    _, data = next((m, d) for m, d in demo_members(formats=("Modern",)) if "challenge" in m)
    document: dict[str, Any] = json.loads(top_eight(data))
    return document


def write(folder: Path, name: str, document: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("larger_first", [True, False])
def test_two_versions_of_one_event_in_one_folder_store_the_same_version_on_every_run(
    repository: MetaRepository, settings: Settings, tmp_path: Path, larger_first: bool
) -> None:
    # Given a folder holding two versions of one real event, one with a deck fewer, in either file order
    full = small_event()
    smaller = copy.deepcopy(full)
    smaller["Decks"].pop()
    first, second = (full, smaller) if larger_first else (smaller, full)
    write(tmp_path, "a.json", first)
    write(tmp_path, "b.json", second)
    kept = "a.json" if larger_first else "b.json"
    classifier = get_classifier(settings.archetype_rules_dir)
    key = parse(full).event_key
    # When it is ingested three times
    stored = []
    for _ in range(3):
        report = ingest_tournaments([tmp_path], repository, classifier)
        assert report.ok, report.summary()
        header = repository.get_event_header(key)
        assert header is not None
        stored.append((header["decks"], header["source_file"]))
    # Then every run stores the version with more decks (it alternated between the two)
    assert stored == [(len(full["Decks"]), str(tmp_path / kept))] * 3
    skipped = [line for line in report.file_lines() if "another version of its event is kept" in line]
    assert len(skipped) == 1


@pytest.fixture()
def two_events_a_day(monkeypatch: pytest.MonkeyPatch) -> int:
    """The per-day cap lowered to 2 events, so three real events of one day pass it."""
    monkeypatch.setattr(tournament_ingest, "MAX_EVENTS_PER_DAY", 2)
    return 2


def events_of_one_day(count: int) -> Iterator[dict[str, Any]]:
    """``count`` distinct events of one day: one real event under other ids."""
    for number in range(count):
        document = small_event()
        document["Tournament"]["Uri"] = (
            f"https://www.mtgo.com/decklist/modern-challenge-32-2025-12-05{9_000_000 + number}"
        )
        document["Tournament"]["Name"] += f" #{number}"
        yield document


def test_the_per_day_cap_holds_within_one_run(
    repository: MetaRepository, settings: Settings, tmp_path: Path, two_events_a_day: int
) -> None:
    # Given three events of one day in one input, and room for two
    paths = [write(tmp_path, f"e{n}.json", doc) for n, doc in enumerate(events_of_one_day(3))]
    # When they are ingested in one run
    report = ingest_tournaments(paths, repository, get_classifier(settings.archetype_rules_dir))
    # Then two are stored and the third fails on its own, naming the cap (all three were stored)
    outcomes = {Path(name).name: outcome for name, outcome, _ in report.files}
    assert outcomes == {"e0.json": "added", "e1.json": "added", "e2.json": "failed"}
    assert "already counts 2 events with those of this run" in report.failures[0][1]
    parsed = parse(json.loads(paths[0].read_text()))
    state = repository.day_state(parsed.format, parsed.date)
    assert state is not None and len(state.events) == two_events_a_day


def test_the_per_day_cap_holds_across_runs(
    repository: MetaRepository, settings: Settings, tmp_path: Path, two_events_a_day: int
) -> None:
    # Given a day holding two events from a first run
    paths = [write(tmp_path, f"e{n}.json", doc) for n, doc in enumerate(events_of_one_day(3))]
    classifier = get_classifier(settings.archetype_rules_dir)
    assert ingest_tournaments(paths[:2], repository, classifier).ok
    # When a third event of that day is ingested, then it fails naming the cap, and the day keeps two
    report = ingest_tournaments(paths[2:], repository, classifier)
    assert [outcome for _, outcome, _ in report.files] == ["failed"]
    parsed = parse(json.loads(paths[0].read_text()))
    state = repository.day_state(parsed.format, parsed.date)
    assert state is not None and len(state.events) == two_events_a_day


# --- only regular files ------------------------------------------------------------------------------------------

_READ_ALL = textwrap.dedent(
    """
    import resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GB: reading /dev/zero whole fails fast
    from meta_mage.ingest.files import MAX_TOURNAMENT_BYTES, count_source_files, iter_source_files
    paths = [Path(p) for p in sys.argv[1:]]
    count_source_files(paths)
    for source in iter_source_files(paths, MAX_TOURNAMENT_BYTES):
        print(str(source))
    """
)


def test_only_regular_files_are_read_with_one_line_each(tmp_path: Path) -> None:
    # Given a device, a symlink to it, FIFOs named as a tournament file and an archive, in a folder and named
    fifo, fifo_archive, link = tmp_path / "event.json", tmp_path / "events.tar.gz", tmp_path / "zero.json"
    os.mkfifo(fifo)
    os.mkfifo(fifo_archive)
    link.symlink_to("/dev/zero")
    # When they are read (in a process of at most 1 GB that must be done in 60 s; a FIFO opened blocks forever)
    done = subprocess.run(
        [sys.executable, "-c", _READ_ALL, "/dev/zero", str(link), str(fifo), str(fifo_archive), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # Then each is one line saying it is not a regular file (it read 2.7 GB, then raised MemoryError)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "/dev/zero: not a regular file (a device); only regular files are read",
        f"{link}: not a regular file (a device); only regular files are read",
        f"{fifo}: not a regular file (a FIFO); only regular files are read",
        f"{fifo_archive}: not a regular file (a FIFO); only regular files are read",
        f"{fifo}: not a regular file (a FIFO); only regular files are read",
        f"{fifo_archive}: not a regular file (a FIFO); only regular files are read",
        f"{link}: not a regular file (a device); only regular files are read",
    ]
