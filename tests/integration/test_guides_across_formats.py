"""The deck tools' decisions, checked over the five most played decks of every bundled format (a real demo list
of each) against each one's top five opponents: no card its playbook keeps (engine, win conditions, fast mana)
cut without its lists' record, play plans whose roles and deciders agree with both playbooks, guides that depend on
the opponent, no colour hoser against a deck without that colour, 60 + 15 always, and no card one tool keeps
while another cuts it."""

from __future__ import annotations

import collections
import functools
import json
import re
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.archetypes.playbooks import Playbook, playbook_for
from meta_mage.card_rules.answers import role_labels
from meta_mage.card_rules.facts import CardFacts
from meta_mage.config import Settings
from meta_mage.decks.parse import parse_deck_text
from tests.conftest import call, demo_members

FORMATS = ("Modern", "Standard", "Legacy", "Pioneer", "Vintage", "Pauper")
DAYS = 60
# the evidence a guide names when it takes out a core card: its lists' record, or the rules in this matchup
EVIDENCE = (
    "went",
    "answers only",
    "answers none",
    "nothing to hit",
    "slow against",
    "late against",
    "life gain does little",
    "a combat trick",
    "what they choose to lose",
)
_C = r"(white|blue|black|red|green)"
# a colour the card's effect depends on ("if it's blue", "black or red permanent", "protection from red"), not
# the colour of a token it makes or of a card it exiles as an alternative cost
HOSER = re.compile(
    rf"(?:if it's|protection from|targets? an?) {_C}\b"
    rf"|\b{_C}(?: (?:or|and/or) {_C})? (?:spells?|permanents?|sources?)\b",
    re.I,
)
# reasons that are the same in every matchup of a kind by a stated rule, or true of this opponent alone
STATED = (
    "when nothing misses",
    "slow against",
    "late against",
    "life gain does little",
    "nothing to hit",
    "combat trick",
    "answers none of their key cards",
)
LETTER = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
# a card that gets value back from a graveyard, read apart from the card rules: cast from one, returned from
# one to the battlefield, delve, dredge
GRAVEYARD_VALUE = re.compile(
    r"\b(flashback|escape|unearth|delve|dredge|jump-start|retrace|disturb|embalm|eternalize|encore)\b"
    r"|(?:cast|play)s? [^.]*from (?:your|a) graveyard|from (?:your|a|their) graveyards? (?:to|onto) the battlefield",
    re.I,
)
# hate that only reaches graveyards: "exile ... graveyard", "cards in graveyards can't"
GRAVEYARD_ONLY = {
    "Surgical Extraction",
    "Rest in Peace",
    "Leyline of the Void",
    "Nihil Spellbomb",
    "Relic of Progenitus",
    "Tormod's Crypt",
    "Soul-Guide Lantern",
    "Ground Seal",
    "Cling to Dust",
    "Faerie Macabre",
}
BASICS = {
    f"{snow}{kind}": (snow, kind)
    for snow in ("", "Snow-Covered ")
    for kind in ("Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes")
}
RECORD = re.compile(r"went (\d+-\d+)")
# a card whose victim its target chooses: "target player sacrifices a creature", "each opponent sacrifices"
EDICT = re.compile(r"\b(?:player|opponent)s? sacrifices? an? (?:\w+ )?creature", re.I)


@pytest.fixture(scope="module")
def world(demo_world: dict[str, Any]) -> dict[str, Any]:
    """Every bundled format, from the demo snapshot."""
    return demo_world


@functools.cache
def demo_lists() -> dict[str, dict[str, str]]:
    """A real 60 + 15 demo list of each archetype, per format, as pasted text."""
    classifier = get_classifier(Settings().archetype_rules_dir)
    found: dict[str, dict[str, str]] = collections.defaultdict(dict)
    for _, data in sorted(demo_members()):
        tournament = json.loads(data)
        fmt = tournament["Tournament"].get("Formats")
        for deck in tournament.get("Decks") or []:
            main = {c["CardName"]: c["Count"] for c in deck.get("Mainboard") or []}
            side = {c["CardName"]: c["Count"] for c in deck.get("Sideboard") or []}
            if sum(main.values()) < 60 or sum(side.values()) != 15:
                continue
            archetype = classifier.classify(fmt, main, side).archetype
            if archetype not in found[fmt]:
                lines = (
                    [f"{n} {c}" for c, n in main.items()] + ["", "Sideboard"] + [f"{n} {c}" for c, n in side.items()]
                )
                found[fmt][archetype] = "\n".join(lines)
    return found


def facts(cards: list[dict[str, Any]], name: str) -> CardFacts:
    card = next(c for c in cards if c["name"] == name)
    return CardFacts(name, card.get("type_line") or "", card.get("oracle_text") or "", card.get("mana_cost"))


def copies(cards: list[dict[str, Any]], name: str, section: str) -> int:
    return sum(c["quantity"] for c in cards if c["name"] == name and c["section"] == section)


def decisions(world: dict[str, Any], fmt: str, archetype: str, text: str) -> dict[str, list[str]]:
    """The three deck tools on one list against its top five opponents: what each check finds, as examples."""
    cards = call(world, "get_enriched_deck", deck=text)["card_details"]
    own = tuple(sum(c["quantity"] for c in cards if c["section"] == s) for s in ("mainboard", "sideboard"))
    oracle = {c["name"]: c.get("oracle_text") or "" for c in cards}
    args = {"card_details": cards, "archetype": archetype, "format": fmt, "days": DAYS}
    board = call(world, "optimize_sideboard", **args)
    mainboard = call(world, "optimize_mainboard", **args)
    stats = call(world, "get_deck_matchup_stats", archetype=archetype, format=fmt, days=DAYS)
    rules_dir = Settings().archetype_rules_dir
    book = playbook_for(rules_dir, fmt, archetype)
    assert book is not None, f"{fmt} {archetype} has no playbook"
    engine = kept_on_rules(book, cards)
    found: dict[str, list[str]] = collections.defaultdict(list)
    # each section's copies are one decision each: a main-deck copy kept beside a sideboard copy cut is no clash
    kept = {("side", s["name"]) for s in board["final_sideboard"]}
    kept |= {("main", c["name"]) for c in mainboard["flex_spots"] if c["better_against"] or c["answers_against"]}
    # a card cut from the deck (every copy of it; keeping two of three is one decision about its count)
    cut = {("side", c["name"]) for c in board["cut_reasons"] if c["quantity"] == copies(cards, c["name"], "sideboard")}
    cut |= {("main", s["cut"]) for s in mainboard["swaps"] if s["cut_quantity"] == copies(cards, s["cut"], "mainboard")}
    seen: set[tuple[tuple[str, int, str], ...]] = set()
    optimiser_guides = {g["opponent"]: g for g in board["guides"]}
    for top in board["top_archetypes"]:
        opponent = top["archetype"]
        plan = call(
            world,
            "generate_deck_matchup_strategy",
            card_details=cards,
            archetype=archetype,
            opponent_archetype=opponent,
            matchup_stats=stats,
        )
        guide = plan["sideboard_guide"]
        where = f"{archetype} vs {opponent}"
        found["guides"].append(where)
        if not guide["bring_in"]:
            found["stay with the main deck"].append(where)
        kept |= {("side", a["name"]) for a in plan["sideboard_answers"]} | {
            ("side", c["name"]) for c in guide["bring_in"]
        }
        other = optimiser_guides[opponent]
        found["in one guide, out in the other"] += [
            f"{where}: {name}"
            for name in {c["name"] for c in guide["take_out"]} & {c["name"] for c in other["bring_in"]}
            | {c["name"] for c in other["take_out"]} & {c["name"] for c in guide["bring_in"]}
        ]
        outs = tuple(sorted((c["name"], c["quantity"], c["why"]) for c in guide["take_out"]))
        found["playbook card out on the rules"] += [
            f"{where}: {name} ({why})" for name, _, why in outs if name in engine and "went" not in why
        ]
        found["role against the playbooks"] += role_disagrees(book, playbook_for(rules_dir, fmt, opponent), plan, where)
        found["feared card not among the deciders"] += feared_missing(book, plan, where)
        their_book = playbook_for(rules_dir, fmt, opponent)
        if their_book is not None and their_book.graveyard:
            found["graveyard hate kept out against a graveyard plan"] += [
                f"{where}: {c['name']}" for c in guide["left_out"] if "no graveyard plan" in c["why"]
            ]
        types = {c["name"]: c.get("type_line") or "" for c in cards}
        found["a 3-4-of threat cut as a flex slot"] += [
            f"{where}: {name}"
            for name, n, why in outs
            if "flex slot" in why
            and copies(cards, name, "mainboard") >= 3
            and re.search(r"Creature|Planeswalker|Saga", types.get(name, ""))
        ]
        their_creatures = any("Creature" in (k.get("type_line") or "") for k in plan["opponent_key_cards"])
        found["an edict called dead against creatures"] += [
            f"{where}: {name}"
            for name, _, why in outs
            if their_creatures and "nothing to hit" in why and EDICT.search(oracle.get(name, ""))
        ]
        stated = all(any(rule in why for rule in STATED) for *_, why in outs)
        if outs and outs in seen and not stated:
            found["same out-list and reasons"].append(f"{where}: {outs}")
        seen.add(outs)
        their_colours = {c for k in plan["opponent_key_cards"] for c in k.get("colors") or []}
        for card in guide["bring_in"]:
            named = {LETTER[w.lower()] for m in HOSER.findall(oracle.get(card["name"], "")) for w in m if w}
            if named and not named & their_colours:
                found["colour hoser without the colour"].append(f"{where}: {card['name']}")
        key_text = " ".join(
            k.get("oracle_text") or "" for k in plan["opponent_key_cards"] if k["section"] == "mainboard"
        )
        # their playbook knows a plan the key cards' words may not show (Underworld Breach grants escape)
        plan_known = their_book is not None and bool(their_book.graveyard)
        found["graveyard hate without a graveyard plan"] += [
            f"{where}: {c['name']}"
            for c in guide["bring_in"]
            if c["name"] in GRAVEYARD_ONLY and not GRAVEYARD_VALUE.search(key_text) and not plan_known
        ]
        records = [m for c in guide["bring_in"] for m in RECORD.findall(c["why"])]
        found["one record repeated as each card's evidence"] += [
            f"{where}: {r}" for r in sorted(set(records)) if records.count(r) > 1
        ]
        accounted = {c["name"] for c in guide["bring_in"] + guide["left_out"]} | set(guide["held_back"])
        found["sideboard card not accounted for"] += [
            f"{where}: {c['name']}" for c in cards if c["section"] == "sideboard" and c["name"] not in accounted
        ]
        found["post-board 75 not the guide's"] += [f"{where}"] if not post_board_matches(cards, guide) else []
        decided = plan["play_plan"] or {}
        if not decided.get("deciders") or not decided.get("keep"):
            found["no play plan"].append(where)
        for g in (guide, other):
            if (g["mainboard_after"], g["sideboard_after"]) != own:
                found["not the player's own 60 + 15"].append(
                    f"{where}: {g['mainboard_after']} + {g['sideboard_after']}"
                )
    found["basic for a basic of another kind"] += [
        f"{archetype}: {s['cut']} → {s['add']}"
        for s in mainboard["swaps"]
        if s["cut"] in BASICS and s["add"] in BASICS and BASICS[s["cut"]] != BASICS[s["add"]]
    ]
    found["kept and cut"] = [f"{archetype}: {name} ({section})" for section, name in sorted(kept & cut)]
    return found


def kept_on_rules(book: Playbook, cards: list[dict[str, Any]]) -> set[str]:
    """The cards a playbook keeps whatever the matchup: its engine (not the answers in it: an answer competes on
    what it answers), its win conditions and its fast mana."""
    types = {c["name"]: c.get("type_line") or "" for c in cards}
    answers = {
        name
        for name in book.engine
        if name in types and role_labels(facts(cards, name)) and not re.search(r"Creature|Planeswalker", types[name])
    }
    return {*book.engine, *book.win_conditions, *book.fast_mana} - answers


# the part the player's deck must play, from both playbooks' roles (None: the data decides)
def expected_role(mine: str, theirs: str) -> set[str] | None:
    if mine == "combo" and theirs != "combo":
        return {"combo"}
    if theirs == "combo" and mine != "combo":
        return {"beatdown", "against combo"}
    if mine == "ramp" and theirs != "ramp":
        return {"ramp"}
    if theirs == "ramp" and mine != "ramp":
        return {"beatdown"}
    return None


def role_disagrees(book: Playbook, theirs: Playbook | None, plan: dict[str, Any], where: str) -> list[str]:
    """The play plan's role when the two playbooks' roles decide it and the plan says otherwise."""
    expected = expected_role(book.role, theirs.role) if theirs is not None else None
    role = (plan["play_plan"] or {}).get("speed", {}).get("role")
    return [f"{where}: {role}, playbooks {book.role} vs {theirs.role}"] if expected and role not in expected else []  # type: ignore[union-attr]


def feared_missing(book: Playbook, plan: dict[str, Any], where: str) -> list[str]:
    """The hosers the player's playbook fears that most of their lists play, missing from the cards that decide
    the games."""
    deciders = {d["name"] for d in (plan["play_plan"] or {}).get("deciders", [])}
    played = {
        k["name"] for k in plan["opponent_key_cards"] if k["section"] == "mainboard" and k["inclusion_rate"] >= 50
    }
    return [f"{where}: {name}" for name in sorted(set(book.fears) & played - deciders)]


def post_board_matches(cards: list[dict[str, Any]], guide: dict[str, Any]) -> bool:
    """The guide's pasteable 75 is the player's list with the guide's moves made, and parses back as a deck."""
    main = collections.Counter({c["name"]: c["quantity"] for c in cards if c["section"] == "mainboard"})
    side = collections.Counter({c["name"]: c["quantity"] for c in cards if c["section"] == "sideboard"})
    for c in guide["bring_in"]:
        main[c["name"]] += c["quantity"]
        side[c["name"]] -= c["quantity"]
    for c in guide["take_out"]:
        main[c["name"]] -= c["quantity"]
        side[c["name"]] += c["quantity"]
    parsed = parse_deck_text(guide["post_board"])
    return (parsed.mainboard, parsed.sideboard) == (
        {k: v for k, v in main.items() if v},
        {k: v for k, v in side.items() if v},
    )


def top_decks(world: dict[str, Any], fmt: str) -> list[str]:
    rows = call(world, "get_format_meta_rankings", format=fmt, current_days=DAYS, previous_days=DAYS)["rows"]
    lists = demo_lists()[fmt]
    return [r["name"] for r in rows if r["name"] in lists][:5]


@pytest.mark.parametrize("fmt", FORMATS)
def test_deck_tools_decide_each_card_once_and_by_the_matchup(world: dict[str, Any], fmt: str) -> None:
    # Given the five most played decks of a format, each a real list, against their top five opponents
    archetypes = top_decks(world, fmt)
    assert len(archetypes) == 5
    total: dict[str, list[str]] = collections.defaultdict(list)
    for archetype in archetypes:
        for check, examples in decisions(world, fmt, archetype, demo_lists()[fmt][archetype]).items():
            total[check] += examples
    print(f"\n{fmt}: " + ", ".join(f"{check} {len(examples)}" for check, examples in total.items()))
    # Then every guide keeps 60 + 15, takes no engine piece out on the rules alone, nor a core card without
    # naming its evidence, depends on the
    # opponent, brings in no colour hoser against a deck without that colour, and no tool cuts what another keeps
    assert len(total["guides"]) == 25
    for check in (
        "playbook card out on the rules",
        "role against the playbooks",
        "feared card not among the deciders",
        "graveyard hate kept out against a graveyard plan",
        "same out-list and reasons",
        "colour hoser without the colour",
        "not the player's own 60 + 15",
        "kept and cut",
        "in one guide, out in the other",
        "graveyard hate without a graveyard plan",
        "one record repeated as each card's evidence",
        "sideboard card not accounted for",
        "post-board 75 not the guide's",
        "no play plan",
        "basic for a basic of another kind",
        "a 3-4-of threat cut as a flex slot",
        "an edict called dead against creatures",
    ):
        assert total[check] == [], check


# --- the examples, each on the real demo lists ------------------------------------------------------


def _deck(world: dict[str, Any], fmt: str, archetype: str) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = call(world, "get_enriched_deck", deck=demo_lists()[fmt][archetype])["card_details"]
    return cards


def test_hydroblast_does_not_count_devoid_eldrazi_or_spirit_guides(world: dict[str, Any]) -> None:
    # Given Legacy's Eldrazi Stompy, whose Eldrazi are Devoid (colourless) and whose Simian Spirit Guides are
    # exiled for mana, never cast
    found = call(world, "get_card_evidence", card="Hydroblast", opponent_archetype="Eldrazi Stompy", format="Legacy")
    # Then Hydroblast answers none of them
    answered = {a["name"] for a in found["answers"]}
    assert not {n for n in answered if n.startswith("Eldrazi") or n == "Simian Spirit Guide"}, answered


def test_blood_moon_answers_no_land_of_a_deck_that_casts_everything_with_red(world: dict[str, Any]) -> None:
    # Given Ritual Storm, whose spells are all cast with red (its Manamorphose is hybrid)
    found = call(world, "get_card_evidence", card="Blood Moon", opponent_archetype="Ritual Storm", format="Modern")
    # Then Blood Moon answers none of its lands
    assert [a["name"] for a in found["answers"] if a["is_land"]] == []


def test_a_card_off_the_decks_colours_says_so_and_what_a_splash_costs(world: dict[str, Any]) -> None:
    # Given a Jeskai deck asking about Fatal Push
    found = call(
        world,
        "get_card_evidence",
        card="Fatal Push",
        opponent_archetype="Boros Energy",
        format="Modern",
        card_details=_deck(world, "Modern", "Jeskai Blink"),
    )
    # Then the answer says it is off the deck's colours, naming the colour and the lands that make it
    assert "off your deck's colours" in found["off_colours"] and "black" in found["off_colours"]
    # and a card in the deck's colours is not
    again = call(
        world,
        "get_card_evidence",
        card="Lightning Bolt",
        format="Modern",
        card_details=_deck(world, "Modern", "Boros Energy"),
    )
    assert again["off_colours"] == ""


def _boros_guide(world: dict[str, Any], opponent: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The demo Boros Energy list and its sideboard guide against ``opponent`` (Modern, 60 days)."""
    cards, plan = _boros_plan(world, opponent)
    return cards, plan["sideboard_guide"]


def _boros_plan(world: dict[str, Any], opponent: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The demo Boros Energy list and its matchup strategy against ``opponent`` (Modern, 60 days)."""
    return matchup_plan(world, "Modern", "Boros Energy", opponent)


def matchup_plan(
    world: dict[str, Any], fmt: str, archetype: str, opponent: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The demo list of ``archetype`` and its matchup strategy against ``opponent`` (60 days)."""
    cards = _deck(world, fmt, archetype)
    stats = call(world, "get_deck_matchup_stats", archetype=archetype, format=fmt, days=DAYS)
    plan = call(
        world,
        "generate_deck_matchup_strategy",
        card_details=cards,
        archetype=archetype,
        opponent_archetype=opponent,
        matchup_stats=stats,
    )
    return cards, plan


def test_a_strong_sideboard_is_not_held_back_by_an_all_core_main_deck(world: dict[str, Any]) -> None:
    # Given Boros Energy, whose main deck is nearly all core, against Affinity (the restructure's finding)
    cards, guide = _boros_guide(world, "Affinity")
    # Then artifact hate comes in for the main deck's weakest slot here, each with its reason
    assert {"Meltdown", "Wear // Tear"} <= {c["name"] for c in guide["bring_in"]}
    assert guide["take_out"] and all("answers" in c["why"] for c in guide["take_out"])
    # and the post-board 75 is there to paste
    assert post_board_matches(cards, guide)


def test_graveyard_hate_stays_out_against_a_deck_without_a_graveyard_plan(world: dict[str, Any]) -> None:
    # Given Boros Energy against Eldrazi Ramp, whose key cards play lands from a graveyard but cast nothing from one
    _, guide = _boros_guide(world, "Eldrazi Ramp")
    # Then Surgical Extraction neither comes in nor waits for room: it stays out, saying why
    assert "Surgical Extraction" not in {c["name"] for c in guide["bring_in"]} | set(guide["held_back"])
    left = {c["name"]: c["why"] for c in guide["left_out"]}
    assert "no graveyard plan" in left["Surgical Extraction"]
    # and the land hate that hurts their plan comes in first
    assert guide["bring_in"][0]["name"] in {"Blood Moon", "Obsidian Charmaw"}


def test_the_sideboard_answers_and_the_guide_judge_each_card_alike(world: dict[str, Any]) -> None:
    # Given the strategy for Boros Energy against Eldrazi Ramp, where the guide keeps Surgical Extraction out
    _, plan = _boros_plan(world, "Eldrazi Ramp")
    # Then no card the guide leaves out is listed as a sideboard answer
    left_out = {c["name"] for c in plan["sideboard_guide"]["left_out"]}
    assert "Surgical Extraction" in left_out
    assert not left_out & {a["name"] for a in plan["sideboard_answers"]}


def _guide(world: dict[str, Any], fmt: str, archetype: str, opponent: str) -> dict[str, Any]:
    """The sideboard guide of the demo list of ``archetype`` against ``opponent`` (60 days)."""
    guide: dict[str, Any] = matchup_plan(world, fmt, archetype, opponent)[1]["sideboard_guide"]
    return guide


def test_an_edict_against_a_creature_deck_is_never_dead(world: dict[str, Any]) -> None:
    # Given Pauper's Dimir Faeries, with a Chainer's Edict and an Extract a Confession, against Gruul Stompy
    guide = _guide(world, "Pauper", "Dimir Faeries", "Gruul Stompy")
    whys = {c["name"]: c["why"] for c in guide["take_out"] + guide["left_out"]}
    # Then neither is said to have nothing to hit (they went out as "nothing to hit among their key cards"):
    # their victims are the opponent's choice, and the guide says so where it keeps one out
    assert "Chainer's Edict" in whys and "nothing to hit" not in whys["Chainer's Edict"]
    assert whys["Extract a Confession"] == "they choose what it takes: no answer to any one key card"


def test_a_reanimation_target_is_the_plan_not_interaction(world: dict[str, Any]) -> None:
    # Given Legacy's Dimir Reanimator against Izzet Tempo: Archon of Cruelty's enters trigger reads as interaction
    guide = _guide(world, "Legacy", "Dimir Reanimator", "Izzet Tempo")
    # Then it does not go out as outclassed by a sideboard card (it did, "a core card, out on the rules")
    assert "Archon of Cruelty" not in {c["name"] for c in guide["take_out"]}


def test_the_card_a_deck_is_named_for_never_goes_out_on_the_rules(world: dict[str, Any]) -> None:
    # Given Standard's Dragonstorm Omniscience against Mono Red Aggro: Omniscience is in 75 % of its lists
    guide = _guide(world, "Standard", "Dragonstorm Omniscience", "Mono Red Aggro")
    # Then it stays in (it went out as "a flex slot (in 75.4% of the lists)")
    assert "Omniscience" not in {c["name"] for c in guide["take_out"]}
