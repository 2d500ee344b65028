"""What to play: each archetype's expected match win rate against the field as it is, by the matchup model.

The field is the window's archetypes weighted by their decks (meta share), the mirror included at 50 %. An
archetype's expectation is the share-weighted mean of the model's P(win) against each of them; a pair without
a decided match gets the model's estimate from the two strengths (so a deck with few matches is pulled toward
the middle, not filled with its own lucky record). The 95 % interval is the delta method on the model's
posterior variances: the archetype's own strength moves every matchup together, each pair's deviation and the
opponent's strength move one matchup each. Archetypes are ranked on the interval's low end, so a deck leads on
results, not on a few lucky matches; a deck with one or two pilots has a wide interval and says so.
The matchups that drive it are those that move it most from 50 % (share × distance from 50 %).

Its players are those behind its decided matches (not the pilots of its lists), and the pick needs
:data:`MIN_PLAYERS` of them. One pick is named only when its interval's low end clears the next eligible deck's
by :data:`PICK_MARGIN` points; otherwise the decks within that margin are the ones the data cannot separate
(``bench/matchup_backtest.py`` prints how often a lead of each size held over the week that followed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from meta_mage.analytics.aggregate import NO_DECKLIST
from meta_mage.analytics.clustering import MIN_PLAYERS
from meta_mage.analytics.matchup_model import Z95, MatchupModel
from meta_mage.models.aggregates import FormatTotals
from meta_mage.models.meta import FieldDriver, FieldExpectation


def _shares(total: FormatTotals) -> dict[str, float]:
    archetypes = {name: entry.decks for name, entry in total.archetypes.items() if name not in ("Unknown", NO_DECKLIST)}
    decks = sum(archetypes.values())
    return {name: count / decks for name, count in archetypes.items()} if decks else {}


def expectation(name: str, shares: Mapping[str, float], model: MatchupModel) -> tuple[float, float, float]:
    """The share-weighted mean of the model's P(``name`` wins) against ``shares`` (opponent -> weight, weights
    summing to 1; the mirror, if in them, at 50 %) and its 95 % interval, in percent, by the delta method: the
    archetype's own strength moves every matchup together, each pair's deviation and the opponent's strength one
    matchup each."""
    mean = own = variance = 0.0
    for opponent, weight in shares.items():
        if opponent == name:
            mean += weight * 0.5
            continue
        p = model.probability(name, opponent)
        slope = p * (1.0 - p)
        mean += weight * p
        own += weight * slope
        deviation = model.logit_sd(name, opponent) ** 2 - model.strength_variances.get(name, 0.0)
        variance += (weight * slope) ** 2 * max(deviation, 0.0)
    variance += own**2 * model.strength_variances.get(name, 0.0)
    spread = Z95 * math.sqrt(variance)
    return 100 * mean, 100 * max(0.0, mean - spread), 100 * min(1.0, mean + spread)


def _expectation(
    name: str, shares: Mapping[str, float], total: FormatTotals, model: MatchupModel, drivers: int
) -> FieldExpectation:
    results = total.results.get(name, {})
    measured = shares.get(name, 0.0)
    pulls = []
    for opponent, weight in shares.items():
        if opponent == name:
            continue
        p = model.probability(name, opponent)
        record = total.record(name, opponent)
        wins, losses = record.wins, record.losses
        measured += weight if wins + losses else 0.0
        basis = "model" if wins + losses else "model: strengths only"
        pulls.append(
            FieldDriver(
                opponent=opponent,
                meta_share=round(100 * weight, 2),
                estimate=round(100 * p, 1),
                basis=basis,
                wins=wins,
                losses=losses,
                pull=round(100 * weight * (p - 0.5), 2),
            )
        )
    mean, low, high = expectation(name, shares, model)
    behind = {player for opponent, who in total.players.get(name, {}).items() if opponent != name for player in who}
    decided = sum(record.decided for opponent, record in results.items() if opponent != name)
    return FieldExpectation(
        archetype=name,
        meta_share=round(100 * shares[name], 2),
        decks=total.decks_of(name),
        players=len(behind),
        expected=round(mean, 1),
        ci_low=round(low, 1),
        ci_high=round(high, 1),
        decided=decided,
        measured=round(100 * measured, 1),
        drivers=sorted(pulls, key=lambda d: -abs(d.pull))[:drivers],
    )


def expected_vs_field(
    total: FormatTotals, model: MatchupModel, catch_alls: Set[str] = frozenset(), drivers: int = 3
) -> list[FieldExpectation]:
    """Every archetype the model knows (it has a decided match), ranked on the low end of its interval;
    ``catch_alls``: the names that are no one deck ("Unknown", the rules' fallbacks), marked so."""
    shares = _shares(total)
    found = [
        _expectation(name, shares, total, model, drivers).model_copy(update={"catch_all": name in catch_alls})
        for name in shares
        if model.knows(name)
    ]
    return sorted(found, key=lambda f: (-f.ci_low, -f.expected, -f.decided, f.archetype))


PICK_MARGIN = 5.0
"""Points by which the pick's interval low end must clear the next eligible deck's for one pick to be named."""


@dataclass(frozen=True)
class Pick:
    """What "what to play" can say: the one pick (None when the data cannot separate the leaders), the leaders
    within :data:`PICK_MARGIN` of the first, and every eligible deck in rank order."""

    archetype: str | None
    leaders: tuple[str, ...]
    eligible: tuple[FieldExpectation, ...]


def choose_pick(ranked: Sequence[FieldExpectation]) -> Pick:
    """The pick among decks with results by :data:`MIN_PLAYERS` players that are not catch-alls."""
    eligible = tuple(r for r in ranked if r.players >= MIN_PLAYERS and not r.catch_all)
    if not eligible:
        return Pick(None, (), ())
    first = eligible[0]
    close = tuple(r.archetype for r in eligible[1:] if first.ci_low - r.ci_low < PICK_MARGIN)
    return Pick(None if close else first.archetype, (first.archetype, *close), eligible)
