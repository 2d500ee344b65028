"""Compact chart data carried in the ``tool_call`` complete event (``data``), for clients that draw
pictures (the chat page). Clients that know only the spec's events ignore the extra field.

Each payload has a ``kind`` and only the figures the picture needs; the full result is the LLM's. A tool's
record names its chart (``chart=``)."""

from __future__ import annotations

from typing import Any

from meta_mage.models.drafts import DraftPoolResult
from meta_mage.models.meta import DeckMatchupStatsOutput, MatchupStatsOutput, MetaRankingsOutput, WinRate

BARS = 12  # archetypes in a meta-share chart
SPREAD = 20  # opponents in a spread chart


def _rate(block: WinRate) -> list[float | int | None]:
    """[win rate, 95 % low, 95 % high, decided matches, shrunk estimate] (the page colours by the estimate, so a
    1-0 cell reads near even, not as bright as a 30-10 one)."""
    return [block.win_rate, block.ci_low, block.ci_high, block.wins + block.losses, block.estimate]


def rankings_chart(result: MetaRankingsOutput) -> dict[str, Any]:
    """Meta-share bars with their trend (points of share against the previous window)."""
    return {
        "kind": "meta_share",
        "format": result.format,
        "period": result.metadata.current_period.model_dump(),
        "rows": [
            {"name": r.name, "share": r.meta_share, "trend": r.meta_share_trend, "rate": _rate(r.current)}
            for r in result.rows[:BARS]
        ],
    }


def grid_chart(result: MatchupStatsOutput) -> dict[str, Any] | None:
    """The top archetypes' heatmap: ``cells[i][j]`` is [win rate, low, high, decided, estimate] or None (mirror)."""
    if result.grid is None:
        return None
    return {
        "kind": "matchup_grid",
        "format": result.format,
        "archetypes": result.grid.archetypes,
        "cells": [[None if c is None else _rate(c) for c in row] for row in result.grid.cells],
        "mirrors": result.grid.mirrors,
    }


def spread_chart(result: DeckMatchupStatsOutput) -> dict[str, Any]:
    """One archetype's matchups as bars with interval whiskers: the ``SPREAD`` opponents it met most,
    best shrunk estimate first."""
    decided = [c for c in result.matchups if c.estimate is not None]
    most = sorted(decided, key=lambda c: (-(c.wins + c.losses), c.opponent))[:SPREAD]
    cells = sorted(most, key=lambda c: (-(c.estimate or 0), c.opponent))
    return {
        "kind": "spread",
        "archetype": result.archetype,
        "format": result.format,
        "rows": [{"name": c.opponent, "rate": _rate(c), "verdict": c.verdict} for c in cells],
    }


def pool_chart(result: DraftPoolResult) -> dict[str, Any]:
    """The pool's cards counted by colour identity (the columns of a cube pool view), one per card as the
    answer counts them (``total_cards``), not per copy."""
    counts: dict[str, int] = {}
    for card in result.cards or [c for group in (result.grouped or {}).values() for c in group]:
        identity = str(card.get("color_identity") or "C")
        counts[identity] = counts.get(identity, 0) + 1
    return {"kind": "pool", "draft": result.draft_name, "columns": sorted(counts.items(), key=lambda kv: -kv[1])}
