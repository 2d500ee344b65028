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


# the card data's fields a deck tool reads, as they are stored
_DETAIL_FIELDS = {"mana_cost", "cmc", "type_line", "colors", "color_identity", "oracle_text", "power", "toughness"}


def card_detail(card: Card, quantity: int, section: str) -> CardDetail:
    """A stored card as the deck tools read it (a split card's front face only, unless it is cast as one)."""
    whole = " // " not in card.name or card.layout in ("split", "aftermath")
    return CardDetail(
        name=card.name if whole else card.name.split(" // ")[0],
        quantity=quantity,
        section=section,  # type: ignore[arg-type]
        **card.model_dump(include=_DETAIL_FIELDS),
    )


Entry = tuple[str, int, str]  # a pasted line: name, copies, section


def enrich_deck(text: str, cards: CardsRepository) -> EnrichedDeck:
    """Parse and enrich a pasted list. At most three requests: batch get, name index, batch get."""
    deck = parse_deck_text(text)
    entries: list[Entry] = [(n, q, "mainboard") for n, q in deck.mainboard.items()]
    entries += [(n, q, "sideboard") for n, q in deck.sideboard.items()]
    found = cards.get_many([card_key(n) for n, _, _ in entries])
    missing = [n for n, _, _ in entries if card_key(n) not in found]
    corrected, suggestions = _corrections(missing, cards)
    if missing:
        found.update(cards.get_many([card_key(n) for n in corrected.values()]))
    details, unresolved = _details(entries, found, corrected, suggestions)
    return EnrichedDeck(
        card_details=details,
        counts=_counts(entries, details, unresolved),
        unresolved=unresolved,
        corrected=corrected,
        skipped_lines=deck.skipped_lines,
    )


def _corrections(missing: list[str], cards: CardsRepository) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The card each name not found is read as (when one is close enough), and the suggestions for each."""
    corrected: dict[str, str] = {}
    suggestions: dict[str, list[str]] = {}
    if not missing:
        return corrected, suggestions
    index = name_index(cards.all_names())
    for name in dict.fromkeys(missing):
        check_deadline()
        best, suggestions[name] = index.closest(name)
        if best:
            corrected[name] = best
    return corrected, suggestions


def _details(
    entries: list[Entry], found: dict[str, Card], corrected: dict[str, str], suggestions: dict[str, list[str]]
) -> tuple[list[CardDetail], list[UnresolvedCard]]:
    """One entry per card and section (lines naming one card, "bolt" and "Bolt", become one), and the names
    not in the card data."""
    by_card: dict[tuple[str, str], CardDetail] = {}
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
            _add_copies(by_card[card.name, section], quantity)
        else:
            by_card[card.name, section] = card_detail(card, quantity, section)
    return list(by_card.values()), unresolved


def _add_copies(detail: CardDetail, quantity: int) -> None:
    total = detail.quantity + quantity
    if total > MAX_COPIES:
        raise InvalidArgument(f"deck: {detail.name} has {total} copies in total; at most {MAX_COPIES}", field="deck")
    detail.quantity = total


def _counts(entries: list[Entry], details: list[CardDetail], unresolved: list[UnresolvedCard]) -> dict[str, int]:
    main = [d for d in details if d.section == "mainboard"]
    return {
        "mainboard": sum(q for _, q, s in entries if s == "mainboard"),
        "sideboard": sum(q for _, q, s in entries if s == "sideboard"),
        "distinct_cards": len(details),
        "lands": sum(d.quantity for d in main if "Land" in (d.type_line or "")),
        "creatures": sum(d.quantity for d in main if "Creature" in (d.type_line or "")),
        "unresolved": sum(u.quantity for u in unresolved),
    }
