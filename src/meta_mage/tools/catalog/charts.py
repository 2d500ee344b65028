"""Compact chart data carried in the ``tool_call`` complete event (``data``), for clients that draw
pictures (the chat page). Clients that know only the spec's events ignore the extra field.

Each payload has a ``kind`` and only the figures the picture needs; the full result is the LLM's. A tool's
record names its chart (``chart=``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from meta_mage.models.drafts import DraftPoolResult
from meta_mage.models.meta import DeckMatchupStatsOutput, MatchupStatsOutput, MetaRankingsOutput, Window, WinRate

BARS = 12  # archetypes in a meta-share chart
SPREAD = 20  # opponents in a spread chart


Rate = list[float | int | None]


class ShareBar(BaseModel):
    name: str
    share: float
    trend: float | None
    rate: Rate


class MetaShareChart(BaseModel):
    kind: Literal["meta_share"] = "meta_share"
    format: str
    period: Window
    rows: list[ShareBar]


class MatchupGridChart(BaseModel):
    kind: Literal["matchup_grid"] = "matchup_grid"
    format: str
    archetypes: list[str]
    cells: list[list[Rate | None]]
    mirrors: list[int]


class SpreadBar(BaseModel):
    name: str
    rate: Rate
    verdict: str


class SpreadChart(BaseModel):
    kind: Literal["spread"] = "spread"
    archetype: str
    format: str
    rows: list[SpreadBar]


class PoolChart(BaseModel):
    kind: Literal["pool"] = "pool"
    draft: str
    columns: list[tuple[str, int]]  # colour identity, cards


def _rate(block: WinRate) -> Rate:
    """[win rate, 95 % low, 95 % high, decided matches, shrunk estimate] (the page colours by the estimate, so a
    1-0 cell reads near even, not as bright as a 30-10 one)."""
    return [block.win_rate, block.ci_low, block.ci_high, block.wins + block.losses, block.estimate]


def rankings_chart(result: MetaRankingsOutput) -> MetaShareChart:
    """Meta-share bars with their trend (points of share against the previous window)."""
    return MetaShareChart(
        format=result.format,
        period=result.metadata.current_period,
        rows=[
            ShareBar(name=r.name, share=r.meta_share, trend=r.meta_share_trend, rate=_rate(r.current))
            for r in result.rows[:BARS]
        ],
    )


def grid_chart(result: MatchupStatsOutput) -> MatchupGridChart | None:
    """The top archetypes' heatmap: ``cells[i][j]`` is [win rate, low, high, decided, estimate] or None (mirror)."""
    if result.grid is None:
        return None
    return MatchupGridChart(
        format=result.format,
        archetypes=result.grid.archetypes,
        cells=[[None if c is None else _rate(c) for c in row] for row in result.grid.cells],
        mirrors=result.grid.mirrors,
    )


def spread_chart(result: DeckMatchupStatsOutput) -> SpreadChart:
    """One archetype's matchups as bars with interval whiskers: the ``SPREAD`` opponents it met most,
    best shrunk estimate first."""
    decided = [c for c in result.matchups if c.estimate is not None]
    most = sorted(decided, key=lambda c: (-(c.wins + c.losses), c.opponent))[:SPREAD]
    cells = sorted(most, key=lambda c: (-(c.estimate or 0), c.opponent))
    return SpreadChart(
        archetype=result.archetype,
        format=result.format,
        rows=[SpreadBar(name=c.opponent, rate=_rate(c), verdict=c.verdict) for c in cells],
    )


def pool_chart(result: DraftPoolResult) -> PoolChart:
    """The pool's cards counted by colour identity (the columns of a cube pool view), one per card as the
    answer counts them (``total_cards``), not per copy."""
    counts: dict[str, int] = {}
    for card in result.cards or [c for group in (result.grouped or {}).values() for c in group]:
        identity = str(card.get("color_identity") or "C")
        counts[identity] = counts.get(identity, 0) + 1
    return PoolChart(draft=result.draft_name, columns=sorted(counts.items(), key=lambda kv: -kv[1]))
