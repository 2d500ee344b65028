"""Summing stored aggregates (``models/aggregates.py``): counts add, dicts merge, and a source is copied
unless it is handed over; a day's typed sum (``analytics/day_totals.py``) is stored as the JSON sum."""

import copy
from typing import Any

from meta_mage.analytics.day_totals import day_totals
from meta_mage.models.aggregates import merge
from meta_mage.models.evidence import Record
from meta_mage.storage.meta.aggregate_items import archetype_json, event_aggregate_of, format_json

DAY_ONE = {"decks": 2, "record": [3, 1, 0], "archetypes": {"Burn": {"decks": 2, "colors": {"R": 2}}}, "sources": ["a"]}
DAY_TWO = {
    "decks": 1,
    "record": [0, 2, 1],
    "archetypes": {"Burn": {"decks": 1}, "Tron": {"decks": 1}},
    "sources": ["b"],
}
SUM = {
    "decks": 3,
    "record": [3, 3, 1],
    "archetypes": {"Burn": {"decks": 3, "colors": {"R": 2}}, "Tron": {"decks": 1}},
    "sources": ["a", "b"],
}


def test_days_sum_alike_copied_or_handed_over() -> None:
    for owned in (False, True):
        total: dict[str, Any] = {}
        for day in copy.deepcopy([DAY_ONE, DAY_TWO]):
            merge(total, day, owned=owned)
        assert total == SUM, owned


def test_a_copied_source_is_left_as_it_was() -> None:
    # Given a day summed into an empty total by copy
    day = copy.deepcopy(DAY_ONE)
    total: dict[str, Any] = {}
    merge(total, day)
    # When the next day is added
    merge(total, copy.deepcopy(DAY_TWO))
    # Then the first day's figures are still its own
    assert day == DAY_ONE


def _event(strategy: str | None, pilot: str, lands: list[str], source: str) -> dict[str, Any]:
    """One event's stored aggregate: Burn against Tron, with one card row and its record per opponent."""
    return {
        "format": {
            "tournaments": 1, "decks": 2, "decks_without_list": 1, "matches": 3, "draws": 1, "byes": 0,
            "assigned_losses": 0, "unreported": 1,
            "archetypes": {"Burn": {"decks": 2, "colors": {"R": 2}, "strategy": strategy, "pilots": {pilot: 2}}},
            "results": {"Burn": {"Tron": [2, 1, 0], "Burn": [1, 1, 1]}},
            "players": {"Burn": {"Tron": {pilot: 3}}},
            "sources": {source: {"events": 1, "matches": 3}},
        },
        "cards": {
            "Burn": {
                "decks": 2, "record": [2, 1, 0],
                "main": {"Lightning Bolt": [2, 8, 2, 1], "Mountain": [2, 36, 2, 1]},
                "side": {"Smash to Smithereens": [1, 2, 1, 0]},
                "side_vs": {"Smash to Smithereens": {"Tron": [1, 0]}},
                "main_vs": {"Lightning Bolt": {"Tron": [2, 1]}},
                "lands": lands,
            }
        },
    }  # fmt: skip


def test_a_days_typed_sum_is_stored_as_the_json_sum_of_its_events() -> None:
    # Given two events of a day: one with no strategy known, one player in both, different sources and lands
    events = [_event("unknown", "ann", ["Mountain"], "MTGO"), _event("aggro", "ann", ["Sacred Foundry"], "melee")]
    # When the day adds them up typed and stores the sum
    day = day_totals([event_aggregate_of(event) for event in copy.deepcopy(events)])
    # Then what is stored is what summing the events' JSON gives, key for key
    format_sum: dict[str, Any] = {}
    card_sums: dict[str, dict[str, Any]] = {}
    for event in copy.deepcopy(events):
        merge(format_sum, event["format"])
        for name, stats in event["cards"].items():
            merge(card_sums.setdefault(name, {}), stats)
    assert format_json(day.format) == format_sum
    assert {name: archetype_json(stats) for name, stats in day.archetypes.items()} == card_sums
    # and the figures are the sums: the first strategy known, the records added, the lands united
    assert day.format.archetypes["Burn"].strategy == "aggro" and day.format.results["Burn"]["Tron"] == Record(4, 2)
    assert day.archetypes["Burn"].lands == ("Mountain", "Sacred Foundry")
