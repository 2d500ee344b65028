"""A hierarchical Bradley–Terry model of matchups, fitted in pure Python (the read path stays light).

logit P(A beats B) = λA − λB + δAB with δBA = −δAB. Each archetype's strength λ has a weak Gaussian prior
(mean 0, sd :data:`STRENGTH_PRIOR_SD`); each pair's deviation δ has a Gaussian prior of variance τ², so a pair
with few matches stays near what the strengths predict and one with many follows its own record.

The fit is the posterior mode (MAP), by coordinate ascent: each λ and each δ in turn takes a one-dimensional
Newton step given the others, then exact steps along the directions only the priors see (an archetype's λ
against its δs, and the common shift of all λ, which is slow for single-coordinate steps), until no step
exceeds :data:`TOLERANCE` or after :data:`MAX_ROUNDS` rounds (the log posterior is strictly concave, so this
converges to its single mode). What is common to an archetype's matchups is its strength; δ holds only what
the strengths cannot explain.

τ, unless given, is chosen by cross-validation: the matches are split into :data:`FOLDS` folds by their
position (match i goes to fold i mod 5, deterministic), and the τ of :data:`TAU_GRID` with the lowest mean
log-loss on the left-out folds wins (the smaller τ on a tie).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

# chosen on the test weeks before the newest (bench/matchup_backtest.py --until 2025-11-09), pooled log-loss:
# sd 1.0 0.7010, 0.5 0.6918, 0.3 0.6894, 0.2 0.6891, 0.1 0.6899 (Beta(5, 5) 0.6910, a coin 0.6931)
STRENGTH_PRIOR_SD = 0.2
TAU_GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
FOLDS = 5
TOLERANCE = 1e-8
MAX_ROUNDS = 200
_PROBABILITY_FLOOR = 1e-12

Match = tuple[str, str, bool]  # (archetype A, archetype B, A won)


def sigmoid(x: float) -> float:
    """The logistic function, safe for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class MatchupModel:
    """A fitted model: strengths λ, pair deviations δ (keyed by the sorted pair, as δ of the first against the
    second), the matches each pair had, and the τ used."""

    strengths: Mapping[str, float] = field(default_factory=lambda: _frozen({}))
    deviations: Mapping[tuple[str, str], float] = field(default_factory=lambda: MappingProxyType({}))
    pair_matches: Mapping[tuple[str, str], int] = field(default_factory=lambda: MappingProxyType({}))
    tau: float = 0.0

    def strength(self, name: str) -> float:
        """λ of an archetype; 0 for one the model has not seen."""
        return self.strengths.get(name, 0.0)

    def deviation(self, a: str, b: str) -> float:
        """δAB: how much A does better against B than the strengths say (0 for a pair without matches)."""
        value = self.deviations.get(_pair_key(a, b), 0.0)
        return value if a < b else -value

    def matches(self, a: str, b: str) -> int:
        """Decided matches between A and B that the model was fitted on."""
        return self.pair_matches.get(_pair_key(a, b), 0)

    def probability(self, a: str, b: str) -> float:
        """P(A beats B); 0.5 for a mirror or when either archetype is unknown."""
        if a == b or a not in self.strengths or b not in self.strengths:
            return 0.5
        return sigmoid(self.strengths[a] - self.strengths[b] + self.deviation(a, b))


@dataclass
class _PairTable:
    """The matches summed per sorted pair: the first archetype's wins and the games, by index."""

    names: list[str]
    first: list[int]
    second: list[int]
    wins: list[int]
    games: list[int]
    keys: list[tuple[str, str]]
    pairs_of: list[list[tuple[int, float]]]  # per archetype: (pair index, +1 if first else -1)
    strength_sd: float = STRENGTH_PRIOR_SD


def _pair_table(matches: Sequence[Match], strength_sd: float = STRENGTH_PRIOR_SD) -> _PairTable:
    """Sum the decided non-mirror matches per pair."""
    counts: dict[tuple[str, str], list[int]] = {}
    for a, b, a_won in matches:
        if a == b:
            continue
        key = _pair_key(a, b)
        row = counts.setdefault(key, [0, 0])
        row[0] += a_won == (a == key[0])
        row[1] += 1
    names = sorted({name for key in counts for name in key})
    index = {name: i for i, name in enumerate(names)}
    keys = sorted(counts)
    table = _PairTable(names, [], [], [], [], keys, [[] for _ in names], strength_sd)
    for k, (a, b) in enumerate(keys):
        table.first.append(index[a])
        table.second.append(index[b])
        table.wins.append(counts[(a, b)][0])
        table.games.append(counts[(a, b)][1])
        table.pairs_of[index[a]].append((k, 1.0))
        table.pairs_of[index[b]].append((k, -1.0))
    return table


def _strength_step(table: _PairTable, i: int, strengths: list[float], deviations: list[float]) -> float:
    """The Newton step of λi given everything else."""
    gradient = -strengths[i] / table.strength_sd**2
    curvature = 1.0 / table.strength_sd**2
    for k, sign in table.pairs_of[i]:
        p = sigmoid(strengths[table.first[k]] - strengths[table.second[k]] + deviations[k])
        gradient += sign * (table.wins[k] - table.games[k] * p)
        curvature += table.games[k] * p * (1.0 - p)
    return gradient / curvature


def _deviation_step(table: _PairTable, k: int, strengths: list[float], deviations: list[float], tau: float) -> float:
    """The Newton step of δk given everything else."""
    p = sigmoid(strengths[table.first[k]] - strengths[table.second[k]] + deviations[k])
    gradient = table.wins[k] - table.games[k] * p - deviations[k] / tau**2
    curvature = table.games[k] * p * (1.0 - p) + 1.0 / tau**2
    return gradient / curvature


def _ridge_step(table: _PairTable, i: int, strengths: list[float], deviations: list[float], tau: float) -> float:
    """The exact step t of λi += t, δ(i, j) −= t for all of i's pairs: it leaves every prediction as it is,
    so only the priors move along it (the likelihood alone cannot tell a strength from its deviations)."""
    pulled = -strengths[i] / table.strength_sd**2
    for k, sign in table.pairs_of[i]:
        pulled += sign * deviations[k] / tau**2
    return pulled / (1.0 / table.strength_sd**2 + len(table.pairs_of[i]) / tau**2)


def _newton_round(table: _PairTable, strengths: list[float], deviations: list[float], tau: float) -> float:
    """One round of one-dimensional Newton steps over every λ and δ; the largest step taken."""
    largest = 0.0
    for i in range(len(strengths)):
        step = _strength_step(table, i, strengths, deviations)
        strengths[i] += step
        largest = max(largest, abs(step))
    for k in range(len(deviations)):
        step = _deviation_step(table, k, strengths, deviations, tau)
        deviations[k] += step
        largest = max(largest, abs(step))
    return largest


def _prior_round(table: _PairTable, strengths: list[float], deviations: list[float], tau: float) -> float:
    """One round along the directions the likelihood does not see: each archetype's ridge, then the common
    shift of all λ (whose best value centres them); the largest step taken."""
    largest = 0.0
    for i, pairs in enumerate(table.pairs_of):
        step = _ridge_step(table, i, strengths, deviations, tau)
        strengths[i] += step
        for k, sign in pairs:
            deviations[k] -= sign * step
        largest = max(largest, abs(step))
    shift = sum(strengths) / len(strengths) if strengths else 0.0
    strengths[:] = [value - shift for value in strengths]
    return max(largest, abs(shift))


def _fit_table(table: _PairTable, tau: float) -> tuple[list[float], list[float]]:
    """The MAP strengths and deviations of a pair table, by coordinate Newton ascent."""
    strengths = [0.0] * len(table.names)
    deviations = [0.0] * len(table.keys)
    for _ in range(MAX_ROUNDS):
        largest = _newton_round(table, strengths, deviations, tau)
        largest = max(largest, _prior_round(table, strengths, deviations, tau))
        if largest < TOLERANCE:
            break
    return strengths, deviations


def _model(table: _PairTable, tau: float) -> MatchupModel:
    strengths, deviations = _fit_table(table, tau)
    return MatchupModel(
        strengths=_frozen(dict(zip(table.names, strengths, strict=True))),
        deviations=MappingProxyType(dict(zip(table.keys, deviations, strict=True))),
        pair_matches=MappingProxyType(dict(zip(table.keys, table.games, strict=True))),
        tau=tau,
    )


def log_loss(model: MatchupModel, matches: Sequence[Match]) -> float:
    """Mean negative log-likelihood of the matches' outcomes under the model (mirrors skipped)."""
    total, count = 0.0, 0
    for a, b, a_won in matches:
        if a == b:
            continue
        p = model.probability(a, b)
        total -= math.log(max(p if a_won else 1.0 - p, _PROBABILITY_FLOOR))
        count += 1
    return total / count if count else math.log(2.0)


def cross_validated_loss(
    matches: Sequence[Match], tau: float, folds: int = FOLDS, strength_sd: float = STRENGTH_PRIOR_SD
) -> float:
    """Mean log-loss of each fold predicted by the model fitted on the other folds (match i is in fold i mod k)."""
    decided = [m for m in matches if m[0] != m[1]]
    total, count = 0.0, 0
    for fold in range(folds):
        held_out = decided[fold::folds]
        if not held_out:
            continue
        kept = [m for i, m in enumerate(decided) if i % folds != fold]
        total += log_loss(_model(_pair_table(kept, strength_sd), tau), held_out) * len(held_out)
        count += len(held_out)
    return total / count if count else math.log(2.0)


def choose_tau(
    matches: Sequence[Match], grid: Sequence[float] = TAU_GRID, strength_sd: float = STRENGTH_PRIOR_SD
) -> float:
    """The τ of the grid with the lowest cross-validated log-loss (the smaller on a tie)."""
    return min(grid, key=lambda tau: (cross_validated_loss(matches, tau, FOLDS, strength_sd), tau))


def fit_matchup_model(
    matches: Sequence[Match], tau: float | None = None, strength_sd: float = STRENGTH_PRIOR_SD
) -> MatchupModel:
    """Fit the model on decided matches ``(A, B, A won)``; mirrors are ignored, τ chosen when not given;
    ``strength_sd``: the strengths' prior sd (``STRENGTH_PRIOR_SD``, chosen by the backtest)."""
    if tau is None:
        tau = choose_tau(matches, strength_sd=strength_sd)
    if tau <= 0 or strength_sd <= 0:
        raise ValueError("tau and strength_sd must be positive")
    return _model(_pair_table(matches, strength_sd), tau)
