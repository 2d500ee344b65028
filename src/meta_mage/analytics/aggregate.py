"""Per-event aggregates computed at ingest time, typed (:class:`EventAggregate`); storage packs them as JSON
(``storage/meta/aggregate_items.py``), which sums without knowing its shape:

``format_part``: tournaments / decks / match totals, ``archetypes[A] = {decks, colors{WR: n},
strategy, pilots{player: decks}}``, ``results[A][B] = [wins, losses, draws]`` (A's record against B; B may be
:data:`NO_DECKLIST`; ``results[A][A]`` holds mirrors, one win and one loss per decided match),
``players[A][B] = {player: decided matches}`` (who played A's side of the decided A–B matches: the clusters
the effective sample sizes count) and ``sources[MTGO|melee|other] = {events, matches}`` (where the matches
come from: MTGO Challenge files hold only their top-8 playoff matches). Players are keyed by
``models.names.player_identity`` (case kept: within an event, "Sam Hutson" and "sam hutson" are two entrants).
Every match is counted once: the parse reads a pairing a round lists twice as one match.

``card_part[A]``: per archetype, ``main``/``side`` ``{card: [decks, copies, wins, losses]}``
(wins and losses of the decks playing the card, mirrors excluded), ``side_vs {card: {B: [w, l]}}`` and
``main_vs`` alike (the record against each opponent of the decks playing the card in that section),
``record [w, l, d]`` (non-mirror), ``decks`` and ``lands`` (names that are lands).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from meta_mage.models.aggregates import ArchetypeEntry, EventAggregate, FormatTotals, SourceCount, add_counts
from meta_mage.models.evidence import ArchetypeStats, CardRow, Record
from meta_mage.models.names import player_identity
from meta_mage.models.tournaments import ParsedDeck, ParsedMatch, ParsedTournament

NO_DECKLIST = "(no decklist)"
AGGREGATE_VERSION = 4  # part of each event's digest: a new aggregate shape, or a new reading of the files,
# re-ingests unchanged files (2: main_vs; 3: players, pilots, sources; 4: a match listed twice counted once,
# players by identity, case kept)


# Matches not played, and the format total each counts towards.
_UNPLAYED_TOTALS = {"bye": "byes", "assigned_loss": "assigned_losses", "unreported": "unreported"}


def _deck_finder(tournament: ParsedTournament) -> Callable[[str], ParsedDeck | None]:
    """A player's deck with an archetype, by the player's identity (a pairing's "sam hutson" is not "Sam Hutson")."""
    by_player: dict[str, ParsedDeck] = {}
    for deck in tournament.decks:
        if deck.archetype:
            by_player.setdefault(player_identity(deck.player), deck)

    def deck_of(player: str) -> ParsedDeck | None:
        return by_player.get(player_identity(player))

    return deck_of


def _player1_record(match: ParsedMatch, draw: bool) -> list[int]:
    """Player 1's ``[wins, losses, draws]``; player 1 wins a decided match (MANIFEST §8), counted from games anyway."""
    if draw:
        return [0, 0, 1]
    return [1, 0, 0] if match.p1_games > match.p2_games else [0, 1, 0]


@dataclass
class _MatchTally:
    """The event's match totals, archetype-against-archetype results, and each deck's non-mirror record."""

    deck_of: Callable[[str], ParsedDeck | None]
    totals: dict[str, int] = field(
        default_factory=lambda: {"matches": 0, "draws": 0, "byes": 0, "assigned_losses": 0, "unreported": 0}
    )
    results: dict[str, dict[str, list[int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    )
    deck_records: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    deck_vs: dict[int, dict[str, list[int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: [0, 0]))
    )
    players: dict[str, dict[str, dict[str, int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    )

    def add(self, match: ParsedMatch) -> None:
        unplayed = _UNPLAYED_TOTALS.get(match.outcome)
        if unplayed is not None:
            self.totals[unplayed] += 1
            return
        self.totals["matches"] += 1
        draw = match.outcome == "draw"
        self.totals["draws"] += draw
        d1, d2 = self.deck_of(match.player1), self.deck_of(match.player2)
        p1_record = _player1_record(match, draw)
        p2_record = [p1_record[1], p1_record[0], p1_record[2]]
        a1 = d1.archetype if d1 else None
        a2 = d2.archetype if d2 else None
        if a1 and a1 == a2:  # a mirror counts in results[A][A] only, not in the decks' records
            add_counts(self.results[a1][a1], [0, 0, 1] if draw else [1, 1, 0])
            return
        self._add_side(d1, a1, p1_record, a2)
        self._add_side(d2, a2, p2_record, a1)

    def _add_side(self, deck: ParsedDeck | None, arch: str | None, record: list[int], opponent: str | None) -> None:
        """One player's side of a non-mirror match, when the player has a deck with an archetype."""
        if deck is None or arch is None:
            return
        add_counts(self.results[arch][opponent or NO_DECKLIST], record)
        add_counts(self.deck_records[id(deck)], record)
        if opponent:
            add_counts(self.deck_vs[id(deck)][opponent], record[:2])
            if not record[2]:
                self.players[arch][opponent][player_identity(deck.player)] += 1


@dataclass
class _CardTally:
    """One archetype's card statistics as its decks are counted (``card_part``), in plain lists until ``stats``."""

    decks: int = 0
    record: Record = field(default_factory=Record)
    main: dict[str, list[int]] = field(default_factory=dict)  # card: [decks, copies, wins, losses]
    side: dict[str, list[int]] = field(default_factory=dict)
    main_vs: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # card: {opponent: [wins, losses]}
    side_vs: dict[str, dict[str, list[int]]] = field(default_factory=dict)

    def add(self, deck: ParsedDeck, tally: _MatchTally) -> None:
        """Count one deck: every card with the deck's record, and per opponent."""
        wins, losses, draws = tally.deck_records.get(id(deck), [0, 0, 0])
        self.decks += 1
        self.record += Record(wins, losses, draws)
        for rows, pile in ((self.main, deck.mainboard), (self.side, deck.sideboard)):
            for card, count in pile.items():
                if (row := rows.get(card)) is None:
                    rows[card] = [1, count, wins, losses]
                else:
                    row[0] += 1
                    row[1] += count
                    row[2] += wins
                    row[3] += losses
        against = tally.deck_vs.get(id(deck))
        if not against:
            return
        for versus, pile in ((self.side_vs, deck.sideboard), (self.main_vs, deck.mainboard)):
            for card in pile:
                by_opponent = versus.setdefault(card, {})
                for opponent, (won, lost) in against.items():
                    if (counts := by_opponent.get(opponent)) is None:
                        by_opponent[opponent] = [won, lost]
                    else:
                        counts[0] += won
                        counts[1] += lost

    def stats(self, is_land: Callable[[str], bool]) -> ArchetypeStats:
        lands = tuple(sorted(card for card in self.main if is_land(card)))
        return ArchetypeStats(
            self.decks,
            self.record,
            {card: CardRow(*row) for card, row in self.main.items()},
            {card: CardRow(*row) for card, row in self.side.items()},
            _records(self.main_vs),
            _records(self.side_vs),
            lands,
        )


def _records(versus: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, Record]]:
    return {card: {opponent: Record(*wl) for opponent, wl in row.items()} for card, row in versus.items()}


@dataclass
class _ArchetypeTally:
    """One archetype's lists as they are counted: how many, their colours and pilots, its strategy."""

    strategy: str | None
    decks: int = 0
    colors: dict[str, int] = field(default_factory=dict)
    pilots: dict[str, int] = field(default_factory=dict)

    def add(self, deck: ParsedDeck) -> None:
        self.decks += 1
        pilot = player_identity(deck.player)
        self.pilots[pilot] = self.pilots.get(pilot, 0) + 1
        self.colors[deck.colors] = self.colors.get(deck.colors, 0) + 1

    def entry(self) -> ArchetypeEntry:
        return ArchetypeEntry(decks=self.decks, colors=self.colors, strategy=self.strategy, pilots=self.pilots)


def summarise_event(tournament: ParsedTournament, is_land: Callable[[str], bool]) -> EventAggregate:
    """The format-level and per-archetype card aggregates of one parsed tournament."""
    tally = _MatchTally(_deck_finder(tournament))
    for match in tournament.matches:
        tally.add(match)
    archetypes: dict[str, _ArchetypeTally] = {}
    cards: dict[str, _CardTally] = {}
    for deck in tournament.decks:
        if deck.archetype:
            archetypes.setdefault(deck.archetype, _ArchetypeTally(deck.strategy)).add(deck)
            cards.setdefault(deck.archetype, _CardTally()).add(deck, tally)
    totals = tally.totals
    format_part = FormatTotals(
        tournaments=1,
        decks=sum(entry.decks for entry in archetypes.values()),
        decks_without_list=sum(1 for d in tournament.decks if not d.archetype),
        matches=totals["matches"],
        draws=totals["draws"],
        byes=totals["byes"],
        assigned_losses=totals["assigned_losses"],
        unreported=totals["unreported"],
        archetypes={name: entry.entry() for name, entry in archetypes.items()},
        results={a: {b: Record(*counts) for b, counts in row.items()} for a, row in tally.results.items()},
        players={a: {b: dict(who) for b, who in row.items()} for a, row in tally.players.items()},
        sources={tournament.source: SourceCount(events=1, matches=totals["matches"])},
    )
    return EventAggregate(format_part, {name: card.stats(is_land) for name, card in cards.items()})
