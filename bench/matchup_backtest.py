"""Benchmark: what the coach's matchup figures are worth on the weeks that follow (issues 35 and 49).

Reads real tournaments (``--source``: a folder of tournament JSON, by default ``../shared/data/tournaments``
when it is there, else the bundled ``demo_data/tournaments.tar.gz``), parses each event once with the ingest's
parser and summarises it with the ingest's own aggregate (``analytics/aggregate.py``), so the figures here are
those the coach stores. For every day D and format, the coach's window is the sum of the events of the
``--train-days`` (30, the coach's default window) before D, fitted as the coach fits it
(``analytics/matchup_fit.pair_records_of``, ``matchup_model.fit_pairs``); the test week is the events of the
seven days from D. The newest 14 days of data are held out: every choice was made on the test weeks before them
(the tuning weeks), and they are scored apart.

Prints, for the tuning and the held-out weeks:

1. log-loss per format and pooled (lower is better) of the decided matches between two listed archetypes, for
   a coin, the Beta(5, 5) cell estimate, a plain shrunk Bradley–Terry model whose two penalties are chosen for
   each fit by 5-fold cross-validation grouped by event (``BT event-CV``), and the coach's model;
2. the model's calibration: its predictions in five bins of equal count (each match from the favourite's side;
   a p of exactly ½ counts half a win), predicted against observed, with the bar (every bin within 2 points,
   log-loss at most a coin's + 0.0005 and at most BT event-CV's + 0.001);
3. the verdict words: every cell of every window given each word, and how the side the word favours did in the
   week that followed, against what the word promises (``stats.VERDICT_PROMISES``);
4. "what to play": the pick each day would have made (``field.choose_pick``), its match win rate over the
   week that followed beside the field's (by meta share) and a random eligible deck's, and how often a lead of
   each size on the interval's low end held against the runner-up.

``--tune`` prints instead the grid the model's two prior scales were chosen on (tuning weeks only).

Run: .venv/bin/python bench/matchup_backtest.py [--source PATH] [--train-days 30] [--held-out-days 14] [--tune]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import itertools
import json
import math
import tarfile
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from meta_mage.analytics.aggregate import NO_DECKLIST, summarise_event
from meta_mage.analytics.field import PICK_MARGIN, choose_pick, expected_vs_field
from meta_mage.analytics.matchup_fit import pair_records_of
from meta_mage.analytics.matchup_model import (
    DEVIATION_PRIOR_SD,
    STRENGTH_PRIOR_SD,
    MatchupModel,
    PairRecord,
    fit_pairs,
    record_log_loss,
)
from meta_mage.analytics.matchup_rates import pair_rate
from meta_mage.analytics.stats import VERDICT_PROMISES, against_its_record, wilson_interval
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.rule_suggestions import unnamed_names
from meta_mage.ingest.tournaments import parse_tournament
from meta_mage.models.aggregates import merge
from meta_mage.storage.meta import format_totals_of
from meta_mage.storage.meta.aggregate_items import format_json

WEEK = 7
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "tournaments"
PREDICTORS = ("coin", "Beta(5,5)", "BT event-CV", "model")
CALIBRATION_BINS = 5
CV_FOLDS = 5
BT_GRID = list(itertools.product((0.05, 0.1, 0.2, 0.4), (0.05, 0.1, 0.2, 0.4)))  # (strengths' sd, τ)
TUNE_GRID = list(itertools.product((0.05, 0.1, 0.15, 0.2, 0.25), (0.05, 0.1, 0.2, 0.3, 0.4)))
BAR_POINTS = 2.0
BAR_COIN = 0.0005
BAR_BT = 0.001
LEAD_STEPS = (0.0, 1.0, 2.0, 3.0, 5.0)  # leads of the pick's interval low end over the runner-up's, in points


@dataclass(frozen=True)
class Event:
    """One event as the coach stores it: its format part (``analytics/aggregate.py``)."""

    key: str
    format: str
    date: dt.date
    part: dict[str, Any]


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


def read_events(source: Path) -> list[Event]:
    """Parse, classify and summarise each event once (the first file of a re-dated duplicate); files that do
    not parse are skipped, as the ingest refuses them."""
    classifier = get_classifier(Settings().archetype_rules_dir)
    events: dict[str, Event] = {}
    for name, document in _documents(source):
        try:
            tournament = parse_tournament(document, name, classifier.classify)
        except InputFileError:
            continue
        if tournament.event_key not in events:
            part = format_json(summarise_event(tournament, lambda _card: False).format)
            date = dt.date.fromisoformat(tournament.date[:10])
            events[tournament.event_key] = Event(tournament.event_key, tournament.format, date, part)
    return sorted(events.values(), key=lambda e: (e.date, e.key))


def summed(events: list[Event]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for event in events:
        merge(total, event.part)
    return total


def outcomes(total: dict[str, Any]) -> Iterator[tuple[str, str, int, int]]:
    """(A, B, A's wins, A's losses) of every decided pair of two listed archetypes, A < B."""
    for a, row in total.get("results", {}).items():
        for b, (wins, losses, _draws) in row.items():
            if a < b and NO_DECKLIST not in (a, b) and wins + losses:
                yield a, b, wins, losses


@dataclass
class Case:
    """One format on one day D: the coach's window before D (its events and their sum), its fit, and the events
    of the week from D (and their sum)."""

    format: str
    day: dt.date
    train: list[Event]
    test: list[Event]
    total: dict[str, Any] = field(default_factory=dict)
    week: dict[str, Any] = field(default_factory=dict)
    model: MatchupModel = field(default_factory=MatchupModel)


def cases(events: list[Event], train_days: int, first: dt.date, last: dt.date, fit: bool = True) -> list[Case]:
    """Every (format, D) whose test week lies within ``first``..``last`` and whose window and week hold a match."""
    found = []
    day = max(first, events[0].date + dt.timedelta(days=WEEK))
    while day + dt.timedelta(days=WEEK - 1) <= last:
        for fmt in sorted({e.format for e in events}):
            train = [e for e in events if e.format == fmt and day - dt.timedelta(days=train_days) <= e.date < day]
            test = [e for e in events if e.format == fmt and day <= e.date < day + dt.timedelta(days=WEEK)]
            case = Case(fmt, day, train, test, summed(train), summed(test))
            if any(outcomes(case.total)) and any(outcomes(case.week)):
                if fit:
                    case.model = fit_pairs(pair_records_of(format_totals_of(case.total)))
                found.append(case)
        day += dt.timedelta(days=1)
    return found


# --- predictors --------------------------------------------------------------------------------------------------
Predictor = Callable[[str, str], float]


def beta_predictor(total: dict[str, Any]) -> Predictor:
    results = total.get("results", {})

    def predict(a: str, b: str) -> float:
        wins, losses, _ = results.get(a, {}).get(b, [0, 0, 0])
        return (wins + 5) / (wins + losses + 10)

    return predict


def _records(total: dict[str, Any]) -> list[PairRecord]:
    return [PairRecord(a, b, w, l) for a, b, w, l in outcomes(total)]


def bt_event_cv(case: Case) -> MatchupModel:
    """A plain shrunk Bradley–Terry fit whose two penalties (strengths' sd, τ) are chosen by 5-fold
    cross-validation with whole events held out (folds dealt by a digest of the event's key)."""
    folds: list[list[Event]] = [[] for _ in range(CV_FOLDS)]
    for event in case.train:
        folds[zlib.crc32(event.key.encode()) % CV_FOLDS].append(event)
    splits = []
    for k in range(CV_FOLDS):
        held = _records(summed(folds[k]))
        if held:
            training = pair_records_of(
                format_totals_of(summed([e for j, fold in enumerate(folds) if j != k for e in fold]))
            )
            splits.append((training, held, sum(r.wins + r.losses for r in held)))

    def cv_loss(scales: tuple[float, float]) -> float:
        sd, tau = scales
        total = sum(record_log_loss(fit_pairs(train, tau, sd), held) * n for train, held, n in splits)
        return total / max(1, sum(n for _, _, n in splits))

    sd, tau = min(BT_GRID, key=lambda scales: (round(cv_loss(scales), 12), scales))
    return fit_pairs(pair_records_of(format_totals_of(case.total)), tau, sd)


def predictors(case: Case) -> dict[str, Predictor]:
    return {
        "coin": lambda a, b: 0.5,
        "Beta(5,5)": beta_predictor(case.total),
        "BT event-CV": bt_event_cv(case).probability,
        "model": case.model.probability,
    }


# --- scores ------------------------------------------------------------------------------------------------------
@dataclass
class Scores:
    """Summed log-loss per (format, predictor), and the model's (favourite's p, favourite's wins) per match."""

    loss: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    count: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    calibration: list[tuple[float, float]] = field(default_factory=list)

    def add(self, fmt: str, name: str, p: float, wins: int, losses: int) -> None:
        loss = -(wins * math.log(p) + losses * math.log(1.0 - p))
        for key in ((fmt, name), ("pooled", name)):
            self.loss[key] += loss
            self.count[key] += wins + losses

    def mean(self, fmt: str, name: str) -> float:
        return self.loss[(fmt, name)] / self.count[(fmt, name)]


def score(all_cases: list[Case]) -> Scores:
    scores = Scores()
    for case in all_cases:
        week = case.week
        for name, predict in predictors(case).items():
            for a, b, wins, losses in outcomes(week):
                scores.add(case.format, name, predict(a, b), wins, losses)
        for a, b, wins, losses in outcomes(week):
            p = case.model.probability(a, b)
            favourite = (p, [1.0] * wins + [0.0] * losses) if p >= 0.5 else (1 - p, [1.0] * losses + [0.0] * wins)
            scores.calibration += [(favourite[0], 0.5 if p == 0.5 else won) for won in favourite[1]]
    return scores


def calibration_bins(scores: Scores) -> list[tuple[float, float, float, int]]:
    """(lowest p, predicted, observed, matches) of each of five bins of equal count, by p."""
    ordered = sorted(scores.calibration, key=lambda pair: pair[0])
    size = len(ordered)
    bins = []
    for i in range(CALIBRATION_BINS):
        part = ordered[i * size // CALIBRATION_BINS : (i + 1) * size // CALIBRATION_BINS]
        if part:
            predicted = sum(p for p, _ in part) / len(part)
            bins.append((part[0][0], predicted, sum(w for _, w in part) / len(part), len(part)))
    return bins


def bar(scores: Scores) -> tuple[bool, str]:
    """Whether the model meets the bar of issue 49, and the sentence saying so."""
    coin, bt, model = (scores.mean("pooled", name) for name in ("coin", "BT event-CV", "model"))
    gap = max(abs(observed - predicted) for _, predicted, observed, _ in calibration_bins(scores))
    checks = (
        (model <= coin + BAR_COIN, f"log-loss {model:.5f} vs a coin's {coin:.5f} + {BAR_COIN}"),
        (model <= bt + BAR_BT, f"vs BT event-CV's {bt:.5f} + {BAR_BT}"),
        (100 * gap <= BAR_POINTS, f"largest calibration gap {100 * gap:.1f} points (bar {BAR_POINTS:.0f})"),
    )
    met = all(ok for ok, _ in checks)
    return met, ("meets the bar: " if met else "does NOT meet the bar: ") + "; ".join(
        f"{text} {'ok' if ok else 'FAILS'}" for ok, text in checks
    )


def score_table(scores: Scores, title: str) -> Table:
    table = Table(title=f"{title}: next-week log-loss of decided matches (lower is better)")
    table.add_column("format")
    table.add_column("predictions", justify="right")
    for name in PREDICTORS:
        table.add_column(name, justify="right")
    formats = [*sorted({fmt for fmt, _ in scores.count} - {"pooled"}), "pooled"]
    for fmt in formats:
        table.add_row(
            fmt, f"{scores.count[(fmt, 'coin')]:,}", *(f"{scores.mean(fmt, name):.4f}" for name in PREDICTORS)
        )
    return table


def calibration_table(scores: Scores, title: str) -> Table:
    table = Table(title=f"{title}: the model's calibration, favourite's side, five bins of equal count")
    for column in ("bin from p", "predictions", "predicted", "observed", "observed − predicted"):
        table.add_column(column, justify="right")
    for low, predicted, observed, count in calibration_bins(scores):
        table.add_row(f"{low:.3f}", f"{count:,}", f"{predicted:.3f}", f"{observed:.3f}", f"{observed - predicted:+.3f}")
    return table


# --- verdict words -----------------------------------------------------------------------------------------------
_FLIPPED = {"unfavoured": "favoured", "leans unfavoured": "leans favoured"}


def verdict_outcomes(all_cases: list[Case]) -> dict[str, list[int]]:
    """Per verdict word (seen from the side it favours): [cells, next-week wins, next-week losses]."""
    found: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for case in all_cases:
        week = case.week.get("results", {})
        for a, b, _wins, _losses in outcomes(case.total):
            word = pair_rate(a, b, format_totals_of(case.total), case.model, 20).verdict.split(":")[0]
            side, other = (b, a) if word in _FLIPPED else (a, b)
            word = _FLIPPED.get(word, word)
            if case.model.probability(side, other) < 0.5 and word not in VERDICT_PROMISES:
                side, other = other, side  # an undirected word: from the side the estimate favours
            wins, losses, _ = week.get(side, {}).get(other, [0, 0, 0])
            row = found[word]
            row[0] += 1
            row[1] += wins
            row[2] += losses
    return found


LEAN_STEPS = (2.0, 3.0, 4.0, 5.0, 6.0)  # points off 50 % the estimate of a lean-eligible cell must reach


def lean_sweep(all_cases: list[Case]) -> dict[float, list[int]]:
    """Per threshold: [cells, next-week wins, losses] of the cells "too close to call" (five decided matches, three
    players, the interval not clear of 50 %) whose estimate is that far off 50 % the way their record goes: what
    a "leans" word would have said."""
    found: dict[float, list[int]] = defaultdict(lambda: [0, 0, 0])
    for case in all_cases:
        week = case.week.get("results", {})
        for a, b, _w, _l in outcomes(case.total):
            rate = pair_rate(a, b, format_totals_of(case.total), case.model, 20)
            if rate.verdict != "too close to call" or rate.estimate is None:
                continue
            if against_its_record(rate.estimate, rate.wins - rate.losses):
                continue
            side, other = (a, b) if rate.estimate >= 50 else (b, a)
            wins, losses, _ = week.get(side, {}).get(other, [0, 0, 0])
            for step in LEAN_STEPS:
                if abs(rate.estimate - 50) >= step:
                    row = found[step]
                    row[0] += 1
                    row[1] += wins
                    row[2] += losses
    return found


def lean_table(all_cases: list[Case], title: str) -> Table:
    table = Table(
        title=f"{title}: what a lean would have promised (no word is given for it) and the week that followed"
    )
    for column in ("estimate off 50% by", "cells", "next-week matches", "next-week win rate (95% CI)", "holds"):
        table.add_column(column, justify="right")
    sweep = lean_sweep(all_cases)
    for step in LEAN_STEPS:
        cells, wins, losses = sweep[step]
        interval = wilson_interval(wins, losses)
        rate = 100 * wins / (wins + losses) if wins + losses else None
        shown = f"{rate:.1f}% ({interval[0]:.0f}-{interval[1]:.0f}%)" if interval and rate is not None else "-"
        holds = "-" if rate is None else "yes" if rate >= 50 + step else "NO"
        table.add_row(f"{step:.0f} points", f"{cells:,}", f"{wins + losses:,}", shown, holds)
    return table


def verdict_table(all_cases: list[Case], title: str) -> Table:
    table = Table(title=f"{title}: each verdict word and the week that followed (from the side it favours)")
    for column in ("word", "cells", "next-week matches", "next-week win rate (95% CI)", "promises", "holds"):
        table.add_column(column, justify="left" if column == "word" else "right")
    for word, (cells, wins, losses) in sorted(verdict_outcomes(all_cases).items()):
        interval = wilson_interval(wins, losses)
        rate = f"{100 * wins / (wins + losses):.1f}% ({interval[0]:.0f}-{interval[1]:.0f}%)" if interval else "-"
        promise = VERDICT_PROMISES.get(word)
        holds = "-" if promise is None or not interval else "yes" if 100 * wins / (wins + losses) >= promise else "NO"
        table.add_row(word, f"{cells:,}", f"{wins + losses:,}", rate, f"≥ {promise:.0f}%" if promise else "-", holds)
    return table


# --- what to play ------------------------------------------------------------------------------------------------
def _week_rate(results: dict[str, Any], name: str) -> tuple[int, int]:
    """An archetype's decided non-mirror record against listed archetypes."""
    row = results.get(name, {})
    wins = sum(r[0] for opponent, r in row.items() if opponent not in (name, NO_DECKLIST))
    losses = sum(r[1] for opponent, r in row.items() if opponent not in (name, NO_DECKLIST))
    return wins, losses


@dataclass
class PickTally:
    """What each day's pick did over the week that followed, beside the field's and a random eligible deck's."""

    days: int = 0
    named: int = 0  # days a single pick was named
    pick: list[int] = field(default_factory=lambda: [0, 0])
    field_rates: list[float] = field(default_factory=list)
    random_rates: list[float] = field(default_factory=list)
    pick_rates: list[float] = field(default_factory=list)
    leads: dict[float, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # top beat 2nd


def _rate(record: tuple[int, int]) -> float | None:
    return 100 * record[0] / sum(record) if sum(record) else None


def pick_tally(all_cases: list[Case], rules_of: Callable[[str, set[str]], set[str]]) -> PickTally:
    tally = PickTally()
    for case in all_cases:
        names = set(case.total.get("archetypes", {}))
        ranked = expected_vs_field(format_totals_of(case.total), case.model, rules_of(case.format, names) | {"Unknown"})
        decision = choose_pick(ranked)
        if not decision.eligible:
            continue
        results = case.week.get("results", {})
        rates = {r.archetype: _rate(_week_rate(results, r.archetype)) for r in decision.eligible}
        played = {name: rate for name, rate in rates.items() if rate is not None}
        top = decision.eligible[0]
        if top.archetype not in played:
            continue
        tally.days += 1
        tally.named += decision.archetype is not None
        record = _week_rate(results, top.archetype)
        tally.pick[0] += record[0]
        tally.pick[1] += record[1]
        tally.pick_rates.append(played[top.archetype])
        tally.random_rates.append(sum(played.values()) / len(played))
        shares = {e.archetype: e.meta_share for e in ranked if e.archetype in played}
        tally.field_rates.append(sum(shares[n] * played[n] for n in shares) / sum(shares.values()))
        if len(decision.eligible) > 1 and decision.eligible[1].archetype in played:
            lead = top.ci_low - decision.eligible[1].ci_low
            beat = played[top.archetype] > played[decision.eligible[1].archetype]
            for step in LEAD_STEPS:
                if lead >= step:
                    tally.leads[step][0] += beat
                    tally.leads[step][1] += 1
    return tally


def pick_tables(tally: PickTally, title: str) -> list[Table]:
    table = Table(title=f"{title}: the pick ('what to play') and the week that followed")
    for column in ("days", "single pick named", "pick's next-week record", "pick (mean of days)", "field", "random"):
        table.add_column(column, justify="right")
    mean = lambda values: f"{sum(values) / len(values):.1f}%" if values else "-"  # noqa: E731
    wins, losses = tally.pick
    interval = wilson_interval(wins, losses)
    record = f"{wins}-{losses}" + (f" ({interval[0]:.0f}-{interval[1]:.0f}%)" if interval else "")
    table.add_row(
        str(tally.days),
        str(tally.named),
        record,
        mean(tally.pick_rates),
        mean(tally.field_rates),
        mean(tally.random_rates),
    )
    leads = Table(title=f"{title}: the first's lead on the interval's low end, and how often it held")
    for column in ("lead at least (points)", "days", "first beat the second next week"):
        leads.add_column(column, justify="right")
    for step in LEAD_STEPS:
        beat, days = tally.leads[step]
        interval = wilson_interval(beat, days - beat)
        shown = f"{100 * beat / days:.0f}% ({interval[0]:.0f}-{interval[1]:.0f}%)" if interval else "-"
        leads.add_row(f"{step:.0f}" + (" (the margin used)" if step == PICK_MARGIN else ""), str(days), shown)
    return [table, leads]


# --- tuning the prior scales -------------------------------------------------------------------------------------
def tune(all_cases: list[Case]) -> Table:
    """The grid of prior scales on the tuning weeks: pooled log-loss, its difference from the best with an
    event-clustered standard error, and how lopsided the model's most confident fifth is."""
    losses: dict[tuple[float, float], dict[str, float]] = {}
    spread: dict[tuple[float, float], float] = {}
    count = 0
    for scales in TUNE_GRID:
        per_event: dict[str, float] = defaultdict(float)
        favourites: list[float] = []
        count = 0
        for case in all_cases:
            model = fit_pairs(pair_records_of(format_totals_of(case.total)), scales[1], scales[0])
            for event in case.test:
                for a, b, wins, losses_ in outcomes(event.part):
                    p = model.probability(a, b)
                    per_event[event.key] -= wins * math.log(p) + losses_ * math.log(1 - p)
                    favourites += [max(p, 1 - p)] * (wins + losses_)
                    count += wins + losses_
        losses[scales] = per_event
        top = sorted(favourites)[-len(favourites) // CALIBRATION_BINS :]
        spread[scales] = sum(top) / len(top)
    best = min(losses, key=lambda s: sum(losses[s].values()))
    table = Table(title=f"Prior scales on the tuning weeks ({count:,} predictions), one-standard-error rule")
    for column in ("strengths' sd", "τ", "log-loss", "− best", "SE (by event)", "top fifth predicts", "within 1 SE"):
        table.add_column(column, justify="right")
    for scales in TUNE_GRID:
        diffs = [losses[scales][e] - losses[best][e] for e in losses[best]]
        centre = sum(diffs) / len(diffs)
        se = math.sqrt(len(diffs) / (len(diffs) - 1) * sum((d - centre) ** 2 for d in diffs)) / count
        within = sum(diffs) / count <= se
        chosen = scales == (STRENGTH_PRIOR_SD, DEVIATION_PRIOR_SD)
        table.add_row(
            f"{scales[0]:.2f}",
            f"{scales[1]:.2f}",
            f"{sum(losses[scales].values()) / count:.5f}",
            f"{sum(diffs) / count:+.5f}",
            f"{se:.5f}",
            f"{100 * spread[scales]:.1f}%",
            ("yes" if within else "") + (" (chosen)" if chosen else ""),
        )
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = SHARED_DATA if SHARED_DATA.is_dir() else DEMO_DATA_DIR / "tournaments.tar.gz"
    parser.add_argument("--source", type=Path, default=default)
    parser.add_argument("--train-days", type=int, default=30)
    parser.add_argument("--held-out-days", type=int, default=14, help="the newest days, kept out of tuning")
    parser.add_argument("--tune", action="store_true", help="print the grid the prior scales were chosen on")
    args = parser.parse_args()
    started = time.perf_counter()
    events = read_events(args.source)
    newest = max(e.date for e in events)
    held_from = newest - dt.timedelta(days=args.held_out_days - 1)
    console = Console(width=170)
    console.print(
        f"{len(events)} events from {args.source}, {events[0].date} → {newest}; tuning weeks end "
        f"{held_from - dt.timedelta(days=1)}, held-out weeks {held_from} → {newest}; window {args.train_days} days"
    )
    tuning = cases(events, args.train_days, dt.date.min, held_from - dt.timedelta(days=1), fit=not args.tune)
    if args.tune:
        console.print(tune(tuning))
        console.print(f"total {time.perf_counter() - started:.1f}s")
        return 0
    held_out = cases(events, args.train_days, held_from, newest)
    classifier = get_classifier(Settings().archetype_rules_dir)
    rules_of = lambda fmt, names: unnamed_names(classifier.rules_for(fmt), names)  # noqa: E731
    for title, part in (("Tuning weeks", tuning), ("Held-out weeks", held_out)):
        scores = score(part)
        console.print(score_table(scores, title))
        console.print(calibration_table(scores, title))
        console.print(f"{title}: the model {bar(scores)[1]}.")
        console.print(verdict_table(part, title))
        console.print(lean_table(part, title))
        for table in pick_tables(pick_tally(part, rules_of), title):
            console.print(table)
    console.print(f"total {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
