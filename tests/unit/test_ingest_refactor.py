"""What the ingest and analytics helpers return, case by case (outputs and messages exactly), so that
their structure can change without their behaviour changing."""

from __future__ import annotations

import argparse
import errno
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from meta_mage.analytics.aggregate import summarise_event
from meta_mage.archetypes.classifier import Classification
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.cards import parse_card_corpus
from meta_mage.ingest.drafts import load_draft
from meta_mage.ingest.drop_zone import DropZoneError, plan_upload
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.rule_suggestions import FallbackShare
from meta_mage.ingest.rule_suggestions import command as suggest_command
from meta_mage.ingest.tournaments import _format_of, parse_tournament
from meta_mage.models.meta import FormatSummary
from meta_mage.storage.meta.aggregate_items import event_json

EXPECTED_FORMATS = "expected one of Modern, Pioneer, Legacy, Pauper, Standard, Vintage"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"Formats": "modern"}, "Modern"),
        ({"Formats": [" Pioneer "]}, "Pioneer"),
        ({"Format": "Legacy"}, "Legacy"),
        ({"Formats": "", "Format": "Pauper"}, "Pauper"),
        ({"Formats": ["Modern", "Legacy"]}, f"Tournament.Formats is None; {EXPECTED_FORMATS}"),
        ({"Formats": 7}, f"Tournament.Formats is 7; {EXPECTED_FORMATS}"),
        ({"Formats": "Cube", "Name": "Modern"}, f"Tournament.Formats is 'Cube'; {EXPECTED_FORMATS}"),
        ({"Formats": ["Modern", "Legacy"], "Name": "Modern Showcase"}, "Modern"),
        ({"Name": "Legacy Challenge"}, "Legacy"),
        ({"Name": "Weekly"}, f"Tournament.Formats is None; {EXPECTED_FORMATS}"),
        (
            {"Name": "Legacy Duel Commander"},
            "Tournament.Formats is missing and the event name 'Legacy Duel Commander' names Legacy and names "
            "'Duel'; add Tournament.Formats",
        ),
    ],
)
def test_the_format_comes_from_formats_format_or_the_event_name(header: dict[str, object], expected: str) -> None:
    try:
        found = _format_of(header, "s.json")
    except InputFileError as exc:
        assert (exc.source, exc.reason) == ("s.json", expected)
    else:
        assert found == expected


SCRYFALL: list[dict[str, Any]] = [
    {
        "object": "card",
        "name": "Fire // Ice",
        "layout": "split",
        "cmc": 4,
        "type_line": "Instant // Instant",
        "color_identity": ["U", "R"],
        "card_faces": [
            {"name": "Fire", "mana_cost": "{1}{R}", "colors": ["R"], "oracle_text": "Fire deals 2."},
            {"name": "Ice", "mana_cost": "{1}{U}"},
        ],
    },
    {
        "object": "card",
        "name": "Delver of Secrets // Insectile Aberration",
        "layout": "transform",
        "cmc": 1,
        "color_identity": ["U"],
        "oracle_text": None,
        "card_faces": [
            {
                "name": "Delver of Secrets",
                "mana_cost": "{U}",
                "type_line": "Creature — Human Wizard",
                "power": "1",
                "toughness": "1",
                "colors": ["U"],
            },
            {"name": "Insectile Aberration", "type_line": "Creature — Human Insect", "power": "3", "toughness": "2"},
        ],
    },
    {"object": "card", "name": "Fire", "type_line": "Instant", "mana_cost": "{1}{R}", "cmc": "2"},
    {"name": "Goblin Token", "layout": "token", "type_line": "Token Creature"},
    {"name": "Opt Variant", "type_line": "Instant", "set_type": "funny"},
    {
        "name": "Llanowar Elves",
        "manaCost": "{G}",
        "type": "Creature — Elf Druid",
        "power": "1",
        "toughness": "1",
        "text": "T: Add G.",
    },
]


def _card(name: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name, "mana_cost": None, "cmc": 0.0, "type_line": "", "colors": [], "color_identity": [],
        "oracle_text": None, "power": None, "toughness": None, "loyalty": None, "layout": "normal", "faces": [],
    }  # fmt: skip
    return base | fields


def _face(name: str, mana_cost: str | None = None, type_line: str | None = None) -> dict[str, Any]:
    return {"name": name, "mana_cost": mana_cost, "type_line": type_line, "oracle_text": None}


def test_a_scryfall_card_takes_missing_fields_from_its_front_face_and_a_single_faced_card_wins() -> None:
    cards = [card.model_dump() for card in parse_card_corpus(SCRYFALL, "c.json")]
    assert cards == [
        _card("Fire", mana_cost="{1}{R}", cmc=2.0, type_line="Instant", colors=["R"]),
        _card(
            "Delver of Secrets // Insectile Aberration",
            mana_cost="{U}",
            cmc=1.0,
            type_line="Creature — Human Wizard",
            colors=["U"],
            color_identity=["U"],
            power="1",
            toughness="1",
            layout="transform",
            faces=[
                _face("Delver of Secrets", "{U}", "Creature — Human Wizard"),
                _face("Insectile Aberration", None, "Creature — Human Insect"),
            ],
        ),
        _card(
            "Llanowar Elves",
            mana_cost="{G}",
            cmc=1.0,
            type_line="Creature — Elf Druid",
            colors=["G"],
            oracle_text="T: Add G.",
            power="1",
            toughness="1",
        ),
    ]


def test_mtgjson_atomic_cards_are_read_by_their_front_face() -> None:
    document = {
        "data": {
            "Wear // Tear": [
                {"name": "Wear // Tear", "manaValue": 2, "colors": ["R", "W"], "type": "Instant", "back": "Tear"}
            ],
            "Not a card": [],
        }
    }
    assert [card.model_dump() for card in parse_card_corpus(document, "a.json")] == [
        _card("Wear // Tear", cmc=2.0, type_line="Instant", colors=["W", "R"], faces=[_face("Wear"), _face("Tear")])
    ]


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (
            [{"name": "Opt", "type_line": "Instant", "cmc": "nan"}],
            "card 'Opt' is malformed (cmc is 'nan', not a number)",
        ),
        (
            [{"name": "Opt", "type_line": "Instant", "colors": 3}],
            "card 'Opt' is malformed (colors is 3, not a list of colour letters)",
        ),
        ([{"name": "Opt", "type_line": 5}], "card 'Opt' is malformed (type_line is 5, not text)"),
        ([{"name": "Opt", "layout": 5}], "card 'Opt' is malformed (layout: Input should be a valid string)"),
        (
            [{"name": "Opt", "type_line": "Instant"}, {"name": "OPT", "type": "Instant"}],
            "card name 'OPT' appears more than once ('Opt' differs from it only in case or Unicode form)",
        ),
        ([{"name": "Opt"}, {"nam": "x"}], "card #2: every card needs a 'name' field (text)"),
        (
            {"cards": []},
            "not a card corpus: expected a JSON list of cards (Scryfall oracle cards or the project's "
            "MTGJSON-derived corpus) or MTGJSON AtomicCards ({'data': {...}})",
        ),
        ([{"name": "Goblin", "layout": "token"}], "no cards found"),
        ({"data": {"": [{"type": "Instant"}]}}, "card None is malformed ('name')"),
    ],
)
def test_a_bad_corpus_names_the_problem(document: Any, reason: str) -> None:
    with pytest.raises(InputFileError) as caught:
        parse_card_corpus(document, "c.json")
    assert (caught.value.source, caught.value.reason) == ("c.json", reason)


def _classify(fmt: str, main: dict[str, int], side: dict[str, int]) -> Classification:
    name = "Burn" if "Lightning Bolt" in main else "Tron"
    return Classification(name, name, "R" if name == "Burn" else "", "aggro", "archetype")


def _deck(player: str, main: dict[str, int], side: dict[str, int] | None = None) -> dict[str, object]:
    return {
        "Player": player,
        "Result": "1st Place",
        "Mainboard": [{"Count": c, "CardName": n} for n, c in main.items()],
        "Sideboard": [{"Count": c, "CardName": n} for n, c in (side or {}).items()],
    }


def _round(name: str, *matches: tuple[str, str, str]) -> dict[str, object]:
    return {"RoundName": name, "Matches": [{"Player1": a, "Player2": b, "Result": r} for a, b, r in matches]}


EVENT = {
    "Tournament": {
        "Date": "2025-11-01T08:30:00+00:00",
        "Name": "Test Open",
        "Uri": "https://melee.gg/Tournament/View/123",
        "Formats": "Modern",
    },
    "Decks": [
        _deck("Ann", {"Lightning Bolt": 4, "Mountain": 20}, {"Smash to Smithereens": 2}),
        _deck("Bea", {"Lightning Bolt": 4, "Mountain": 18, "Skewer the Critics": 2}),
        _deck("Cid", {"Urza's Tower": 4, "Karn Liberated": 4}, {"Thragtusk": 3}),
        _deck("Dee", {}),
    ],
    "Rounds": [
        _round("Round 1", ("Ann", "Cid", "2-1-0"), ("Bea", "-", "2-0-0"), ("Dee", "-", "0-2-0")),
        _round("Round 2", ("Ann", "Bea", "1-1-1"), ("Cid", "Stranger", "2-0-0"), ("Dee", "Bea", "1-2-0")),
        _round(
            "Round 3",
            ("Bea", "Cid", "1-1-0"),
            ("Ann", "Bea", "2-0-0"),
            ("Ann", "Dee", "0-0-0"),
            ("Cid", "Bea", "1-1-0"),
        ),  # the draw listed for each player, as melee.gg lists it: one match
    ],
    "Standings": [],
}

SUMMARY = [
    {
        "tournaments": 1, "decks": 3, "decks_without_list": 1, "matches": 6, "draws": 2, "byes": 1,
        "assigned_losses": 1, "unreported": 1,
        "archetypes": {
            "Burn": {"decks": 2, "colors": {"R": 2}, "strategy": "aggro", "pilots": {"ann": 1, "bea": 1}},
            "Tron": {"decks": 1, "colors": {"": 1}, "strategy": "aggro", "pilots": {"cid": 1}},
        },
        "results": {
            "Burn": {"Tron": [1, 0, 1], "Burn": [1, 1, 1], "(no decklist)": [1, 0, 0]},
            "Tron": {"Burn": [0, 1, 1], "(no decklist)": [1, 0, 0]},
        },
        "players": {"Burn": {"Tron": {"ann": 1}}, "Tron": {"Burn": {"cid": 1}}},
        "sources": {"melee": {"events": 1, "matches": 6}},
    },
    {
        "Burn": {
            "decks": 2, "record": [2, 0, 1],
            "main": {"Lightning Bolt": [2, 8, 2, 0], "Mountain": [2, 38, 2, 0], "Skewer the Critics": [1, 2, 1, 0]},
            "side": {"Smash to Smithereens": [1, 2, 1, 0]},
            "side_vs": {"Smash to Smithereens": {"Tron": [1, 0]}},
            "main_vs": {"Lightning Bolt": {"Tron": [1, 0]}, "Mountain": {"Tron": [1, 0]},
                        "Skewer the Critics": {"Tron": [0, 0]}},
            "lands": ["Mountain"],
        },
        "Tron": {
            "decks": 1, "record": [1, 1, 1],
            "main": {"Urza's Tower": [1, 4, 1, 1], "Karn Liberated": [1, 4, 1, 1]},
            "side": {"Thragtusk": [1, 3, 1, 1]},
            "side_vs": {"Thragtusk": {"Burn": [0, 1]}},
            "main_vs": {"Urza's Tower": {"Burn": [0, 1]}, "Karn Liberated": {"Burn": [0, 1]}},
            "lands": ["Urza's Tower"],
        },
    },
]  # fmt: skip


def test_an_events_aggregates_are_the_same_json_key_order_included() -> None:
    parsed = parse_tournament(EVENT, "t.json", _classify)
    summary = event_json(summarise_event(parsed, lambda name: name in {"Mountain", "Urza's Tower"}))
    assert json.dumps([summary["format"], summary["cards"]]) == json.dumps(SUMMARY)


HEADER = {"draft_id": "m", "draft_name": "M", "draft_date": "2025-12-01"}


@pytest.fixture()
def csv_draft(tmp_path: Path) -> Path:
    """A draft header naming its pool and picks CSV files beside it."""
    (tmp_path / "pool.csv").write_text("name,quantity\nAbrade,1\nDuress,\n")
    (tmp_path / "picks.csv").write_text("pick_n,drafter,card\n1,ann,Abrade\n2,ann, Duress \n")
    (tmp_path / "h.json").write_text(json.dumps({**HEADER, "pool_csv": "pool.csv", "picks_csv": "picks.csv"}))
    return tmp_path


def test_a_header_naming_csv_files_reads_them_and_overrides_win(csv_draft: Path) -> None:
    draft = load_draft(csv_draft / "h.json", {"draft_name": "Over", "draft_id": None})
    assert draft.model_dump(mode="json") == {
        **HEADER,
        "draft_name": "Over",
        "cube": [{"name": "Abrade", "quantity": 1}, {"name": "Duress", "quantity": 1}],
        "drafters": ["ann"],
        "picks": [{"pick_n": 1, "drafter": "ann", "card": "Abrade"}, {"pick_n": 2, "drafter": "ann", "card": "Duress"}],
        "opt_outs": [],
    }


def test_bad_csv_numbers_and_missing_fields_name_their_file(csv_draft: Path) -> None:
    (csv_draft / "bad.csv").write_text("name,quantity\nAbrade,x\n")
    (csv_draft / "badp.csv").write_text("pick_n,drafter,card\nx,ann,Abrade\n")
    cases = [
        (
            (None, HEADER),
            {"pool_csv": csv_draft / "bad.csv"},
            (str(csv_draft / "bad.csv"), "quantity must be a whole number"),
        ),
        (
            (None, {"draft_id": "m"}),
            {"pool_csv": csv_draft / "pool.csv", "picks_csv": csv_draft / "badp.csv"},
            (str(csv_draft / "badp.csv"), "pick_n must be a whole number"),
        ),
        ((None, {"draft_id": "m"}), {}, ("draft", "draft_name: Field required")),
        (
            (csv_draft / "h.json",),
            {"pool_csv": csv_draft / "pool.csv"},  # given twice: the header's name stays in the document
            (str(csv_draft / "h.json"), "pool_csv: Extra inputs are not permitted"),
        ),
    ]
    for args, paths, expected in cases:
        with pytest.raises(InputFileError) as caught:
            load_draft(*args, **paths)  # type: ignore[arg-type]
        assert (caught.value.source, caught.value.reason) == expected


def test_planned_uploads_keep_folder_layout_and_refuse_what_the_drop_zone_cannot_read(csv_draft: Path) -> None:
    (csv_draft / "notes.txt").write_text("hi")
    (csv_draft / "t.tar.gz").write_bytes(b"")
    assert plan_upload([csv_draft / "h.json"], kind="tournaments") == [
        (csv_draft / "h.json", "tournaments/h.json", "tournaments")
    ]
    reads = ".json, .json.gz, .tar.gz, .tgz, .tar"
    refusals = [
        ([csv_draft / "notes.txt"], None, f"{csv_draft / 'notes.txt'}: the drop zone reads {reads} files"),
        ([csv_draft / "nope"], None, f"no such file or folder: {csv_draft / 'nope'}"),
        ([csv_draft / "t.tar.gz"], "drafts", f"{csv_draft / 't.tar.gz'}: drafts files must end with .json, .json.gz"),
    ]
    for paths, kind, message in refusals:
        with pytest.raises(DropZoneError) as caught:
            plan_upload(paths, kind)  # type: ignore[arg-type]
        assert str(caught.value) == message


def test_the_rules_command_says_when_no_cluster_qualifies_and_exits_1_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    modern = FormatSummary(
        format="Modern", first_date="2025-11-01", last_date="2025-11-17", tournaments=2, decks=12, matches=0
    )
    meta = SimpleNamespace(list_formats=lambda: [modern], format_decks=lambda *args: [])
    monkeypatch.setattr(suggest_command, "open_meta", lambda settings: meta)
    share = FallbackShare("Modern", "2025-11-01", "2025-11-17", 0, 12, 0.0, 0.0, 24.2)
    monkeypatch.setattr(suggest_command, "fallback_share", lambda *args: share)
    args = argparse.Namespace(format=" modern", out=str(tmp_path / "out"), rules_dir=str(DEMO_DATA_DIR / "archetypes"))

    assert suggest_command.cmd_rules_suggest(args) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Modern: 0 of 12 decks unnamed (0.0 %, 95 % CI 0.0–24.2 %) from 2025-11-01 to 2025-11-17",
        "  no cluster of 5 or more unnamed decks from 2 or more events with distinctive cards",
        f"evidence: {tmp_path / 'out/Formats/Modern/README.md'}",
    ]

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert suggest_command.cmd_rules_suggest(args) == 1
    assert (
        capsys.readouterr().err
        == f"error: cannot write the suggestions to {tmp_path / 'out'}: No space left on device\n"
    )
