"""A templated answer to "what are the top decks?" built from the rankings tool's output."""

from __future__ import annotations

from typing import Any

from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import ToolRegistry


def _rate(block: dict[str, Any]) -> str:
    if block["win_rate"] is None:
        return "no matches"
    decided = block["wins"] + block["losses"]
    text = f"{block['win_rate']:.1f}% ({block['ci_low']:.0f}-{block['ci_high']:.0f}%, {decided} matches)"
    return text + " low sample" if block["low_sample"] else text


def answer_top_decks(registry: ToolRegistry, context: ToolContext, fmt: str, days: int, top: int = 10) -> str:
    """Answer "What are the top decks in <format>?" from get_format_meta_rankings."""
    result = registry.call(
        "get_format_meta_rankings", {"format": fmt, "current_days": days, "previous_days": days}, context
    )
    meta = result["metadata"]
    period = meta["current_period"]
    lines = [
        f"Q: What are the top decks in {result['format']}?",
        f"A: Over {period['start']} to {period['end']} ({meta['current_decks']} decks, "
        f"{meta['current_tournaments']} tournaments), the most played archetypes are:",
        "",
        f"{'#':>2}  {'archetype':28} {'share':>6} {'trend':>6}  win rate (95% CI, matches)",
    ]
    for row in result["rows"][:top]:
        lines.append(
            f"{row['rank']:>2}  {row['name'][:28]:28} {row['meta_share']:5.1f}% "
            f"{row['meta_share_trend']:+5.1f}  {_rate(row['current'])}"
        )
    lines.append("")
    lines.append(
        f"Trend compares with {meta['previous_period']['start']} to {meta['previous_period']['end']}. "
        f"Win rates exclude mirrors, draws count apart; under {meta['min_sample']} matches is low sample."
    )
    return "\n".join(lines)
