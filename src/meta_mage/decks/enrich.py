"""Resolve pasted card names against the card data: exact, case-insensitive, front face, fuzzy."""

from __future__ import annotations

import difflib

from meta_mage.decks.parse import MAX_COPIES, parse_deck_text
from meta_mage.errors import InvalidArgument
from meta_mage.models.cards import Card, card_key
from meta_mage.models.decks import CardDetail, EnrichedDeck, UnresolvedCard
from meta_mage.storage.cards import CardsRepository

MAX_EDIT_DISTANCE = 2


def edit_distance(a: str, b: str, limit: int = MAX_EDIT_DISTANCE) -> int:
    """Levenshtein distance, giving up early (returning ``limit + 1``) past ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def closest_names(name: str, names: list[str]) -> tuple[str | None, list[str]]:
    """The single best name within the edit limit (if any) and up to 3 suggestions. A card's short
    name ("Phlage" for "Phlage, Titan of Fire's Fury") is matched before spelling mistakes."""
    key = card_key(name)
    short = [n for n in names if ", " in n and card_key(n.split(", ")[0]) == key]
    if len(short) == 1:
        return short[0], short
    scored = sorted((d, n) for n in names if (d := edit_distance(key, card_key(n))) <= MAX_EDIT_DISTANCE)
    best = scored[0][1] if scored and (len(scored) == 1 or scored[0][0] < scored[1][0]) else None
    suggestions = [n for _, n in scored[:3]] or difflib.get_close_matches(name, names, n=3, cutoff=0.75)
    return best, suggestions


def _detail(card: Card, quantity: int, section: str) -> CardDetail:
    return CardDetail(
        name=card.name
        if " // " not in card.name or card.layout in ("split", "aftermath")
        else card.name.split(" // ")[0],
        quantity=quantity,
        section=section,  # type: ignore[arg-type]
        mana_cost=card.mana_cost,
        cmc=card.cmc,
        type_line=card.type_line,
        colors=card.colors,
        color_identity=card.color_identity,
        oracle_text=card.oracle_text,
    )


def enrich_deck(text: str, cards: CardsRepository) -> EnrichedDeck:
    """Parse and enrich a pasted list. At most three requests: batch get, name index, batch get."""
    deck = parse_deck_text(text)
    entries = [(n, q, "mainboard") for n, q in deck.mainboard.items()]
    entries += [(n, q, "sideboard") for n, q in deck.sideboard.items()]
    found = cards.get_many([card_key(n) for n, _, _ in entries])
    missing = [n for n, _, _ in entries if card_key(n) not in found]
    corrected: dict[str, str] = {}
    suggestions: dict[str, list[str]] = {}
    if missing:
        names = cards.all_names()
        for name in dict.fromkeys(missing):
            best, suggestions[name] = closest_names(name, names)
            if best:
                corrected[name] = best
        found.update(cards.get_many([card_key(n) for n in corrected.values()]))
    by_card: dict[tuple[str, str], CardDetail] = {}  # lines naming one card ("bolt", "Bolt") become one entry
    unresolved: list[UnresolvedCard] = []
    for name, quantity, section in entries:
        card = found.get(card_key(corrected.get(name, name)))
        if card is None:
            unresolved.append(
                UnresolvedCard(name=name, quantity=quantity, section=section, suggestions=suggestions.get(name, []))
            )
        elif (card.name, section) in by_card:
            total = by_card[card.name, section].quantity + quantity
            if total > MAX_COPIES:
                raise InvalidArgument(
                    f"deck: {card.name} has {total} copies in total; at most {MAX_COPIES}", field="deck"
                )
            by_card[card.name, section].quantity = total
        else:
            by_card[card.name, section] = _detail(card, quantity, section)
    details = list(by_card.values())
    main = [d for d in details if d.section == "mainboard"]
    counts = {
        "mainboard": sum(q for _, q, s in entries if s == "mainboard"),
        "sideboard": sum(q for _, q, s in entries if s == "sideboard"),
        "distinct_cards": len(details) + len(unresolved),
        "lands": sum(d.quantity for d in main if "Land" in (d.type_line or "")),
        "creatures": sum(d.quantity for d in main if "Creature" in (d.type_line or "")),
        "unresolved": sum(u.quantity for u in unresolved),
    }
    return EnrichedDeck(
        card_details=details,
        counts=counts,
        unresolved=unresolved,
        corrected=corrected,
        skipped_lines=deck.skipped_lines,
    )
