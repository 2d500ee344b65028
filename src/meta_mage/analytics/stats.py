"""Win rates with 95 % Wilson score intervals, the verdict of a matchup in words (``MATCHUP_VERDICTS``, on the
matchup model's estimate, ``analytics/matchup_rates.py``), and the shrunk record card evidence ranks on.

The shrunk estimate (card evidence: lists with a card against lists without it) adds ``PRIOR_MATCHES`` (10)
imaginary decided matches at 50 % to the record (a Beta(5, 5) prior): a 3-0 record reads (3 + 5) / (3 + 10) =
61.5 %, not 100 %; a 30-10 record reads (30 + 5) / 50 = 70 %. The more matches, the more the record counts, so
a lucky 3-0 does not outrank a solid 30-10. Every record is still shown with its counts and interval."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from meta_mage.analytics.clustering import MIN_PLAYERS

Z95 = 1.959963984540054


def win_rate(wins: int, losses: int) -> float | None:
    """Match win rate in percent (draws excluded), or None without decided matches."""
    decided = wins + losses
    return round(100.0 * wins / decided, 2) if decided else None


def wilson_interval(wins: int, losses: int, z: float = Z95) -> tuple[float, float] | None:
    """95 % Wilson score interval of the win rate, in percent."""
    return effective_wilson(wins, losses, wins + losses, z)


PRIOR_MATCHES = 10
"""How many matches the prior is worth: a record of 10 decided matches moves the estimate halfway."""


def shrunk_rate(wins: int, losses: int, strength: float = PRIOR_MATCHES) -> float | None:
    """The win rate (percent) pulled toward 50 % by ``strength`` imaginary decided matches, or None without
    decided matches."""
    decided = wins + losses
    if not decided:
        return None
    return round(100 * (wins + strength / 2) / (decided + strength), 2)


CLEAR_POINTS = 3
"""How far the estimate's 95 % interval must clear 50 % for "favoured" or "unfavoured": the margin the word
promises the side it favours over the weeks that follow (``VERDICT_PROMISES``). There is no "leans" word: cells
whose estimate was 2 to 6 points off 50 % won 55.9-57.9 % the next week on the tuning weeks but 49.2-53.6 % on the
held-out weeks (``bench/matchup_backtest.py``), so a lean promised what the data does not carry."""
FEW_MATCHES = 5
"""Under this many decided matches a record whose interval does not clear 50 % is too few matches to call."""


def verdict(wins: int, losses: int, interval: tuple[float, float] | None, estimate: float | None) -> str:
    """The matchup in words from a record's interval alone (card evidence), by :data:`MATCHUP_VERDICTS`:
    "favoured"/"unfavoured" when the whole 95 % interval clears 50 % by ``CLEAR_POINTS``; else "too few matches
    to call" under ``FEW_MATCHES`` decided matches; else "too close to call"."""
    judged = None if interval is None or estimate is None else (estimate, *interval)
    return verdict_of(wins + losses, None, judged, wins - losses)


def effective_wilson(wins: int, losses: int, effective: float, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson interval of the record's rate with the sample size it is worth (``effective`` matches; the
    record's own count for independent matches)."""
    n = wins + losses
    if n == 0 or effective <= 0:
        return None
    p = wins / n
    denominator = 1 + z * z / effective
    centre = (p + z * z / (2 * effective)) / denominator
    margin = z * math.sqrt(p * (1 - p) / effective + z * z / (4 * effective * effective)) / denominator
    return round(100 * max(0.0, centre - margin), 2), round(100 * min(1.0, centre + margin), 2)


def anecdote(decided: int, players: int) -> str:
    """The words for a record too few players stand behind to judge."""
    who = "all by one player" if players == 1 else f"by {players} players"
    return f"anecdote: {decided} match{'es' if decided != 1 else ''} {who}"


@dataclass(frozen=True)
class MatchupEvidence:
    """What a matchup verdict reads: the decided matches, distinct players, the model's estimate and interval."""

    decided: int
    players: int | None
    estimate: float
    low: float
    high: float
    lead: int = 0  # the record's wins minus losses


def against_its_record(estimate: float, lead: int) -> bool:
    """The estimate (percent) leans one way while the record (wins minus losses) goes the other: a 6-10 record
    the two decks' overall strengths put above 50 %. No verdict word may point against the record."""
    return (estimate > 50 and lead < 0) or (estimate < 50 and lead > 0)


MATCHUP_VERDICTS: tuple[tuple[str, Callable[[MatchupEvidence], bool]], ...] = (
    ("no decided matches", lambda e: e.decided == 0),
    ("anecdote", lambda e: e.players is not None and e.players < MIN_PLAYERS),
    ("favoured", lambda e: e.low >= 50 + CLEAR_POINTS and not against_its_record(e.estimate, e.lead)),
    ("unfavoured", lambda e: e.high <= 50 - CLEAR_POINTS and not against_its_record(e.estimate, e.lead)),
    ("too few matches to call", lambda e: e.decided < FEW_MATCHES),
    ("too close to call", lambda e: True),
)
"""A matchup's verdict: the first row that holds. Verdict words come from the model's estimate and interval,
never from the raw record, and need three distinct players; no word points against the pair's own record (the
estimate and the record disagree: too close to call); a word needs the interval clear of 50 % by ``CLEAR_POINTS``.
Under ``FEW_MATCHES`` decided matches the rest is "too few matches to call" (the estimate is then mostly the two
decks' overall strengths, not this matchup)."""


VERDICT_PROMISES = {"favoured": 50 + CLEAR_POINTS}
"""What a verdict word promises, seen from the side it favours: the least win rate, in percent, that the cells given
it must show over the week that followed (``bench/matchup_backtest.py`` measures it)."""


def matchup_verdict(evidence: MatchupEvidence) -> str:
    name = next(name for name, holds in MATCHUP_VERDICTS if holds(evidence))
    return anecdote(evidence.decided, evidence.players or 0) if name == "anecdote" else name


Estimate = tuple[float, float, float]  # percent: the estimate and its 95 % interval


def verdict_of(decided: int, players: int | None, estimate: Estimate | None, lead: int) -> str:
    """The verdict of a record of ``decided`` matches (``lead``: wins minus losses) judged on ``estimate``; "no
    decided matches" without matches or without an estimate."""
    if not decided or estimate is None:
        return "no decided matches"
    return matchup_verdict(MatchupEvidence(decided, players, *estimate, lead=lead))
