"""The meta-research tasks (rankings, matchups, what to play, archetypes, an archetype's page, a card question):
each one's record, beside its offline answer (the card question's and the page's in modules of their own)."""

from __future__ import annotations

import re

from meta_mage.agent.render import Answer, Item, Line, Table, compose
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks.archetype_page import PAGE_CUE, page_answer, plan_page
from meta_mage.agent.tasks.card_question import CARD_RANKED, card_follow_up, card_question, plan_card
from meta_mage.agent.tasks.phrasing import (
    MATCHUPS_RANKED,
    MODEL,
    by_estimate,
    dates,
    headline,
    lookalike_note,
    modelled,
    percent,
    plain,
    rate,
    short,
    sourced,
    spread,
)
from meta_mage.agent.tasks.task import Calls, Cue, FollowUp, Results, TaskSpec, answered_from
from meta_mage.agent.tools import ToolCall
from meta_mage.agent.words import OPPONENT_WORDS
from meta_mage.analytics.clustering import MIN_PLAYERS
from meta_mage.analytics.field import PICK_MARGIN, choose_pick
from meta_mage.analytics.karsten import FLEX_SHARE
from meta_mage.decks.archetype_page import LARGE_EVENT_LISTS
from meta_mage.models.archetype_page import ArchetypePageOutput
from meta_mage.models.decks import CardEvidenceOutput
from meta_mage.models.meta import (
    ArchetypesOutput,
    DeckMatchupStatsOutput,
    FieldExpectation,
    MatchupGrid,
    MatchupStatsOutput,
    MetaRankingsOutput,
    RankingRow,
    Window,
)
from meta_mage.tools.catalog.decks import DECK_MATCHUPS
from meta_mage.tools.catalog.meta import ARCHETYPES, FORMAT_MATCHUPS, META_RANKINGS
from meta_mage.tools.rules import DAYS
from meta_mage.tools.tool import META_RESEARCH

_ASKS_TREND = re.compile(
    r"\btrend\w*|\bris(?:e|es|ing)\b|\bgrow\w*|\bgain\w*|\bfall\w*|\bdeclin\w*|\bdropp?\w*"
    r"|\bon the (?:rise|way (?:up|down))\b|\b(?:going|moving) (?:up|down)\b",
    re.I,
)
MOVERS = 3


def _movers(rows: list[RankingRow], previous: Window) -> list[str]:
    """The archetypes whose meta share rose and fell most since the previous window (points of share)."""
    moved = sorted((r for r in rows if r.meta_share_trend), key=lambda r: -(r.meta_share_trend or 0))

    def said(group: list[RankingRow]) -> str:
        return "; ".join(
            f"{plain(r.name)} {r.meta_share_trend:+.1f} (now {r.meta_share:.1f}%, {r.decks} decks)" for r in group
        )

    rising = [r for r in moved if (r.meta_share_trend or 0) > 0][:MOVERS]
    falling = [r for r in reversed(moved) if (r.meta_share_trend or 0) < 0][:MOVERS]
    return [
        f"Rising most compared with {dates(previous)}, in points of meta share: {said(rising) or 'none'}.",
        "",
        f"Falling most: {said(falling) or 'none'}.",
    ]


RANKING_COLUMNS = ("#", "Archetype", "Meta share", "Trend", "Match win rate", "Estimate vs field (95% CI)")


def rankings(result: MetaRankingsOutput, route: Route, known: ConversationState) -> Answer:
    meta = result.metadata
    rows = result.rows
    by_win_rate = re.search(r"\bwin ?rates?\b", route.question, re.I) is not None
    if by_win_rate:  # "which ones have the best win rate?": every deck with a decided match, on the estimate
        rows = _by_estimate(rows)
    order = "best estimated match win rate first" if by_win_rate else "most played first"
    lines: list[Line] = [
        f"**Top decks in {result.format}**, {dates(meta.current_period)} "
        f"({meta.current_decks} decks from {meta.current_tournaments} "
        f"tournament{'' if meta.current_tournaments == 1 else 's'}), {order}:",
        "",
    ]
    has_previous = bool(meta.previous_decks)
    if has_previous and _ASKS_TREND.search(route.question):  # "which of them is trending up?"
        lines[0:0] = [*_movers(rows, meta.previous_period), ""]
    asked = (route.archetype or "").lower()
    # the "#" is the place in this table's order; the deck asked about is shown wherever it is
    numbered = list(enumerate(rows, 1))
    shown = numbered[:10] + [(n, r) for n, r in numbered[10:] if r.name.lower() == asked]
    lines.append(Table(RANKING_COLUMNS, tuple(_ranking_row(place, row) for place, row in shown)))
    trend_note = (
        f"Trend compares with {dates(meta.previous_period)}."
        if has_previous
        else f"There are no tournaments in the data for {dates(meta.previous_period)}, so no trend."
    )
    lines += [
        "",
        f"{trend_note} Win rates exclude mirror matches; draws are counted apart. Estimate: the expected win rate "
        f"against this field by {MODEL}, so few matches count for little; “only N decided”: under "
        f"{meta.min_sample}. {sourced(meta.matches_from)}",
    ]
    alike = lookalike_note(result.lookalikes, {row.name for _, row in shown})
    return compose([*lines, "", alike] if alike else lines)


def _by_estimate(rows: list[RankingRow]) -> list[RankingRow]:
    """Every row with an estimate, the best first (the more played first on a tie)."""
    return sorted(
        (r for r in rows if r.current.estimate is not None), key=lambda r: (-(r.current.estimate or 0), -r.decks)
    )


def _ranking_row(place: int, row: RankingRow) -> tuple[str, ...]:
    trend = f"{row.meta_share_trend:+.1f}" if row.meta_share_trend is not None else "n/a"
    return (str(place), plain(row.name), f"{row.meta_share:.1f}%", trend, rate(row.current), modelled(row.current))


def archetypes(result: ArchetypesOutput, route: Route, known: ConversationState) -> Answer:
    rows = result.archetypes
    lines: list[Line] = [f"**{len(rows)} archetypes in {result.format}**, {dates(result.metadata.period)}:", ""]
    lines += [
        Item(f"{plain(a.name)} ({a.color_identity}, {a.strategy}): {a.meta_share:.1f}% ({a.decks} decks)")
        for a in rows[:25]
    ]
    if len(rows) > 25:
        lines.append(Item(f"… and {len(rows) - 25} more"))
    return compose(lines)


def _read_as(question: str, stats: DeckMatchupStatsOutput) -> str:
    """A note when a word ("Rakdos") was read as a deck not named in full: the most played deck of this format
    with that word, and the others that share it."""
    name = stats.archetype
    if not question or name.lower() in question.lower():
        return ""
    asked = re.findall(r"[a-z][a-z'-]{3,}", question.lower())
    for word in re.findall(r"[a-z][a-z'-]+", name.lower()):
        if word not in asked:
            continue
        others = [c.opponent for c in stats.matchups if word in c.opponent.lower().split()]
        also = f"; other decks with that name: {', '.join(map(plain, others))}" if others else ""
        return (
            f"I read “{word.capitalize()}” as **{plain(name)}**, the most played {stats.format} deck with that "
            f"name{also}."
        )
    return ""


def matchups(route: Route, known: ConversationState, done: Results) -> Answer:
    stats = done.get(DeckMatchupStatsOutput)
    if stats is not None:
        opponent = route.opponent if route.opponent != stats.archetype else None
        return Answer.of(_read_as(route.question, stats), spread(stats, opponent))
    table = done.get(MatchupStatsOutput)
    if table is None:
        return Answer()
    rows = table.archetypes[:10]
    lines: list[Line] = [
        f"**Matchups in {table.format}**, {dates(table.metadata.period)}, most played first:",
        "",
    ]
    if table.grid is not None and table.grid.archetypes:
        lines += [*_grid_lines(table.grid), ""]
    for row in rows:
        ranked = by_estimate(row.matchups)
        extra = ""
        if len(ranked) > 1:
            best, worst = (headline(ranked, "best", 1) or ranked)[0], (headline(ranked, "worst", 1) or ranked[::-1])[0]
            extra = f"; best vs {plain(best.opponent)} {short(best)}, worst vs {plain(worst.opponent)} {short(worst)}"
        elif ranked:
            extra = f"; only decided matchup: vs {plain(ranked[0].opponent)} {short(ranked[0])}"
        lines.append(Item(f"{plain(row.archetype)} ({row.meta_share:.1f}%): {rate(row.overall)}{extra}"))
    lines.append("")
    lines.append(
        f"Best and worst are ranked on the estimate of {MODEL}; a verdict needs {MIN_PLAYERS} distinct players. "
        f"{sourced(table.metadata.matches_from)} "
        'Ask about one archetype ("how does X do against Y?") for its full spread.'
    )
    return compose(lines)


def archetype_page(route: Route, known: ConversationState, done: Results) -> Answer:
    """ "Tell me about Boros Energy": the archetype's page, saying first how a word was read as a deck."""
    page = done.get(ArchetypePageOutput)
    note = _read_as(route.question, page.spread) if page is not None else ""
    return Answer.of(note, page_answer(route, known, done))


def _pick_note(row: FieldExpectation) -> str:
    if row.catch_all:
        return " (a catch-all: lists no archetype rule names)"
    if row.players == 1:
        return " (one player's deck)"
    if row.players < MIN_PLAYERS:
        return f" (only {row.players} players)"
    return ""


FIELD_COLUMNS = (
    "#",
    "Archetype",
    "Expected vs field (95% CI)",
    "Meta share",
    "Players",
    "Decided",
    "Field measured",
    "What drives it",
)


def recommend(table: MatchupStatsOutput, route: Route, known: ConversationState) -> Answer:
    """ "What should I play?": archetypes ranked by the model's expected win rate against the field as it is."""
    ranked = table.field
    lines: list[Line] = [
        f"**What to play in {table.format}**, {dates(table.metadata.period)}: each archetype's expected match win "
        f"rate against the field as it is played (by {MODEL}; each matchup weighted by that archetype's meta "
        "share, 50% in the mirror; a matchup without matches gets the estimate from the two strengths), ranked "
        "on the interval's low end, so a deck leads on results rather than a few lucky matches:",
        "",
        Table(FIELD_COLUMNS, tuple(_field_row(place, row) for place, row in enumerate(ranked[:10], 1))),
    ]
    lines += ["", _pick(ranked)]
    if table.metadata.matches_from:
        lines += ["", sourced(table.metadata.matches_from)]
    alike = lookalike_note(table.lookalikes, {row.archetype for row in ranked[:10]})
    if alike:
        lines += ["", alike]
    return compose(lines)


def _field_row(place: int, row: FieldExpectation) -> tuple[str, ...]:
    drivers = "; ".join(
        f"{plain(d.opponent)} ({d.meta_share:.0f}% of the field) {d.estimate:.0f}%"
        + (f" ({d.wins}-{d.losses})" if d.wins + d.losses else " (no match: from the strengths)")
        for d in row.drivers[:2]
    )
    return (
        str(place),
        f"{plain(row.archetype)}{_pick_note(row)}",
        f"{row.expected:.1f}% ({row.ci_low:.1f}-{row.ci_high:.1f}%)",
        f"{row.meta_share:.1f}%",
        str(row.players),
        str(row.decided),
        f"{row.measured:.0f}%",
        drivers,
    )


def _passed_over(above: list[FieldExpectation]) -> list[str]:
    """The rows ranked above the pick, grouped by why none is a pick."""
    groups = (
        ([r.archetype for r in above if r.catch_all], "catch-alls of lists no archetype rule names: no one deck"),
        ([r.archetype for r in above if not r.catch_all], f"fewer than {MIN_PLAYERS} players"),
    )
    return [f"{', '.join(map(plain, names))} ({why})" for names, why in groups if names]


NAMED_LEADERS = 5  # the decks the data cannot separate named in full; the rest are counted


def _pick(ranked: list[FieldExpectation]) -> str:
    """The one pick when the data separates it (``field.choose_pick``), else the decks it cannot separate."""
    decision = choose_pick(ranked)
    if not decision.eligible:
        if ranked:
            return f"No archetype here has results by {MIN_PLAYERS} or more players: every figure is an anecdote."
        return "No archetype has a decided match in this window; ask for a longer window."
    first = decision.eligible[0]
    passed = _passed_over(ranked[: ranked.index(first)])
    if decision.archetype:
        lead = (
            f"**{plain(first.archetype)}** is the pick against this field: the low end of its interval clears the next "
            f"deck's by {PICK_MARGIN:.0f}+ points."
        )
    else:
        shown = decision.leaders[:NAMED_LEADERS]
        names = ", ".join(f"**{plain(name)}**" for name in shown)
        rest = len(decision.leaders) - len(shown)
        more = f" and {rest} more within {PICK_MARGIN:.0f} points of the first's low end" if rest else ""
        lead = (
            f"The data cannot separate {names}{more}: no low end clears the next by {PICK_MARGIN:.0f} points, and "
            "smaller leads did not hold over the weeks that followed (backtested), so no single pick is named."
        )
    return (
        lead
        + (f" Ranked above it but left out as a pick: {'; '.join(passed)}." if passed else "")
        + " “Players” counts the players behind its decided matches; “Field measured” is the share of the field "
        "it has results against; the rest comes from the strengths alone, so a low figure means little evidence. "
        "Popularity is context, not the ranking: ask for the top decks to see meta shares and trends."
    )


def _grid_lines(grid: MatchupGrid) -> list[str | Table]:
    """The top archetypes as a grid: each row's win rate against each column, with decided matches."""
    names = grid.archetypes
    rows: list[tuple[str, ...]] = []
    for name, row, mirrors in zip(names, grid.cells, grid.mirrors, strict=True):
        cells = [
            f"mirror ({mirrors})" if cell is None else "–" if cell.win_rate is None else
            f"{percent(cell):.0f}% ({cell.wins + cell.losses})"
            for cell in row
        ]  # fmt: skip
        rows.append((f"**{plain(name)}**", *cells))
    return [
        "Row against column: win rate (decided matches); the diagonal holds mirror matches.",
        "",
        Table(("vs", *map(plain, names)), tuple(rows)),
    ]


def _plan_matchups(route: Route, known: ConversationState) -> Calls:
    subject = route.archetype or route.opponent
    return [ToolCall(DECK_MATCHUPS.name, {"archetype": subject})] if subject else [ToolCall(FORMAT_MATCHUPS.name)]


# How each answer is ordered and judged ("why …?" after it).
RANKINGS_RANKED = (
    "The top decks are ordered by meta share (most played first); the estimate beside each is its "
    "expected win rate against this field by the matchup model, and “best win rate” orders on that estimate."
)
RECOMMEND_RANKED = (
    "What to play is ordered on the low end of each archetype's 95% interval of its expected win "
    "rate against the field, not on the expected rate itself: a deck with a higher expectation but a wider "
    f"interval (fewer matches, fewer players) ranks below a surer one, and the pick needs {MIN_PLAYERS}+ players."
)
PAGE_RANKED = (
    "The stock list is Frank Karsten's aggregate of the window's lists: the k-th copy of a card "
    "counts the lists that play at least k copies, and the main deck (sideboard) is the lists' most common size "
    f"of the copies most lists play; a copy under {FLEX_SHARE:.0f}% of the lists is a flex copy. The best finish "
    f"is the best placing at an event of {LARGE_EVENT_LISTS}+ lists, the newest on a tie; the matchups are ordered "
    "on the matchup model's estimate, its verdicts first."
)

# The first task is the workflow's default.
TASKS = (
    TaskSpec(
        "rankings",
        META_RESEARCH,
        answered_from(MetaRankingsOutput, rankings),
        (DAYS,),
        ((META_RANKINGS, {}),),
        how_ranked=RANKINGS_RANKED,
    ),
    TaskSpec(
        "matchups",
        META_RESEARCH,
        matchups,
        (DAYS,),
        planner=_plan_matchups,
        cues=(
            Cue(1, r"\b(matchups?|vs\.?|versus|against|beat|spread|how does)\b", needs_name=True),
            Cue(1, r"\b(matchups?|spread|against each other|head[- ]to[- ]head)\b"),
            # "tell me about Izzet Prowess", "is Jeskai Blink good in Modern?" (but its share is the rankings')
            Cue(3, unless=r"\b(meta ?share|share|rank|popular|most played|top)\b", by_archetype=True),
        ),
        how_ranked=MATCHUPS_RANKED,
        follow_ups=(
            FollowUp(
                "another opponent for the same archetype",
                holds=lambda r, last, named: (
                    named == "matchups"
                    and bool(r.slots["opponent"])
                    and not r.slots["archetype"]
                    and last.archetype not in (None, r.slots["opponent"])
                ),
                task="matchups",
                keeps=("archetype",),
                example=("How does Boros Energy do against Jeskai Blink?", "and against Domain Zoo?"),
            ),
        ),
    ),
    TaskSpec(
        "recommend",
        META_RESEARCH,
        answered_from(MatchupStatsOutput, recommend),
        (DAYS,),
        ((FORMAT_MATCHUPS, {}),),
        cues=(
            Cue(
                0,
                r"\bwhat (?:deck )?should i (?:play|bring|pick|register|run)\b|\bwhich deck should i\b"
                r"|\bbest deck to (?:play|bring|pick)\b|\brecommend a deck\b",
                unless=rf"{OPPONENT_WORDS}|\bbring in\b",
            ),
        ),
        how_ranked=RECOMMEND_RANKED,
    ),
    TaskSpec(
        "card_question",
        META_RESEARCH,
        answered_from(CardEvidenceOutput, card_question),
        (DAYS,),
        planner=plan_card,
        cues=(Cue(-1, by_card=True),),
        how_ranked=CARD_RANKED,
        follow_ups=(card_follow_up("card", "opponent", "and Unholy Heat?"), card_follow_up("opponent", "card")),
    ),
    TaskSpec(
        "archetypes",
        META_RESEARCH,
        answered_from(ArchetypesOutput, archetypes),
        (DAYS,),
        ((ARCHETYPES, {}),),
        cues=(Cue(2, r"\b(list|which|what|all)\b.{0,20}\barchetypes\b"),),
    ),
    TaskSpec(
        "archetype_page",
        META_RESEARCH,
        archetype_page,
        (DAYS,),
        planner=plan_page,
        cues=(PAGE_CUE,),
        how_ranked=PAGE_RANKED,
    ),
)
