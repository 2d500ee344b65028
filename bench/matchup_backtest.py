"""Benchmark: how well matchup estimates from past weeks predict the next week's matches (issue 35).

Reads the bundled tournaments (``demo_data/tournaments.tar.gz``, or ``--source`` a .tar.gz or a folder of
tournament JSON), keeps one copy of each event (re-dated MTGO duplicates share their trailing event id),
classifies every deck once with the project's classifier and keeps the decided matches between two different
archetypes (draws, byes, assigned losses, unreported results and matches without both lists left out).

Then for every day D from the eighth day of data (``--step`` days apart, 1 by default) while 7 days of data
follow it: each format is fitted on its matches of the 60 days before D and predicts every match of the week
from D (a match is predicted once for each D whose week holds it) with

- coin: 0.5;
- raw: the cell's own win rate (0.5 when empty), clipped to [0.01, 0.99];
- Beta(5,5): the cell's record plus 10 imaginary matches at 50 % (the coach's estimate before the model);
- model: the hierarchical Bradley–Terry model of ``meta_mage.analytics.matchup_model`` (τ by
  cross-validation), each pair's matches weighted by its players (``analytics/clustering.py``), as the coach
  fits it;
- model ρ=0: the same without player weights; model 14 d: the same on the 14 days before D only (the bundled
  data spans four weeks, so a 30-day window would be the 60-day fit).

Prints log-loss and Brier per format and pooled (lower is better), the model's calibration in five bins of
equal count (each match seen from the favourite's side; a p of exactly ½, an archetype the model has not seen,
has no favourite and counts half a win), whether the model passes the ship bar, and the τ of each fit.

Run: .venv/bin/python bench/matchup_backtest.py [--source PATH] [--train-days 60] [--step 1]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import math
import tarfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from meta_mage.analytics.clustering import PLAYER_CORRELATION, pair_effective_matches
from meta_mage.analytics.matchup_model import STRENGTH_PRIOR_SD, MatchupModel, PairRecord, fit_pairs
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.tournaments import event_key, parse_tournament, tournament_format
from meta_mage.models.tournaments import ParsedTournament

WEEK = 7
STRENGTH_SD = [STRENGTH_PRIOR_SD]  # the strengths' prior sd the fits use (--strength-sd)
RHO = [PLAYER_CORRELATION]  # the within-player correlation the fits' weights use (--rho)
CALIBRATION_BINS = 5
PREDICTORS = ("coin", "raw", "Beta(5,5)", "model", "model ρ=0", "model 14 d")
SHORT_WINDOW = 14  # the "model 14 d" variant's training window, in days


@dataclass(frozen=True)
class Decided:
    """One decided match between two different archetypes."""

    date: dt.date
    format: str
    archetype_a: str
    archetype_b: str
    a_won: bool
    player_a: str = ""
    player_b: str = ""


def _documents(source: Path) -> Iterator[tuple[str, Any]]:
    """Every tournament document of a .tar.gz or a folder, by sorted name."""
    if source.is_dir():
        for path in sorted(source.rglob("*.json")):
            yield str(path), json.loads(path.read_bytes())
        return
    with tarfile.open(source) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            file = archive.extractfile(member) if member.isfile() else None
            if file is not None:
                data = file.read()
                yield member.name, json.loads(gzip.decompress(data) if member.name.endswith(".gz") else data)


def _event_identity(document: Any, name: str) -> str:
    header = document.get("Tournament") or {}
    fmt = tournament_format(document, name)
    return event_key(header.get("Uri") or "", header.get("Name") or "", str(header.get("Date")), fmt)


def read_tournaments(source: Path) -> list[ParsedTournament]:
    """Parse (and classify) each event once; files that do not parse are skipped."""
    classifier = get_classifier(Settings().archetype_rules_dir)
    seen: set[str] = set()
    tournaments: list[ParsedTournament] = []
    for name, document in _documents(source):
        try:
            key = _event_identity(document, name)
            if key in seen:
                continue
            seen.add(key)
            tournaments.append(parse_tournament(document, name, classifier.classify))
        except InputFileError:
            continue
    return tournaments


def decided_matches(tournament: ParsedTournament) -> list[Decided]:
    """The event's decided matches between two players whose lists have different archetypes."""
    archetype_of: dict[str, str] = {}
    for deck in tournament.decks:
        if deck.archetype:
            archetype_of.setdefault(deck.player, deck.archetype)
            archetype_of.setdefault(deck.player.casefold(), deck.archetype)
    date = dt.date.fromisoformat(tournament.date[:10])
    found = []
    for match in tournament.matches:
        if match.outcome != "result":
            continue
        a = archetype_of.get(match.player1) or archetype_of.get(match.player1.casefold())
        b = archetype_of.get(match.player2) or archetype_of.get(match.player2.casefold())
        if a and b and a != b:
            won = match.winner == match.player1
            found.append(
                Decided(date, tournament.format, a, b, won, match.player1.casefold(), match.player2.casefold())
            )
    return found


Predictor = Callable[[str, str], float]


def cell_predictors(
    train: list[Decided], model: MatchupModel, variants: dict[str, MatchupModel]
) -> dict[str, Predictor]:
    """The predictors of P(A beats B) fitted on the training matches (the model's variants given)."""
    record: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for m in train:
        record[(m.archetype_a, m.archetype_b)][0] += m.a_won
        record[(m.archetype_a, m.archetype_b)][1] += 1
        record[(m.archetype_b, m.archetype_a)][0] += not m.a_won
        record[(m.archetype_b, m.archetype_a)][1] += 1

    def raw(a: str, b: str) -> float:
        wins, games = record.get((a, b), (0, 0))
        return min(0.99, max(0.01, wins / games)) if games else 0.5

    def beta(a: str, b: str) -> float:
        wins, games = record.get((a, b), (0, 0))
        return (wins + 5) / (games + 10)

    found: dict[str, Predictor] = {"coin": lambda a, b: 0.5, "raw": raw, "Beta(5,5)": beta, "model": model.probability}
    return found | {name: variant.probability for name, variant in variants.items()}


@dataclass
class Score:
    """Summed log-loss and Brier of one predictor over some matches."""

    log_loss: float = 0.0
    brier: float = 0.0
    count: int = 0

    def add(self, p: float, won: bool) -> None:
        self.log_loss -= math.log(p if won else 1.0 - p)
        self.brier += ((1.0 if won else 0.0) - p) ** 2
        self.count += 1


@dataclass
class Backtest:
    """Scores per (format, predictor), the model's (favourite's p, favourite won) pairs, and the fits made."""

    scores: dict[tuple[str, str], Score]
    calibration: list[tuple[float, float]]  # the favourite's p and its wins (1, 0, or ½ for a p of exactly ½)
    fits: list[tuple[str, dt.date, int, float]]  # format, D, training matches, τ


def training_records(train: list[Decided], rho: float) -> list[PairRecord]:
    """One record per sorted pair, weighted by its effective matches per match (player clusters, ``rho``)."""
    records: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    sides: dict[tuple[str, str], tuple[Counter[str], Counter[str]]] = defaultdict(lambda: (Counter(), Counter()))
    for m in train:
        first = m.archetype_a < m.archetype_b
        key = (m.archetype_a, m.archetype_b) if first else (m.archetype_b, m.archetype_a)
        records[key][0 if m.a_won == first else 1] += 1
        sides[key][0][m.player_a if first else m.player_b] += 1
        sides[key][1][m.player_b if first else m.player_a] += 1
    found = []
    for (a, b), (wins, losses) in sorted(records.items()):
        weight = pair_effective_matches(*sides[(a, b)], rho=rho) / (wins + losses) if rho else 1.0
        found.append(PairRecord(a, b, wins, losses, weight))
    return found


def _score_week(result: Backtest, fmt: str, day: dt.date, train: list[Decided], test: list[Decided]) -> None:
    """Fit one format on its training matches and score the week's matches with every predictor."""
    model = fit_pairs(training_records(train, RHO[0]), strength_sd=STRENGTH_SD[0])
    recent = [m for m in train if m.date >= day - dt.timedelta(days=SHORT_WINDOW)]
    variants = {
        "model ρ=0": fit_pairs(training_records(train, 0.0), strength_sd=STRENGTH_SD[0]),
        "model 14 d": fit_pairs(training_records(recent, RHO[0]), strength_sd=STRENGTH_SD[0]),
    }
    result.fits.append((fmt, day, len(train), model.tau))
    for name, predict in cell_predictors(train, model, variants).items():
        for m in test:
            p = predict(m.archetype_a, m.archetype_b)
            result.scores[(fmt, name)].add(p, m.a_won)
            result.scores[("pooled", name)].add(p, m.a_won)
    for m in test:
        p = model.probability(m.archetype_a, m.archetype_b)
        if p == 0.5:  # no favourite (an archetype the model has not seen): either side is, half each
            result.calibration.append((0.5, 0.5))
        else:
            result.calibration.append((p, float(m.a_won)) if p > 0.5 else (1.0 - p, float(not m.a_won)))


def backtest(
    matches: list[Decided], train_days: int, step: int, weeks: tuple[dt.date, dt.date] | None = None
) -> Backtest:
    """Fit on the ``train_days`` before each D and score the week from D, for every format; ``weeks``: only the
    test weeks that start and end inside these dates (a held-out week stays out of tuning)."""
    result = Backtest(defaultdict(Score), [], [])
    first, last = min(m.date for m in matches), max(m.date for m in matches)
    if weeks is not None:
        first, last = max(first, weeks[0] - dt.timedelta(days=WEEK)), min(last, weeks[1])
    day = first + dt.timedelta(days=WEEK)
    while day + dt.timedelta(days=WEEK - 1) <= last:
        start, end = day - dt.timedelta(days=train_days), day + dt.timedelta(days=WEEK)
        for fmt in sorted({m.format for m in matches}):
            train = [m for m in matches if m.format == fmt and start <= m.date < day]
            test = [m for m in matches if m.format == fmt and day <= m.date < end]
            if train and test:
                _score_week(result, fmt, day, train, test)
        day += dt.timedelta(days=step)
    return result


def score_table(result: Backtest, measure: str) -> Table:
    """Mean log-loss (``measure`` "log-loss") or Brier score per format and pooled, one column per predictor."""
    table = Table(title=f"Next-week prediction of decided matches: {measure} (lower is better)")
    table.add_column("format")
    table.add_column("matches", justify="right")
    for name in PREDICTORS:
        table.add_column(name, justify="right")
    formats = [*sorted({fmt for fmt, _ in result.scores} - {"pooled"}), "pooled"]
    for fmt in formats:
        scores = [result.scores[(fmt, name)] for name in PREDICTORS]
        count = scores[0].count
        values = [(s.log_loss if measure == "log-loss" else s.brier) / count for s in scores]
        table.add_row(fmt, str(count), *(f"{v:.4f}" for v in values))
    return table


def calibration_bins(result: Backtest) -> list[list[tuple[float, float]]]:
    """The favourite's (p, wins) in :data:`CALIBRATION_BINS` bins of equal count, by p (ties keep their order)."""
    ordered = sorted(result.calibration, key=lambda pair: pair[0])
    size = len(ordered)
    bins = [ordered[i * size // CALIBRATION_BINS : (i + 1) * size // CALIBRATION_BINS] for i in range(CALIBRATION_BINS)]
    return [part for part in bins if part]


def ship_bar(result: Backtest) -> str:
    """Whether the model ships: ahead of a coin and Beta(5, 5) in pooled log-loss, each bin within 2 points."""
    pooled = {name: result.scores[("pooled", name)] for name in ("coin", "Beta(5,5)", "model")}
    loss = {name: score.log_loss / score.count for name, score in pooled.items() if score.count}
    ahead = len(loss) == 3 and loss["model"] < min(loss["coin"], loss["Beta(5,5)"])
    worst = max(
        (
            abs(sum(w for _, w in part) / len(part) - sum(p for p, _ in part) / len(part))
            for part in calibration_bins(result)
        ),
        default=1.0,
    )
    verdict = "ships" if ahead and worst <= 0.02 else "does NOT ship"
    return (
        f"The model {verdict}: pooled log-loss {'ahead of' if ahead else 'not ahead of'} a coin and Beta(5,5); "
        f"largest calibration gap {100 * worst:.1f} points (bar: 2)."
    )


def calibration_table(result: Backtest) -> Table:
    table = Table(title="Model calibration, favourite's side, five bins of equal count")
    for column in ("bin", "matches", "predicted", "observed", "observed − predicted"):
        table.add_column(column, justify="right")
    for part in calibration_bins(result):
        predicted = sum(p for p, _ in part) / len(part)
        observed = sum(won for _, won in part) / len(part)
        table.add_row(
            f"{part[0][0]:.3f}–{part[-1][0]:.3f}",
            str(len(part)),
            f"{predicted:.3f}",
            f"{observed:.3f}",
            f"{observed - predicted:+.3f}",
        )
    return table


def fits_table(result: Backtest) -> Table:
    table = Table(title="Fits: τ chosen by 5-fold cross-validation")
    for column in ("format", "D", "training matches", "τ"):
        table.add_column(column, justify="left" if column == "format" else "right")
    for fmt, day, count, tau in sorted(result.fits):
        table.add_row(fmt, day.isoformat(), str(count), f"{tau:.2f}")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEMO_DATA_DIR / "tournaments.tar.gz")
    parser.add_argument("--train-days", type=int, default=60)
    parser.add_argument("--step", type=int, default=1, help="days between test weeks (1: every day D)")
    parser.add_argument("--from", dest="since", type=dt.date.fromisoformat, help="first test week's first day")
    parser.add_argument("--until", type=dt.date.fromisoformat, help="last day a test week may reach")
    parser.add_argument(
        "--strength-sd", type=float, default=None, help="the strengths' prior sd (default: the model's)"
    )
    parser.add_argument("--rho", type=float, default=None, help="within-player correlation (default: the model's)")
    args = parser.parse_args()
    if args.rho is not None:
        RHO[0] = args.rho
    if args.strength_sd is not None:
        STRENGTH_SD[0] = args.strength_sd
    started = time.perf_counter()
    tournaments = read_tournaments(args.source)
    matches = [m for t in tournaments for m in decided_matches(t)]
    read = time.perf_counter() - started
    weeks = (args.since or dt.date.min + dt.timedelta(days=WEEK), args.until or dt.date.max)
    result = backtest(matches, args.train_days, args.step, weeks)
    console = Console(width=160)
    console.print(
        f"{len(tournaments)} events, {len(matches)} decided matches between different archetypes, "
        f"{min(m.date for m in matches)} → {max(m.date for m in matches)}; read and classified in {read:.1f}s"
    )
    console.print(score_table(result, "log-loss"))
    console.print(score_table(result, "Brier"))
    console.print(calibration_table(result))
    console.print(ship_bar(result))
    console.print(fits_table(result))
    console.print(f"total {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
