"""Each tool's ``metadata`` on the demo world: the same keys and values as before it was typed."""

import re
from typing import Any

import pytest

from meta_mage.errors import InvalidArgument
from tests.conftest import call
from tests.integration.test_tools import BURN_DECK


def _outputs(world: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One call of each tool that returns ``metadata``, on the demo Modern data."""
    enriched = call(world, "get_enriched_deck", deck=BURN_DECK)
    details = enriched["card_details"]
    archetype = call(world, "classify_deck", deck=BURN_DECK, format="Modern")["archetype"]
    stats = call(world, "get_deck_matchup_stats", archetype=archetype, format="Modern", days=60)
    return {
        "get_format_meta_rankings": call(world, "get_format_meta_rankings", format="Modern"),
        "get_format_matchup_stats": call(world, "get_format_matchup_stats", format="Modern", days=30),
        "get_format_archetypes": call(world, "get_format_archetypes", format="Modern"),
        "get_deck_matchup_stats": stats,
        "optimize_mainboard": call(
            world, "optimize_mainboard", card_details=details, archetype=archetype, format="Modern"
        ),
        "optimize_sideboard": call(
            world, "optimize_sideboard", card_details=details, archetype=archetype, format="Modern"
        ),
        "generate_deck_matchup_strategy": call(
            world,
            "generate_deck_matchup_strategy",
            card_details=details,
            archetype=archetype,
            opponent_archetype=stats["matchups"][0]["opponent"],
            matchup_stats=stats,
        ),
    }


# Each tool's metadata keys, in order, as the tools returned them before the metadata was typed, and
# ``matches_from`` (where the window's matches come from) on every meta read since.
METADATA_KEYS = {
    "get_format_meta_rankings": [
        "data_first_date",
        "data_last_date",
        "min_sample",
        "matches_from",
        "current_period",
        "previous_period",
        "current_decks",
        "previous_decks",
        "current_tournaments",
        "previous_tournaments",
        "ranked_by",
    ],
    "get_format_matchup_stats": ["data_first_date", "data_last_date", "min_sample", "matches_from", "period", "note"],
    "get_format_archetypes": ["data_first_date", "data_last_date", "min_sample", "matches_from", "period", "decks"],
    "get_deck_matchup_stats": ["data_first_date", "data_last_date", "min_sample", "matches_from", "period"],
    "optimize_mainboard": ["period", "min_sample", "core_threshold", "flex_threshold"],
    "optimize_sideboard": ["period", "min_sample"],
    "generate_deck_matchup_strategy": ["period"],
}


def test_every_tool_returns_the_metadata_keys_it_always_did(modern_world: dict[str, Any]) -> None:
    outputs = _outputs(modern_world)

    assert {name: list(output["metadata"]) for name, output in outputs.items()} == METADATA_KEYS


def _sources(said: str) -> dict[str, tuple[int, int]]:
    """ "154 top-8 playoff matches of 22 MTGO Challenges, 282 Swiss and playoff matches of 5 melee.gg events"
    as {source: (matches, events)}."""
    found = {}
    for matches, events, source in re.findall(r"(\d[\d,]*) [\w -]+? matches of (one|\d[\d,]*) (MTGO|melee)", said):
        found[source] = (int(matches.replace(",", "")), 1 if events == "one" else int(events.replace(",", "")))
    return found


def test_metadata_values_are_those_the_tools_computed(modern_world: dict[str, Any]) -> None:
    outputs = _outputs(modern_world)

    rankings = outputs["get_format_meta_rankings"]["metadata"]
    # every MTGO Challenge file holds its 7 playoff matches; the events add up to the window's tournaments
    sources = {
        name: _sources(output["metadata"].pop("matches_from"))
        for name, output in outputs.items()
        if "matches_from" in output["metadata"]
    }
    assert sources["get_format_meta_rankings"] == {"MTGO": (154, 22), "melee": (282, 5)}  # a draw listed twice is one
    assert sum(events for _, events in sources["get_format_meta_rankings"].values()) == 27
    for found in sources.values():
        assert found["MTGO"][0] == 7 * found["MTGO"][1]
    assert sources["get_format_matchup_stats"] == sources["get_format_archetypes"]
    assert rankings == {
        "data_first_date": "2025-10-21",
        "data_last_date": "2025-11-17",
        "min_sample": 20,
        "current_period": {"start": "2025-11-04", "end": "2025-11-17", "days": 14},
        "previous_period": {"start": "2025-10-21", "end": "2025-11-03", "days": 14},
        "current_decks": 779,
        "previous_decks": 953,
        "current_tournaments": 27,
        "previous_tournaments": 26,
        "ranked_by": "meta share; win rates below min_sample matches are flagged low_sample",
    }
    thirty = {"start": "2025-10-19", "end": "2025-11-17", "days": 30}
    sixty = {"start": "2025-09-19", "end": "2025-11-17", "days": 60}
    span = {"data_first_date": "2025-10-21", "data_last_date": "2025-11-17", "min_sample": 20}
    assert outputs["get_format_matchup_stats"]["metadata"] == {
        **span,
        "period": thirty,
        "note": "overall includes matches against players without a published list",
    }
    assert outputs["get_format_archetypes"]["metadata"] == {**span, "period": thirty, "decks": 1732}
    assert outputs["get_deck_matchup_stats"]["metadata"] == {**span, "period": sixty}
    assert outputs["optimize_mainboard"]["metadata"] == {
        "period": thirty,
        "min_sample": 20,
        "core_threshold": 80.0,
        "flex_threshold": 50.0,
    }
    assert outputs["optimize_sideboard"]["metadata"] == {"period": thirty, "min_sample": 20}
    assert outputs["generate_deck_matchup_strategy"]["metadata"] == {"period": sixty}


@pytest.mark.parametrize(
    "metadata",
    [{}, {"period": {"start": "2025-10-19"}}, {"period": "last month"}, "none"],
)
def test_strategy_refuses_matchup_stats_without_a_period(modern_world: dict[str, Any], metadata: Any) -> None:
    stats = call(modern_world, "get_deck_matchup_stats", archetype="Boros Energy", format="Modern", days=30)
    details = call(modern_world, "get_enriched_deck", deck=BURN_DECK)["card_details"]

    with pytest.raises(InvalidArgument, match=r"metadata\.period"):
        call(
            modern_world,
            "generate_deck_matchup_strategy",
            card_details=details,
            archetype="Boros Energy",
            opponent_archetype=stats["matchups"][0]["opponent"],
            matchup_stats={**stats, "metadata": metadata},
        )
