"""Meta research over the per-day aggregates: rankings, matchup matrix, archetypes."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from meta_mage.analytics.aggregate import NO_DECKLIST
from meta_mage.analytics.field import expected_vs_field
from meta_mage.analytics.matchup_fit import window_model
from meta_mage.analytics.matchup_model import MatchupModel
from meta_mage.analytics.matchup_rates import overall_rate, pair_rate, rate
from meta_mage.analytics.sources import describe_sources
from meta_mage.errors import NotFound
from meta_mage.models.aggregates import FormatTotals
from meta_mage.models.evidence import Record
from meta_mage.models.meta import (
    MAX_DAYS,
    ArchetypesInput,
    ArchetypesMetadata,
    ArchetypesOutput,
    ArchetypeSummary,
    DataSpan,
    DeckMatchupStatsInput,
    DeckMatchupStatsOutput,
    FormatSummary,
    ListFormatsOutput,
    Lookalike,
    MatchupCell,
    MatchupGrid,
    MatchupRow,
    MatchupStatsInput,
    MatchupStatsMetadata,
    MatchupStatsOutput,
    MetaRankingsInput,
    MetaRankingsOutput,
    PeriodMetadata,
    RankingRow,
    RankingsMetadata,
    WiderSpread,
    Window,
    WinRate,
)
from meta_mage.storage.meta import MetaRepository


def archetype_id(name: str) -> str:
    """URL-safe id of an archetype name ("Boros Energy" → "boros-energy")."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown"


def window(end: dt.date, days: int, offset_days: int = 0) -> Window:
    """``days`` days ending ``offset_days`` before ``end`` (inclusive)."""
    last = end - dt.timedelta(days=offset_days)
    first = last - dt.timedelta(days=days - 1)
    return Window(start=first.isoformat(), end=last.isoformat(), days=days)


def _difference(now: float | None, before: float | None) -> float | None:
    return round(now - before, 2) if now is not None and before is not None else None


def dominant(counts: Mapping[str, int]) -> str:
    """The most frequent key (ties broken alphabetically)."""
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else ""


@dataclass
class _Group:
    """Archetypes ranked as one (by colours or strategy; else one archetype): their lists, record and mirrors,
    and their lists by colours and by strategy."""

    decks: int = 0
    record: Record = field(default_factory=Record)
    mirrors: int = 0
    colors: dict[str, int] = field(default_factory=dict)
    strategies: dict[str, int] = field(default_factory=dict)

    def add(self, decks: int, record: Record, mirrors: int, colors: str, strategy: str) -> None:
        self.decks += decks
        self.record += record
        self.mirrors += mirrors
        self.colors[colors] = self.colors.get(colors, 0) + decks
        self.strategies[strategy] = self.strategies.get(strategy, 0) + decks


CatchAlls = Callable[[str, set[str]], set[str]]  # (format, names) -> those that are a fallback of its rules


class MetaService:
    """Meta-research queries. Each reads the format registry and one day-range Query."""

    def __init__(
        self, repository: MetaRepository, min_sample: int = 20, catch_alls: CatchAlls = lambda _fmt, _names: set()
    ) -> None:
        self.repository = repository
        self.min_sample = min_sample
        self.catch_alls = catch_alls  # which of a format's names are no one deck ("Unknown" always is)

    def _record(self, counts: Record) -> WinRate:
        return rate(counts, self.min_sample)

    def list_formats(self) -> ListFormatsOutput:
        infos = sorted(self.repository.list_formats(), key=lambda f: -f.decks)
        return ListFormatsOutput(formats=infos)

    def format_info(self, fmt: str) -> FormatSummary:
        info = self.repository.get_format(fmt)
        if info is None:
            known = [f.format for f in self.repository.list_formats()]
            raise NotFound(
                f"no tournament data for {fmt}; formats with data: {', '.join(known) or 'none'}",
                field="format",
                allowed=known,
            )
        return info

    def _end(self, info: FormatSummary, as_of: dt.date | None) -> dt.date:
        return as_of or dt.date.fromisoformat(info.last_date)

    def _span(self, info: FormatSummary, total: FormatTotals) -> DataSpan:
        """The :class:`DataSpan` of a read's metadata: the format's stored dates, ``min_sample`` and where the
        window's matches come from."""
        sources = {kind: {"events": n.events, "matches": n.matches} for kind, n in total.sources.items()}
        return DataSpan(
            data_first_date=info.first_date,
            data_last_date=info.last_date,
            min_sample=self.min_sample,
            matches_from=describe_sources({"sources": sources}),
        )

    @staticmethod
    def _overall(results: Mapping[str, Record], archetype: str) -> tuple[Record, int]:
        """The archetype's record against the field (mirrors aside) and its mirror matches."""
        against = sum((record for opponent, record in results.items() if opponent != archetype), Record())
        mirror = results.get(archetype, Record())
        return against, mirror.wins + mirror.draws

    def rankings(self, params: MetaRankingsInput) -> MetaRankingsOutput:
        """Meta share and win rate per archetype (or colour / strategy group), both windows."""
        info = self.format_info(params.format)
        end = self._end(info, params.as_of)
        current = window(end, params.current_days)
        previous = window(end, params.previous_days, offset_days=params.current_days)
        cur, prev = self.repository.format_totals(
            params.format, (current.start, current.end), (previous.start, previous.end)
        )
        model = None if params.group_by else self.model_of(params.format, current, cur)

        cur_groups, prev_groups = self._groups(params, cur), self._groups(params, prev)
        cur_total, prev_total = cur.decks, prev.decks
        rows = []
        for key, g in cur_groups.items():
            p = prev_groups.get(key, _Group())
            share = round(100 * g.decks / cur_total, 2) if cur_total else 0.0
            prev_share = round(100 * p.decks / prev_total, 2) if prev_total else None  # no data is not 0%
            now = self._current_rate(key, g.record, cur, model)
            before = self._record(p.record)
            trend = _difference(now.win_rate, before.win_rate)
            rows.append(
                RankingRow(
                    rank=0,
                    name=key,
                    color_identity=dominant(g.colors),
                    strategy=dominant(g.strategies),
                    decks=g.decks,
                    meta_share=share,
                    previous_decks=p.decks,
                    previous_meta_share=prev_share,
                    meta_share_trend=None if prev_share is None else round(share - prev_share, 2),
                    current=now,
                    previous=before,
                    win_rate_trend=trend,
                    mirror_matches=g.mirrors,
                )
            )
        rows.sort(key=lambda r: (-r.decks, r.name))
        for rank, row in enumerate(rows, start=1):
            row.rank = rank
        return MetaRankingsOutput(
            format=params.format,
            group_by=params.group_by,
            rows=rows,
            lookalikes=[] if params.group_by else self.lookalikes(params.format, {r.name for r in rows}),
            metadata=RankingsMetadata(
                **self._span(info, cur).model_dump(),
                current_period=current,
                previous_period=previous,
                current_decks=cur_total,
                previous_decks=prev_total,
                current_tournaments=cur.tournaments,
                previous_tournaments=prev.tournaments,
                ranked_by="meta share; win rates below min_sample matches are flagged low_sample",
            ),
        )

    def _groups(self, params: MetaRankingsInput, total: FormatTotals) -> dict[str, _Group]:
        """The window's archetypes the filters keep, each under its group (itself, unless grouped)."""
        out: dict[str, _Group] = {}
        for name, arch in total.archetypes.items():
            colors = dominant(arch.colors) or "C"
            strategy = arch.strategy or "unknown"
            if params.color_identity is not None and dominant(arch.colors) != params.color_identity:
                continue
            if params.strategy and strategy != params.strategy:
                continue
            key = {"color_identity": colors, "strategy": strategy}.get(params.group_by or "", name)
            overall, mirrors = self._overall(total.results.get(name, {}), name)
            out.setdefault(key, _Group()).add(arch.decks, overall, mirrors, colors, strategy)
        return out

    def lookalikes(self, fmt: str, names: set[str]) -> list[Lookalike]:
        """The format's archetypes that are possibly one deck, both of them in ``names``."""
        rows = self.repository.lookalikes(fmt)
        return [row for row in rows if set(row.archetypes) <= names]

    def _current_rate(self, name: str, counts: Record, total: FormatTotals, model: MatchupModel | None) -> WinRate:
        """An archetype's rate in the window with the model's estimate (a group's without: it is no archetype)."""
        return overall_rate(name, counts, total, model, self.min_sample) if model else self._record(counts)

    def model_of(self, fmt: str, win: Window, total: FormatTotals) -> MatchupModel:
        """The matchup model of a summed window (stored when data was written, else fitted now)."""
        return window_model(self.repository, fmt, win.days, dt.date.fromisoformat(win.end), total)

    def _window_total(self, fmt: str, days: int, as_of: dt.date | None) -> tuple[FormatSummary, Window, FormatTotals]:
        info = self.format_info(fmt)
        win, total = self.total_of(info, days, as_of)
        return info, win, total

    def total_of(self, info: FormatSummary, days: int, as_of: dt.date | None) -> tuple[Window, FormatTotals]:
        """The window of ``days`` days ending at the format's newest tournament (or ``as_of``), summed."""
        win = window(self._end(info, as_of), days)
        return win, self.repository.format_total(info.format, win.start, win.end)

    def _row(self, name: str, total: FormatTotals, include: set[str] | None, model: MatchupModel) -> MatchupRow:
        results = total.results.get(name, {})
        decks = total.decks_of(name)
        field_record, mirrors = self._overall(results, name)
        overall = overall_rate(name, field_record, total, model, self.min_sample)
        cells = [
            MatchupCell(opponent=opp, **pair_rate(name, opp, total, model, self.min_sample).model_dump())
            for opp in results
            if opp not in (name, NO_DECKLIST) and (include is None or opp in include)
        ]
        cells.sort(key=lambda c: (-c.matches, c.opponent))
        share = round(100 * decks / total.decks, 2) if total.decks else 0.0
        return MatchupRow(archetype=name, meta_share=share, overall=overall, mirror_matches=mirrors, matchups=cells)

    def matchups(self, params: MatchupStatsInput) -> MatchupStatsOutput:
        """Archetype × archetype matrix; mirrors are reported apart, not on the diagonal."""
        info, win, total = self._window_total(params.format, params.days, params.as_of)
        names = sorted(total.archetypes, key=lambda a: -total.archetypes[a].decks)
        model = self.model_of(params.format, win, total)
        rows = [self._row(name, total, set(names), model) for name in names]
        top = [row for row in rows if row.archetype != "Unknown"][: params.top_n]
        grid = MatchupGrid(
            archetypes=[row.archetype for row in top],
            cells=[
                [
                    None
                    if a.archetype == b.archetype
                    else pair_rate(a.archetype, b.archetype, total, model, self.min_sample)
                    for b in top
                ]
                for a in top
            ],
            mirrors=[row.mirror_matches for row in top],
        )
        return MatchupStatsOutput(
            format=params.format,
            archetypes=rows,
            grid=grid,
            field=expected_vs_field(total, model, self.catch_alls(params.format, set(names)) | {"Unknown"}),
            lookalikes=self.lookalikes(params.format, set(names)),
            metadata=MatchupStatsMetadata(
                **self._span(info, total).model_dump(),
                period=win,
                note="overall includes matches against players without a published list",
            ),
        )

    def archetypes(self, params: ArchetypesInput) -> ArchetypesOutput:
        """Archetypes seen in the window, by meta share."""
        info, win, total = self._window_total(params.format, params.days, params.as_of)
        decks = total.decks
        rows = [
            ArchetypeSummary(
                id=archetype_id(name),
                name=name,
                decks=a.decks,
                meta_share=round(100 * a.decks / decks, 2) if decks else 0.0,
                color_identity=dominant(a.colors) or "C",
                strategy=a.strategy or "unknown",
            )
            for name, a in total.archetypes.items()
        ]
        rows.sort(key=lambda r: (-r.decks, r.name))
        return ArchetypesOutput(
            format=params.format,
            archetypes=rows,
            metadata=ArchetypesMetadata(**self._span(info, total).model_dump(), period=win, decks=decks),
        )

    def resolve_archetype(self, name: str, known: Iterable[str]) -> str:
        """The stored archetype matching ``name`` by name or id, case-insensitively."""
        wanted = archetype_id(name)
        known = list(known)
        for candidate in known:
            if candidate.lower() == name.strip().lower() or archetype_id(candidate) == wanted:
                return candidate
        raise NotFound(
            f"unknown archetype {name!r} in this window; known: {', '.join(sorted(known)[:40])}",
            field="archetype",
            allowed=sorted(known),
        )

    def deck_matchups(self, params: DeckMatchupStatsInput) -> DeckMatchupStatsOutput:
        """One archetype's spread against the field."""
        info, win, total = self._window_total(params.format, params.days, params.as_of)
        name = self.resolve_archetype(params.archetype, total.archetypes)
        row = self._row(name, total, None, self.model_of(params.format, win, total))
        decided = sum(c.wins + c.losses for c in row.matchups)
        wider = None
        if decided < self.min_sample and params.days < MAX_DAYS:  # thin: say so with a longer window's figures too
            longer = min(MAX_DAYS, max(60, params.days * 4))
            span, more = self.total_of(info, longer, params.as_of)
            broad = self._row(name, more, None, self.model_of(params.format, span, more))
            wider = WiderSpread(period=span, overall=broad.overall, matchups=broad.matchups)
        return DeckMatchupStatsOutput(
            format=params.format,
            archetype=name,
            meta_share=row.meta_share,
            overall=row.overall,
            mirror_matches=row.mirror_matches,
            matchups=row.matchups,
            wider=wider,
            metadata=PeriodMetadata(**self._span(info, total).model_dump(), period=win),
        )
