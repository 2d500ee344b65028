"""The matchup model of a format's window: fitted from the summed day aggregates, stored where the data is
written (ingest, repair) for the windows the coach reads by default, and read back (or fitted on read for any
other window: the fit is pure Python, so the read path stays light).

A window's records come from ``results`` (each pair's decided matches) weighted by ``players`` (who played
them, :mod:`meta_mage.analytics.clustering`); a fit is keyed by a fingerprint of exactly those figures, so a
stored fit is used only for the data it was fitted on.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from types import MappingProxyType

from meta_mage.analytics.aggregate import NO_DECKLIST
from meta_mage.analytics.clustering import PLAYER_CORRELATION, pair_effective_matches
from meta_mage.analytics.lookalikes import refresh_lookalikes
from meta_mage.analytics.matchup_model import MatchupModel, PairRecord, fit_pairs
from meta_mage.models.aggregates import FormatTotals
from meta_mage.models.meta import FittedModel, PairFit, WindowFit
from meta_mage.storage.meta import MetaRepository

FITTED_WINDOWS = (7, 14, 30, 60)
"""The windows (days, ending at the format's newest tournament) fitted and stored when data is written."""
_CACHE_SIZE = 32


def pair_records_of(total: FormatTotals, rho: float = PLAYER_CORRELATION) -> list[PairRecord]:
    """One record per sorted pair of archetypes (mirrors and unlisted opponents left out), weighted by its
    effective matches per match."""
    records = []
    for a, row in sorted(total.results.items()):
        for b, record in sorted(row.items()):
            if not a < b or b == NO_DECKLIST or a == NO_DECKLIST or record.decided == 0:
                continue
            side_a, side_b = total.pilots(a, b), total.pilots(b, a)
            weight = 1.0
            if side_a and side_b:
                weight = pair_effective_matches(side_a, side_b, rho) / record.decided
            records.append(PairRecord(a, b, record.wins, record.losses, weight))
    return records


def fingerprint(total: FormatTotals) -> str:
    """A digest of the figures a fit reads (results and players, as stored)."""
    return total.figures_digest


def model_to_fit(model: MatchupModel) -> FittedModel:
    """The model as stored."""
    return FittedModel(
        tau=model.tau,
        strengths={name: (value, model.strength_variances.get(name, 0.0)) for name, value in model.strengths.items()},
        pairs=tuple(
            PairFit(a, b, value, model.deviation_variances.get((a, b), 0.0), model.pair_matches.get((a, b), 0))
            for (a, b), value in sorted(model.deviations.items())
        ),
    )


def model_from_fit(fit: FittedModel) -> MatchupModel:
    """A stored model, ready to read."""
    return MatchupModel(
        strengths=MappingProxyType({name: pair[0] for name, pair in fit.strengths.items()}),
        deviations=MappingProxyType({(p.a, p.b): p.deviation for p in fit.pairs}),
        pair_matches=MappingProxyType({(p.a, p.b): p.matches for p in fit.pairs}),
        tau=fit.tau,
        strength_variances=MappingProxyType({name: pair[1] for name, pair in fit.strengths.items()}),
        deviation_variances=MappingProxyType({(p.a, p.b): p.variance for p in fit.pairs}),
    )


_fitted: OrderedDict[str, MatchupModel] = OrderedDict()


def fit_window(total: FormatTotals) -> MatchupModel:
    """The model of a summed window (remembered per fingerprint for this process)."""
    key = fingerprint(total)
    model = _fitted.get(key)
    if model is None:
        model = fit_pairs(pair_records_of(total))
        _fitted[key] = model
        while len(_fitted) > _CACHE_SIZE:
            _fitted.popitem(last=False)
    _fitted.move_to_end(key)
    return model


def remember(total: FormatTotals, model: MatchupModel) -> None:
    """Keep a model read from storage for this process."""
    _fitted[fingerprint(total)] = model


def window_start(end: dt.date, days: int) -> dt.date:
    return end - dt.timedelta(days=days - 1)


def refresh_matchup_models(repository: MetaRepository, fmt: str) -> int:
    """Fit and store the format's model for each of :data:`FITTED_WINDOWS` whose stored fit is not of the
    figures stored now (and, when any was, its look-alike archetypes); how many were fitted."""
    info = repository.get_format(fmt)
    if info is None:
        return 0
    end = dt.date.fromisoformat(info.last_date)
    spans = [(window_start(end, days).isoformat(), end.isoformat()) for days in FITTED_WINDOWS]
    stored = repository.fitted_windows(fmt)
    fits = []
    for days, total in zip(FITTED_WINDOWS, repository.format_totals(fmt, *spans), strict=True):
        key = fingerprint(total)
        if stored.get(days) != (end.isoformat(), key):
            fits.append(WindowFit(days, key, model_to_fit(fit_window(total))))
    if fits:
        repository.put_matchup_models(fmt, end.isoformat(), fits)
        refresh_lookalikes(repository, fmt, end, max(FITTED_WINDOWS))
    return len(fits)


def window_model(repository: MetaRepository, fmt: str, days: int, end: dt.date, total: FormatTotals) -> MatchupModel:
    """The model of a summed window: this process's, else the stored fit of these figures, else fitted now."""
    key = fingerprint(total)
    model = _fitted.get(key)
    if model is not None:
        return model
    stored = repository.matchup_model(fmt, days, end.isoformat(), key) if days in FITTED_WINDOWS else None
    if stored is not None:
        model = model_from_fit(stored)
        remember(total, model)
        return model
    return fit_window(total)
