"""The archetype-page task ("tell me about Boros Energy", "what does the stock Boros Energy list look like?",
"show me the Affinity decklist"): its offline answer from ``get_archetype_page``, its plan and the words that
name it (its record is in ``tasks/meta.py``)."""

from __future__ import annotations

from collections import Counter

from meta_mage.agent.render import Answer, Item, Line, Table, compose
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks.phrasing import by_estimate, dates, headline, judged, plain, rate, sourced
from meta_mage.agent.tasks.task import Calls, Cue, Results
from meta_mage.agent.tools import ToolCall
from meta_mage.agent.words import OPPONENT_WORDS, PAGE_WORDS
from meta_mage.models.archetype_page import ArchetypePageOutput, BestFinish, PageCard, PlaybookNotes
from meta_mage.models.meta import ArchetypesOutput, MatchupCell
from meta_mage.tools.catalog.decks import ARCHETYPE_PAGE
from meta_mage.tools.catalog.meta import ARCHETYPES

CHOICES_SHOWN = 12


def _card_row(card: PageCard) -> tuple[str, ...]:
    flex = ""
    if card.flex_copies:
        first = card.copies - card.flex_copies + 1
        flex = f"{card.flex_copies} of {card.copies}: the {_nth(first)} copy is in {card.copy_shares[first - 1]:.0f}%"
    return (str(card.copies), plain(card.name), f"{card.inclusion:.0f}%", f"{card.average_copies:.2f}", flex)


_SUFFIX = {1: "st", 2: "nd", 3: "rd"}


def _nth(n: int) -> str:
    return f"{n}{_SUFFIX.get(n, 'th')}"


def _section(title: str, cards: list[PageCard]) -> Table:
    columns = (
        "Copies",
        f"{title} ({sum(c.copies for c in cards)})",
        "In lists",
        "Average copies where played",
        "Flex copies (of the lists)",
    )
    return Table(columns, tuple(_card_row(card) for card in cards))


def _matchup_lines(page: ArchetypePageOutput) -> list[Line]:
    """The record and the best and worst matchups, the spread's words: called verdicts lead, the rest follow."""
    spread = page.spread
    ranked = [c for c in by_estimate(spread.matchups) if c.wins + c.losses]
    lines: list[Line] = [
        f"**Record**: {rate(spread.overall)} over the window, mirrors left out; meta share {spread.meta_share:.1f}%."
    ]
    if not ranked:
        return [*lines, "", "No decided matches against any archetype in this window."]
    for label, side, verdict, which in (
        ("Best matchups", "best", "favoured", "highest"),
        ("Worst matchups", "worst", "unfavoured", "lowest"),
    ):
        cells: list[MatchupCell] = headline(ranked, side)
        said = "; ".join(f"{plain(c.opponent)} {judged(c)}" for c in cells) or "none on that side of 50%"
        if cells and not any(c.verdict == verdict for c in cells):
            said = f"none is called {verdict} yet; the {which} estimates: {said}"
        lines += ["", f"**{label}**: {said}."]
    return lines


def _difference(best: BestFinish, page: ArchetypePageOutput) -> str:
    """How the best-finishing main deck differs from the stock one, in copies."""
    stock = Counter({c.name: c.copies for c in page.aggregate.mainboard})
    theirs = Counter(best.mainboard)
    more = [f"+{n} {plain(name)}" for name, n in sorted((theirs - stock).items())]
    fewer = [f"−{n} {plain(name)}" for name, n in sorted((stock - theirs).items())]
    return ", ".join(more + fewer) or "nothing: it is the stock main deck"


def _best_lines(page: ArchetypePageOutput) -> list[str]:
    best = page.best_finish
    if best is None:
        return ["**Best finish**: no list of the window has a placing."]
    record = f", {best.record}" if best.record else " (the data keeps each list's placing, not its match record)"
    return [
        f"**Best finish**: {plain(best.player)}, {best.placing} at {plain(best.event)} ({best.date}, "
        f"{best.event_lists} lists published){record}. Rule: {best.rule}.",
        "",
        f"Its main deck against the stock one: {_difference(best, page)}.",
    ]


def _playbook_lines(archetype: str, notes: PlaybookNotes | None) -> list[Line]:
    if notes is None:
        return [f"**Playbook**: none is written for {plain(archetype)} yet."]
    parts = [
        ("Plan", notes.plan),
        ("Engine", ", ".join(map(plain, notes.engine))),
        ("Wins with", ", ".join(map(plain, notes.win_conditions))),
        ("Fast mana", ", ".join(map(plain, notes.fast_mana)) or "none"),
        ("Graveyard plan", ", ".join(map(plain, notes.graveyard)) or "none"),
        ("Key interaction", ", ".join(map(plain, notes.interaction))),
        ("Fears", f"{', '.join(map(plain, notes.fears))}: {notes.fears_why}"),
    ]
    lines: list[Line] = [f"**Playbook** ({notes.role}):", "", *[Item(f"{label}: {text}") for label, text in parts]]
    if notes.stale_engine:
        stale = ", ".join(f"{plain(card.name)} ({card.share:.0f}%)" for card in notes.stale_engine)
        lines += [
            "",
            f"The playbook may be dated: engine cards fewer than {notes.engine_share:.0f}% of this window's lists "
            f"play: {stale}.",
        ]
    return lines


def _page(page: ArchetypePageOutput) -> Answer:
    stock = page.aggregate
    spread = page.spread
    catch_all = (
        " It is a catch-all of lists no archetype rule names, not one deck: its stock list mixes different decks."
        if page.catch_all
        else ""
    )
    lines: list[Line] = [
        f"**{plain(page.archetype)} in {page.format}**, {dates(spread.metadata.period)}: "
        f"{stock.lists} lists.{catch_all}",
        "",
        *_matchup_lines(page),
        "",
        f"**The stock list**: {stock.method}. The main deck is {stock.main_size} cards (the lists' most common "
        f"size), the sideboard {stock.side_size}.",
        "",
        _section("Main deck", stock.mainboard),
        "",
        _section("Sideboard", stock.sideboard),
        "",
        *_best_lines(page),
        "",
        *_playbook_lines(page.archetype, page.playbook),
        "",
        "The stock 75, to paste into MTGO or Arena:",
        "```",
        stock.text,
        "```",
    ]
    if page.best_finish is not None:
        lines += ["", f"{plain(page.best_finish.player)}'s 75:", "```", page.best_finish.text, "```"]
    if spread.metadata.matches_from:
        lines += ["", sourced(spread.metadata.matches_from)]
    return compose(lines)


def page_answer(route: Route, known: ConversationState, done: Results) -> Answer:
    """The archetype's page; without an archetype named, the window's archetypes to choose from."""
    page = done.get(ArchetypePageOutput)
    if page is not None:
        return _page(page)
    listed = done.get(ArchetypesOutput)
    if listed is None:
        return Answer()
    names = ", ".join(plain(a.name) for a in listed.archetypes[:CHOICES_SHOWN])
    return Answer.of(f"Which archetype's page should I show? The most played in {listed.format}: {names}.")


def plan_page(route: Route, known: ConversationState) -> Calls:
    subject = route.archetype or route.opponent
    return [ToolCall(ARCHETYPE_PAGE.name, {"archetype": subject})] if subject else [ToolCall(ARCHETYPES.name)]


# the task's record is in tasks/meta.py, beside the meta answers' word reading ("Boros" read as Boros Energy)
PAGE_CUE = Cue(0, PAGE_WORDS, unless=OPPONENT_WORDS, needs_name=True)
