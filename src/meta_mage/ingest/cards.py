"""Card corpora: the project's MTGJSON-derived list, MTGJSON AtomicCards and Scryfall oracle cards."""

from __future__ import annotations

from typing import Any

from meta_mage.ingest.errors import InputFileError
from meta_mage.models.cards import (
    Card,
    CardFace,
    card_key,
    front_face,
    mana_colors,
    mana_value,
    wubrg,
)

# Layouts that are not cards a player puts in a deck.
_SKIPPED_LAYOUTS = {
    "token",
    "double_faced_token",
    "emblem",
    "art_series",
    "planar",
    "scheme",
    "vanguard",
}


def _from_scryfall(obj: dict[str, Any]) -> Card:
    faces = [
        CardFace(
            name=f.get("name", ""),
            mana_cost=f.get("mana_cost"),
            type_line=f.get("type_line"),
            oracle_text=f.get("oracle_text"),
        )
        for f in obj.get("card_faces") or []
    ]
    front = (obj.get("card_faces") or [{}])[0]
    mana_cost = obj.get("mana_cost") or front.get("mana_cost")
    colors = obj.get("colors")
    if colors is None:
        colors = front.get("colors") or mana_colors(mana_cost)
    return Card(
        name=obj["name"],
        mana_cost=mana_cost or None,
        cmc=float(obj.get("cmc") or 0),
        type_line=obj.get("type_line") or front.get("type_line") or "",
        colors=wubrg(colors),
        color_identity=wubrg(obj.get("color_identity") or []),
        oracle_text=obj.get("oracle_text") if "oracle_text" in obj else front.get("oracle_text"),
        layout=obj.get("layout", "normal"),
        faces=faces,
    )


def _from_mtgjson(obj: dict[str, Any], name: str | None = None) -> Card:
    mana_cost = obj.get("manaCost")
    cmc = obj.get("manaValue", obj.get("convertedManaCost"))
    colors = obj.get("colors")
    faces = []
    if obj.get("back"):
        faces = [CardFace(name=front_face(name or obj["name"])), CardFace(name=obj["back"])]
    return Card(
        name=name or obj["name"],
        mana_cost=mana_cost or None,
        cmc=float(cmc) if cmc is not None else mana_value(mana_cost),
        type_line=obj.get("type") or "",
        colors=wubrg(colors) if colors is not None else mana_colors(mana_cost),
        color_identity=wubrg(obj.get("colorIdentity") or []),
        oracle_text=obj.get("text"),
        layout=obj.get("layout", "normal"),
        faces=faces,
    )


def parse_card_corpus(document: Any, source: str) -> list[Card]:
    """Cards of a corpus file in any supported shape; a repeated card name is an error."""
    entries: list[tuple[str, dict[str, Any]]] = []
    if isinstance(document, dict) and isinstance(document.get("data"), dict):
        # MTGJSON AtomicCards: {"data": {"Name": [face, ...]}}; the first face is the front.
        for name, faces in document["data"].items():
            if isinstance(faces, list) and faces and isinstance(faces[0], dict):
                entries.append(("mtgjson-atomic:" + name, faces[0]))
    elif isinstance(document, list):
        for obj in document:
            if not isinstance(obj, dict) or "name" not in obj:
                raise InputFileError(source, "every card needs a 'name' field")
            kind = "scryfall" if "type_line" in obj or obj.get("object") == "card" else "mtgjson"
            entries.append((kind, obj))
    else:
        raise InputFileError(
            source,
            "not a card corpus: expected a JSON list of cards (Scryfall oracle cards or the "
            "project's MTGJSON-derived corpus) or MTGJSON AtomicCards ({'data': {...}})",
        )

    cards: dict[str, Card] = {}
    seen_names: set[str] = set()
    for kind, obj in entries:
        if obj.get("layout") in _SKIPPED_LAYOUTS:
            continue
        try:
            if kind == "scryfall":
                card = _from_scryfall(obj)
            elif kind.startswith("mtgjson-atomic:"):
                card = _from_mtgjson(obj, name=kind.split(":", 1)[1])
            else:
                card = _from_mtgjson(obj)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputFileError(source, f"card {obj.get('name')!r} is malformed ({exc})") from exc
        if card.name in seen_names:
            raise InputFileError(source, f"card name {card.name!r} appears more than once")
        seen_names.add(card.name)
        # Two cards can share a front face ("Fire" vs "Fire // Ice"); the single-faced one wins.
        current = cards.get(card.key)
        if current is None or (" // " in current.name and " // " not in card.name):
            cards[card.key] = card
    if not cards:
        raise InputFileError(source, "no cards found")
    return list(cards.values())


__all__ = ["card_key", "parse_card_corpus"]
