"""The deck tools agree with each other: no sideboard cut is a card the matchup plan calls an answer to
one of the top decks, and every sideboard guide keeps the deck at 60 + 15 (real demo decks and data)."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.archetypes.playbooks import playbook_for
from meta_mage.config import Settings
from tests.agent.conftest import modern_deck
from tests.conftest import call
from tests.integration.test_guides_across_formats import STATED, kept_on_rules, matchup_plan

DAYS = 30


def contradictions(world: dict[str, Any], archetype: str) -> tuple[list[str], dict[str, Any]]:
    """Each card ``optimize_sideboard`` cuts that ``generate_deck_matchup_strategy`` lists as a sideboard
    answer against one of the same top 5 decks, as "card vs opponent"."""
    deck, _ = modern_deck(archetype)
    cards = call(world, "get_enriched_deck", deck=deck)["card_details"]
    board = call(world, "optimize_sideboard", card_details=cards, archetype=archetype, format="Modern", days=DAYS)
    stats = call(world, "get_deck_matchup_stats", archetype=archetype, format="Modern", days=DAYS)
    cut = set(board["cuts"])
    found = []
    for top in board["top_archetypes"]:
        plan = call(
            world,
            "generate_deck_matchup_strategy",
            card_details=cards,
            archetype=archetype,
            opponent_archetype=top["archetype"],
            matchup_stats=stats,
        )
        found += [f"{a['name']} vs {top['archetype']}" for a in plan["sideboard_answers"] if a["name"] in cut]
    return found, board


@pytest.mark.parametrize("archetype", ["Boros Energy", "Jeskai Blink", "Domain Zoo", "Affinity", "Amulet Titan"])
def test_no_sideboard_cut_is_an_answer_in_a_matchup_plan(modern_world: dict[str, Any], archetype: str) -> None:
    found, board = contradictions(modern_world, archetype)
    print(f"\n{archetype}: {len(board['cuts'])} cuts, {len(found)} contradictions")
    assert found == []
    # every cut says why, and every guide keeps 60 + 15 with as many cards in as out
    assert {c["name"] for c in board["cut_reasons"]} == set(board["cuts"])
    assert all(c["why"] for c in board["cut_reasons"])
    assert board["total_cards"] == 15 and len(board["guides"]) == len(board["top_archetypes"])
    for guide in board["guides"]:
        moved_in = sum(c["quantity"] for c in guide["bring_in"])
        assert moved_in == sum(c["quantity"] for c in guide["take_out"]) <= 15
        assert (guide["mainboard_after"], guide["sideboard_after"]) == (60, 15), guide["opponent"]
        assert not {c["name"] for c in guide["bring_in"]} & {c["name"] for c in guide["take_out"]}


def test_mainboard_swaps_keep_a_flex_card_whose_lists_beat_a_top_deck(modern_world: dict[str, Any]) -> None:
    # Given a Boros Energy list with two Ranger-Captain of Eos: in 14% of the lists (a flex spot), and those
    # lists went 5-2 against Jeskai Blink, above the archetype's own record against it
    deck, _ = modern_deck("Boros Energy")
    lines = deck.splitlines()
    four = next(i for i, line in enumerate(lines) if line.startswith("4 ") and "Mountain" not in line)
    lines[four : four + 1] = [f"2 {lines[four][2:]}", "2 Ranger-Captain of Eos"]
    cards = call(modern_world, "get_enriched_deck", deck="\n".join(lines))["card_details"]
    # When the mainboard is optimised
    result = call(
        modern_world, "optimize_mainboard", card_details=cards, archetype="Boros Energy", format="Modern", days=DAYS
    )
    # Then Ranger-Captain is a flex spot kept for that matchup, and no swap cuts it
    ranger = next(c for c in result["flex_spots"] if c["name"] == "Ranger-Captain of Eos")
    assert "Jeskai Blink" in ranger["better_against"]
    assert "Ranger-Captain of Eos" not in {s["cut"] for s in result["swaps"]}


def guide_checks(world: dict[str, Any], archetype: str) -> dict[str, int]:
    """Over the sideboard guides of a real deck against the top 5 decks: the cards its playbook keeps (engine,
    win conditions, fast mana) taken out without their lists' record, guides that share an out-list with the
    same reasons (not decided by the opponent), and guides that do not keep 60 + 15."""
    deck, _ = modern_deck(archetype)
    cards = call(world, "get_enriched_deck", deck=deck)["card_details"]
    board = call(world, "optimize_sideboard", card_details=cards, archetype=archetype, format="Modern", days=DAYS)
    stats = call(world, "get_deck_matchup_stats", archetype=archetype, format="Modern", days=DAYS)
    book = playbook_for(Settings().archetype_rules_dir, "Modern", archetype)
    assert book is not None, archetype
    kept = kept_on_rules(book, cards)
    counts = {"guides": 0, "playbook card cut on no evidence": 0, "same out-list and reasons": 0, "not 60 + 15": 0}
    seen: set[tuple[tuple[str, int, str], ...]] = set()
    for top in board["top_archetypes"]:
        plan = call(
            world,
            "generate_deck_matchup_strategy",
            card_details=cards,
            archetype=archetype,
            opponent_archetype=top["archetype"],
            matchup_stats=stats,
        )
        guide = plan["sideboard_guide"]
        counts["guides"] += 1
        outs = tuple(sorted((c["name"], c["quantity"], c["why"]) for c in guide["take_out"]))
        counts["playbook card cut on no evidence"] += sum(name in kept and "went" not in why for name, _, why in outs)
        stated = all(any(rule in why for rule in STATED) for *_, why in outs)  # the same out by a stated rule
        counts["same out-list and reasons"] += bool(outs) and outs in seen and not stated
        seen.add(outs)
        counts["not 60 + 15"] += (guide["mainboard_after"], guide["sideboard_after"]) != (60, 15)
    return counts


@pytest.mark.parametrize("archetype", ["Boros Energy", "Jeskai Blink", "Domain Zoo", "Affinity", "Amulet Titan"])
def test_guides_keep_the_playbooks_cards_and_depend_on_the_opponent(
    modern_world: dict[str, Any], archetype: str
) -> None:
    # Given a real deck and its guides against the format's top 5 decks
    counts = guide_checks(modern_world, archetype)
    print(f"\n{archetype}: {counts}")
    # Then no card its playbook keeps (engine, win conditions, fast mana) goes out without its lists' record, no
    # two guides cut the same cards for the same reasons unless by a stated rule, and 60 + 15 holds
    assert counts["guides"] == 5
    assert counts["playbook card cut on no evidence"] == 0
    assert counts["same out-list and reasons"] == 0
    assert counts["not 60 + 15"] == 0


def demo_guide(world: dict[str, Any], archetype: str, opponent: str) -> dict[str, Any]:
    """The sideboard guide of the archetype's demo list against ``opponent`` (Modern, the last ``DAYS`` days)."""
    deck, _ = modern_deck(archetype)
    cards = call(world, "get_enriched_deck", deck=deck)["card_details"]
    stats = call(world, "get_deck_matchup_stats", archetype=archetype, format="Modern", days=DAYS)
    plan = call(
        world,
        "generate_deck_matchup_strategy",
        card_details=cards,
        archetype=archetype,
        opponent_archetype=opponent,
        matchup_stats=stats,
    )
    guide: dict[str, Any] = plan["sideboard_guide"]
    return guide


def test_a_loot_that_gains_life_is_not_cut_as_life_gain(modern_world: dict[str, Any]) -> None:
    # Given Goryo's Reanimator, whose Faithful Mending discards the creature it reanimates (and gains 2 life)
    assert "Faithful Mending" in modern_deck("Goryo's Reanimator")[0]
    # When it sides against a slow deck
    guide = demo_guide(modern_world, "Goryo's Reanimator", "Jeskai Blink")
    # Then the engine card stays: it is no life-gain card
    outs = {c["name"]: c["why"] for c in guide["take_out"]}
    assert "Faithful Mending" not in outs, outs
    assert not any("life gain" in why for why in outs.values())


def test_against_combo_the_combat_tricks_make_room_for_interaction(modern_world: dict[str, Any]) -> None:
    # Given Izzet Prowess, with Mutagenic Growth and Violent Urge in the main and counters in the sideboard
    deck, _ = modern_deck("Izzet Prowess")
    assert "Mutagenic Growth" in deck and "Consign to Memory" in deck
    # When it sides against Ritual Storm, a combo deck
    guide = demo_guide(modern_world, "Izzet Prowess", "Ritual Storm")
    # Then the counters come in for the combat tricks (it stayed with the main deck before)
    assert "Consign to Memory" in {c["name"] for c in guide["bring_in"]}
    outs = {c["name"]: c["why"] for c in guide["take_out"]}
    assert "Mutagenic Growth" in outs and "a combat trick" in outs["Mutagenic Growth"], outs
    assert sum(c["quantity"] for c in guide["bring_in"]) == sum(c["quantity"] for c in guide["take_out"])


def test_a_wish_decks_sideboard_keeps_what_its_wish_fetches(modern_world: dict[str, Any]) -> None:
    # Given a real Ritual Storm list: Wish in the main deck, Past in Flames, Empty the Warrens and Galvanic Relay
    # in the sideboard (answers to nothing, and Past in Flames is also a main-deck card)
    deck, source = modern_deck("Ritual Storm")
    side = {c["CardName"] for c in source["Sideboard"]}
    assert "Wish" in {c["CardName"] for c in source["Mainboard"]}
    wished = {"Past in Flames", "Empty the Warrens", "Galvanic Relay"} & side
    assert wished
    cards = call(modern_world, "get_enriched_deck", deck=deck)["card_details"]
    # When the sideboard is optimised for the top decks
    board = call(
        modern_world, "optimize_sideboard", card_details=cards, archetype="Ritual Storm", format="Modern", days=DAYS
    )
    # Then none of them is cut: each is kept as a Wish target (it was "answers none of the top decks' key cards")
    kept = {s["name"]: s["reason"] for s in board["final_sideboard"]}
    assert not wished & set(board["cuts"])
    assert all(kept[name].startswith("a Wish target") for name in wished)
    # and every guide leaves them in the sideboard for Wish, never "no answer to their key cards"
    for guide in board["guides"]:
        left = {c["name"]: c["why"] for c in guide["left_out"]}
        assert all(left[name] == "for Wish to fetch" for name in wished if name in left), guide["opponent"]


def test_a_ramp_deck_keeps_its_mana_against_a_fast_deck(modern_world: dict[str, Any]) -> None:
    # Given a real Eldrazi Ramp list (Talismans, Utopia Sprawl, Icetill Explorer: its lists split among the
    # Talismans, so no one of them is in 90 % of the lists)
    # When it is coached against Izzet Prowess, the fastest deck of the field
    cards, plan = matchup_plan(modern_world, "Modern", "Eldrazi Ramp", "Izzet Prowess")
    # Then none of its mana sources goes out (it cut 3 Talisman of Impulse, 1 Talisman of Curiosity, 1 Utopia
    # Sprawl and 1 Icetill Explorer as flex slots and trims), and the sideboard still has a card coming in
    out = {c["name"] for c in plan["sideboard_guide"]["take_out"]}
    mana = {"Talisman of Impulse", "Talisman of Curiosity", "Utopia Sprawl", "Icetill Explorer"}
    assert mana & {c["name"] for c in cards if c["section"] == "mainboard"}
    assert not out & mana, out
    assert plan["sideboard_guide"]["bring_in"]
