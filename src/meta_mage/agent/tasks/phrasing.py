"""What the offline answers share: how a win rate, a window and an archetype's matchup spread are written."""

from __future__ import annotations

import re

from meta_mage.analytics.stats import FEW_MATCHES, LEAN_POINTS, PRIOR_MATCHES
from meta_mage.models.meta import DeckMatchupStatsOutput, MatchupCell, Window, WinRate


def percent(block: WinRate) -> float:
    """The win rate from the record itself: rounding the tool's 2-decimal figure again can be off by 0.1."""
    decided = block.wins + block.losses
    return 100 * block.wins / decided if decided else float(block.win_rate or 0)


def rate(block: WinRate | None) -> str:
    if block is None or block.win_rate is None:
        return "no decided matches"
    record = f"{block.wins}-{block.losses}-{block.draws}"
    text = f"{percent(block):.1f}% (95% CI {block.ci_low:.0f}-{block.ci_high:.0f}%, {record})"
    return text + f", only {block.wins + block.losses} decided" if block.low_sample else text


def judged(block: WinRate) -> str:
    """The record with its verdict in words ("leans unfavoured", "too close to call", ...)."""
    return f"{rate(block)}: {block.verdict}" if block.win_rate is not None else rate(block)


def by_estimate(cells: list[MatchupCell]) -> list[MatchupCell]:
    """Every cell with a decided match, best shrunk estimate first (most matches first on ties)."""
    decided = [c for c in cells if c.estimate is not None]
    return sorted(decided, key=lambda c: (-(c.estimate or 0), -(c.wins + c.losses), c.opponent))


def headline(ranked: list[MatchupCell], side: str, most: int = 3) -> list[MatchupCell]:
    """The best (``side`` "best") or worst matchups to lead with, from ``by_estimate`` cells: those with a
    verdict on that side (favoured, leans favoured; or the unfavoured ones) first, and cells with too few
    matches to call only after them, never ahead."""
    best = side == "best"
    verdicts = ("favoured", "leans favoured") if best else ("unfavoured", "leans unfavoured")
    order = ranked if best else ranked[::-1]
    on_side = [c for c in order if ((c.estimate or 0) > 50 if best else (c.estimate or 0) < 50)]
    called = [c for c in on_side if c.verdict in verdicts]
    return (called + [c for c in on_side if c not in called])[:most]


PRIOR = f"each record plus {PRIOR_MATCHES} imaginary matches at 50%"


SHRINKAGE_NOTE = (
    f"Ranked on a shrunk estimate: {PRIOR}, so a lucky 3-0 does not outrank a solid 30-10. “favoured”/"
    f"“unfavoured”: the 95% interval is clear of 50%; “too few matches to call”: under {FEW_MATCHES} decided; "
    f"“leans”: the estimate is {LEAN_POINTS}+ points off 50%; “only N decided”: fewer than "
    "{min_sample} decided matches."
)


def short(cell: WinRate) -> str:
    """ "62% (5-3), leans favoured": a cell in a list."""
    return f"{percent(cell):.0f}% ({cell.wins}-{cell.losses}), {cell.verdict}"


def dates(period: Window) -> str:
    return f"{period.start} to {period.end}"


def spread(stats: DeckMatchupStatsOutput, opponent: str | None) -> str:
    lines = [
        f"**{stats.archetype} in {stats.format}**, {dates(stats.metadata.period)}: meta share "
        f"{stats.meta_share:.1f}%, overall {rate(stats.overall)}; {stats.mirror_matches} mirror "
        f"match{'' if stats.mirror_matches == 1 else 'es'} left out."
    ]
    cells = stats.matchups
    wider = stats.wider
    if opponent:
        cell = next((c for c in cells if c.opponent.lower() == opponent.lower()), None)
        if cell:
            lines.append(f"Against **{cell.opponent}**: {judged(cell)}.")
        else:
            lines.append(f"No recorded matches against {opponent} in this window.")
            # "Tron" is an archetype of its own, rarely played; a player saying it may well mean Eldrazi Tron
            alike = [c for c in cells if re.search(rf"(?<!\w){re.escape(opponent)}(?!\w)", c.opponent, re.I)]
            if alike:
                named = "; ".join(f"**{c.opponent}** {judged(c)}" for c in alike)
                lines.append(f"Archetypes whose name holds “{opponent}”: {named}.")
        far = next((c for c in wider.matchups if c.opponent.lower() == opponent.lower()), None) if wider else None
        if wider is not None and far is not None:
            lines.append(f"Over the longer window {dates(wider.period)}: against {far.opponent} {judged(far)}.")
    ranked = by_estimate(cells)
    if not ranked:
        lines.append("No decided matches against any archetype in this window; ask for a longer window.")
        return "\n\n".join(lines)
    good, bad = headline(ranked, "best"), headline(ranked, "worst")
    for label, group, none, closest in (
        ("Best matchups", good, "none is won more often than lost; the closest", ranked[:1]),
        ("Worst matchups", bad, "none is lost more often than won; the closest", ranked[-1:]),
    ):
        shown = group or closest
        text = "; ".join(f"{c.opponent} {judged(c)}" for c in shown)
        lines.append(f"{label}: {text}." if group else f"{label}: {none}: {text}.")
    decided = sum(c.wins + c.losses for c in ranked)
    table = [
        f"All {len(ranked)} matchups with a decided match ({decided} matches), best first:",
        "",
        "| # | Opponent | Record (W-L-D) | Win rate (95% CI) | Estimate | Verdict |",
        "|---|---|---|---|---|---|",
    ]
    table += [
        f"| {i} | {c.opponent} | {c.wins}-{c.losses}-{c.draws} | {percent(c):.1f}% ({c.ci_low:.0f}-{c.ci_high:.0f}%) "
        f"| {c.estimate:.1f}% | {c.verdict}{'' if not c.low_sample else f', only {c.wins + c.losses} decided'} |"
        for i, c in enumerate(ranked, 1)
    ]
    lines.append("\n".join(table))
    if decided < stats.metadata.min_sample:
        thin = f"This window is thin: {decided} decided matches in all."
        if wider is not None:
            longer = by_estimate(wider.matchups)
            best = longer[:3]
            worst = [c for c in reversed(longer) if c not in best][:3]
            thin += (
                f" Over {wider.period.days} days ({dates(wider.period)}): overall {rate(wider.overall)}; best "
                + "; ".join(f"{c.opponent} {short(c)}" for c in best)
                + (("; worst " + "; ".join(f"{c.opponent} {short(c)}" for c in worst)) if worst else "")
                + "."
            )
        lines.append(thin)
    lines.append(SHRINKAGE_NOTE.format(min_sample=stats.metadata.min_sample))
    return "\n\n".join(lines)


def _kind(line: str) -> str:
    if line.startswith(("- ", "* ")) or re.match(r"\d+\. ", line):
        return "list"
    return "table" if line.startswith("|") else ("" if not line.strip() else "text")


def blocks(lines: list[str]) -> str:
    """Lines joined as markdown, with a blank line after a list or a table before anything else, so a
    heading or sentence that follows a list item never runs on into it."""
    out: list[str] = []
    for line in lines:
        if out and _kind(out[-1]) in ("list", "table") and _kind(line) not in (_kind(out[-1]), ""):
            out.append("")
        out.append(line)
    return "\n".join(out)
