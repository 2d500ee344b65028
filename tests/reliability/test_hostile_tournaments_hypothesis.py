"""Hypothesis-built hostile tournament files: mutations of a valid event (huge, negative, fractional, boolean or
textual counts, missing keys, wrong types, giant, control-character or lone-surrogate names, repeated players,
thousands of decks or pairings, nested junk, bad dates and results).

Every file is either refused with ``InputFileError`` or read into an event within every bound; no other
exception escapes. Through the real storage path (moto DynamoDB), a refused file writes nothing.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from meta_mage.archetypes.classifier import Classification, get_classifier
from meta_mage.errors import MESSAGE_CHARS
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.ingest.tournaments import MAX_MATCHES_PER_ROUND, MAX_PAIR_MEETINGS, parse_tournament
from meta_mage.models.names import player_identity
from meta_mage.models.tournament_file import (
    BASIC_LANDS,
    MAX_BASIC_COPIES,
    MAX_CARD_NAME_CHARS,
    MAX_COPIES,
    MAX_DECKS,
    MAX_EVENT_NAME_CHARS,
    MAX_LINES_PER_LIST,
    MAX_MAINBOARD_CARDS,
    MAX_PAIRINGS_PER_ROUND,
    MAX_PLACING_CHARS,
    MAX_PLAYER_NAME_CHARS,
    MAX_ROUND_NAME_CHARS,
    MAX_ROUNDS,
    MAX_SIDEBOARD_CARDS,
    MAX_URI_CHARS,
    MAX_WARNINGS,
)
from meta_mage.models.tournaments import FORMAT_STARTS, FORMATS, ParsedTournament
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables
from tests.conftest import prefixed_settings

TODAY = dt.date(2025, 12, 1)
Document = dict[str, Any]
Draw = Callable[[st.SearchStrategy[Any]], Any]
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def classify(fmt: str, main: dict[str, int], side: dict[str, int]) -> Classification:
    return Classification("Burn", "Burn", "R", "aggro", "archetype")


def card_lines(cards: dict[str, int]) -> list[Document]:
    return [{"CardName": name, "Count": count} for name, count in cards.items()]


def valid_event() -> Document:
    """A small event as a real melee file has it: split and double-faced names, a bye, a draw, a deckless player."""
    lists = {
        "Ann": ({"Lightning Bolt": 4, "Mountain": 20, "Fire // Ice": 2}, {"Smash to Smithereens": 2}),
        "Bea": ({"Urza's Tower": 4, "Marang River Regent // Coil and Catch // Marang River Regent": 2}, {}),
        "Cid": ({"Relentless Rats": 20, "Swamp": 20}, {"Snow-Covered Swamp": 4}),
        "Dee": ({}, {}),
    }
    decks = [
        {"Player": p, "Result": f"{i + 1}th Place", "Mainboard": card_lines(m), "Sideboard": card_lines(s)}
        for i, (p, (m, s)) in enumerate(lists.items())
    ]
    return {
        "Tournament": {
            "Date": "2025-11-01T08:30:00+00:00",
            "Name": "Hostile Open",
            "Uri": "https://melee.gg/Tournament/View/4242",
            "Formats": "Modern",
        },
        "Decks": decks,
        "Rounds": [
            {
                "RoundName": "Round 1",
                "Matches": [
                    {"Player1": "Ann", "Player2": "Bea", "Result": "2-1-0"},
                    {"Player1": "Cid", "Player2": "-", "Result": "2-0-0"},
                    {"Player1": "Dee", "Player2": "Stranger", "Result": "1-1-1"},
                ],
            },
            {"RoundName": "Round 2", "Matches": [{"Player1": "Ann", "Player2": "Cid", "Result": "0-0-3"}]},
        ],
        "Standings": [],
    }


# --- values a hostile file may hold --------------------------------------------------------------------------

giant_text = st.builds(
    lambda piece, times: piece * times,
    st.sampled_from(["x", "é", "黃", "\u200d", " ", "\x00", "\u2028", "🂡", "a\u0301"]),
    st.integers(0, 20_000),
)
hostile_text = st.one_of(
    st.text(max_size=30),
    st.text(st.characters(max_codepoint=0xA0), max_size=12),  # C0/C1 controls, DEL, NBSP
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()), max_size=3),
    giant_text,
    st.sampled_from(["", " ", "-", " - ", "Island", "ISLAND", "Snow-Covered Island", " // ", "Fire // Ice", "Bye"]),
)
numbers = st.one_of(
    st.integers(-(10**3), 10**3),
    st.integers(10**14 - 2, 10**15 + 2),
    st.integers(10**15, 10**80),
    st.integers(-(10**80), -1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)
scalars = st.one_of(st.none(), numbers, hostile_text)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10,
)
deep_junk = st.builds(
    lambda depth, leaf: json.loads("[" * depth + json.dumps(leaf) + "]" * depth), st.integers(1, 60), scalars
)
dates = st.one_of(
    st.dates().map(dt.date.isoformat),
    st.datetimes().map(lambda d: d.isoformat() + "+00:00"),
    st.sampled_from(["2025-13-45", "2025-11-16T1", "2025-W46-7", "9999-12-31", "2001-01-01", " 2025-11-01 ", ""]),
    junk,
)
results = st.one_of(
    st.from_regex(r"\A-?[0-9]{1,20}-[0-9]{1,3}(-[0-9]{0,3})?\Z"),
    st.sampled_from(["2-0-0", "0-2-0", "0-0-0", "1-1-1", "0-0-3", "3-2-0", "2-0-0\n", "٢-٠-٠"]),
    junk,
)


# --- mutations of a valid event ------------------------------------------------------------------------------


def sizes(boundary: int, usual: int) -> st.SearchStrategy[int]:
    """A size up to ``usual``, or (a sixth of the time: such files are slow to build and read) one either side
    of ``boundary``."""
    near_boundary = st.sampled_from([boundary - 1, boundary, boundary + 1])
    return st.tuples(st.integers(0, 5), st.integers(0, usual), near_boundary).map(lambda t: t[2] if t[0] == 0 else t[1])


def a_deck(draw: Draw, document: Document) -> Document:
    decks = [d for d in document["Decks"] if isinstance(d, dict)]
    return draw(st.sampled_from(decks)) if decks else {}


def a_line(draw: Draw, document: Document) -> Document:
    deck = a_deck(draw, document)
    lines = [line for board in ("Mainboard", "Sideboard") for line in deck.get(board) or [] if isinstance(line, dict)]
    return draw(st.sampled_from(lines)) if lines else {}


def a_match(draw: Draw, document: Document) -> Document:
    rounds = [r for r in document["Rounds"] if isinstance(r, dict) and isinstance(r.get("Matches"), list)]
    matches = [m for r in rounds for m in r["Matches"] if isinstance(m, dict)]
    return draw(st.sampled_from(matches)) if matches else {}


def a_spot(draw: Draw, document: Document) -> tuple[Any, Any]:
    """A random (container, key) of the document, reached by a random walk from the top."""
    container: Any = document
    key: Any = draw(st.sampled_from(sorted(document)))
    while isinstance(container[key], dict | list) and container[key] and draw(st.booleans()):
        container = container[key]
        key = draw(
            st.sampled_from(sorted(container)) if isinstance(container, dict) else st.integers(0, len(container) - 1)
        )
    return container, key


def hostile_count(draw: Draw, document: Document) -> None:
    a_line(draw, document)["Count"] = draw(st.one_of(numbers, junk))


def hostile_name(draw: Draw, document: Document) -> None:
    target, key = draw(
        st.sampled_from(
            [
                (document["Tournament"], "Name"),
                (document["Tournament"], "Uri"),
                (a_deck(draw, document), "Player"),
                (a_deck(draw, document), "Result"),
                (a_line(draw, document), "CardName"),
                (a_match(draw, document), "Player1"),
                (a_match(draw, document), "Player2"),
                (draw(st.sampled_from(document["Rounds"])) if document["Rounds"] else {}, "RoundName"),
            ]
        )
    )
    if isinstance(target, dict):
        target[key] = draw(hostile_text)


def missing_key(draw: Draw, document: Document) -> None:
    container, key = a_spot(draw, document)
    del container[key]


def wrong_type(draw: Draw, document: Document) -> None:
    container, key = a_spot(draw, document)
    container[key] = draw(st.one_of(junk, deep_junk))


def repeated_player(draw: Draw, document: Document) -> None:
    deck = a_deck(draw, document)
    name = deck.get("Player")
    spellings = (
        st.sampled_from([name, f" {name}", name.upper(), name.lower(), f"\u200b{name}", f"{name}\u200e"])
        if isinstance(name, str)
        else junk
    )
    for _ in range(draw(st.integers(1, 60))):
        document["Decks"].append(dict(deck, Player=draw(spellings)))


def listed_twice(draw: Draw, document: Document) -> None:
    """A pairing listed again in its round: from the other side (as melee.gg lists a draw), as it was, or with
    another result; or every round given one name."""
    rounds = [r for r in document["Rounds"] if isinstance(r, dict) and isinstance(r.get("Matches"), list)]
    if rounds and draw(st.booleans()):
        name = draw(st.sampled_from(["Round 1", "Quarterfinals", ""]))
        for round_ in rounds:
            round_["RoundName"] = name
    listed = [(r, m) for r in rounds for m in r["Matches"] if isinstance(m, dict)]
    if not listed:
        return
    round_, match = draw(st.sampled_from(listed))
    again = dict(match)
    if draw(st.booleans()):
        again.update(Player1=match.get("Player2"), Player2=match.get("Player1"))
        if isinstance(result := match.get("Result"), str) and result.count("-") == 2:
            won, lost, drawn = result.split("-")
            again["Result"] = f"{lost}-{won}-{drawn}"
    if draw(st.booleans()):
        again["Result"] = draw(results)
    round_["Matches"].insert(draw(st.integers(0, len(round_["Matches"]))), again)


def many_decks(draw: Draw, document: Document) -> None:
    count = draw(sizes(MAX_DECKS - len(document["Decks"]), 300))
    deck = a_deck(draw, document)
    document["Decks"] += [dict(deck, Player=f"player {i}") for i in range(count)]


def many_rounds(draw: Draw, document: Document) -> None:
    count = draw(sizes(MAX_ROUNDS - len(document["Rounds"]), 60))
    pairs = draw(st.sampled_from([[], [{"Player1": "Ann", "Player2": "Bea", "Result": "2-0-0"}]]))
    document["Rounds"] += [{"RoundName": f"Extra {i}", "Matches": list(pairs)} for i in range(count)]


def many_pairings(draw: Draw, document: Document) -> None:
    count = draw(sizes(MAX_PAIRINGS_PER_ROUND, 500))
    player = draw(st.sampled_from(["ghost", "Ann"]))  # one player in every pairing, or each once
    matches = [
        {"Player1": f"{player} {i}" if player == "ghost" else player, "Player2": f"p{i}", "Result": "2-0-0"}
        for i in range(count)
    ]
    document["Rounds"].append({"RoundName": "Flood", "Matches": matches})


def many_lines(draw: Draw, document: Document) -> None:
    deck = a_deck(draw, document)
    board = draw(st.sampled_from(["Mainboard", "Sideboard"]))
    count = draw(sizes(MAX_LINES_PER_LIST, 400))
    name = draw(st.sampled_from(["Card {}", "Island", "Lightning Bolt", "Relentless Rats", "Plains // {}"]))
    copies = draw(st.sampled_from([1, 4, 60, MAX_COPIES, MAX_COPIES + 1, MAX_BASIC_COPIES + 1]))
    deck[board] = [{"CardName": name.format(i), "Count": copies} for i in range(count)]


def bad_date(draw: Draw, document: Document) -> None:
    document["Tournament"]["Date"] = draw(dates)


def bad_result(draw: Draw, document: Document) -> None:
    a_match(draw, document)["Result"] = draw(results)


def bad_format(draw: Draw, document: Document) -> None:
    header = document["Tournament"]
    if draw(st.booleans()):
        header["Formats"] = draw(
            st.one_of(st.sampled_from([*FORMATS, "modern ", ["Legacy"], ["Modern", "Legacy"]]), junk)
        )
    else:
        header.pop("Formats", None)
        header["Name"] = draw(st.sampled_from(["Legacy Challenge", "Vintage Cube", "Standard Pioneer", "Open"]))


MUTATIONS = [
    hostile_count,
    hostile_name,
    missing_key,
    wrong_type,
    repeated_player,
    bad_date,
    bad_result,
    bad_format,
    listed_twice,
    many_lines,
    many_rounds,
    many_pairings,
    many_decks,
]
SMALL_MUTATIONS = MUTATIONS[:-3]  # the storage path writes every example: no thousands of decks, rounds or pairings


@st.composite
def hostile_events(draw: Draw, mutations: list[Callable[[Draw, Document], None]] = MUTATIONS) -> Document:
    document = valid_event()
    for mutation in draw(st.lists(st.sampled_from(mutations), min_size=1, max_size=3)):
        if all(
            isinstance(document.get(key), kind)
            for key, kind in (("Tournament", dict), ("Decks", list), ("Rounds", list))
        ):
            mutation(draw, document)  # a mutation works on an event still shaped as one
    return document


# --- the property ----------------------------------------------------------------------------------------------


def texts_within(values: Iterable[str], most: int, least: int = 1) -> bool:
    """Every one of ``values`` stripped, free of control characters and of ``least`` to ``most`` characters."""
    return all(
        least <= len(value) <= most and value == value.strip() and not CONTROL.search(value) for value in set(values)
    )


def assert_within_bounds(parsed: ParsedTournament) -> None:
    """Every bound of models/tournament_file.py, checked again on what would be stored."""
    assert parsed.format in FORMATS
    assert FORMAT_STARTS[parsed.format] <= dt.date.fromisoformat(parsed.date) <= TODAY + dt.timedelta(days=1)
    assert texts_within([parsed.name], MAX_EVENT_NAME_CHARS, 0) and texts_within([parsed.uri], MAX_URI_CHARS, 0)
    decks, matches = parsed.decks, parsed.matches
    assert len(decks) <= MAX_DECKS
    assert len({player_identity(d.player) for d in decks}) == len(decks)  # one deck per player
    assert texts_within((d.player for d in decks), MAX_PLAYER_NAME_CHARS)
    assert texts_within((d.placing for d in decks), MAX_PLACING_CHARS, 0)
    lists = [(d.mainboard, MAX_MAINBOARD_CARDS) for d in decks] + [(d.sideboard, MAX_SIDEBOARD_CARDS) for d in decks]
    assert all(len(cards) <= MAX_LINES_PER_LIST and sum(cards.values()) <= most for cards, most in lists)
    copies = {(card, count) for cards, _ in lists for card, count in cards.items()}
    assert texts_within((card for card, _ in copies), MAX_CARD_NAME_CHARS) and not any(" // " in c for c, _ in copies)
    assert all(1 <= n <= (MAX_BASIC_COPIES if c.casefold() in BASIC_LANDS else MAX_COPIES) for c, n in copies)
    assert all((d.archetype is None) == (not d.mainboard) for d in decks)
    assert len({m.round_name for m in matches}) <= MAX_ROUNDS
    assert len(matches) <= MAX_ROUNDS * MAX_PAIRINGS_PER_ROUND
    assert texts_within((m.round_name for m in matches), MAX_ROUND_NAME_CHARS)
    assert texts_within((p for m in matches for p in (m.player1, m.player2)), MAX_PLAYER_NAME_CHARS)
    assert all(0 <= games < 100 for m in matches for games in (m.p1_games, m.p2_games, m.drawn_games))
    assert {m.outcome for m in matches} <= {"result", "draw", "bye", "assigned_loss", "unreported"}
    paired = [m for m in matches if "-" not in (m.player1, m.player2)]
    per_round = Counter((m.round_number, player_identity(p)) for m in paired for p in (m.player1, m.player2))
    assert max(per_round.values(), default=0) <= MAX_MATCHES_PER_ROUND
    pairs = Counter((m.round_number, frozenset(map(player_identity, (m.player1, m.player2)))) for m in matches)
    assert all(n == 1 for n in pairs.values())  # a pairing a round lists twice is one match (no matches: none)
    meetings = Counter(pair for _, pair in pairs if "-" not in pair)
    assert max(meetings.values(), default=0) <= MAX_PAIR_MEETINGS
    assert len(parsed.warnings) <= MAX_WARNINGS + 1 and all(len(w) <= MESSAGE_CHARS for w in parsed.warnings)


def parsed_or_refused(document: Any) -> ParsedTournament | None:
    try:
        parsed = parse_tournament(document, "hostile.json", classify, today=TODAY)
    except InputFileError as error:
        assert error.source == "hostile.json" and error.reason and len(error.reason) <= MESSAGE_CHARS
        assert "\n" not in error.reason  # one sentence
        return None
    assert_within_bounds(parsed)
    return parsed


def test_the_valid_event_is_read() -> None:
    parsed = parsed_or_refused(valid_event())
    assert parsed is not None and len(parsed.decks) == 4 and len(parsed.matches) == 4 and parsed.warnings == []


@settings(
    max_examples=800,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(hostile_events())
def test_a_hostile_file_is_refused_or_read_within_every_bound(document: Document) -> None:
    parsed = parsed_or_refused(document)
    event("refused" if parsed is None else "read, with warnings" if parsed.warnings else "read")


# --- through the storage path ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def meta_table() -> Iterator[Any]:
    """A moto MetaTable of its own (template.yaml's schema), for the whole module: examples cannot take fixtures."""
    hostile_settings = prefixed_settings("hostile-hypothesis")
    with mock_aws():
        db = dynamodb_resource(hostile_settings)
        create_tables(db, hostile_settings)
        yield db.Table(hostile_settings.meta_table), get_classifier(hostile_settings.archetype_rules_dir)
        for name in hostile_settings.table_names().values():
            db.Table(name).delete()


def table_items(table: Any) -> list[str]:
    items: list[Any] = []
    page: dict[str, Any] = {}
    while True:
        response = table.scan(**page)
        items += response["Items"]
        if "LastEvaluatedKey" not in response:
            return sorted(repr(sorted(item.items())) for item in items)
        page["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def test_a_hostile_file_through_the_storage_path_writes_nothing_when_refused(meta_table: tuple[Any, Any]) -> None:
    table, classifier = meta_table
    repository = MetaRepository(table)

    @settings(
        max_examples=100,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(hostile_events(SMALL_MUTATIONS))
    def ingest(document: Document) -> None:
        before = table_items(table)
        data = json.dumps(copy.deepcopy(document)).encode("utf-8", "surrogatepass")
        report = ingest_tournament_sources([SourceFile("hostile.json", data)], repository, classifier)
        if report.failures:
            assert [source for source, _ in report.failures] == ["hostile.json"], report.summary()
            assert table_items(table) == before, report.summary()

    ingest()
