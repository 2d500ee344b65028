"""Resolve pasted card names against the card data: exact, case-insensitive, front face, fuzzy."""

from __future__ import annotations

from meta_mage.deadline import check_deadline
from meta_mage.decks.names import closest_names, name_index
from meta_mage.decks.parse import MAX_COPIES, parse_deck_text
from meta_mage.errors import InvalidArgument
from meta_mage.models.cards import Card, card_key
from meta_mage.models.decks import CardDetail, EnrichedDeck, UnresolvedCard
from meta_mage.storage.cards import CardsRepository

__all__ = ["closest_names", "enrich_deck"]


def card_detail(card: Card, quantity: int, section: str) -> CardDetail:
    """A stored card as the deck tools read it (a split card's front face only, unless it is cast as one)."""
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
        index = name_index(cards.all_names())
        for name in dict.fromkeys(missing):
            check_deadline()
            best, suggestions[name] = index.closest(name)
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
            # kept at its count, so the deck still adds up to the player's own 60 + 15
            by_card[name, section] = CardDetail(name=name, quantity=quantity, section=section, unknown=True)  # type: ignore[arg-type]
        elif (card.name, section) in by_card:
            total = by_card[card.name, section].quantity + quantity
            if total > MAX_COPIES:
                raise InvalidArgument(
                    f"deck: {card.name} has {total} copies in total; at most {MAX_COPIES}", field="deck"
                )
            by_card[card.name, section].quantity = total
        else:
            by_card[card.name, section] = card_detail(card, quantity, section)
    details = list(by_card.values())
    main = [d for d in details if d.section == "mainboard"]
    counts = {
        "mainboard": sum(q for _, q, s in entries if s == "mainboard"),
        "sideboard": sum(q for _, q, s in entries if s == "sideboard"),
        "distinct_cards": len(details),
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
