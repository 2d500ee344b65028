"""Every bound of a tournament file (models/tournament_file.py): refused with a reason naming where, or reported."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from meta_mage.archetypes.classifier import Classification
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.tournaments import parse_tournament
from meta_mage.models.tournament_file import (
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
from meta_mage.models.tournaments import ParsedTournament
from tests.conftest import SHARED_DATA

Document = dict[str, Any]


def classify(fmt: str, main: dict[str, int], side: dict[str, int]) -> Classification:
    return Classification("Burn", "Burn", "R", "aggro", "archetype")


def deck(player: str, main: dict[str, int] | None = None, side: dict[str, int] | None = None) -> Document:
    return {
        "Player": player,
        "Result": "1st Place",
        "Mainboard": [{"Count": c, "CardName": n} for n, c in (main or {"Lightning Bolt": 4, "Mountain": 20}).items()],
        "Sideboard": [{"Count": c, "CardName": n} for n, c in (side or {}).items()],
    }


def event(decks: list[Document] | None = None, matches: list[Document] | None = None) -> Document:
    return {
        "Tournament": {
            "Date": "2025-11-01",
            "Name": "Test Open",
            "Uri": "https://melee.gg/Tournament/View/123",
            "Formats": "Modern",
        },
        "Decks": decks if decks is not None else [deck("Ann"), deck("Bea")],
        "Rounds": [
            {
                "RoundName": "Round 1",
                "Matches": matches
                if matches is not None
                else [{"Player1": "Ann", "Player2": "Bea", "Result": "2-1-0"}],
            }
        ],
    }


def parse(document: Document) -> ParsedTournament:
    return parse_tournament(document, "t.json", classify)


def refused(document: Document) -> str:
    with pytest.raises(InputFileError) as error:
        parse(document)
    assert error.value.source == "t.json"
    return error.value.reason


def changed(change: Callable[[Document], object]) -> Document:
    document = event()
    change(document)
    return document


def first_line(document: Document) -> Document:
    line: Document = document["Decks"][0]["Mainboard"][0]
    return line


# --- sizes of an event -----------------------------------------------------------------------------------------


def test_an_event_of_more_decks_than_the_bound_is_refused() -> None:
    decks = [deck(f"player {i}") for i in range(MAX_DECKS + 1)]
    assert refused(event(decks)) == f"{MAX_DECKS + 1:,} decks; an event has at most {MAX_DECKS:,}"


def test_an_event_of_the_bound_s_decks_is_read() -> None:
    assert len(parse(event([deck(f"player {i}") for i in range(MAX_DECKS)])).decks) == MAX_DECKS


def test_more_rounds_than_an_event_has_are_refused() -> None:
    document = event()
    document["Rounds"] = [dict(document["Rounds"][0], RoundName=f"Round {i}") for i in range(MAX_ROUNDS + 1)]
    assert refused(document) == f"{MAX_ROUNDS + 1} rounds; an event has at most {MAX_ROUNDS}"


def test_a_round_of_more_pairings_than_the_bound_is_refused() -> None:
    matches = [{"Player1": f"p{i}", "Player2": f"q{i}", "Result": "2-0-0"} for i in range(MAX_PAIRINGS_PER_ROUND + 1)]
    assert refused(event(matches=matches)) == (
        f"round 'Round 1' lists {MAX_PAIRINGS_PER_ROUND + 1:,} matches; a round has at most {MAX_PAIRINGS_PER_ROUND:,}"
    )


def test_a_list_of_more_card_lines_than_the_bound_is_refused() -> None:
    cards = {f"Card {i}": 1 for i in range(MAX_LINES_PER_LIST + 1)}
    reason = refused(event([deck("Ann", side=cards)]))
    assert reason == f"deck of 'Ann' Sideboard has {MAX_LINES_PER_LIST + 1} card lines; a list has at most 250"


def test_the_existing_pairing_rules_still_hold() -> None:
    rematches = [{"Player1": "Ann", "Player2": "Bea", "Result": "2-0-0"}]
    document = event()
    document["Rounds"] = [{"RoundName": f"Round {i}", "Matches": rematches} for i in range(4)]
    assert refused(document) == "'Ann' and 'Bea' meet in more than 3 rounds"
    flood = [{"Player1": "Ann", "Player2": f"ghost {i}", "Result": "2-0-0"} for i in range(3)]
    assert refused(event(matches=flood)) == "'Ann' plays more than 2 matches in round 'Round 1'"


def rounds_of(*rounds: list[tuple[str, str, str]], name: str | None = None) -> Document:
    """An event of these rounds (each a list of Player1, Player2, Result), named Round 1, 2... or all ``name``."""
    document = event()
    document["Rounds"] = [
        {
            "RoundName": name or f"Round {number}",
            "Matches": [{"Player1": a, "Player2": b, "Result": result} for a, b, result in matches],
        }
        for number, matches in enumerate(rounds, 1)
    ]
    return document


def test_two_draws_in_two_rounds_each_listed_for_both_players_are_read_as_two_matches() -> None:
    # Given Ann and Bea drawing in round 1 and again in a top-8 rematch, each draw listed once for each player
    # (as melee.gg lists every draw): four rows, which were refused as "meet more than 3 times"
    document = rounds_of(
        [("Ann", "Bea", "1-1-0"), ("Bea", "Ann", "1-1-0")],
        [("Ann", "Bea", "0-0-3"), ("Bea", "Ann", "0-0-3")],
    )
    # When it is read, Then it holds two matches, one a round, both draws
    parsed = parse(document)
    assert [(m.round_number, m.player1, m.player2, m.outcome) for m in parsed.matches] == [
        (1, "Ann", "Bea", "draw"),
        (2, "Ann", "Bea", "draw"),
    ]
    assert parsed.warnings == []


def test_a_match_listed_from_either_side_or_twice_alike_is_one_match() -> None:
    # Given a decided match listed from both sides (2-1 read by its winner, 1-2 by its loser) and a row repeated
    parsed = parse(rounds_of([("Ann", "Bea", "2-1-0"), ("Bea", "Ann", "1-2-0"), ("Ann", "Bea", "2-1-0")]))
    # Then it is one match, as first listed
    assert [(m.player1, m.player2, m.p1_games, m.p2_games) for m in parsed.matches] == [("Ann", "Bea", 2, 1)]


def test_a_pairing_given_two_results_in_one_round_is_refused_naming_both_rows() -> None:
    # Given a round listing Ann's win over Bea, then Bea's row saying Bea won
    document = rounds_of([("Ann", "Bea", "2-1-0"), ("Cid", "Dee", "2-0-0"), ("Bea", "Ann", "2-0-0")])
    # Then the file is refused, naming both rows (players and results)
    assert (
        refused(document) == "round 'Round 1' gives one match two results: 'Ann' v 'Bea' 2-1-0 and 'Bea' v 'Ann' 2-0-0"
    )
    # and a draw read as a win from the other side is refused alike
    document = rounds_of([("Ann", "Bea", "1-1-0"), ("Bea", "Ann", "2-1-0")])
    assert (
        refused(document) == "round 'Round 1' gives one match two results: 'Ann' v 'Bea' 1-1-0 and 'Bea' v 'Ann' 2-1-0"
    )


def test_rounds_sharing_a_name_are_told_apart_by_their_place_in_the_file() -> None:
    # Given a broken file naming its three rounds alike, Ann playing one match in each
    document = rounds_of(
        [("Ann", "Bea", "2-0-0")],
        [("Ann", "Cid", "2-0-0")],
        [("Ann", "Dee", "1-1-0"), ("Dee", "Ann", "1-1-0")],
        name="Round 1",
    )
    # Then she plays one match a round, three in all (by name, three "in round 'Round 1'" were refused)
    parsed = parse(document)
    assert [(m.round_number, m.player2, m.outcome) for m in parsed.matches] == [
        (1, "Bea", "result"),
        (2, "Cid", "result"),
        (3, "Dee", "draw"),
    ]


# --- numbers -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, -1, 4.0, True, "4", None, [4], 10**15, 10**40])
def test_a_count_that_is_not_a_whole_number_of_copies_under_16_digits_is_refused(count: object) -> None:
    reason = refused(changed(lambda d: first_line(d).update(Count=count)))
    assert reason.startswith(f"deck of 'Ann' Mainboard: 'Lightning Bolt' has Count {count!r}")
    assert "at most 15 digits" in reason


def test_a_missing_count_is_named() -> None:
    reason = refused(changed(lambda d: first_line(d).pop("Count")))
    assert reason.startswith("deck of 'Ann' Mainboard: 'Lightning Bolt' has Count None")


@pytest.mark.parametrize("result", ["100-0-0", "2-0", "2-0-0-0", "two-0-0", "٢-٠-٠", "-1-0-0", 200, None])
def test_a_result_that_is_not_three_small_game_counts_is_refused(result: object) -> None:
    document = event(matches=[{"Player1": "Ann", "Player2": "Bea", "Result": result}])
    assert "round 'Round 1': match {" in refused(document)
    assert "needs Player1, Player2 and Result 'W-L-D' (game counts of at most 2 digits)" in refused(document)


# --- the lists: summed per name, left out (the player kept) past a deck's bounds --------------------------------


def only_deck_of(parsed: ParsedTournament, player: str) -> Any:
    (found,) = [d for d in parsed.decks if d.player == player]
    return found


@pytest.mark.parametrize(
    ("main", "side", "problem"),
    [
        ({"Boggart Trawler": MAX_COPIES + 1}, {}, f"Mainboard has 100 'Boggart Trawler' (at most {MAX_COPIES})"),
        ({"Boggart Trawler": 50, "Boggart Trawler // Boggart Bog": 50}, {}, "Mainboard has 100 'Boggart Trawler'"),
        ({"Island": MAX_BASIC_COPIES + 1}, {}, f"Mainboard has 251 'Island' (at most {MAX_BASIC_COPIES})"),
        ({"Snow-Covered Forest": MAX_BASIC_COPIES + 1}, {}, "Mainboard has 251 'Snow-Covered Forest'"),
        ({f"Card {i}": 4 for i in range(76)}, {}, f"Mainboard has 304 cards (at most {MAX_MAINBOARD_CARDS})"),
        (
            {"Island": 60},
            {f"Card {i}": 4 for i in range(26)},
            f"Sideboard has 104 cards (at most {MAX_SIDEBOARD_CARDS})",
        ),
    ],
)
def test_a_list_past_a_deck_s_bounds_is_left_out_and_reported(
    main: dict[str, int], side: dict[str, int], problem: str
) -> None:
    parsed = parse(event([deck("Ann", main, side), deck("Bea")]))
    ann = only_deck_of(parsed, "Ann")
    assert (ann.mainboard, ann.sideboard, ann.archetype, ann.placing) == ({}, {}, None, "1st Place")
    assert parsed.warnings[0].startswith(f"deck of 'Ann': {problem}")
    assert parsed.warnings[0].endswith("its list is left out, its matches still count")
    assert len(parsed.matches) == 1 and only_deck_of(parsed, "Bea").archetype == "Burn"


def test_lists_at_the_bounds_are_kept_whole() -> None:
    main = {"Island": MAX_BASIC_COPIES, "Relentless Rats": MAX_MAINBOARD_CARDS - MAX_BASIC_COPIES}
    side = {"Relentless Rats": MAX_COPIES, "Mountain": MAX_SIDEBOARD_CARDS - MAX_COPIES}
    parsed = parse(event([deck("Ann", main, side), deck("Bea")]))
    assert (only_deck_of(parsed, "Ann").mainboard, only_deck_of(parsed, "Ann").sideboard) == (main, side)
    assert parsed.warnings == []


# --- text --------------------------------------------------------------------------------------------------------


def too_long(chars: int) -> str:
    return "x" * (chars + 1)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda d: first_line(d).update(CardName=too_long(MAX_CARD_NAME_CHARS)),
            "deck of 'Ann' Mainboard: CardName 'xxx…(151 characters) is longer than 150 characters",
        ),
        (
            lambda d: d["Decks"][0].update(Player=too_long(MAX_PLAYER_NAME_CHARS)),
            f"deck #1: Player 'xxx…' is longer than {MAX_PLAYER_NAME_CHARS} characters",
        ),
        (
            lambda d: d["Rounds"][0]["Matches"][0].update(Player2=too_long(MAX_PLAYER_NAME_CHARS)),
            f"round 'Round 1': Player2 'xxx…' is longer than {MAX_PLAYER_NAME_CHARS} characters",
        ),
        (
            lambda d: d["Tournament"].update(Name=too_long(MAX_EVENT_NAME_CHARS)),
            f"Tournament.Name 'xxx…(201 characters) is longer than {MAX_EVENT_NAME_CHARS} characters",
        ),
        (
            lambda d: d["Tournament"].update(Uri=too_long(MAX_URI_CHARS)),
            f"Tournament.Uri 'xxx…(501 characters) is longer than {MAX_URI_CHARS} characters",
        ),
        (
            lambda d: d["Rounds"][0].update(RoundName=too_long(MAX_ROUND_NAME_CHARS)),
            f"round #1: RoundName 'xxx…' is longer than {MAX_ROUND_NAME_CHARS} characters",
        ),
        (
            lambda d: d["Decks"][1].update(Result=too_long(MAX_PLACING_CHARS)),
            f"deck of 'Bea': Result 'xxx…' is longer than {MAX_PLACING_CHARS} characters",
        ),
        (lambda d: d["Decks"][0].update(Player="Ann\x00"), "deck #1: Player 'Ann\\x00' holds a control character"),
        (lambda d: d["Decks"][0].update(Player="A\x7fnn"), "deck #1: Player 'A\\x7fnn' holds a control character"),
        (
            lambda d: first_line(d).update(CardName="Lightning\x85Bolt"),
            "deck of 'Ann' Mainboard: CardName 'Lightning\\x85Bolt' holds a control character or a line break",
        ),
        (lambda d: d["Tournament"].update(Name="Test\u2028Open"), "Tournament.Name 'Test\\u2028Open' holds a…"),
        (lambda d: d["Tournament"].update(Name="Test\nOpen"), "Tournament.Name 'Test\\nOpen' holds a control…"),
        (
            lambda d: d["Rounds"][0]["Matches"][0].update(Player1="Ann\x1b[31m"),
            "round 'Round 1': Player1 'Ann\\x1b[31m' holds a control character",
        ),
        (lambda d: d["Decks"][0].update(Player="Ann\ud800"), "deck #1: Player 'Ann\\ud800' is not valid Unicode text"),
        (lambda d: d["Decks"][0].update(Player="   "), "deck #1: Player '   ' is empty"),
        (lambda d: first_line(d).update(CardName=""), "deck of 'Ann' Mainboard: CardName '' is empty"),
        (lambda d: d["Tournament"].update(Name=7), "Tournament.Name 7 must be text"),
    ],
)
def test_a_name_too_long_empty_or_holding_control_characters_is_refused(
    change: Callable[[Document], object], reason: str
) -> None:
    """The reason starts with ``reason``, whose "…" stands for any text (a long name is quoted cut)."""
    pattern = ".*".join(re.escape(part) for part in reason.split("…"))
    assert re.match(pattern, refused(changed(change))), refused(changed(change))


def test_names_are_stripped_and_any_printable_unicode_is_kept() -> None:
    names = ["黃 仲勻", "Aska Rögnudóttir", "Ernesto Filipe Teixeira Fernandes da Silva", "x" * MAX_PLAYER_NAME_CHARS]
    document = event([deck(f"  {names[0]} "), *(deck(name) for name in names[1:])])
    document["Decks"][1]["Mainboard"] = [
        {"CardName": " Lórien Revealed\t", "Count": 4},
        {"CardName": "Nazgûl", "Count": 9},
    ]
    document["Tournament"]["Name"] = " 第1回みなとみらいオープン  "
    document["Rounds"][0]["Matches"] = [{"Player1": f" {names[0]}", "Player2": "-", "Result": "2-0-0"}]
    parsed = parse(document)
    assert [d.player for d in parsed.decks] == names and parsed.name == "第1回みなとみらいオープン"
    assert parsed.decks[1].mainboard == {"Lórien Revealed": 4, "Nazgûl": 9}
    assert (parsed.matches[0].player1, parsed.matches[0].outcome) == (names[0], "bye")
    assert parsed.warnings == []


# --- the shape, in the words the checks used before the model -------------------------------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d["Decks"][1].pop("Player"), "deck #2 has no Player"),
        (lambda d: d["Decks"].append("Cid"), "deck #3 has no Player"),
        (lambda d: d["Decks"][0].update(Mainboard={"Island": 4}), "deck of 'Ann' Mainboard must be a list"),
        (lambda d: first_line(d).pop("CardName"), "deck of 'Ann' Mainboard has an entry without a CardName"),
        (lambda d: d["Decks"][0]["Sideboard"].append(4), "deck of 'Ann' Sideboard has an entry without a CardName"),
        (lambda d: d["Rounds"].append({"RoundName": "Round 2"}), "round #2 has no Matches list"),
        (lambda d: d["Rounds"].append([]), "round #2 has no Matches list"),
        (lambda d: d.update(Decks={}), "'Decks' and 'Rounds' must be lists"),
        (lambda d: d.update(Tournament=[]), "'Tournament' must be an object"),
        (
            lambda d: d["Rounds"][0]["Matches"].append({"Player1": "Ann", "Result": "2-0-0"}),
            "round 'Round 1': match {'Player1': 'Ann', 'Result': '2-0-0'} needs Player1, Player2 and Result 'W-L-D'",
        ),
    ],
)
def test_a_file_of_the_wrong_shape_names_where(change: Callable[[Document], object], reason: str) -> None:
    assert refused(changed(change)).startswith(reason)


def test_other_keys_are_ignored_and_a_missing_list_is_empty() -> None:
    document = event()
    document["Standings"] = [{"Rank": "junk"}]
    document["Decks"][0].update(AnchorUri=None, Date=[1, 2], Sideboard=None)
    del document["Decks"][1]["Mainboard"]
    parsed = parse(document)
    assert parsed.decks[0].sideboard == {} and (parsed.decks[1].mainboard, parsed.decks[1].archetype) == ({}, None)


# --- reported, not refused ---------------------------------------------------------------------------------------


def test_a_non_basic_over_four_copies_is_reported_bar_basics_and_cards_that_allow_more() -> None:
    main = {
        "Lightning Bolt": 4,
        "Mountain": 18,
        "Snow-Covered Mountain": 6,
        "Shadowborn Apostle": 30,
        "Bonecrusher Giant": 3,
    }
    side = {"Lightning Bolt": 1, "Bonecrusher Giant // Stomp": 1, "Relentless Rats": 12, "Wastes": 9}
    parsed = parse(event([deck("Ann", main, side), deck("Bea")]))
    assert parsed.warnings == ["deck of 'Ann' has 5 copies of 'Lightning Bolt' (a constructed deck holds at most 4)"]
    assert only_deck_of(parsed, "Ann").mainboard["Lightning Bolt"] == 4  # reported, the list kept as it is


def test_a_player_listed_again_with_the_same_list_is_kept_once_and_reported() -> None:
    # Given Ann listed three times with one list (once with a zero-width space, once as "ANN": one player)
    decks = [deck("Ann", {"Lightning Bolt": 4}), deck("Bea"), deck(" Ann", {"Lightning Bolt": 4})]
    decks += [deck("An\u200bn", {"Lightning Bolt": 4}), deck("ANN", {"Lightning Bolt": 4})]
    parsed = parse(event(decks))
    # Then she keeps one deck, and the file says so
    assert [(d.player, d.mainboard) for d in parsed.decks] == [("Ann", {"Lightning Bolt": 4}), ("Bea", deck_cards())]
    assert parsed.warnings == ["player 'Ann' has 4 decks in this file, all one list; it is kept once"]


def test_one_player_listed_with_two_lists_is_refused() -> None:
    # Given "Ann" and "ANN" with two different lists: one player by the identity rule, two decks
    document = event([deck("Ann", {"Lightning Bolt": 4}), deck("Bea"), deck("ANN", {"Ornithopter": 4})])
    # Then the file is refused, naming both (it cannot say whose matches are whose)
    assert refused(document) == (
        "decks of 'Ann' and 'ANN' are one player's (names are compared without case, look-alike letters or "
        "invisible characters) with two different lists"
    )


def deck_cards() -> dict[str, int]:
    return {"Lightning Bolt": 4, "Mountain": 20}


def test_players_paired_without_a_deck_are_fine() -> None:
    matches = [
        {"Player1": "Ann", "Player2": "Stranger", "Result": "2-0-0"},
        {"Player1": "Other", "Player2": "-", "Result": "2-0-0"},
    ]
    parsed = parse(event(matches=matches))
    assert [m.outcome for m in parsed.matches] == ["result", "bye"] and parsed.warnings == []


def test_warnings_are_bounded() -> None:
    decks = [deck(f"player {i}", {"Lightning Bolt": 5}) for i in range(MAX_WARNINGS + 10)]
    warnings = parse(event(decks)).warnings
    assert len(warnings) == MAX_WARNINGS + 1 and warnings[-1] == "and 10 more warnings"


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED_DATA.exists(), reason="../shared/data is not present")
def test_the_real_list_of_505_boggart_trawlers_is_left_out_and_its_event_kept() -> None:
    path = SHARED_DATA / "tournaments/Tournaments/MTGmelee/2025/10/11/mega-modern-370841-2025-10-11.json"
    parsed = parse_tournament(json.loads(path.read_bytes()), str(path), classify)
    assert len(parsed.decks) == 117 and only_deck_of(parsed, "milesofford").mainboard == {}
    assert parsed.warnings == [
        "deck of 'milesofford': Mainboard has 505 'Boggart Trawler' (at most 99); its list is left out, "
        "its matches still count"
    ]
    assert re.search(r"milesofford", " ".join(f"{m.player1} {m.player2}" for m in parsed.matches))
