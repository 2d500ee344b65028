"""Card corpora: the project's MTGJSON-derived list, MTGJSON AtomicCards and Scryfall oracle cards."""

from __future__ import annotations

import contextlib
import math
import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from meta_mage.errors import echo
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

RawCard = Mapping[str, object]  # a card object of a corpus file as decoded, before it is read into a Card

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


def _number(obj: RawCard, key: str) -> float | None:
    """A numeric field (``cmc``, ``manaValue``), or a ValueError naming it: also for text such as ``"nan"`` or
    ``"1e400"``, or 5,000 digits, which ``float`` reads as NaN or infinity (DynamoDB stores neither)."""
    value = obj.get(key)
    if value is None:
        return None
    number = None
    if not isinstance(value, bool) and isinstance(value, int | float | str):
        with contextlib.suppress(ValueError, OverflowError):
            number = float(value)
    if number is None or not math.isfinite(number):
        raise ValueError(f"{key} is {echo(value)}, not a number")
    return number


def _letters(obj: RawCard, key: str) -> list[str] | None:
    """A colour field (a list of letters, or a string of them), or a ValueError naming it."""
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, list | str) or not all(isinstance(c, str) for c in value):
        raise ValueError(f"{key} is {value!r}, not a list of colour letters")
    return wubrg(value)


def _text(obj: RawCard, key: str) -> str | None:
    """A text field (``mana_cost``, ``type``...), or a ValueError naming it."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} is {value!r}, not text")
    return value


def _faces(obj: RawCard) -> list[RawCard]:
    faces = obj.get("card_faces") or []
    if not isinstance(faces, list) or not all(isinstance(f, dict) for f in faces):
        raise ValueError("card_faces is not a list of objects")
    return [face for face in faces if isinstance(face, dict)]


def _own_or_front(obj: RawCard, front: RawCard, key: str) -> str | None:
    """A text field of the card, else of its front face (a double-faced card keeps most fields there)."""
    return _text(obj, key) or _text(front, key)


def _scryfall_colors(obj: RawCard, front: RawCard, mana_cost: str | None) -> list[str]:
    colors = _letters(obj, "colors")
    if colors is None:
        colors = _letters(front, "colors") or mana_colors(mana_cost)
    return colors


def _scryfall_face(face: RawCard) -> CardFace:
    return CardFace.model_validate(
        {
            "name": face.get("name", ""),
            "mana_cost": face.get("mana_cost"),
            "type_line": face.get("type_line"),
            "oracle_text": face.get("oracle_text"),
        }
    )


def _from_scryfall(obj: RawCard) -> Card:
    faces = [_scryfall_face(f) for f in _faces(obj)]
    front: RawCard = (_faces(obj) or [{}])[0]
    mana_cost = _own_or_front(obj, front, "mana_cost")
    colors = _scryfall_colors(obj, front, mana_cost)
    return Card.model_validate(
        {
            "name": obj["name"],
            "mana_cost": mana_cost or None,
            "cmc": _number(obj, "cmc") or 0.0,
            "type_line": _own_or_front(obj, front, "type_line") or "",
            "colors": wubrg(colors),
            "color_identity": _letters(obj, "color_identity") or [],
            "oracle_text": obj.get("oracle_text") if "oracle_text" in obj else front.get("oracle_text"),
            "power": _own_or_front(obj, front, "power") or None,
            "toughness": _own_or_front(obj, front, "toughness") or None,
            "loyalty": _own_or_front(obj, front, "loyalty") or None,
            "layout": obj.get("layout", "normal"),
            "faces": faces,
        }
    )


def _from_mtgjson(obj: RawCard, name: str | None = None) -> Card:
    mana_cost = _text(obj, "manaCost")
    cmc = _number(obj, "manaValue") if "manaValue" in obj else _number(obj, "convertedManaCost")
    colors = _letters(obj, "colors")
    faces = []
    if back := obj.get("back"):
        faces = [CardFace(name=front_face(name or str(obj["name"]))), CardFace.model_validate({"name": back})]
    return Card.model_validate(
        {
            "name": name or obj["name"],
            "mana_cost": mana_cost or None,
            "cmc": cmc if cmc is not None else mana_value(mana_cost),
            "type_line": _text(obj, "type") or "",
            "colors": colors if colors is not None else mana_colors(mana_cost),
            "color_identity": _letters(obj, "colorIdentity") or [],
            "oracle_text": obj.get("text"),
            "power": _text(obj, "power") or None,
            "toughness": _text(obj, "toughness") or None,
            "loyalty": _text(obj, "loyalty") or None,
            "layout": obj.get("layout", "normal"),
            "faces": faces,
        }
    )


def _atomic_entries(data: RawCard) -> list[tuple[str, RawCard]]:
    """MTGJSON AtomicCards' ``{"Name": [face, ...]}``: the first face is the front."""
    return [
        ("mtgjson-atomic:" + name, faces[0])
        for name, faces in data.items()
        if isinstance(faces, list) and faces and isinstance(faces[0], dict)
    ]


def _list_entries(document: list[Any], source: str) -> list[tuple[str, RawCard]]:
    """A list of Scryfall or MTGJSON-derived cards, each of which needs a name."""
    entries: list[tuple[str, RawCard]] = []
    for index, obj in enumerate(document):
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"].strip():
            raise InputFileError(source, f"card #{index + 1}: every card needs a 'name' field (text)")
        kind = "scryfall" if "type_line" in obj or obj.get("object") == "card" else "mtgjson"
        entries.append((kind, obj))
    return entries


def _corpus_entries(document: Any, source: str) -> list[tuple[str, RawCard]]:
    """``(kind, card object)`` for every card of a corpus; kind names the parser, "mtgjson-atomic:<name>" the name."""
    if isinstance(document, dict) and isinstance(document.get("data"), dict):
        return _atomic_entries(document["data"])
    if isinstance(document, list):
        return _list_entries(document, source)
    raise InputFileError(
        source,
        "not a card corpus: expected a JSON list of cards (Scryfall oracle cards or the "
        "project's MTGJSON-derived corpus) or MTGJSON AtomicCards ({'data': {...}})",
    )


def _skipped(kind: str, obj: RawCard) -> bool:
    """Not a card for a deck; or an Un-set card (not tournament legal, and Unstable's variants repeat one name)."""
    return obj.get("layout") in _SKIPPED_LAYOUTS or (kind == "scryfall" and obj.get("set_type") == "funny")


def _parsed(kind: str, obj: RawCard) -> Card:
    if kind == "scryfall":
        return _from_scryfall(obj)
    if kind.startswith("mtgjson-atomic:"):
        return _from_mtgjson(obj, name=kind.split(":", 1)[1])
    return _from_mtgjson(obj)


def _entry_card(kind: str, obj: RawCard, source: str) -> Card:
    """The card of one corpus entry, or an :class:`InputFileError` saying which card is malformed and how."""
    try:
        return _parsed(kind, obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputFileError(source, f"card {obj.get('name')!r} is malformed ({where}: {first['msg']})") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise InputFileError(source, f"card {obj.get('name')!r} is malformed ({exc})") from exc


def _check_unseen(card: Card, seen_names: dict[str, str], source: str) -> None:
    """Refuse a name seen before (whole, Unicode-normalised and case-folded); remember it otherwise."""
    name_key = unicodedata.normalize("NFC", card.name).casefold()
    if name_key in seen_names:
        earlier = seen_names[name_key]
        also = "" if earlier == card.name else f" ({earlier!r} differs from it only in case or Unicode form)"
        raise InputFileError(source, f"card name {card.name!r} appears more than once{also}")
    seen_names[name_key] = card.name


def _keeps(current: Card | None, card: Card) -> bool:
    """Whether ``card`` takes a key ``current`` holds: two cards can share a front face ("Fire" vs "Fire // Ice"),
    and the single-faced one wins."""
    return current is None or (" // " in current.name and " // " not in card.name)


def parse_card_corpus(document: Any, source: str) -> list[Card]:
    """Cards of a corpus file in any supported shape; a repeated card name is an error."""
    cards: dict[str, Card] = {}
    seen_names: dict[str, str] = {}  # the whole name, Unicode-normalised and case-folded → as first seen
    for kind, obj in _corpus_entries(document, source):
        if _skipped(kind, obj):
            continue
        card = _entry_card(kind, obj, source)
        _check_unseen(card, seen_names, source)
        if _keeps(cards.get(card.key), card):
            cards[card.key] = card
    if not cards:
        raise InputFileError(source, "no cards found")
    return list(cards.values())


__all__ = ["card_key", "parse_card_corpus"]
