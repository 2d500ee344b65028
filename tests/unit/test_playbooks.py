"""Archetype playbooks (``Formats/<Format>/playbook.toml``): every bundled format's archetypes of 1 %+ share have
one, every card they name is a real card the archetype plays, the engines are current in the bundled lists, the
roles are the ones every strong player agrees on, and a bad file is refused naming the file, entry and field."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import shutil
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from meta_mage.archetypes.classifier import ArchetypeClassifier, get_classifier
from meta_mage.archetypes.playbooks import (
    CARD_FIELDS,
    PLAYBOOK_FILE,
    Playbook,
    PlaybookError,
    playbook_for,
    playbook_path,
    playbooks,
    staleness,
)
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.models.cards import card_key
from tests.conftest import SHARED_DATA, demo_members

RULES = DEMO_DATA_DIR / "archetypes"
FORMATS = ("Legacy", "Modern", "Pauper", "Pioneer", "Standard", "Vintage")
WINDOW_DAYS = 60
MIN_SHARE = 0.01
CATCH_ALLS = {"Aggro", "Combo", "Midrange", "Control", "Tempo", "Unknown"}
CORPUS = SHARED_DATA / "cards" / "oracle_corpus.json.gz"
PLAYED_FIELDS = tuple(field for field in CARD_FIELDS if field != "fears")


@dataclass(frozen=True)
class ArchetypeLists:
    """One archetype's bundled lists over the window: how many, and each card's share of them."""

    lists: int
    inclusion: dict[str, float]


@cache
def bundled(fmt: str) -> tuple[int, dict[str, ArchetypeLists]]:
    """The format's bundled decks over the last ``WINDOW_DAYS`` days, classified by the bundled rules: the
    number of decks and each archetype's lists."""
    classifier = get_classifier(RULES)
    decks = []
    for _, data in demo_members(formats=(fmt,)):
        tournament = json.loads(data)
        for deck in tournament["Decks"]:
            main = {c["CardName"]: c["Count"] for c in deck.get("Mainboard") or []}
            side = {c["CardName"]: c["Count"] for c in deck.get("Sideboard") or []}
            if main:
                decks.append((tournament["Tournament"]["Date"][:10], main, side))
    last = dt.date.fromisoformat(max(date for date, _, _ in decks))
    start = (last - dt.timedelta(days=WINDOW_DAYS - 1)).isoformat()
    counts: Counter[str] = Counter()
    sections: dict[str, tuple[Counter[str], Counter[str]]] = {}
    for date, main, side in decks:
        if date < start:
            continue
        name = classifier.classify(fmt, main, side).archetype
        counts[name] += 1
        in_main, in_side = sections.setdefault(name, (Counter(), Counter()))
        in_main.update({card_key(c) for c in main})
        in_side.update({card_key(c) for c in side})
    return sum(counts.values()), {name: ArchetypeLists(n, _inclusion(*sections[name], n)) for name, n in counts.items()}


def _inclusion(in_main: Counter[str], in_side: Counter[str], lists: int) -> dict[str, float]:
    """Each card's share of the lists as the stored aggregates give it (``playbooks.inclusion_of``): the larger of
    its main-deck and sideboard shares."""
    return {card: max(in_main[card], in_side[card]) / lists for card in in_main | in_side}


@cache
def corpus_names() -> frozenset[str]:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} is missing (the shared data folder sits beside the repository)")
    with gzip.open(CORPUS) as file:
        names = {card["name"] for card in json.loads(file.read())}
    return frozenset(names | {name.split(" // ")[0] for name in names})


def books(fmt: str) -> dict[str, Playbook]:
    found = playbooks(RULES, fmt)
    assert found, f"{fmt} has no {PLAYBOOK_FILE}"
    return found


# --- the shipped files -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_archetype_of_one_percent_share_has_a_playbook(fmt: str) -> None:
    decks, archetypes = bundled(fmt)
    wanted = {name for name, a in archetypes.items() if a.lists / decks >= MIN_SHARE and name not in CATCH_ALLS}
    missing = wanted - set(books(fmt))
    assert not missing, f"{fmt}: archetypes of 1 %+ share over {WINDOW_DAYS} days without a playbook: {missing}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_name_is_a_real_card(fmt: str) -> None:
    known = corpus_names()
    wrong = [
        f"{book.archetype}.{field}: {card}"
        for book in books(fmt).values()
        for field in CARD_FIELDS
        for card in getattr(book, field)
        if card not in known
    ]
    assert not wrong, f"{fmt}: not exact names of real cards: {wrong}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_card_but_the_fears_is_played_by_its_archetype(fmt: str) -> None:
    _, archetypes = bundled(fmt)
    unplayed = []
    for book in books(fmt).values():
        lists = archetypes.get(book.archetype)
        assert lists is not None, f"{fmt}: {book.archetype} has no bundled lists (a name the classifier never gives)"
        unplayed += [
            f"{book.archetype}.{field}: {card}"
            for field in PLAYED_FIELDS
            for card in getattr(book, field)
            if not lists.inclusion.get(card_key(card))
        ]
    assert not unplayed, f"{fmt}: cards no bundled list of the archetype plays: {unplayed}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_shipped_engines_are_current_in_the_bundled_lists(fmt: str) -> None:
    _, archetypes = bundled(fmt)
    stale = {
        book.archetype: verdict.stale_cards
        for book in books(fmt).values()
        if (verdict := staleness(book, archetypes[book.archetype].inclusion)).stale
    }
    assert not stale, f"{fmt}: engine cards below their engine_share: {stale}"


@pytest.mark.parametrize(
    ("fmt", "archetype", "roles"),
    [
        ("Modern", "Amulet Titan", {"ramp"}),
        ("Modern", "Boros Energy", {"aggro"}),
        ("Modern", "Ritual Storm", {"combo"}),
        ("Modern", "Azorius Control", {"control"}),
        ("Modern", "Izzet Prowess", {"aggro", "tempo"}),
        ("Modern", "Goryo's Reanimator", {"combo"}),
        ("Modern", "Eldrazi Tron", {"ramp"}),
        ("Legacy", "Dimir Reanimator", {"combo"}),
        ("Legacy", "Izzet Tempo", {"tempo"}),
        ("Legacy", "Oops Combo", {"combo"}),
        ("Pioneer", "Mono Red Hero Aggro", {"aggro"}),
        ("Pioneer", "Azorius Control", {"control"}),
        ("Pioneer", "Greasefang", {"combo"}),
        ("Pauper", "Mono Blue Terror", {"tempo"}),
    ],
)
def test_roles_every_strong_player_agrees_on(fmt: str, archetype: str, roles: set[str]) -> None:
    book = playbook_for(RULES, fmt, archetype)
    assert book is not None and book.role in roles, f"{fmt} {archetype}: {book.role if book else 'no playbook'}"


def test_graveyard_plans_and_the_cards_kept_on_rules() -> None:
    reanimator = playbook_for(RULES, "Legacy", "Dimir Reanimator")
    assert reanimator is not None and reanimator.has_graveyard_plan
    assert {"reanimate", "entomb", "atraxa, grand unifier"} <= reanimator.kept_on_rules
    energy = playbook_for(RULES, "Modern", "boros energy")  # any case
    assert energy is not None and not energy.has_graveyard_plan
    assert "guide of souls" in energy.kept_on_rules and "blood moon" in {card_key(c) for c in energy.interaction}
    amulet = playbook_for(RULES, "Modern", "Amulet Titan")
    assert amulet is not None and "amulet of vigor" in {card_key(c) for c in amulet.fast_mana}
    assert "blood moon" in {card_key(c) for c in amulet.fears}


# --- staleness -------------------------------------------------------------------------------------------------


def test_an_engine_card_below_its_share_makes_the_playbook_stale() -> None:
    # Given Boros Energy's real inclusion in the bundled lists, current
    book = playbook_for(RULES, "Modern", "Boros Energy")
    assert book is not None
    inclusion = dict(bundled("Modern")[1]["Boros Energy"].inclusion)
    assert not staleness(book, inclusion).stale
    # When Guide of Souls falls to 30 % of the lists and Seasoned Pyromancer leaves them
    inclusion[card_key("Guide of Souls")] = 0.3
    del inclusion[card_key("Seasoned Pyromancer")]
    verdict = staleness(book, inclusion)
    # Then the playbook is stale by exactly those two cards, with their current shares
    assert verdict.stale and verdict.archetype == "Boros Energy"
    assert verdict.stale_cards == (("Guide of Souls", 0.3), ("Seasoned Pyromancer", 0.0))


# --- loading ---------------------------------------------------------------------------------------------------

GOOD_ENTRY = """
[[archetype]]
name = "Boros Energy"
role = "aggro"
plan = "Attack."
engine = ["Guide of Souls"]
win_conditions = ["Phlage, Titan of Fire's Fury"]
fast_mana = []
graveyard = []
fears = ["Wrath of the Skies"]
fears_why = "Sweepers."
interaction = ["Galvanic Discharge"]
engine_share = 0.6
"""


def rules_with(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "Formats" / "Modern"
    folder.mkdir(parents=True)
    (folder / PLAYBOOK_FILE).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_good_file_loads_and_is_read_once(tmp_path: Path) -> None:
    rules = rules_with(tmp_path, GOOD_ENTRY)
    found = playbooks(rules, "modern")
    assert list(found) == ["Boros Energy"] and found["Boros Energy"].format == "Modern"
    assert found["Boros Energy"].kept_on_rules == {"guide of souls", "phlage, titan of fire's fury"}
    assert playbooks(rules, "Modern")["Boros Energy"] is found["Boros Energy"]  # cached per (rules, format)
    assert playbook_for(rules, "Modern", "BOROS ENERGY") is found["Boros Energy"]
    assert playbook_for(rules, "Modern", "Domain Zoo") is None
    assert playbooks(rules, "Pioneer") == {} and playbook_path(rules, "Pioneer") is None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('role = "aggro"', 'role = "beatdown"'), "field 'role'"),
        (('plan = "Attack."\n', ""), "field 'plan' is missing"),
        (('engine = ["Guide of Souls"]', 'engine = "Guide of Souls"'), "field 'engine'"),
        (('engine = ["Guide of Souls"]', "engine = []"), "field 'engine' names no card"),
        (("engine_share = 0.6", "engine_share = 60"), "field 'engine_share'"),
        (("engine_share = 0.6", 'engine_share = "high"'), "field 'engine_share'"),
        (("engine_share = 0.6", "engine_share = 0.6\nengine_cards = []"), "unknown field 'engine_cards'"),
        (('fears = ["Wrath of the Skies"]', 'fears = ["Wrath of the Skies", 3]'), "field 'fears'"),
    ],
)
def test_a_bad_entry_names_the_file_the_entry_and_the_field(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    rules = rules_with(tmp_path, GOOD_ENTRY.replace(*change))
    with pytest.raises(PlaybookError) as raised:
        playbooks(rules, "Modern")
    message = str(raised.value)
    assert str(rules / "Formats" / "Modern" / PLAYBOOK_FILE) in message
    assert "entry 1 (Boros Energy)" in message and expected in message


def test_a_repeated_name_and_a_broken_file_are_refused(tmp_path: Path) -> None:
    rules = rules_with(tmp_path / "twice", GOOD_ENTRY + GOOD_ENTRY.replace("Boros Energy", "boros energy"))
    with pytest.raises(PlaybookError, match=r"entry 2 \(boros energy\): field 'name' repeats"):
        playbooks(rules, "Modern")
    broken = rules_with(tmp_path / "broken", GOOD_ENTRY.replace('name = "Boros Energy"', "name = Boros Energy"))
    with pytest.raises(PlaybookError, match=r"playbook\.toml: cannot be read"):
        playbooks(broken, "Modern")


def test_a_playbook_does_not_change_the_rules_fingerprint(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(RULES / "Formats" / "Pauper" / "Archetypes", rules / "Formats" / "Pauper" / "Archetypes")
    before = ArchetypeClassifier(rules).fingerprint()
    (rules / "Formats" / "Pauper" / PLAYBOOK_FILE).write_text(GOOD_ENTRY, encoding="utf-8")
    assert ArchetypeClassifier(rules).fingerprint() == before
