"""Per-event aggregates computed at ingest time, and their summation into per-day items.

An aggregate is plain JSON so it can be stored compressed and summed without knowing its shape:

``format_part``: tournaments / decks / match totals, ``archetypes[A] = {decks, colors{WR: n},
strategy}`` and ``results[A][B] = [wins, losses, draws]`` (A's record against B; B may be
:data:`NO_DECKLIST`; ``results[A][A]`` holds mirrors, one win and one loss per decided match).

``card_part[A]``: per archetype, ``main``/``side`` ``{card: [decks, copies, wins, losses]}``
(wins and losses of the decks playing the card, mirrors excluded), ``side_vs {card: {B: [w, l]}}`` and
``main_vs`` alike (the record against each opponent of the decks playing the card in that section),
``record [w, l, d]`` (non-mirror), ``decks`` and ``lands`` (names that are lands).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from meta_mage.models.aggregates import add_counts
from meta_mage.models.tournaments import ParsedDeck, ParsedTournament

NO_DECKLIST = "(no decklist)"
AGGREGATE_VERSION = 2  # part of each event's digest: a new aggregate shape re-ingests unchanged files (2: main_vs)


def summarise_event(
    tournament: ParsedTournament, is_land: Callable[[str], bool]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The format-level and per-archetype card aggregates of one parsed tournament."""
    by_player: dict[str, ParsedDeck] = {}
    for deck in tournament.decks:
        if deck.archetype:
            by_player.setdefault(deck.player, deck)
            by_player.setdefault(deck.player.casefold(), deck)

    def deck_of(player: str) -> ParsedDeck | None:
        return by_player.get(player) or by_player.get(player.casefold())

    totals = {"matches": 0, "draws": 0, "byes": 0, "assigned_losses": 0, "unreported": 0}
    results: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    deck_records: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    deck_vs: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))

    for match in tournament.matches:
        if match.outcome in ("bye", "assigned_loss", "unreported"):
            totals[{"bye": "byes", "assigned_loss": "assigned_losses"}.get(match.outcome, "unreported")] += 1
            continue
        totals["matches"] += 1
        draw = match.outcome == "draw"
        totals["draws"] += draw
        d1, d2 = deck_of(match.player1), deck_of(match.player2)
        # Player1 is the winner of a decided match (MANIFEST §8); compute from games anyway.
        p1_record = [0, 0, 1] if draw else ([1, 0, 0] if match.p1_games > match.p2_games else [0, 1, 0])
        p2_record = [p1_record[1], p1_record[0], p1_record[2]]
        a1 = d1.archetype if d1 else None
        a2 = d2.archetype if d2 else None
        if a1 and a2 and a1 == a2:
            add_counts(results[a1][a1], [0, 0, 1] if draw else [1, 1, 0])
            continue
        for player_deck, arch, record, opponent in ((d1, a1, p1_record, a2), (d2, a2, p2_record, a1)):
            if player_deck is None or arch is None:
                continue
            add_counts(results[arch][opponent or NO_DECKLIST], record)
            add_counts(deck_records[id(player_deck)], record)
            if opponent:
                add_counts(deck_vs[id(player_deck)][opponent], record[:2])

    archetypes: dict[str, dict[str, Any]] = {}
    cards: dict[str, dict[str, Any]] = {}
    for deck in tournament.decks:
        arch = deck.archetype
        if not arch:
            continue
        entry = archetypes.setdefault(arch, {"decks": 0, "colors": {}, "strategy": deck.strategy})
        entry["decks"] += 1
        entry["colors"][deck.colors] = entry["colors"].get(deck.colors, 0) + 1
        stats = cards.setdefault(
            arch,
            {"decks": 0, "record": [0, 0, 0], "main": {}, "side": {}, "side_vs": {}, "main_vs": {}, "lands": []},
        )
        record = deck_records.get(id(deck), [0, 0, 0])
        stats["decks"] += 1
        add_counts(stats["record"], record)
        for section, pile in (("main", deck.mainboard), ("side", deck.sideboard)):
            for card, count in pile.items():
                row = stats[section].setdefault(card, [0, 0, 0, 0])
                add_counts(row, [1, count, record[0], record[1]])
        for section, pile in (("side_vs", deck.sideboard), ("main_vs", deck.mainboard)):
            for card in pile:
                for opponent, wl in deck_vs.get(id(deck), {}).items():
                    add_counts(stats[section].setdefault(card, {}).setdefault(opponent, [0, 0]), wl)
    for stats in cards.values():
        stats["lands"] = sorted(c for c in stats["main"] if is_land(c))

    format_part: dict[str, Any] = {
        "tournaments": 1,
        "decks": sum(a["decks"] for a in archetypes.values()),
        "decks_without_list": sum(1 for d in tournament.decks if not d.archetype),
        **totals,
        "archetypes": archetypes,
        "results": {a: {b: list(r) for b, r in row.items()} for a, row in results.items()},
    }
    return format_part, cards
