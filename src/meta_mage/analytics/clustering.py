"""Matches by one player are not independent evidence: effective sample sizes from player clusters.

A pair's record is played by a few players on each side. When one player played most of it, what it shows is
mostly that player (their skill, their list, their day), not the archetypes. The design effect of cluster
sampling says how many independent matches a record is worth: with the matches split into players' clusters of
sizes nᵢ (N in all) and a within-player correlation ρ, a record of N matches is worth

    N_eff = N / (1 + (m − 1) ρ),   m = Σ nᵢ² / N  (the mean cluster size a match sits in)

so five matches by five players are worth five, and five by one player are worth 5 / (1 + 4ρ). Both sides of a
pair are clusters; the record is worth the smaller of the two. :data:`PLAYER_CORRELATION` was chosen on the
backtest (``bench/matchup_backtest.py --rho``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

PLAYER_CORRELATION = 0.5
MIN_PLAYERS = 3
"""No verdict word and no top-three pick rests on fewer distinct players than this."""


def effective_matches(cluster_sizes: Iterable[int], rho: float = PLAYER_CORRELATION) -> float:
    """What ``sum(cluster_sizes)`` matches split into these players' clusters are worth as independent ones."""
    sizes = [n for n in cluster_sizes if n > 0]
    total = sum(sizes)
    if not total:
        return 0.0
    mean_cluster = sum(n * n for n in sizes) / total
    return total / (1.0 + (mean_cluster - 1.0) * rho)


def pair_effective_matches(
    side_a: Mapping[str, int], side_b: Mapping[str, int], rho: float = PLAYER_CORRELATION
) -> float:
    """The smaller of the two sides' effective matches (each side: decided matches per player)."""
    return min(effective_matches(side_a.values(), rho), effective_matches(side_b.values(), rho))
