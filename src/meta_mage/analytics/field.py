"""What to play: each archetype's expected match win rate against the field as it is.

The field is the format's archetypes weighted by meta share. An archetype's expectation is the share-weighted
mean of its shrunk estimates against each of them: 50 % in the mirror, and its overall shrunk estimate where
it has no decided match against an archetype. The 95 % interval adds up each cell's variance (the estimate's
binomial variance over its decided matches plus the prior's 10), weighted by share squared; the cells filled
with the overall estimate share one error, so their weights add up before they are squared. The interval is
never narrower than the archetype's own record allows: a share-weighted mean of its matchups cannot know more
than all its matches pooled (pooling by matches is the least-variance weighting), so its variance is at least
the overall estimate's, scaled by the part of the field that is not the mirror. Without that floor the prior's
10 matches, added to every cell, made a deck with a few matches spread over many opponents look certain.
Archetypes are ranked on the interval's low end, so a deck leads on results, not on a few lucky matches.
The matchups that drive it are those that move it most from 50 % (share × distance from 50 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from meta_mage.analytics.stats import PRIOR_MATCHES
from meta_mage.models.meta import MatchupRow, WinRate

Z95 = 1.96


@dataclass(frozen=True)
class Driver:
    """One matchup's pull on the expectation: the opponent, its meta share, the cell used (None: no match)."""

    opponent: str
    meta_share: float
    cell: WinRate | None
    pull: float  # points of expected win rate this matchup adds above (or takes below) 50 %


@dataclass(frozen=True)
class FieldExpectation:
    archetype: str
    meta_share: float
    expected: float  # percent
    ci_low: float
    ci_high: float
    decided: int  # decided matches behind it
    measured: float  # percent of the field (by share, the mirror included) it has decided matches against
    drivers: tuple[Driver, ...]


def _estimate_and_variance(cell: WinRate) -> tuple[float, float]:
    p = (cell.estimate if cell.estimate is not None else 50.0) / 100
    return p, p * (1 - p) / (cell.wins + cell.losses + PRIOR_MATCHES)


def expected_vs_field(rows: list[MatchupRow], drivers: int = 3) -> list[FieldExpectation]:
    """Every archetype with a decided match, ranked on the low end of its interval (then its expectation)."""
    field = {row.archetype: row.meta_share for row in rows if row.archetype != "Unknown"}
    total = sum(field.values())
    found = []
    for row in rows:
        if row.archetype not in field or row.overall.estimate is None or not total:
            continue
        cells = {c.opponent: c for c in row.matchups if c.estimate is not None}
        overall, overall_var = _estimate_and_variance(row.overall)
        mean = variance = filled = mirror = 0.0
        pulls = []
        for opponent, share in field.items():
            weight = share / total
            if opponent == row.archetype:
                mean += weight * 0.5
                mirror = weight
                continue
            cell = cells.get(opponent)
            if cell is None:
                p, filled = overall, filled + weight
            else:
                p, var = _estimate_and_variance(cell)
                variance += weight**2 * var
            mean += weight * p
            pulls.append(Driver(opponent, share, cell, 100 * weight * (p - 0.5)))
        variance += filled**2 * overall_var  # one error for every cell filled with the overall estimate
        variance = max(variance, (1 - mirror) ** 2 * overall_var)  # no surer than all its matches pooled
        spread = Z95 * math.sqrt(variance) * 100
        found.append(
            FieldExpectation(
                archetype=row.archetype,
                meta_share=row.meta_share,
                expected=round(100 * mean, 1),
                ci_low=round(max(0.0, 100 * mean - spread), 1),
                ci_high=round(min(100.0, 100 * mean + spread), 1),
                decided=row.overall.wins + row.overall.losses,
                measured=round(100 * (1 - filled), 1),
                drivers=tuple(sorted(pulls, key=lambda d: -abs(d.pull))[:drivers]),
            )
        )
    return sorted(found, key=lambda f: (-f.ci_low, -f.expected, -f.decided, f.archetype))
