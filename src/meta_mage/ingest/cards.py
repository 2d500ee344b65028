"""Card corpora: the project's MTGJSON-derived list, MTGJSON AtomicCards and Scryfall oracle cards."""

from __future__ import annotations

import contextlib
import math
import unicodedata
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


def _number(obj: dict[str, Any], key: str) -> float | None:
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


def _letters(obj: dict[str, Any], key: str) -> list[str] | None:
    """A colour field (a list of letters, or a string of them), or a ValueError naming it."""
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, list | str) or not all(isinstance(c, str) for c in value):
        raise ValueError(f"{key} is {value!r}, not a list of colour letters")
    return wubrg(value)


def _text(obj: dict[str, Any], key: str) -> str | None:
    """A text field (``mana_cost``, ``type``...), or a ValueError naming it."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} is {value!r}, not text")
    return value


def _faces(obj: dict[str, Any]) -> list[dict[str, Any]]:
    faces = obj.get("card_faces") or []
    if not isinstance(faces, list) or not all(isinstance(f, dict) for f in faces):
        raise ValueError("card_faces is not a list of objects")
    return faces


def _from_scryfall(obj: dict[str, Any]) -> Card:
    faces = [
        CardFace(
            name=f.get("name", ""),
            mana_cost=f.get("mana_cost"),
            type_line=f.get("type_line"),
            oracle_text=f.get("oracle_text"),
        )
        for f in _faces(obj)
    ]
    front = (_faces(obj) or [{}])[0]
    mana_cost = _text(obj, "mana_cost") or _text(front, "mana_cost")
    colors = _letters(obj, "colors")
    if colors is None:
        colors = _letters(front, "colors") or mana_colors(mana_cost)
    return Card(
        name=obj["name"],
        mana_cost=mana_cost or None,
        cmc=_number(obj, "cmc") or 0.0,
        type_line=_text(obj, "type_line") or _text(front, "type_line") or "",
        colors=wubrg(colors),
        color_identity=_letters(obj, "color_identity") or [],
        oracle_text=obj.get("oracle_text") if "oracle_text" in obj else front.get("oracle_text"),
        power=_text(obj, "power") or _text(front, "power") or None,
        toughness=_text(obj, "toughness") or _text(front, "toughness") or None,
        loyalty=_text(obj, "loyalty") or _text(front, "loyalty") or None,
        layout=obj.get("layout", "normal"),
        faces=faces,
    )


def _from_mtgjson(obj: dict[str, Any], name: str | None = None) -> Card:
    mana_cost = _text(obj, "manaCost")
    cmc = _number(obj, "manaValue") if "manaValue" in obj else _number(obj, "convertedManaCost")
    colors = _letters(obj, "colors")
    faces = []
    if obj.get("back"):
        faces = [CardFace(name=front_face(name or obj["name"])), CardFace(name=obj["back"])]
    return Card(
        name=name or obj["name"],
        mana_cost=mana_cost or None,
        cmc=cmc if cmc is not None else mana_value(mana_cost),
        type_line=_text(obj, "type") or "",
        colors=colors if colors is not None else mana_colors(mana_cost),
        color_identity=_letters(obj, "colorIdentity") or [],
        oracle_text=obj.get("text"),
        power=_text(obj, "power") or None,
        toughness=_text(obj, "toughness") or None,
        loyalty=_text(obj, "loyalty") or None,
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
        for index, obj in enumerate(document):
            if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"].strip():
                raise InputFileError(source, f"card #{index + 1}: every card needs a 'name' field (text)")
            kind = "scryfall" if "type_line" in obj or obj.get("object") == "card" else "mtgjson"
            entries.append((kind, obj))
    else:
        raise InputFileError(
            source,
            "not a card corpus: expected a JSON list of cards (Scryfall oracle cards or the "
            "project's MTGJSON-derived corpus) or MTGJSON AtomicCards ({'data': {...}})",
        )

    cards: dict[str, Card] = {}
    seen_names: dict[str, str] = {}  # the whole name, Unicode-normalised and case-folded → as first seen
    for kind, obj in entries:
        if obj.get("layout") in _SKIPPED_LAYOUTS:
            continue
        if kind == "scryfall" and obj.get("set_type") == "funny":
            continue  # Un-set cards: not tournament legal, and Unstable's variants repeat one name
        try:
            if kind == "scryfall":
                card = _from_scryfall(obj)
            elif kind.startswith("mtgjson-atomic:"):
                card = _from_mtgjson(obj, name=kind.split(":", 1)[1])
            else:
                card = _from_mtgjson(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputFileError(source, f"card {obj.get('name')!r} is malformed ({where}: {first['msg']})") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise InputFileError(source, f"card {obj.get('name')!r} is malformed ({exc})") from exc
        name_key = unicodedata.normalize("NFC", card.name).casefold()
        if name_key in seen_names:
            earlier = seen_names[name_key]
            also = "" if earlier == card.name else f" ({earlier!r} differs from it only in case or Unicode form)"
            raise InputFileError(source, f"card name {card.name!r} appears more than once{also}")
        seen_names[name_key] = card.name
        # Two cards can share a front face ("Fire" vs "Fire // Ice"); the single-faced one wins.
        current = cards.get(card.key)
        if current is None or (" // " in current.name and " // " not in card.name):
            cards[card.key] = card
    if not cards:
        raise InputFileError(source, "no cards found")
    return list(cards.values())


__all__ = ["card_key", "parse_card_corpus"]
