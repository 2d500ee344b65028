"""What the offline answers share: how a win rate, a window and an archetype's matchup spread are written."""

from __future__ import annotations

import re

from meta_mage.agent.render import Answer, Table
from meta_mage.analytics.clustering import MIN_PLAYERS
from meta_mage.analytics.stats import CLEAR_POINTS, FEW_MATCHES, PRIOR_MATCHES
from meta_mage.models.meta import DeckMatchupStatsOutput, Lookalike, MatchupCell, Window, WinRate
from meta_mage.models.name_text import name_markdown

plain = name_markdown  # every name from data (card, player, drafter, archetype, draft) written as text


def percent(block: WinRate) -> float:
    """The win rate from the record itself: rounding the tool's 2-decimal figure again can be off by 0.1."""
    decided = block.wins + block.losses
    return 100 * block.wins / decided if decided else float(block.win_rate or 0)


def players(block: WinRate) -> str:
    """ "all by one player", "by 4 players", or "" when not known."""
    if block.players is None or not block.wins + block.losses:
        return ""
    return "all by one player" if block.players == 1 else f"by {block.players:,} players"


def rate(block: WinRate | None) -> str:
    if block is None or block.win_rate is None:
        return "no decided matches"
    record = f"{block.wins}-{block.losses}-{block.draws}"
    who = players(block)
    text = (
        f"{percent(block):.1f}% (95% CI {block.ci_low:.0f}-{block.ci_high:.0f}%, {record}{', ' + who if who else ''})"
    )
    return text + f", only {block.wins + block.losses} decided" if block.low_sample else text


def modelled(block: WinRate) -> str:
    """ "model 53.1% (47-59%)": the estimate with its interval."""
    if block.estimate is None:
        return "n/a"
    if block.estimate_low is None or block.estimate_high is None:
        return f"{block.estimate:.1f}%"
    return f"{block.estimate:.1f}% ({block.estimate_low:.0f}-{block.estimate_high:.0f}%)"


def judged(block: WinRate) -> str:
    """The record with the model's estimate and its verdict in words ("too close to call", "anecdote: ...")."""
    if block.win_rate is None:
        return rate(block)
    estimate = f", model estimate {modelled(block)}" if block.estimate is not None and block.basis != "record" else ""
    return f"{rate(block)}{estimate}: {block.verdict}"


def by_estimate(cells: list[MatchupCell]) -> list[MatchupCell]:
    """Every cell with a decided match, best shrunk estimate first (most matches first on ties)."""
    decided = [c for c in cells if c.estimate is not None]
    return sorted(decided, key=lambda c: (-(c.estimate or 0), -(c.wins + c.losses), c.opponent))


def headline(ranked: list[MatchupCell], side: str, most: int = 3) -> list[MatchupCell]:
    """The best (``side`` "best") or worst matchups to lead with, from ``by_estimate`` cells: those with a
    verdict on that side (favoured; or unfavoured) first, and cells with too few
    matches to call only after them, never ahead."""
    best = side == "best"
    verdicts = ("favoured",) if best else ("unfavoured",)
    order = ranked if best else ranked[::-1]
    on_side = [c for c in order if ((c.estimate or 0) > 50 if best else (c.estimate or 0) < 50)]
    called = [c for c in on_side if c.verdict in verdicts]
    return (called + [c for c in on_side if c not in called])[:most]


# How a matchup answer (the format's, or the player's deck's spread) is ordered and judged ("why …?" after it)
MATCHUPS_RANKED = (
    "Matchups are ordered on the matchup model's estimate; a verdict word needs the estimate's interval "
    f"clear of 50% by {CLEAR_POINTS}+ points (favoured, unfavoured), and {MIN_PLAYERS}+ distinct players."
)
PRIOR = f"each record plus {PRIOR_MATCHES} imaginary matches at 50%"
MODEL = (
    "the matchup model: each archetype's overall strength plus the pair's own deviation, pulled toward what the "
    "strengths predict as far as the format's data says matchups really differ (backtested on the next week's "
    "matches)"
)


SHRINKAGE_NOTE = (
    f"Ranked on the estimate of {MODEL}, so a lucky 3-0 does not outrank a solid 30-10. “favoured”/"
    f"“unfavoured”: the estimate's 95% interval clears 50% by {CLEAR_POINTS}+ points (no word points against the "
    f"pair's own record, and none is said on under {FEW_MATCHES} decided matches unless the interval clears); "
    f"“anecdote”: fewer than {MIN_PLAYERS} distinct players behind "
    "the record, so no verdict. Record intervals count matches one player played as less than independent ones; "
    "“only N decided”: fewer than {min_sample} decided matches."
)


def signal(cells: list[MatchupCell]) -> str:
    """How much matchups move results here, from the model's estimates of the matchups with a verdict."""
    judged_cells = [c for c in cells if c.estimate is not None and c.verdict in VERDICT_WORDS]
    if not judged_cells:
        return ""
    largest = max(abs(c.estimate - 50) for c in judged_cells if c.estimate is not None)
    if largest >= 10:
        return f"The best-measured matchups here move win rates by up to {largest:.0f} points."
    points = f"{largest:.0f} point{'' if round(largest) == 1 else 's'}"
    return f"The best-measured matchups here move win rates by {points} at most; player skill and variance dominate."


VERDICT_WORDS = ("favoured", "unfavoured", "too close to call")


def lookalike_note(lookalikes: list[Lookalike], shown: set[str]) -> str:
    """ "Possibly one deck: A and B (their usual main decks differ only by X)" for pairs with one shown."""
    said = [
        f"{' and '.join(map(plain, item.archetypes))} (their usual main decks differ only by "
        f"{', '.join(map(plain, item.differ_by)) or 'their lands'})"
        for item in lookalikes
        if shown & set(item.archetypes)
    ]
    return f"Possibly one deck, split by the archetype rules: {'; '.join(said)}." if said else ""


def sourced(matches_from: str) -> str:
    return f"Matches: {matches_from}." if matches_from else ""


def short(cell: WinRate) -> str:
    """ "62% (5-3), too few matches to call": a cell in a list."""
    return f"{percent(cell):.0f}% ({cell.wins}-{cell.losses}), {cell.verdict}"


def dates(period: Window) -> str:
    return f"{period.start} to {period.end}"


def _against(stats: DeckMatchupStatsOutput, opponent: str) -> list[str]:
    """The line on the one opponent asked about (and on names that hold the word, and the longer window)."""
    cells, wider = stats.matchups, stats.wider
    lines = []
    cell = next((c for c in cells if c.opponent.lower() == opponent.lower()), None)
    if cell:
        lines.append(f"Against **{plain(cell.opponent)}**: {judged(cell)}.")
    else:
        lines.append(f"No recorded matches against {plain(opponent)} in this window.")
        # "Tron" is an archetype of its own, rarely played; a player saying it may well mean Eldrazi Tron
        alike = [c for c in cells if re.search(rf"(?<!\w){re.escape(opponent)}(?!\w)", c.opponent, re.I)]
        if alike:
            named = "; ".join(f"**{plain(c.opponent)}** {judged(c)}" for c in alike)
            lines.append(f"Archetypes whose name holds “{plain(opponent)}”: {named}.")
    far = next((c for c in wider.matchups if c.opponent.lower() == opponent.lower()), None) if wider else None
    if wider is not None and far is not None:
        lines.append(f"Over the longer window {dates(wider.period)}: against {plain(far.opponent)} {judged(far)}.")
    return lines


def _best_and_worst(ranked: list[MatchupCell]) -> list[str]:
    """The best and worst matchups: those with a verdict on that side first; when none has one, the
    highest (lowest) estimates, said to be without a verdict."""
    lines = []
    for label, group, none, closest in (
        ("Best matchups", headline(ranked, "best"), "none is won more often than lost; the closest", ranked[:1]),
        ("Worst matchups", headline(ranked, "worst"), "none is lost more often than won; the closest", ranked[-1:]),
    ):
        text = "; ".join(f"{plain(c.opponent)} {judged(c)}" for c in group or closest)
        if group and not any(c.verdict in VERDICT_WORDS[:4] for c in group):
            lines.append(
                f"{label}: none has a verdict yet; the {'highest' if 'Best' in label else 'lowest'} estimates: {text}."
            )
        else:
            lines.append(f"{label}: {text}." if group else f"{label}: {none}: {text}.")
    return lines


SPREAD_COLUMNS = ("#", "Opponent", "Record (W-L-D)", "Players", "Win rate (95% CI)", "Estimate (95% CI)", "Verdict")


def _spread_row(place: int, cell: MatchupCell) -> tuple[str, ...]:
    decided = "" if not cell.low_sample else f", only {cell.wins + cell.losses} decided"
    return (
        str(place),
        plain(cell.opponent),
        f"{cell.wins}-{cell.losses}-{cell.draws}",
        str(cell.players) if cell.players is not None else "n/a",
        f"{percent(cell):.1f}% ({cell.ci_low:.0f}-{cell.ci_high:.0f}%)",
        modelled(cell),
        f"{cell.verdict}{decided}",
    )


def _spread_table(ranked: list[MatchupCell]) -> Answer:
    decided = sum(c.wins + c.losses for c in ranked)
    return Answer.of(
        f"All {len(ranked)} matchups with a decided match ({decided} matches), best first:",
        Table(SPREAD_COLUMNS, tuple(_spread_row(i, c) for i, c in enumerate(ranked, 1))),
    )


def _thin(stats: DeckMatchupStatsOutput, decided: int) -> str:
    """A window under ``min_sample`` decided matches says so, with the longer window's figures."""
    thin = f"This window is thin: {decided} decided matches in all."
    wider = stats.wider
    if wider is not None:
        longer = by_estimate(wider.matchups)
        best = longer[:3]
        worst = [c for c in reversed(longer) if c not in best][:3]
        thin += (
            f" Over {wider.period.days} days ({dates(wider.period)}): overall {rate(wider.overall)}; best "
            + "; ".join(f"{plain(c.opponent)} {short(c)}" for c in best)
            + (("; worst " + "; ".join(f"{plain(c.opponent)} {short(c)}" for c in worst)) if worst else "")
            + "."
        )
    return thin


def spread(stats: DeckMatchupStatsOutput, opponent: str | None) -> Answer:
    lines = [
        f"**{plain(stats.archetype)} in {stats.format}**, {dates(stats.metadata.period)}: meta share "
        f"{stats.meta_share:.1f}%, overall {rate(stats.overall)}; {stats.mirror_matches} mirror "
        f"match{'' if stats.mirror_matches == 1 else 'es'} left out."
    ]
    if opponent:
        lines += _against(stats, opponent)
    ranked = [c for c in by_estimate(stats.matchups) if c.wins + c.losses]
    if not ranked:
        lines.append("No decided matches against any archetype in this window; ask for a longer window.")
        return Answer.of(*lines)
    lines += _best_and_worst(ranked)
    after = [sourced(stats.metadata.matches_from), signal(ranked)]
    said = " ".join(part for part in after if part)
    decided = sum(c.wins + c.losses for c in ranked)
    thin = _thin(stats, decided) if decided < stats.metadata.min_sample else ""
    note = SHRINKAGE_NOTE.format(min_sample=stats.metadata.min_sample)
    return Answer.of(*lines, _spread_table(ranked), said, thin, note)
