"""A match is counted once however many rows list it, and an entrant is one player whatever the case of the names
beside theirs: on real melee.gg files of the bundled demo data (``demo_data/tournaments.tar.gz``, GPL-3.0: see
``demo_data/LICENSES/TOURNAMENTS-GPL-3.0.txt``)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest

from meta_mage.analytics.aggregate import summarise_event
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.tournaments import parse_tournament
from meta_mage.models.names import player_identity
from meta_mage.models.tournaments import ParsedTournament
from tests.conftest import demo_members

GENOVA = "lega-pauper-genova-autumn-season-lunedi-3-novembre-ore-2030-376817-2025-11-03.json"
BALTIMORE = "oversized-standard-scg-con-baltimore-friday-300-pm-356126-2025-10-24.json"
CLASSIFY = get_classifier(DEMO_DATA_DIR / "archetypes").classify


def bundled(name: str) -> dict[str, Any]:
    (data,) = [data for member, data in demo_members() if member.endswith("/" + name)]
    document: dict[str, Any] = json.loads(data)
    return document


def parse(document: dict[str, Any]) -> ParsedTournament:
    return parse_tournament(document, "event.json", CLASSIFY)


def not_land(_: str) -> bool:
    return False


# --- one match, counted once -------------------------------------------------------------------------------------


def test_a_draw_melee_lists_for_each_player_is_one_match() -> None:
    # Given a real melee.gg event whose four draws are each listed twice, once from each player's side
    # (Round 1: AndreaT53 v DavideR46 1-1-0 and DavideR46 v AndreaT53 1-1-0)
    document = bundled(GENOVA)
    first_round = document["Rounds"][0]["Matches"]
    assert {"Player1": "AndreaT53", "Player2": "DavideR46", "Result": "1-1-0"} in first_round
    assert {"Player1": "DavideR46", "Player2": "AndreaT53", "Result": "1-1-0"} in first_round
    rows = sum(len(r["Matches"]) for r in document["Rounds"])
    # When it is read
    parsed = parse(document)
    # Then that pairing is one match of round 1, a draw
    assert [m.outcome for m in parsed.matches if {m.player1, m.player2} == {"AndreaT53", "DavideR46"}] == ["draw"]
    # and the event holds 4 draws among 55 matches (59 rows), as its own standings say: 8 players drew once
    outcomes = Counter(m.outcome for m in parsed.matches)
    assert (rows, len(parsed.matches), outcomes["draw"]) == (59, 55, 4)
    assert sum(row["Draws"] for row in document["Standings"]) == 2 * outcomes["draw"]
    # and so do its aggregates
    fmt = summarise_event(parsed, not_land).format
    assert (fmt.matches, fmt.draws) == (55, 4)
    assert parsed.warnings == []


def test_a_pairing_listed_with_a_result_and_as_unreported_is_one_unreported_match() -> None:
    # Given a real melee.gg event whose round 5 lists Juno Hayes v DietTrevor 0-2-0 and DietTrevor v Juno Hayes
    # 0-0-0, and whose standings give both players the loss (both 2-3): no row says what happened
    document = bundled(BALTIMORE)
    standings = {row["Player"]: (row["Wins"], row["Losses"]) for row in document["Standings"]}
    assert standings["Juno Hayes"] == standings["DietTrevor"] == (2, 3)
    # When it is read
    parsed = parse(document)
    # Then the pairing is one match, counted unreported (no win for DietTrevor), and the note names both rows
    pairing = [m for m in parsed.matches if {m.player1, m.player2} == {"Juno Hayes", "DietTrevor"}]
    assert [(m.round_name, m.outcome) for m in pairing] == [("Round 5", "unreported")]
    assert parsed.warnings == [
        "round 'Round 5' lists 'Juno Hayes' v 'DietTrevor' 0-2-0 and 'DietTrevor' v 'Juno Hayes' 0-0-0: "
        "one match, its result on one row only; counted unreported"
    ]


# --- an entrant is one player ------------------------------------------------------------------------------------

# Two real entrants of the Genova event, renamed to one name in two cases: they had different decks, never met,
# and had different opponents every round.
RENAMED = {"Giovanni Favetta": "Sam Hutson", "SamuDema": "sam hutson"}


def renamed(document: dict[str, Any]) -> dict[str, Any]:
    """The event with its entrants renamed by ``RENAMED`` wherever the file names them."""
    document = copy.deepcopy(document)
    for row in document["Decks"] + document["Standings"]:
        row["Player"] = RENAMED.get(row["Player"], row["Player"])
    for match in (m for r in document["Rounds"] for m in r["Matches"]):
        for side in ("Player1", "Player2"):
            match[side] = RENAMED.get(match[side], match[side])
    return document


def test_entrants_whose_names_differ_only_in_case_are_one_player_and_the_file_is_refused() -> None:
    # Given the real event with two of its entrants named "Sam Hutson" and "sam hutson", each with their own deck
    original = parse(bundled(GENOVA))
    decks = {d.player: d for d in original.decks}
    assert decks["Giovanni Favetta"].mainboard != decks["SamuDema"].mainboard
    # When it is read, then it is refused naming both: by the one identity rule they are one player with two
    # lists, and no deck is credited with the other's matches (it was: both kept apart, or one merged into the other)
    with pytest.raises(InputFileError) as refusal:
        parse(renamed(bundled(GENOVA)))
    assert refusal.value.reason.startswith("decks of 'Sam Hutson' and 'sam hutson' are one player's")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ali\u200bce", "Alice"),  # a zero-width space
        ("\u200fAlice\u200e", "Alice"),  # bidi marks
        ("\ufeffAlice", "Alice"),  # a byte-order mark
        ("Nicol\u00f2", "Nicolo\u0300"),  # ò as one character or as o and a combining grave accent
        ("Sam  Hutson", "Sam Hutson"),
        ("Sam Hutson", "sam hutson"),  # case
        ("ANN", "Ann"),
        ("\uff21\uff2e\uff2e", "Ann"),  # fullwidth letters (NFKC)
        ("\u0410nn", "Ann"),  # a Cyrillic capital A
        ("\u0391nn", "Ann"),  # a Greek capital Alpha
        ("S\u0430m Hut\u0455on", "Sam Hutson"),  # a Cyrillic a and dze
        ("\u202eAnn\u202c", "Ann"),  # a bidi override
        ("Ann\ufe0f", "Ann"),  # a variation selector
        ("Ann\u3164", "Ann"),  # a Hangul filler
        ("Ann\u00a0Lee", "Ann Lee"),  # a no-break space
    ],
)
def test_names_that_read_alike_are_one_player(one: str, other: str) -> None:
    assert player_identity(one) == player_identity(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [("Nicolò Baretto", "Nicoló Grasso"), ("Nicolò", "Nicoló"), ("Ann", "Anne"), ("Сергей", "Cepгей Ivanov")],
)
def test_names_that_differ_on_screen_are_two_players(one: str, other: str) -> None:
    assert player_identity(one) != player_identity(other)
