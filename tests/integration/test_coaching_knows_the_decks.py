"""Coaching that knows the decks, on real demo lists of several formats: the part each deck plays comes from both
playbooks, the cards a deck fears decide the games, fast mana and cheats bring cards sooner, a graveyard plan is
seen, a guide keeps the plan and brings in what beats the main deck's least card, a stock deck still sides, and
the deck tools read one decision per card and matchup."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import call
from tests.integration.test_guides_across_formats import DAYS, demo_lists, matchup_plan


def strategy(world: dict[str, Any], fmt: str, archetype: str, opponent: str) -> tuple[list[dict[str, Any]], Any]:
    """The demo list and its matchup strategy against ``opponent`` (the across-formats check's helper)."""
    return matchup_plan(world, fmt, archetype, opponent)


def front(name: str) -> str:
    """A split card by its front face, as the statistics name it (Wear // Tear is Wear)."""
    return name.split(" // ")[0]


def deciders(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in plan["play_plan"]["deciders"]}


@pytest.mark.parametrize(
    ("fmt", "archetype", "opponent", "roles"),
    [
        # a ramp deck goes over the top: Amulet Titan was "the control deck: win the long game" against Boros Energy
        ("Modern", "Amulet Titan", "Boros Energy", {"ramp"}),
        ("Modern", "Eldrazi Tron", "Izzet Prowess", {"ramp"}),
        # anything races a ramp deck
        ("Modern", "Boros Energy", "Amulet Titan", {"beatdown"}),
        # a combo deck is the combo whatever it meets
        ("Legacy", "Dimir Reanimator", "Izzet Tempo", {"combo"}),
        ("Pioneer", "Greasefang", "Azorius Control", {"combo"}),
    ],
)
def test_the_part_a_deck_plays_comes_from_both_playbooks(
    demo_world: dict[str, Any], fmt: str, archetype: str, opponent: str, roles: set[str]
) -> None:
    # Given a real list of the archetype against an opponent
    _, plan = strategy(demo_world, fmt, archetype, opponent)
    # Then its part is the one both decks' roles give, and the plan says what it rests on
    speed = plan["play_plan"]["speed"]
    assert speed["role"] in roles, speed
    assert any("playbook" in words for words in speed["rests_on"]), speed["rests_on"]


@pytest.mark.parametrize(
    ("fmt", "archetype", "opponent", "feared"),
    [
        # Blood Moon, in most Boros Energy lists, against a list of 28 nonbasic lands
        ("Modern", "Amulet Titan", "Boros Energy", "Blood Moon"),
        ("Modern", "Jeskai Blink", "Boros Energy", "Blood Moon"),
        ("Modern", "Domain Zoo", "Boros Energy", "Blood Moon"),
    ],
)
def test_the_cards_a_deck_fears_decide_the_games(
    demo_world: dict[str, Any], fmt: str, archetype: str, opponent: str, feared: str
) -> None:
    _, plan = strategy(demo_world, fmt, archetype, opponent)
    assert feared in deciders(plan), list(deciders(plan))


def test_fast_mana_and_cheats_bring_their_cards_sooner(demo_world: dict[str, Any]) -> None:
    # Given Legacy's Eldrazi Stompy (Ancient Tomb, Eldrazi Temple, Simian Spirit Guide in nearly every list)
    _, plan = strategy(demo_world, "Legacy", "Izzet Tempo", "Eldrazi Stompy")
    found = deciders(plan)
    # Then a four-drop of theirs lands a turn sooner, and the plan names the fast mana
    fours = [d for d in found.values() if d["turn"] < 4 and "fast mana" in d["sooner_by"]]
    assert fours, found
    # And a cost-reduced card is not "turn 12" (Scion of Draco in Domain Zoo)
    _, plan = strategy(demo_world, "Modern", "Boros Energy", "Domain Zoo")
    scion = deciders(plan).get("Scion of Draco")
    assert scion is None or scion["turn"] <= 3, scion


@pytest.mark.parametrize(
    ("fmt", "archetype", "opponent"),
    [
        ("Legacy", "Izzet Tempo", "Dimir Reanimator"),
        ("Modern", "Boros Energy", "Goryo's Reanimator"),
        ("Pioneer", "Izzet Phoenix", "Greasefang"),
    ],
)
def test_a_graveyard_plan_is_seen(demo_world: dict[str, Any], fmt: str, archetype: str, opponent: str) -> None:
    # Given a deck whose plan runs through the graveyard (its playbook says which cards)
    _, plan = strategy(demo_world, fmt, archetype, opponent)
    guide = plan["sideboard_guide"]
    # Then no graveyard hate stays out "because their deck has no graveyard plan"
    assert not [c for c in guide["left_out"] if "no graveyard plan" in c["why"]]


def test_a_guide_keeps_the_plan_against_a_three_colour_deck(demo_world: dict[str, Any]) -> None:
    # Given Boros Energy (Goblin Bombardment is its engine) against Jeskai Blink and Domain Zoo
    for opponent in ("Jeskai Blink", "Domain Zoo"):
        _, plan = strategy(demo_world, "Modern", "Boros Energy", opponent)
        out = {c["name"]: c["why"] for c in plan["sideboard_guide"]["take_out"]}
        # Then the engine never goes out on the rules, and a land-destruction creature is no reason to cut it
        assert "Goblin Bombardment" not in out, out
        assert "Blood Moon" not in out or "went" in out["Blood Moon"], out


def test_the_obvious_answers_come_in_first_and_all_of_them(demo_world: dict[str, Any]) -> None:
    # Given Mono Blue Terror against Mono Red Madness: every red card is a target for its blue blasts
    cards, plan = strategy(demo_world, "Pauper", "Mono Blue Terror", "Mono Red Madness")
    guide = plan["sideboard_guide"]
    side = {c["name"]: c["quantity"] for c in cards if c["section"] == "sideboard"}
    blasts = {name for name in side if name in {"Hydroblast", "Blue Elemental Blast"}}
    assert blasts
    brought = {c["name"]: c["quantity"] for c in guide["bring_in"]}
    # Then the blasts come in (four or more), none waits "if you find room"
    assert sum(brought.get(name, 0) for name in blasts) >= 4, (brought, guide["held_back"])
    assert not blasts & set(guide["held_back"])


@pytest.mark.parametrize(
    ("fmt", "archetype"),
    [("Pauper", "Mono Blue Terror"), ("Pauper", "Mono Red Madness"), ("Legacy", "Dimir Reanimator")],
)
def test_a_stock_deck_still_sides(demo_world: dict[str, Any], fmt: str, archetype: str) -> None:
    # Given a deck whose main-deck spells nearly every list plays, against the format's top decks
    rows = call(demo_world, "get_format_meta_rankings", format=fmt, current_days=DAYS, previous_days=DAYS)["rows"]
    opponents = [r["name"] for r in rows if r["name"] != archetype][:5]
    outs: list[frozenset[str]] = []
    moves: list[tuple[frozenset[str], frozenset[str]]] = []
    for opponent in opponents:
        _, plan = strategy(demo_world, fmt, archetype, opponent)
        guide = plan["sideboard_guide"]
        outs.append(frozenset(c["name"] for c in guide["take_out"]))
        moves.append((frozenset(c["name"] for c in guide["bring_in"]), outs[-1]))
        # every card out says what it is worth against this opponent, or its lists' record against them
        assert all(
            opponent in c["why"] or "for " in c["why"] or "went" in c["why"] or "against" in c["why"]
            for c in guide["take_out"]
        ), guide["take_out"]
    # Then cards come out in most matchups, and the moves depend on the opponent (not the same in and out against
    # four of five)
    assert sum(bool(o) for o in outs) >= 3, outs
    assert max(moves.count(m) for m in moves if m[1]) < 4, moves


@pytest.mark.parametrize(("fmt", "archetype"), [("Modern", "Jeskai Blink"), ("Legacy", "Izzet Tempo")])
def test_the_tools_read_one_decision(demo_world: dict[str, Any], fmt: str, archetype: str) -> None:
    # Given a real list, its optimised sideboard and its guides against the top decks
    cards = call(demo_world, "get_enriched_deck", deck=demo_lists()[fmt][archetype])["card_details"]
    board = call(demo_world, "optimize_sideboard", card_details=cards, archetype=archetype, format=fmt, days=DAYS)
    brought = {g["opponent"]: {front(c["name"]) for c in g["bring_in"]} for g in board["guides"]}
    # Then a card kept "for" a top deck is one that deck's guide brings in
    for slot in board["final_sideboard"]:
        for opponent in slot["targets"]:
            if opponent in brought:
                assert front(slot["name"]) in brought[opponent], (slot, opponent)
    # And the card question says what the guide does with a card, in the guide's own words
    opponent = board["guides"][0]["opponent"]
    _, plan = strategy(demo_world, fmt, archetype, opponent)
    guide = plan["sideboard_guide"]
    for card in (guide["bring_in"] + guide["take_out"])[:3]:
        found = call(
            demo_world,
            "get_card_evidence",
            card=card["name"],
            opponent_archetype=opponent,
            archetype=archetype,
            format=fmt,
            days=DAYS,
            card_details=cards,
        )
        assert card["why"] in found["decision"], (card, found["decision"])


def test_a_card_read_with_its_conditions_answers_from_a_deck_that_meets_them(demo_world: dict[str, Any]) -> None:
    # Given a Modern Tron list that makes red and plays Firespout ("3 damage to each creature without flying if
    # {R} was spent"), asked against Boros Energy, whose creatures do not fly
    cards = call(demo_world, "get_enriched_deck", deck=demo_lists()["Modern"]["Tron"])["card_details"]
    assert any(c["name"] == "Firespout" for c in cards)
    found = call(
        demo_world,
        "get_card_evidence",
        card="Firespout",
        opponent_archetype="Boros Energy",
        archetype="Tron",
        format="Modern",
        days=DAYS,
        card_details=cards,
    )
    # Then it answers their small creatures (it "answered none" when only the flying half was read)
    answered = {a["name"] for a in found["answers"]}
    assert {"Guide of Souls", "Ocelot Pride"} & answered, answered
    # and the card question says what the guide does with it
    assert found["decision"]


def test_a_cheated_or_free_card_lands_when_its_cheat_or_pitch_allows(demo_world: dict[str, Any]) -> None:
    # Given Legacy's Sneak and Show (Emrakul and Griselbrand put in by Show and Tell and Sneak Attack)
    _, plan = strategy(demo_world, "Legacy", "Izzet Tempo", "Sneak and Show")
    found = deciders(plan)
    fatties = [d for d in found.values() if d["name"] in {"Emrakul, the Aeons Torn", "Griselbrand"}]
    # Then they land when the cheat does (turn 3 or 4), not on their mana value (Emrakul "turn 15")
    assert fatties and all(d["turn"] <= 4 and "putting it onto the battlefield" in d["sooner_by"] for d in fatties)
    # And a pitch spell lands on turn 1 (Solitude in Jeskai Blink)
    _, plan = strategy(demo_world, "Modern", "Boros Energy", "Jeskai Blink")
    solitude = deciders(plan).get("Solitude")
    assert solitude is None or (solitude["turn"] == 1 and "for free" in solitude["sooner_by"]), solitude


def test_a_spell_that_saves_a_creature_is_worth_their_removal(demo_world: dict[str, Any]) -> None:
    # Given Standard's Simic Ouroboroid (Snakeskin Veil: hexproof for its creature) against Dimir Kaito Midrange,
    # whose key cards are removal spells
    cards, plan = strategy(demo_world, "Standard", "Simic Ouroboroid", "Dimir Kaito Midrange")
    assert any(c["name"] == "Snakeskin Veil" and c["section"] == "mainboard" for c in cards)
    # Then the Veil stays: it was "answers none of their key cards" and went out in every matchup
    assert "Snakeskin Veil" not in {c["name"] for c in plan["sideboard_guide"]["take_out"]}


def test_a_deck_without_a_playbook_gets_a_computed_profile_labelled_as_computed(demo_world: dict[str, Any]) -> None:
    # Given Modern's Living End, which has no playbook (under 1 % of the lists), against Boros Energy
    _, plan = strategy(demo_world, "Modern", "Living End", "Boros Energy")
    rests_on = plan["play_plan"]["speed"]["rests_on"]
    # Then its part rests on a profile computed from its lists' cards, said as such, beside Boros Energy's playbook
    mine = next(words for words in rests_on if words.startswith("Living End"))
    assert "no playbook" in mine and "computed from its lists' cards" in mine and "per 60" in mine, mine
    assert any(words.startswith("Boros Energy: its playbook") for words in rests_on), rests_on
