"""Parsing quirks (MANIFEST §8) and the aggregates built from them, on hand-made events."""

import re

import pytest

from meta_mage.analytics.aggregate import NO_DECKLIST, summarise_event
from meta_mage.archetypes.classifier import Classification
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.tournaments import event_key, parse_tournament
from meta_mage.models.evidence import CardRow, Record
from meta_mage.models.tournaments import FORMATS


def classify(fmt: str, main: dict[str, int], side: dict[str, int]) -> Classification:
    name = "Burn" if "Lightning Bolt" in main else "Tron"
    return Classification(name, name, "R" if name == "Burn" else "", "aggro", "archetype")


def deck(player: str, main: dict[str, int], side: dict[str, int] | None = None) -> dict[str, object]:
    return {
        "Player": player,
        "Result": "1st Place",
        "Mainboard": [{"Count": c, "CardName": n} for n, c in main.items()],
        "Sideboard": [{"Count": c, "CardName": n} for n, c in (side or {}).items()],
    }


def event(rounds: list[dict[str, object]]) -> dict[str, object]:
    return {
        "Tournament": {
            "Date": "2025-11-01T08:30:00+00:00",
            "Name": "Test Open",
            "Uri": "https://melee.gg/Tournament/View/123",
            "Formats": "Modern",
        },
        "Decks": [
            deck("Ann", {"Lightning Bolt": 4, "Mountain": 20}, {"Smash to Smithereens": 2}),
            deck("Bea", {"Lightning Bolt": 4, "Mountain": 20}),
            deck(
                "Nicolai Andreassen Bye",
                {"Urza's Tower": 4, "Marang River Regent // Coil and Catch // Marang River Regent": 2},
            ),
            deck("Empty", {}),
        ],
        "Rounds": rounds,
        "Standings": [],
    }


def test_byes_draws_unreported_and_names_with_bye() -> None:
    doc = event(
        [
            {
                "RoundName": "Round 1",
                "Matches": [
                    {"Player1": "Ann", "Player2": "Nicolai Andreassen Bye", "Result": "2-1-0"},  # Burn beats Tron
                    {"Player1": "Bea", "Player2": "-", "Result": "2-0-0"},  # a bye
                    {"Player1": "Empty", "Player2": "-", "Result": "0-2-0"},  # an assigned loss
                ],
            },
            {
                "RoundName": "Round 2",
                "Matches": [
                    {"Player1": "Ann", "Player2": "Bea", "Result": "2-0-0"},  # mirror
                    {"Player1": "Nicolai Andreassen Bye", "Player2": "Stranger", "Result": "1-1-1"},  # draw, no list
                    {"Player1": "Bea", "Player2": "Nicolai Andreassen Bye", "Result": "0-0-0"},  # unreported
                ],
            },
        ]
    )
    parsed = parse_tournament(doc, "test.json", classify)
    assert parsed.date == "2025-11-01" and parsed.event_key == "melee:123"
    assert [m.outcome for m in parsed.matches] == ["result", "bye", "assigned_loss", "result", "draw", "unreported"]
    assert parsed.decks[2].mainboard == {"Urza's Tower": 4, "Marang River Regent": 2}
    assert parsed.decks[3].archetype is None

    aggregate = summarise_event(parsed, lambda name: name in {"Mountain", "Urza's Tower"})
    fmt, cards = aggregate.format, aggregate.archetypes
    assert (fmt.matches, fmt.draws, fmt.byes, fmt.assigned_losses, fmt.unreported) == (3, 1, 1, 1, 1)
    assert fmt.results["Burn"] == {"Tron": Record(1, 0, 0), "Burn": Record(1, 1, 0)}
    assert fmt.results["Tron"] == {"Burn": Record(0, 1, 0), NO_DECKLIST: Record(0, 0, 1)}
    assert fmt.archetypes["Burn"].decks == 2 and fmt.decks == 3 and fmt.decks_without_list == 1
    # Card stats exclude the mirror: Ann's one non-mirror win counts, Bea has no non-mirror match.
    assert cards["Burn"].main["Lightning Bolt"] == CardRow(2, 8, 1, 0)
    assert cards["Burn"].side_vs["Smash to Smithereens"] == {"Tron": Record(1, 0)}
    assert cards["Burn"].main_vs["Lightning Bolt"] == {"Tron": Record(1, 0)}  # the mirror is left out here too
    assert cards["Burn"].lands == ("Mountain",)


def test_redated_duplicates_share_an_event_key() -> None:
    a = event_key("https://www.mtgo.com/decklist/pioneer-challenge-32-2025-11-0812824779", "x", "2025-11-08", "Pioneer")
    b = event_key("https://www.mtgo.com/decklist/pioneer-challenge-32-2025-11-2112824779", "x", "2025-11-21", "Pioneer")
    assert a == b == "mtgo:12824779"


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda d: d.pop("Rounds"), "missing 'Rounds'"),
        (lambda d: d["Tournament"].update(Formats="Commander"), "Tournament.Formats is 'Commander'"),
        (lambda d: d["Tournament"].update(Date="soon"), "is not a date"),
        (
            lambda d: d["Rounds"].append(
                {"RoundName": "R9", "Matches": [{"Player1": "a", "Player2": "b", "Result": "2-x"}]}
            ),
            "Result 'W-L-D'",
        ),
        (lambda d: d["Decks"][0]["Mainboard"].append({"Count": 0, "CardName": "Island"}), "has Count 0"),
    ],
)
def test_bad_files_name_the_problem(mutate, reason) -> None:  # type: ignore[no-untyped-def]
    doc = event([])
    mutate(doc)
    with pytest.raises(InputFileError, match=reason) as error:
        parse_tournament(doc, "bad.json", classify)
    assert error.value.source == "bad.json"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Legacy Challenge 32", "Legacy"),
        ("Pioneer-Showdown", "Pioneer"),
        ("Premodern Weekly", "Tournament.Formats is None"),
        ("Standard Pioneer Showdown", "names Pioneer, Standard"),
        ("Vintage Cube Open", "names Vintage and names 'Cube'"),
        ("Pauper Cube Challenge", "names Pauper and names 'Cube'"),
    ],
)
def test_a_file_without_formats_gets_its_format_from_whole_words_of_the_name(name: str, expected: str) -> None:
    doc = event([])
    tournament: dict[str, object] = doc["Tournament"]  # type: ignore[assignment]
    del tournament["Formats"]
    tournament["Name"] = name
    if expected in FORMATS:
        assert parse_tournament(doc, "old.json", classify).format == expected
    else:
        with pytest.raises(InputFileError, match=re.escape(expected)):
            parse_tournament(doc, "old.json", classify)
