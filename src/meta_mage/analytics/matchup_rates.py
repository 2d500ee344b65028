"""Matchup win rates as the coach states them: the record with its interval at the sample size it is worth
(player clusters), the model's estimate with its interval, how many players stand behind it, and the verdict.

A pair without decided matches still gets the model's estimate from the two strengths, labelled
``basis="model: strengths only"`` (and no verdict: "no decided matches"). An archetype's overall rate is its
record against the field, and its estimate the model's expected win rate against the window's field as played
(each other archetype weighted by its decks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from meta_mage.analytics.aggregate import NO_DECKLIST
from meta_mage.analytics.clustering import effective_matches, pair_effective_matches
from meta_mage.analytics.field import expectation
from meta_mage.analytics.matchup_model import MatchupModel
from meta_mage.analytics.stats import Estimate, effective_wilson, shrunk_rate, verdict_of, win_rate
from meta_mage.models.aggregates import FormatTotals
from meta_mage.models.evidence import Record
from meta_mage.models.meta import WinRate


def _percent(p: float) -> float:
    return round(100 * p, 2)


@dataclass(frozen=True)
class ModelView:
    """What the matchup model adds to a record: its estimate, what the record rests on, the players behind it
    and what its matches are worth as independent ones."""

    estimate: Estimate | None
    basis: str
    players: int | None
    effective: float


def rate(counts: Record, min_sample: int, model: ModelView | None = None) -> WinRate:
    """The one :class:`WinRate` builder: the record with its interval, the low-sample flag, the estimate (the
    model's, else the shrunk record) and the verdict (``MATCHUP_VERDICTS``)."""
    wins, losses, draws = counts.wins, counts.losses, counts.draws
    decided = wins + losses
    interval = effective_wilson(wins, losses, model.effective if model else decided)
    if model is None:
        shrunk = shrunk_rate(wins, losses)
        judged = None if interval is None or shrunk is None else (shrunk, *interval)
        shown: tuple[float | None, float | None, float | None] = (shrunk, None, None)
    else:
        judged = model.estimate
        shown = model.estimate or (None, None, None)
    return WinRate(
        wins=wins,
        losses=losses,
        draws=draws,
        matches=wins + losses + draws,
        win_rate=win_rate(wins, losses),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        low_sample=decided < min_sample,
        estimate=shown[0],
        estimate_low=shown[1],
        estimate_high=shown[2],
        basis=model.basis if model and model.estimate else "record",
        players=model.players if model else None,
        effective_matches=round(model.effective, 1) if model and decided else None,
        verdict=verdict_of(decided, model.players if model else None, judged, wins - losses),
    )


def record(wins: int, losses: int, draws: int, min_sample: int) -> WinRate:
    """A plain record as a :class:`WinRate`: its shrunk estimate, judged on its own interval."""
    return rate(Record(wins, losses, draws), min_sample)


def _players(sides: list[Mapping[str, int]], decided: int) -> int | None:
    """Distinct players behind a record: the side with fewer; None when not recorded (no decided match, or
    data stored before players were)."""
    if decided and all(sides):
        return min(len(side) for side in sides)
    return None


def pair_rate(a: str, b: str, total: FormatTotals, model: MatchupModel, min_sample: int) -> WinRate:
    """A's rate against B in the window."""
    record = total.record(a, b)
    decided = record.decided
    side_a, side_b = total.pilots(a, b), total.pilots(b, a)
    effective = pair_effective_matches(side_a, side_b) if side_a and side_b else float(decided)
    estimate = None
    if model.knows(a) and model.knows(b):
        low, high = model.interval(a, b)
        estimate = (_percent(model.probability(a, b)), _percent(low), _percent(high))
    basis = "model" if decided else "model: strengths only"
    return rate(record, min_sample, ModelView(estimate, basis, _players([side_a, side_b], decided), effective))


def field_expectation(a: str, total: FormatTotals, model: MatchupModel) -> Estimate | None:
    """The model's expected win rate of A against the window's field as played (mirrors and unlisted
    opponents left out) with its interval (``field.expectation``); None when the model does not know A."""
    if not model.knows(a):
        return None
    decks = {
        name: entry.decks
        for name, entry in total.archetypes.items()
        if name not in (a, NO_DECKLIST, "Unknown") and model.knows(name)
    }
    weight = sum(decks.values())
    if not weight:
        return None
    mean, low, high = expectation(a, {name: count / weight for name, count in decks.items()}, model)
    return round(mean, 2), round(low, 2), round(high, 2)


def overall_rate(a: str, record: Record, total: FormatTotals, model: MatchupModel, min_sample: int) -> WinRate:
    """A's record against the field with the model's expectation against the field."""
    decided = record.decided
    clusters: dict[str, int] = {}
    for opponent, who in total.players.get(a, {}).items():
        if opponent != a:
            for player, count in who.items():
                clusters[player] = clusters.get(player, 0) + count
    effective = effective_matches(clusters.values()) if clusters else float(decided)
    estimate = field_expectation(a, total, model) if decided else None
    return rate(record, min_sample, ModelView(estimate, "model", _players([clusters], decided), effective))
