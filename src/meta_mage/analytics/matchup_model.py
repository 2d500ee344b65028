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

The two prior scales, the strengths' sd and τ, are constants chosen on the future, not on shuffled folds:
``bench/matchup_backtest.py --tune`` fits every format on the 30 days before each day D of the tuning weeks and
scores the matches of the week from D, for each pair of scales on a grid; of the pairs whose pooled log-loss is
within one standard error (clustered by event) of the best, the least confident wins (the one-standard-error
rule: matchups measured over past weeks move next week's results little, and a model that claims less is
wrong less when the meta moves).

Matches are not independent when a few players played most of a pair's matches: a :class:`PairRecord`'s
weight (its effective matches per match, from player clustering) scales what its matches count for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

# Chosen by bench/matchup_backtest.py --tune on the weeks before the newest two of ../shared/data (test weeks
# 2025-09-26..2025-11-03, 39,956 predictions): the best pooled log-loss was sd 0.15 with τ 0.3 (0.69031; a coin
# 0.69315); sd 0.05 with τ 0.3 is within one event-clustered standard error of it (0.69104) and the least
# confident such pair (its most lopsided fifth predicted 54.5 %, the best's 56.6 %).
STRENGTH_PRIOR_SD = 0.05
DEVIATION_PRIOR_SD = 0.3  # τ
TOLERANCE = 1e-8
MAX_ROUNDS = 200
_PROBABILITY_FLOOR = 1e-12

Match = tuple[str, str, bool]  # (archetype A, archetype B, A won)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class PairRecord:
    """A's decided record against B, and what each match is worth as evidence: 1.0 for independent matches,
    less when a few players played most of them (the effective matches per match, from player clustering)."""

    a: str
    b: str
    wins: int
    losses: int
    weight: float = 1.0


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
    second), the matches each pair had, the τ used, and each λ's and δ's posterior variance (the inverse of its
    curvature at the mode: a diagonal approximation, which errs on the wide side)."""

    strengths: Mapping[str, float] = field(default_factory=lambda: _frozen({}))
    deviations: Mapping[tuple[str, str], float] = field(default_factory=lambda: MappingProxyType({}))
    pair_matches: Mapping[tuple[str, str], int] = field(default_factory=lambda: MappingProxyType({}))
    tau: float = 0.0
    strength_variances: Mapping[str, float] = field(default_factory=lambda: _frozen({}))
    deviation_variances: Mapping[tuple[str, str], float] = field(default_factory=lambda: MappingProxyType({}))

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

    def knows(self, name: str) -> bool:
        return name in self.strengths

    def probability(self, a: str, b: str) -> float:
        """P(A beats B); 0.5 for a mirror or when either archetype is unknown."""
        if a == b or a not in self.strengths or b not in self.strengths:
            return 0.5
        return sigmoid(self.strengths[a] - self.strengths[b] + self.deviation(a, b))

    def logit_sd(self, a: str, b: str) -> float:
        """The posterior sd of logit P(A beats B): both strengths' and the deviation's (τ² for a pair the
        model has no match of); 0 for a mirror."""
        if a == b:
            return 0.0
        unknown = self.tau**2 + STRENGTH_PRIOR_SD**2
        deviation = self.deviation_variances.get(_pair_key(a, b), self.tau**2)
        return math.sqrt(self.strength_variances.get(a, unknown) + self.strength_variances.get(b, unknown) + deviation)

    def interval(self, a: str, b: str, z: float = Z95) -> tuple[float, float]:
        """The 95 % interval of P(A beats B)."""
        centre = math.log(self.probability(a, b) / (1.0 - self.probability(a, b)))
        spread = z * self.logit_sd(a, b)
        return sigmoid(centre - spread), sigmoid(centre + spread)


@dataclass
class _PairTable:
    """The (weighted) matches summed per sorted pair: the first archetype's wins and the games, by index."""

    names: list[str]
    first: list[int]
    second: list[int]
    wins: list[float]
    games: list[float]
    keys: list[tuple[str, str]]
    pairs_of: list[list[tuple[int, float]]]  # per archetype: (pair index, +1 if first else -1)
    strength_sd: float = STRENGTH_PRIOR_SD


def pair_records(matches: Sequence[Match]) -> list[PairRecord]:
    """Single matches summed into one record per sorted pair (mirrors left out), each match worth 1."""
    counts: dict[tuple[str, str], list[int]] = {}
    for a, b, a_won in matches:
        if a == b:
            continue
        key = _pair_key(a, b)
        row = counts.setdefault(key, [0, 0])
        row[0 if a_won == (a == key[0]) else 1] += 1
    return [PairRecord(a, b, wins, losses) for (a, b), (wins, losses) in sorted(counts.items())]


def _pair_table(records: Sequence[PairRecord], strength_sd: float = STRENGTH_PRIOR_SD) -> _PairTable:
    """Sum the weighted records per sorted pair (mirrors and empty records left out)."""
    counts: dict[tuple[str, str], list[float]] = {}
    for r in records:
        if r.a == r.b or r.wins + r.losses <= 0:
            continue
        key = _pair_key(r.a, r.b)
        row = counts.setdefault(key, [0.0, 0.0])
        row[0] += r.weight * (r.wins if r.a == key[0] else r.losses)
        row[1] += r.weight * (r.wins + r.losses)
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


def _variances(
    table: _PairTable, strengths: list[float], deviations: list[float], tau: float
) -> tuple[list[float], list[float]]:
    """Each λ's and δ's variance: the inverse of the log posterior's curvature along it at the mode."""
    strength_curvature = [1.0 / table.strength_sd**2] * len(strengths)
    deviation_variance = []
    for k in range(len(deviations)):
        p = sigmoid(strengths[table.first[k]] - strengths[table.second[k]] + deviations[k])
        information = table.games[k] * p * (1.0 - p)
        strength_curvature[table.first[k]] += information
        strength_curvature[table.second[k]] += information
        deviation_variance.append(1.0 / (information + 1.0 / tau**2))
    return [1.0 / c for c in strength_curvature], deviation_variance


def _model(table: _PairTable, tau: float, raw_games: Mapping[tuple[str, str], int]) -> MatchupModel:
    strengths, deviations = _fit_table(table, tau)
    strength_variances, deviation_variances = _variances(table, strengths, deviations, tau)
    return MatchupModel(
        strengths=_frozen(dict(zip(table.names, strengths, strict=True))),
        deviations=MappingProxyType(dict(zip(table.keys, deviations, strict=True))),
        pair_matches=MappingProxyType({key: raw_games.get(key, 0) for key in table.keys}),
        tau=tau,
        strength_variances=_frozen(dict(zip(table.names, strength_variances, strict=True))),
        deviation_variances=MappingProxyType(dict(zip(table.keys, deviation_variances, strict=True))),
    )


def _raw_games(records: Sequence[PairRecord]) -> dict[tuple[str, str], int]:
    games: dict[tuple[str, str], int] = {}
    for r in records:
        if r.a != r.b:
            key = _pair_key(r.a, r.b)
            games[key] = games.get(key, 0) + r.wins + r.losses
    return games


def log_loss(model: MatchupModel, matches: Sequence[Match]) -> float:
    """Mean negative log-likelihood of the matches' outcomes under the model (mirrors skipped)."""
    return record_log_loss(model, pair_records(matches))


def record_log_loss(model: MatchupModel, records: Sequence[PairRecord]) -> float:
    """Mean negative log-likelihood of the records' outcomes, each match counted with its record's weight."""
    total = count = 0.0
    for r in records:
        if r.a == r.b:
            continue
        p = model.probability(r.a, r.b)
        total -= r.weight * (
            r.wins * math.log(max(p, _PROBABILITY_FLOOR)) + r.losses * math.log(max(1.0 - p, _PROBABILITY_FLOOR))
        )
        count += r.weight * (r.wins + r.losses)
    return total / count if count else math.log(2.0)


def fit_pairs(
    records: Sequence[PairRecord], tau: float = DEVIATION_PRIOR_SD, strength_sd: float = STRENGTH_PRIOR_SD
) -> MatchupModel:
    """Fit the model on pair records with the prior scales the backtest chose (or those given)."""
    if tau <= 0 or strength_sd <= 0:
        raise ValueError("tau and strength_sd must be positive")
    return _model(_pair_table(records, strength_sd), tau, _raw_games(records))


def fit_matchup_model(
    matches: Sequence[Match], tau: float = DEVIATION_PRIOR_SD, strength_sd: float = STRENGTH_PRIOR_SD
) -> MatchupModel:
    """Fit the model on single decided matches ``(A, B, A won)``, each worth one (mirrors ignored)."""
    return fit_pairs(pair_records(matches), tau, strength_sd)
