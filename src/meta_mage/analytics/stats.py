"""Win rates with 95 % Wilson score intervals."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def win_rate(wins: int, losses: int) -> float | None:
    """Match win rate in percent (draws excluded), or None without decided matches."""
    decided = wins + losses
    return round(100.0 * wins / decided, 2) if decided else None


def wilson_interval(wins: int, losses: int, z: float = Z95) -> tuple[float, float] | None:
    """95 % Wilson score interval of the win rate, in percent."""
    n = wins + losses
    if n == 0:
        return None
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return round(100 * max(0.0, centre - margin), 2), round(100 * min(1.0, centre + margin), 2)
