"""An archetype's aggregate list by Frank Karsten's method: every card-copy (the k-th copy of a card) is worth the
number of lists that play at least k copies of that card, and the aggregate deck is the card-copies worth most,
as many as the lists' usual size. Main deck and sideboard are aggregated apart.

Rules stated once here:

- the size of each section is the most common size among the lists (a tie: the smaller size);
- card-copies are taken by their count of lists, most first; ties by the lists that play the card at all (the
  more widely played card first), then by its copies over all the lists, then by the lower copy number (so a
  card's 3rd copy never comes before its 2nd), then by the card's name;
- a sideboard card-copy that would give the card more copies over main and sideboard than any one list plays
  is passed over (the next one is taken), so the 75 never holds a fifth Lightning Bolt no list registered;
- a card-copy played by fewer than :data:`FLEX_SHARE` percent of the lists is a flex copy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

FLEX_SHARE = 50.0  # percent of lists: a chosen card-copy fewer lists play is a flex slot

Pile = Mapping[str, int]  # card name -> copies in one section of one list


@dataclass(frozen=True)
class CardCopies:
    """One card of the aggregate in one section: its copies there, and how the lists play it."""

    name: str
    copies: int  # in the aggregate
    lists_with: int  # lists that play at least one copy in this section
    average_copies: float  # among the lists that play it
    at_least: tuple[int, ...]  # lists that play at least k copies, for k = 1 .. copies
    flex_copies: int  # of its copies, those fewer than FLEX_SHARE % of the lists play


@dataclass(frozen=True)
class Section:
    """One aggregated section: its size by the rule, and its cards in the order they were chosen first."""

    size: int
    cards: tuple[CardCopies, ...]

    def counts(self) -> dict[str, int]:
        return {card.name: card.copies for card in self.cards}


@dataclass(frozen=True)
class AggregateDeck:
    """The aggregate 60 + 15 of ``lists`` lists."""

    lists: int
    main: Section
    side: Section


def usual_size(piles: Sequence[Pile]) -> int:
    """The most common number of cards among ``piles`` (a tie: the smaller)."""
    sizes = Counter(sum(pile.values()) for pile in piles)
    return min(sizes, key=lambda size: (-sizes[size], size)) if sizes else 0


def _at_least(piles: Sequence[Pile]) -> dict[str, list[int]]:
    """For each card, the lists that play at least k copies at index k - 1."""
    counts: dict[str, list[int]] = {}
    for pile in piles:
        for card, copies in pile.items():
            row = counts.setdefault(card, [])
            row.extend([0] * (copies - len(row)))
            for k in range(copies):
                row[k] += 1
    return counts


def _ranked(piles: Sequence[Pile]) -> list[tuple[str, int]]:
    """Every card-copy ``(card, k)``, best first by the module's rule."""
    counts = _at_least(piles)
    played = Counter[str]()
    for pile in piles:
        played.update(pile)
    copies = [(card, k) for card, row in counts.items() for k in range(1, len(row) + 1)]
    return sorted(copies, key=lambda ck: (-counts[ck[0]][ck[1] - 1], -counts[ck[0]][0], -played[ck[0]], ck[1], ck[0]))


def _choose(piles: Sequence[Pile], size: int, most: Mapping[str, int], taken: Mapping[str, int]) -> dict[str, int]:
    """The ``size`` best card-copies, a card's copies never above ``most`` less what ``taken`` holds already."""
    chosen: dict[str, int] = {}
    left = size
    for card, k in _ranked(piles):
        if not left:
            break
        if k != chosen.get(card, 0) + 1 or taken.get(card, 0) + k > most.get(card, k):
            continue
        chosen[card] = k
        left -= 1
    return chosen


def _section(piles: Sequence[Pile], chosen: Mapping[str, int], size: int) -> Section:
    counts = _at_least(piles)
    lists = len(piles)
    cards = []
    for name, copies in chosen.items():
        row = counts[name]
        total = sum(pile.get(name, 0) for pile in piles)
        flex = sum(1 for k in range(copies) if 100 * row[k] < FLEX_SHARE * lists)
        cards.append(CardCopies(name, copies, row[0], round(total / row[0], 2), tuple(row[:copies]), flex))
    return Section(size, tuple(cards))


def aggregate(mains: Sequence[Pile], sides: Sequence[Pile]) -> AggregateDeck:
    """The aggregate deck of the lists whose main decks are ``mains`` and sideboards ``sides`` (same order)."""
    if len(mains) != len(sides):
        raise ValueError("one sideboard per main deck")
    most: Counter[str] = Counter()
    for main, side in zip(mains, sides, strict=True):
        for card in set(main) | set(side):
            most[card] = max(most[card], main.get(card, 0) + side.get(card, 0))
    main_size, side_size = usual_size(mains), usual_size([side for side in sides if side])
    main = _choose(mains, main_size, most, {})
    side = _choose(sides, side_size, most, main)
    return AggregateDeck(len(mains), _section(mains, main, main_size), _section(sides, side, side_size))
