"""The format-wide tools: formats with data, meta rankings, the matchup table, the archetype list."""

from __future__ import annotations

from meta_mage.models.meta import (
    ArchetypesInput,
    ArchetypesOutput,
    ListFormatsInput,
    ListFormatsOutput,
    MatchupStatsInput,
    MatchupStatsOutput,
    MetaRankingsInput,
    MetaRankingsOutput,
)
from meta_mage.tools.catalog.charts import grid_chart, rankings_chart
from meta_mage.tools.rules import DAYS, FORMAT
from meta_mage.tools.tool import META_RESEARCH, Tool, ToolKind

# The state-owned arguments of a tool over one window, and over the current and the previous window.
WINDOW = {"format": "format", "days": "days"}
TWO_WINDOWS = {"format": "format", "current_days": "days", "previous_days": "days"}
FORMAT_READ = ToolKind((META_RESEARCH,), (FORMAT, DAYS), WINDOW)  # a read of one format over a window


def _rankings_summary(result: MetaRankingsOutput) -> str:
    meta = result.metadata
    period = meta.current_period
    return f"{len(result.rows)} archetypes ranked from {meta.current_decks} decks ({period.start} to {period.end})"


def _matchups_summary(result: MatchupStatsOutput) -> str:
    period = result.metadata.period
    grid = f"the top {len(result.grid.archetypes)} head to head, " if result.grid is not None else ""
    return f"{grid}records of {len(result.archetypes)} archetypes ({period.start} to {period.end})"


LIST_FORMATS = Tool(
    "list_formats",
    "List the constructed formats that have tournament data, with their date range and "
    "tournament, deck and match counts. Call this when the user has not said which format.",
    ListFormatsInput,
    ListFormatsOutput,
    lambda c, p: c.meta.list_formats(),
    workflows=(META_RESEARCH,),
    summary=lambda r: f"{len(r.formats)} formats with data",
)

META_RANKINGS = FORMAT_READ.tool(
    "get_format_meta_rankings",
    "Get format-wide meta rankings: each archetype's meta share and match win rate (with "
    "match counts, players, 95% interval, the matchup model's expected win rate against the field, a verdict "
    "in words and a low-sample flag) for the current window and "
    "the window before it, and the trend between them. Windows end at the format's newest "
    "tournament. Optional filters: color_identity (WUBRG letters or C), strategy; "
    "group_by color_identity or strategy to aggregate.",
    MetaRankingsInput,
    MetaRankingsOutput,
    lambda c, p: c.meta.rankings(p),
    _rankings_summary,
    from_state=TWO_WINDOWS,
    chart=rankings_chart,
)

FORMAT_MATCHUPS = FORMAT_READ.tool(
    "get_format_matchup_stats",
    "Get format-wide head-to-head matchup statistics: for every archetype its overall "
    "record and its win rate against each other archetype with match counts, players, 95% "
    "intervals, the matchup model's estimate and a verdict in words (anecdote under 3 players); `field`: "
    "what to play, each archetype's expected win rate against the field as played; `lookalikes`: archetypes "
    "that are possibly one deck. Mirror matches are excluded from win rates and reported separately.",
    MatchupStatsInput,
    MatchupStatsOutput,
    lambda c, p: c.meta.matchups(p),
    _matchups_summary,
    chart=grid_chart,
)

ARCHETYPES = FORMAT_READ.tool(
    "get_format_archetypes",
    "Get all archetypes competing in a format with their ids, names, meta shares, colour "
    "identity and strategy, sorted by meta share (default window 30 days).",
    ArchetypesInput,
    ArchetypesOutput,
    lambda c, p: c.meta.archetypes(p),
    lambda r: f"{len(r.archetypes)} archetypes",
)

TOOLS = (LIST_FORMATS, META_RANKINGS, FORMAT_MATCHUPS, ARCHETYPES)
