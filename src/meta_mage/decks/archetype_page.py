"""One archetype's page over a window: its lists aggregated by Frank Karsten's method (``analytics/karsten.py``),
its best-finishing list, its playbook (``archetypes/playbooks.py``), its record and matchups from the matchup model
(``get_deck_matchup_stats``, unchanged), and both lists as MTGO / Arena import text (split cards by their full name).

The best-finishing list is the best placing among the archetype's lists from large events (those that published
at least :data:`LARGE_EVENT_LISTS` lists: every MTGO Challenge, the larger melee.gg events); ties go to the most
recent event, then the larger, then the event's and the player's names. With no list from a large event, every
event counts, and the page says so. The stored lists keep their placing, not their match record.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from meta_mage.analytics.karsten import FLEX_SHARE, AggregateDeck, CardCopies, aggregate
from meta_mage.analytics.meta import MetaService
from meta_mage.archetypes.classifier import UNKNOWN
from meta_mage.archetypes.playbooks import Playbook, playbook_for, staleness
from meta_mage.decks.post_board import deck_text
from meta_mage.errors import NotFound
from meta_mage.models.archetype_page import (
    AggregateList,
    ArchetypePageInput,
    ArchetypePageOutput,
    BestFinish,
    PageCard,
    PlaybookNotes,
    StaleCard,
)
from meta_mage.models.cards import card_key
from meta_mage.models.evidence import ArchetypeStats
from meta_mage.models.meta import DeckMatchupStatsInput, MatchupCell
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.meta import StoredDeck

LARGE_EVENT_LISTS = 32  # an MTGO Challenge publishes its top 32 lists
METHOD = (
    "Frank Karsten's aggregate: the k-th copy of a card counts the lists that play at least k copies; the main deck "
    "is the most common main-deck size of card-copies with the highest counts, the sideboard likewise (ties: the "
    "card more lists play, then the card with more copies over all the lists, then the lower copy number, then the "
    "name; no card above the most copies one list plays over its 75); a copy fewer than "
    f"{FLEX_SHARE:.0f}% of the lists play is a flex copy"
)
BEST_RULE = (
    f"the best placing among the lists from events that published {LARGE_EVENT_LISTS}+ lists (ties: the most "
    "recent event, then the larger)"
)
_PLACE = re.compile(r"\d+")


def _place(placing: str) -> int | None:
    """ "3rd Place" -> 3; None when the placing names no number."""
    found = _PLACE.search(placing)
    return int(found.group()) if found else None


def _cards(section: Iterable[CardCopies], lists: int, lands: frozenset[str]) -> list[PageCard]:
    """The section's cards, spells before lands, each group by copies, then inclusion, then name."""
    cards = [
        PageCard(
            name=card.name,
            copies=card.copies,
            inclusion=round(100 * card.lists_with / lists, 1),
            average_copies=card.average_copies,
            copy_shares=[round(100 * n / lists, 1) for n in card.at_least],
            flex_copies=card.flex_copies,
            land=card.name in lands,
        )
        for card in section
    ]
    return sorted(cards, key=lambda c: (c.land, -c.copies, -c.inclusion, c.name))


Printed = Mapping[str, str]  # a stored name -> the name the clients' import reads, where they differ


def printed_names(cards: CardsRepository, names: Iterable[str]) -> dict[str, str]:
    """The stored lists keep a card's front face; a split card (Wear // Tear, a Room) is imported by its full
    name, so its full name is the one written in import text (a double-faced card keeps its front face)."""
    wanted = {card_key(name): name for name in names}
    found = cards.get_many(list(wanted))
    return {wanted[key]: card.name for key, card in found.items() if card.layout == "split" and key in wanted}


def _text(main: Mapping[str, int], side: Mapping[str, int], printed: Printed) -> str:
    def named(pile: Mapping[str, int]) -> Counter[str]:
        return Counter({printed.get(name, name): copies for name, copies in pile.items()})

    return deck_text(named(main), named(side))


def aggregate_list(
    decks: Sequence[StoredDeck], lands: frozenset[str] = frozenset(), printed: Printed | None = None
) -> AggregateList:
    """``decks`` (one archetype's lists) aggregated by Karsten's method, with its import text."""
    deck: AggregateDeck = aggregate([d.mainboard for d in decks], [d.sideboard for d in decks])
    main = _cards(deck.main.cards, deck.lists, lands)
    side = _cards(deck.side.cards, deck.lists, lands)
    return AggregateList(
        lists=deck.lists,
        main_size=deck.main.size,
        side_size=deck.side.size,
        mainboard=main,
        sideboard=side,
        flex_below=FLEX_SHARE,
        method=METHOD,
        text=_text({c.name: c.copies for c in main}, {c.name: c.copies for c in side}, printed or {}),
    )


def best_finish(
    decks: Sequence[StoredDeck], event_lists: Counter[str], printed: Printed | None = None
) -> BestFinish | None:
    """The best-finishing list of ``decks`` by :data:`BEST_RULE`; ``event_lists``: lists per event key."""
    placed = [(place, d) for d in decks if (place := _place(d.placing)) is not None]
    large = [(place, d) for place, d in placed if event_lists[d.event_key] >= LARGE_EVENT_LISTS]
    pool = large or placed
    if not pool:
        return None

    def order(entry: tuple[int, StoredDeck]) -> tuple[int, int, int, str, str]:
        place, d = entry
        newest_first = -dt.date.fromisoformat(d.date[:10]).toordinal()
        return (place, newest_first, -event_lists[d.event_key], d.event_name, d.player)

    place, best = min(pool, key=order)
    return BestFinish(
        player=best.player,
        event=best.event_name,
        date=best.date,
        placing=best.placing,
        place=place,
        event_lists=event_lists[best.event_key],
        large_event=bool(large),
        rule=BEST_RULE if large else f"no list came from an event of {LARGE_EVENT_LISTS}+ lists: {BEST_RULE}",
        mainboard=dict(best.mainboard),
        sideboard=dict(best.sideboard),
        text=_text(best.mainboard, best.sideboard, printed or {}),
    )


def called(cells: Sequence[MatchupCell], verdict: str) -> list[MatchupCell]:
    """The cells the matchup model's verdict calls ``verdict``, the strongest first (by the model's estimate)."""
    chosen = [c for c in cells if c.verdict == verdict and c.estimate is not None]
    return sorted(chosen, key=lambda c: (c.estimate or 0) if verdict == "unfavoured" else -(c.estimate or 0))


def playbook_notes(book: Playbook | None, stats: ArchetypeStats) -> PlaybookNotes | None:
    """The playbook as the page shows it, with the engine cards the window's lists (``stats``) play too rarely."""
    if book is None:
        return None
    shares = {card_key(name): row.decks / stats.decks for name, row in stats.main.items()} if stats.decks else {}
    return PlaybookNotes(
        role=book.role,
        plan=book.plan,
        engine=list(book.engine),
        win_conditions=list(book.win_conditions),
        fast_mana=list(book.fast_mana),
        graveyard=list(book.graveyard),
        fears=list(book.fears),
        fears_why=book.fears_why,
        interaction=list(book.interaction),
        engine_share=round(100 * book.engine_share, 1),
        stale_engine=[
            StaleCard(name=name, share=round(100 * share, 1)) for name, share in staleness(book, shares).stale_cards
        ],
    )


def archetype_page(
    meta: MetaService, params: ArchetypePageInput, rules_dir: Path | None = None, cards: CardsRepository | None = None
) -> ArchetypePageOutput:
    """The page of ``params.archetype``: NotFound (naming the field) for an archetype the window does not hold;
    its playbook is read from ``rules_dir`` (none without it), split cards' full names from ``cards``."""
    spread = meta.deck_matchups(
        DeckMatchupStatsInput(format=params.format, archetype=params.archetype, days=params.days, as_of=params.as_of)
    )
    period = spread.metadata.period
    decks = meta.repository.format_decks(params.format, period.start, period.end)
    own = [d for d in decks if d.archetype == spread.archetype]
    if not own:
        raise NotFound(
            f"archetype: no lists of {spread.archetype} in {params.format} from {period.start} to {period.end}",
            field="archetype",
        )
    stats = meta.repository.archetype_stats(params.format, spread.archetype, period.start, period.end)
    book = playbook_for(rules_dir, params.format, spread.archetype) if rules_dir is not None else None
    played = {name for d in own for name in (*d.mainboard, *d.sideboard)}
    printed = printed_names(cards, played) if cards is not None else {}
    return ArchetypePageOutput(
        format=params.format,
        archetype=spread.archetype,
        catch_all=spread.archetype in meta.catch_alls(params.format, {spread.archetype}) | {UNKNOWN},
        aggregate=aggregate_list(own, frozenset(stats.lands), printed),
        best_finish=best_finish(own, Counter(d.event_key for d in decks), printed),
        playbook=playbook_notes(book, stats),
        favoured=called(spread.matchups, "favoured"),
        unfavoured=called(spread.matchups, "unfavoured"),
        spread=spread,
    )
