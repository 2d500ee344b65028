"""The offline answers' templates: one writer per task, from this turn's tool results.

Each writer is named by its task's declaration in ``tool_specs.TASKS``. Every figure comes from a tool result.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from meta_mage.analytics.stats import FEW_MATCHES, LEAN_POINTS, PRIOR_MATCHES
from meta_mage.models.cards import card_key
from meta_mage.models.decks import (
    CardDetail,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    SideboardGuide,
    SideboardSlot,
    StrategyFacts,
)
from meta_mage.models.drafts import REDACTED, DraftPoolResult, ListDraftsOutput
from meta_mage.models.meta import (
    ArchetypesOutput,
    DeckMatchupStatsOutput,
    MatchupCell,
    MatchupGrid,
    MatchupStatsOutput,
    MetaRankingsOutput,
    Window,
    WinRate,
)

if TYPE_CHECKING:
    from meta_mage.agent.state import ConversationState, Route

M = TypeVar("M", bound=BaseModel)
Results = dict[str, BaseModel]


def _result(done: Results, name: str, model: type[M]) -> M | None:
    """This turn's result of tool ``name``, as its output model."""
    found = done.get(name)
    return found if isinstance(found, model) else None


def _state_stats(state: ConversationState) -> DeckMatchupStatsOutput | None:
    """The deck's matchup statistics kept in the state (as JSON) from an earlier turn."""
    stored = state.get("matchup_stats")
    return DeckMatchupStatsOutput.model_validate(stored) if stored else None


def _deck_stats(state: ConversationState, done: Results) -> DeckMatchupStatsOutput | None:
    return _result(done, "get_deck_matchup_stats", DeckMatchupStatsOutput) or _state_stats(state)


def _percent(block: WinRate) -> float:
    """The win rate from the record itself: rounding the tool's 2-decimal figure again can be off by 0.1."""
    decided = block.wins + block.losses
    return 100 * block.wins / decided if decided else float(block.win_rate or 0)


def _rate(block: WinRate | None) -> str:
    if block is None or block.win_rate is None:
        return "no decided matches"
    record = f"{block.wins}-{block.losses}-{block.draws}"
    text = f"{_percent(block):.1f}% (95% CI {block.ci_low:.0f}-{block.ci_high:.0f}%, {record})"
    return text + f", only {block.wins + block.losses} decided" if block.low_sample else text


def _judged(block: WinRate) -> str:
    """The record with its verdict in words ("leans unfavoured", "too close to call", ...)."""
    return f"{_rate(block)}: {block.verdict}" if block.win_rate is not None else _rate(block)


def _by_estimate(cells: list[MatchupCell]) -> list[MatchupCell]:
    """Every cell with a decided match, best shrunk estimate first (most matches first on ties)."""
    decided = [c for c in cells if c.estimate is not None]
    return sorted(decided, key=lambda c: (-(c.estimate or 0), -(c.wins + c.losses), c.opponent))


PRIOR = f"each record plus {PRIOR_MATCHES} imaginary matches at 50%"
SHRINKAGE_NOTE = (
    f"Ranked on a shrunk estimate: {PRIOR}, so a lucky 3-0 does not outrank a solid 30-10. “favoured”/"
    f"“unfavoured”: the 95% interval is clear of 50%; “too few matches to call”: under {FEW_MATCHES} decided; "
    f"“leans”: the estimate is {LEAN_POINTS}+ points off 50%; “only N decided”: fewer than "
    "{min_sample} decided matches."
)


def _short(cell: WinRate) -> str:
    """ "62% (5-3), leans favoured": a cell in a list."""
    return f"{_percent(cell):.0f}% ({cell.wins}-{cell.losses}), {cell.verdict}"


def _period(period: Window) -> str:
    return f"{period.start} to {period.end}"


def rankings(route: Route, state: ConversationState, done: Results) -> str:
    result = _result(done, "get_format_meta_rankings", MetaRankingsOutput)
    if result is None:
        return ""
    meta = result.metadata
    rows = result.rows
    by_win_rate = re.search(r"\bwin ?rates?\b", route.question, re.I) is not None
    if by_win_rate:  # "which ones have the best win rate?": every deck with a decided match, on the estimate
        rows = sorted(
            (r for r in rows if r.current.estimate is not None),
            key=lambda r: (-(r.current.estimate or 0), -r.decks),
        )
    order = "best shrunk match win rate first" if by_win_rate else "most played first"
    lines = [
        f"**Top decks in {result.format}**, {_period(meta.current_period)} "
        f"({meta.current_decks} decks from {meta.current_tournaments} tournaments), {order}:",
        "",
        "| # | Archetype | Meta share | Trend | Match win rate | Estimate |",
        "|---|---|---|---|---|---|",
    ]
    has_previous = bool(meta.previous_decks)
    asked = (route.archetype or "").lower()
    # the "#" is the place in this table's order; the deck asked about is shown wherever it is
    numbered = list(enumerate(rows, 1))
    shown = numbered[:10] + [(n, r) for n, r in numbered[10:] if r.name.lower() == asked]
    for place, row in shown:
        trend = f"{row.meta_share_trend:+.1f}" if row.meta_share_trend is not None else "n/a"
        estimate = f"{row.current.estimate:.1f}%" if row.current.estimate is not None else "n/a"
        lines.append(f"| {place} | {row.name} | {row.meta_share:.1f}% | {trend} | {_rate(row.current)} | {estimate} |")
    trend_note = (
        f"Trend compares with {_period(meta.previous_period)}."
        if has_previous
        else f"There are no tournaments in the data for {_period(meta.previous_period)}, so no trend."
    )
    lines += [
        "",
        f"{trend_note} Win rates exclude mirror matches; draws are counted apart. Estimate: the record plus "
        f"{PRIOR_MATCHES} imaginary matches at 50%, so few matches count for little; “only N decided”: under "
        f"{meta.min_sample}.",
    ]
    return "\n".join(lines)


def archetypes(route: Route, state: ConversationState, done: Results) -> str:
    result = _result(done, "get_format_archetypes", ArchetypesOutput)
    if result is None:
        return ""
    rows = result.archetypes
    lines = [f"**{len(rows)} archetypes in {result.format}**, {_period(result.metadata.period)}:", ""]
    lines += [
        f"- {a.name} ({a.color_identity}, {a.strategy}): {a.meta_share:.1f}% ({a.decks} decks)" for a in rows[:25]
    ]
    if len(rows) > 25:
        lines.append(f"- … and {len(rows) - 25} more")
    return "\n".join(lines)


def _spread(stats: DeckMatchupStatsOutput, opponent: str | None) -> str:
    lines = [
        f"**{stats.archetype} in {stats.format}**, {_period(stats.metadata.period)}: meta share "
        f"{stats.meta_share:.1f}%, overall {_rate(stats.overall)}; {stats.mirror_matches} mirror "
        f"match{'' if stats.mirror_matches == 1 else 'es'} left out."
    ]
    cells = stats.matchups
    wider = stats.wider
    if opponent:
        cell = next((c for c in cells if c.opponent.lower() == opponent.lower()), None)
        if cell:
            lines.append(f"Against **{cell.opponent}**: {_judged(cell)}.")
        else:
            lines.append(f"No recorded matches against {opponent} in this window.")
        far = next((c for c in wider.matchups if c.opponent.lower() == opponent.lower()), None) if wider else None
        if wider is not None and far is not None:
            lines.append(f"Over the longer window {_period(wider.period)}: against {far.opponent} {_judged(far)}.")
    ranked = _by_estimate(cells)
    if not ranked:
        lines.append("No decided matches against any archetype in this window; ask for a longer window.")
        return "\n\n".join(lines)
    good = [c for c in ranked if (c.estimate or 0) > 50][:3]
    bad = [c for c in reversed(ranked) if (c.estimate or 0) < 50][:3]
    for label, group, none, closest in (
        ("Best matchups", good, "none is won more often than lost; the closest", ranked[:1]),
        ("Worst matchups", bad, "none is lost more often than won; the closest", ranked[-1:]),
    ):
        shown = group or closest
        text = "; ".join(f"{c.opponent} {_judged(c)}" for c in shown)
        lines.append(f"{label}: {text}." if group else f"{label}: {none}: {text}.")
    decided = sum(c.wins + c.losses for c in ranked)
    table = [
        f"All {len(ranked)} matchups with a decided match ({decided} matches), best first:",
        "",
        "| # | Opponent | Record (W-L-D) | Win rate (95% CI) | Estimate | Verdict |",
        "|---|---|---|---|---|---|",
    ]
    table += [
        f"| {i} | {c.opponent} | {c.wins}-{c.losses}-{c.draws} | {_percent(c):.1f}% ({c.ci_low:.0f}-{c.ci_high:.0f}%) "
        f"| {c.estimate:.1f}% | {c.verdict}{'' if not c.low_sample else f', only {c.wins + c.losses} decided'} |"
        for i, c in enumerate(ranked, 1)
    ]
    lines.append("\n".join(table))
    if decided < stats.metadata.min_sample:
        thin = f"This window is thin: {decided} decided matches in all."
        if wider is not None:
            longer = _by_estimate(wider.matchups)
            best = longer[:3]
            worst = [c for c in reversed(longer) if c not in best][:3]
            thin += (
                f" Over {wider.period.days} days ({_period(wider.period)}): overall {_rate(wider.overall)}; best "
                + "; ".join(f"{c.opponent} {_short(c)}" for c in best)
                + (("; worst " + "; ".join(f"{c.opponent} {_short(c)}" for c in worst)) if worst else "")
                + "."
            )
        lines.append(thin)
    lines.append(SHRINKAGE_NOTE.format(min_sample=stats.metadata.min_sample))
    return "\n\n".join(lines)


def _read_as(question: str, stats: DeckMatchupStatsOutput) -> str:
    """A note when one word ("Rakdos") was read as one of several decks sharing it (the most played)."""
    name = stats.archetype
    if not question or name.lower() in question.lower():
        return ""
    asked = re.findall(r"[a-z][a-z'-]{3,}", question.lower())
    for word in re.findall(r"[a-z][a-z'-]+", name.lower()):
        others = [c.opponent for c in stats.matchups if word in c.opponent.lower().split()]
        if word in asked and others:
            listed = ", ".join(others)
            return f"I read “{word.capitalize()}” as **{name}**; other decks with that name: {listed}.\n\n"
    return ""


def matchups(route: Route, state: ConversationState, done: Results) -> str:
    stats = _result(done, "get_deck_matchup_stats", DeckMatchupStatsOutput)
    if stats is not None:
        opponent = route.opponent if route.opponent != stats.archetype else None
        return _read_as(route.question, stats) + _spread(stats, opponent)
    table = _result(done, "get_format_matchup_stats", MatchupStatsOutput)
    if table is None:
        return ""
    rows = table.archetypes[:10]
    lines = [f"**Matchups in {table.format}**, {_period(table.metadata.period)}, most played first:", ""]
    if table.grid is not None and table.grid.archetypes:
        lines += [*_grid_lines(table.grid), ""]
    for row in rows:
        ranked = _by_estimate(row.matchups)
        extra = ""
        if len(ranked) > 1:
            best, worst = ranked[0], ranked[-1]
            extra = f"; best vs {best.opponent} {_short(best)}, worst vs {worst.opponent} {_short(worst)}"
        elif ranked:
            extra = f"; only decided matchup: vs {ranked[0].opponent} {_short(ranked[0])}"
        lines.append(f"- {row.archetype} ({row.meta_share:.1f}%): {_rate(row.overall)}{extra}")
    lines.append("")
    lines.append(
        f"Best and worst are ranked on a shrunk estimate ({PRIOR}). "
        'Ask about one archetype ("how does X do against Y?") for its full spread.'
    )
    return "\n".join(lines)


def _cards(state: ConversationState) -> list[CardDetail]:
    """The deck's cards kept in the state (as JSON)."""
    return [CardDetail.model_validate(card) for card in state.get("card_details") or []]


def _grid_lines(grid: MatchupGrid) -> list[str]:
    """The top archetypes as a grid: each row's win rate against each column, with decided matches."""
    names = grid.archetypes
    lines = [
        "Row against column: win rate (decided matches); the diagonal holds mirror matches.",
        "",
        "| vs | " + " | ".join(names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    for name, row, mirrors in zip(names, grid.cells, grid.mirrors, strict=True):
        cells = [
            f"mirror ({mirrors})" if cell is None else "–" if cell.win_rate is None else
            f"{_percent(cell):.0f}% ({cell.wins + cell.losses})"
            for cell in row
        ]  # fmt: skip
        lines.append(f"| **{name}** | " + " | ".join(cells) + " |")
    return lines


def deck_review(route: Route, state: ConversationState, done: Results) -> str:
    stats = _deck_stats(state, done)
    cards = _cards(state)
    main = sum(c.quantity for c in cards if c.section == "mainboard")
    side = sum(c.quantity for c in cards if c.section == "sideboard")
    head = f"Got it: your deck is **{state.get('archetype')}** in {state.get('format')}"
    head += f" ({main} mainboard, {side} sideboard cards)." if cards else "."
    parts = [head]
    if stats:
        parts.append(_spread(stats, state.get("opponent_archetype")))
    parts.append(
        'I can now coach a matchup ("how do I play against X?"), suggest mainboard swaps '
        '("optimize my mainboard") or rebuild the sideboard for the top decks ("optimize my sideboard").'
    )
    return "\n\n".join(parts)


def deck_matchups(route: Route, state: ConversationState, done: Results) -> str:
    stats = _deck_stats(state, done)
    return _spread(stats, state.get("opponent_archetype")) if stats is not None else ""


def strategy(route: Route, state: ConversationState, done: Results) -> str:
    facts = _result(done, "generate_deck_matchup_strategy", StrategyFacts)
    if facts is None:
        return ""
    profile = facts.your_deck_profile
    lines = [
        f"**{facts.archetype} vs {facts.opponent_archetype}** in {facts.format}, "
        f"{_period(facts.metadata.period)}: {_rate(facts.record)} from {facts.opponent_lists} opposing lists.",
        "",
        "**What they play** (share of their lists):",
    ]
    main_keys = [k for k in facts.opponent_key_cards if k.section == "mainboard"]
    side_keys = [k for k in facts.opponent_key_cards if k.section == "sideboard"]
    lines += [
        f"- {k.name} ({k.inclusion_rate:.0f}%, {k.average_copies:g} cop{'y' if k.average_copies == 1 else 'ies'})"
        for k in main_keys
    ]
    if side_keys:
        lines.append(
            "After sideboarding expect: " + ", ".join(f"{k.name} ({k.inclusion_rate:.0f}%)" for k in side_keys)
        )
    lines += ["", "**Your sideboard answers**:"]
    if facts.sideboard_answers:
        for a in facts.sideboard_answers:
            lines.append(f"- {a.quantity} {a.name}: {a.reason}")
    else:
        lines.append("- none of your sideboard cards lines up against their key cards.")
    if facts.sideboard_guide is not None:
        lines += ["", *_guide_lines(facts.sideboard_guide)]
    lines += [
        "",
        f"**Your deck**: {profile['mainboard_cards']} mainboard cards, {profile['lands']} lands, "
        f"{profile['creatures']} creatures, average mana value {profile['average_mana_value']}.",
        "Mulligan hands that cannot interact with their first key cards above; bring in the answers listed when "
        "their threats are the ones you lose to.",
    ]
    return "\n".join(lines)


def optimize_mainboard(route: Route, state: ConversationState, done: Results) -> str:
    result = _result(done, "optimize_mainboard", OptimizeMainboardOutput)
    if result is None:
        return ""
    lines = [
        f"**Mainboard check for {result.archetype}** in {result.format} against "
        f"{result.lists_compared} lists from {_period(result.metadata.period)}."
    ]
    if result.swaps:
        lines += ["", "Suggested swaps:"]
        lines += [f"- cut {s.cut_quantity} {s.cut}, add {s.add_quantity} {s.add}: {s.reason}" for s in result.swaps]
    else:
        lines.append("Your list already matches what the archetype plays; no swap is clearly better.")
    if result.flex_spots:
        flex = ", ".join(
            f"{c.name} ({c.inclusion_rate:.0f}% of lists"
            + (f"; its lists did better against {', '.join(c.better_against)}, so it stays" if c.better_against else "")
            + ")"
            for c in result.flex_spots[:6]
        )
        lines += ["", f"Flex spots (few lists play them): {flex}."]
    return "\n".join(lines)


def optimize_sideboard(route: Route, state: ConversationState, done: Results) -> str:
    result = _result(done, "optimize_sideboard", OptimizeSideboardOutput)
    if result is None:
        return ""
    tops = ", ".join(f"{t.get('name') or t.get('archetype')}" for t in result.top_archetypes)
    lines = [
        f"**Sideboard for {result.archetype}** in {result.format} against the top decks ({tops}), from "
        f"{result.lists_compared} lists from {_period(result.metadata.period)}. The {result.total_cards} cards:",
        "",
    ]
    lines += [
        f"- {s.quantity} {s.name}: {s.reason}" + (f" (vs {', '.join(s.targets)})" if s.targets else "")
        for s in result.final_sideboard
    ]
    changes = _sideboard_changes(_cards(state), result.final_sideboard)
    kept = "Your sideboard stays as it is."
    lines += ["", f"Changes from your sideboard: {'; '.join(changes)}." if changes else kept]
    if result.cut_reasons:
        lines += ["", "Why these leave:"]
        lines += [f"- {cut.quantity} {cut.name}: {cut.why}" for cut in result.cut_reasons]
    for guide in result.guides:
        lines += ["", *_guide_lines(guide)]
    return "\n".join(lines)


def _guide_lines(guide: SideboardGuide) -> list[str]:
    """ "**Sideboarding against X**": in and out with counts and reasons, and the deck sizes after."""
    head = f"**Sideboarding against {guide.opponent}**"
    if guide.record is not None and guide.record.win_rate is not None:
        head += f" (you are {guide.record.wins}-{guide.record.losses}-{guide.record.draws}, {guide.record.verdict})"
    held = f"Also worth a slot if you find room: {', '.join(guide.held_back)}." if guide.held_back else ""
    if not guide.bring_in:
        if held:
            return [f"{head}: stay with the main deck. {held}"]
        return [head + ": nothing in your sideboard lines up against their key cards; stay with the main deck."]
    lines = [head + ":", "In:"]
    lines += [f"- +{c.quantity} {c.name}: {c.why}" for c in guide.bring_in]
    lines.append("Out:")
    lines += [f"- −{c.quantity} {c.name}: {c.why}" for c in guide.take_out]
    lines.append(f"That leaves {guide.mainboard_after} cards in the deck and {guide.sideboard_after} in the sideboard.")
    return lines + ([held] if held else [])


def _sideboard_changes(card_details: list[CardDetail], final: list[SideboardSlot]) -> list[str]:
    """Every card whose count changes, with its quantities (an extra copy is a change too)."""
    before: dict[str, tuple[str, int]] = {}
    for card in card_details:
        if card.section == "sideboard":
            name, count = before.get(card_key(card.name), (card.name, 0))
            before[card_key(card.name)] = (name, count + card.quantity)
    after = {card_key(s.name): (s.name, s.quantity) for s in final}
    changes = []
    for key in [*after, *(k for k in before if k not in after)]:
        name, old = before.get(key, (after.get(key, ("", 0))[0], 0))
        new = after.get(key, (name, 0))[1]
        if new > old:
            changes.append(f"+{new - old} {name} ({old} → {new})")
        elif new < old:
            changes.append(f"−{old - new} {name} ({old} → {new})")
    return changes


def list_drafts(route: Route, state: ConversationState, done: Results) -> str:
    result = _result(done, "list_drafts", ListDraftsOutput)
    if result is None:
        return ""
    if not result.drafts:
        return "No cube drafts have been imported yet."
    return "Cube drafts I know:\n\n" + "\n".join(
        f"- **{d.draft_name}** (`{d.draft_id}`, {d.draft_date}): {d.total_cards} cards, "
        f"{d.drafters} drafters, {d.picks} picks"
        for d in result.drafts
    )


def draft_pool(route: Route, state: ConversationState, done: Results) -> str:
    pool = _result(done, "get_draft_pool", DraftPoolResult)
    if pool is None:
        return ""
    cards = pool.cards or []
    filters = route.card_filter or {}
    kind = (filters.get("type_contains") or "card").lower()
    described = ""
    color = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green", "C": "no colour"}.get(
        filters.get("color", "")
    )
    if color:
        described += f" with {color} in {'its' if pool.total_cards == 1 else 'their'} colour identity"
    if filters.get("name_contains"):
        described += f" named like “{filters['name_contains']}”"
    private = _private_picks(cards)
    if filters.get("drafter") == REDACTED or _OPT_OUT.search(route.question):  # one sentence, never their picks
        if not private:
            return f"Every drafter in **{pool.draft_name}** is named; nobody asked to stay anonymous."
        return (
            f"One drafter in **{pool.draft_name}** asked not to be named: their {private} picks show as {REDACTED}, "
            "and I don't list them or say who it might be."
        )
    total = pool.total_cards
    if filters.get("drafter"):  # the tool has no drafter filter: the answer keeps that drafter's picks
        cards = [c for c in cards if filters["drafter"] in [p for p, _ in _takers(c)]]
        described += f" taken by {filters['drafter']}"
        total = len(cards)
    drafted = [c for c in cards if c.get("drafted")]
    lines = [
        f"**{pool.draft_name}** ({pool.draft_date}): {total} {kind}{'' if total == 1 else 's'}{described} in the pool, "
        + (f"{len(drafted)} of them drafted." if total != 1 else "drafted." if drafted else "not drafted."),
        "",
    ]
    for card in cards[:60]:
        takers = ", ".join(f"{who} (pick {n})" for who, n in _takers(card))
        cost = f" {card['mana_cost']}" if card.get("mana_cost") else ""
        lines.append(f"- {card['card_name']}{cost}: {'taken by ' + takers if takers else 'not drafted'}")
    if len(cards) > 60:
        lines.append(f"- … and {len(cards) - 60} more (ask for a colour, a type or a card name to narrow it down)")
    if any(who == REDACTED for card in cards for who, _ in _takers(card)):
        lines += ["", f"{REDACTED} is a drafter who asked not to be named; I can't tell who it is."]
    return "\n".join(lines)


_OPT_OUT = re.compile(r"\bopt(s|ed)?[- ]?out\b|\bnot (to )?be named\b|\banonymous\b|\bredacted\b", re.I)


def _private_picks(cards: list[dict[str, Any]]) -> int:
    """How many picks the pool credits to the drafter who asked not to be named."""
    return sum(who == REDACTED for card in cards for who, _ in _takers(card))


def _takers(card: dict[str, Any]) -> list[tuple[str, int]]:
    """Everyone who took a copy of the card, first pick first."""
    if not card.get("drafted") or not card.get("drafted_by"):
        return []
    extra = [(str(p["drafted_by"]), int(p["drafted_pick_n"])) for p in card.get("additional_picks") or []]
    return [(str(card["drafted_by"]), int(card["drafted_pick_n"])), *extra]
