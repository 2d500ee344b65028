"""Matchup win rates as the coach states them: the record with its interval at the sample size it is worth
(player clusters), the model's estimate with its interval, how many players stand behind it, and the verdict.

A pair without decided matches still gets the model's estimate from the two strengths, labelled
``basis="model: strengths only"`` (and no verdict: "no decided matches"). An archetype's overall rate is its
record against the field, and its estimate the model's expected win rate against the window's field as played
(each other archetype weighted by its decks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from meta_mage.analytics.aggregate import NO_DECKLIST
from meta_mage.analytics.clustering import effective_matches, pair_effective_matches
from meta_mage.analytics.field import expectation
from meta_mage.analytics.matchup_model import MatchupModel
from meta_mage.analytics.stats import MatchupEvidence, effective_wilson, matchup_verdict, win_rate
from meta_mage.models.meta import WinRate


def _percent(p: float) -> float:
    return round(100 * p, 2)


Estimate = tuple[float, float, float]  # percent: the estimate and its 95 % interval


def _rate(
    wld: list[int], min_sample: int, effective: float, estimate: Estimate | None, basis: str, players: int | None
) -> WinRate:
    """A :class:`WinRate` from the record, what it is worth, the model's estimate and the players behind it."""
    wins, losses, draws = wld
    decided = wins + losses
    interval = effective_wilson(wins, losses, effective)
    verdict = "no decided matches"
    if decided and estimate is not None:
        verdict = matchup_verdict(MatchupEvidence(decided, players, *estimate, lead=wins - losses))
    return WinRate(
        wins=wins,
        losses=losses,
        draws=draws,
        matches=wins + losses + draws,
        win_rate=win_rate(wins, losses),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        low_sample=decided < min_sample,
        estimate=estimate[0] if estimate else None,
        estimate_low=estimate[1] if estimate else None,
        estimate_high=estimate[2] if estimate else None,
        basis=basis if estimate else "record",
        players=players,
        effective_matches=round(effective, 1) if decided else None,
        verdict=verdict,
    )


def _players(sides: list[Mapping[str, int]], decided: int) -> int | None:
    """Distinct players behind a record: the side with fewer; None when not recorded (no decided match, or
    data stored before players were)."""
    if decided and all(sides):
        return min(len(side) for side in sides)
    return None


def pair_rate(a: str, b: str, total: Mapping[str, Any], model: MatchupModel, min_sample: int) -> WinRate:
    """A's rate against B in the window."""
    wld = list(total.get("results", {}).get(a, {}).get(b, [0, 0, 0]))
    decided = wld[0] + wld[1]
    players = total.get("players", {})
    side_a, side_b = players.get(a, {}).get(b, {}), players.get(b, {}).get(a, {})
    effective = pair_effective_matches(side_a, side_b) if side_a and side_b else float(decided)
    estimate = None
    if model.knows(a) and model.knows(b):
        low, high = model.interval(a, b)
        estimate = (_percent(model.probability(a, b)), _percent(low), _percent(high))
    basis = "model" if decided else "model: strengths only"
    return _rate(wld, min_sample, effective, estimate, basis, _players([side_a, side_b], decided))


def field_expectation(a: str, total: Mapping[str, Any], model: MatchupModel) -> Estimate | None:
    """The model's expected win rate of A against the window's field as played (mirrors and unlisted
    opponents left out) with its interval (``field.expectation``); None when the model does not know A."""
    if not model.knows(a):
        return None
    decks = {
        name: entry.get("decks", 0)
        for name, entry in total.get("archetypes", {}).items()
        if name not in (a, NO_DECKLIST, "Unknown") and model.knows(name)
    }
    weight = sum(decks.values())
    if not weight:
        return None
    mean, low, high = expectation(a, {name: count / weight for name, count in decks.items()}, model)
    return round(mean, 2), round(low, 2), round(high, 2)


def overall_rate(a: str, wld: list[int], total: Mapping[str, Any], model: MatchupModel, min_sample: int) -> WinRate:
    """A's record against the field with the model's expectation against the field."""
    decided = wld[0] + wld[1]
    clusters: dict[str, int] = {}
    for opponent, who in total.get("players", {}).get(a, {}).items():
        if opponent != a:
            for player, count in who.items():
                clusters[player] = clusters.get(player, 0) + count
    effective = effective_matches(clusters.values()) if clusters else float(decided)
    estimate = field_expectation(a, total, model) if decided else None
    return _rate(list(wld), min_sample, effective, estimate, "model", _players([clusters], decided))
