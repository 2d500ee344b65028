"""Card data as stored and as returned by the tools."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from pydantic import BaseModel, Field

WUBRG = "WUBRG"
_SYMBOL = re.compile(r"\{([^}]*)\}")


def front_face(name: str) -> str:
    """The text before the first `` // `` (MTGO lists double-faced cards by front face)."""
    return name.split(" // ", 1)[0].strip()


@lru_cache(maxsize=1 << 16)  # every deck read or classified asks for the same few thousand names
def card_key(name: str) -> str:
    """Lookup key for a card name: front face, Unicode-normalised, case-folded."""
    return unicodedata.normalize("NFC", front_face(name)).casefold()


def wubrg(colors: Iterable[str]) -> list[str]:
    """Colours in WUBRG order, from a string or any iterable of colour letters."""
    letters = set(colors.upper()) if isinstance(colors, str) else {str(c).upper() for c in colors}
    return [c for c in WUBRG if c in letters]


def mana_value(mana_cost: str | None) -> float:
    """Mana value of a mana cost string such as ``{2}{W/U}{X}``."""
    total = 0.0
    for symbol in _SYMBOL.findall(mana_cost or ""):
        parts = symbol.upper().split("/")
        head = parts[0]
        if head.isdigit():
            total += int(head)  # {2}, and {2/W} counts 2
        elif head in {"X", "Y", "Z"}:
            continue
        elif head.startswith("H"):
            total += 0.5
        else:
            total += 1
    return total


def mana_colors(mana_cost: str | None) -> list[str]:
    """Colours appearing in a mana cost."""
    return wubrg(ch for symbol in _SYMBOL.findall(mana_cost or "") for ch in symbol.upper())


class CardFace(BaseModel):
    name: str
    mana_cost: str | None = None
    type_line: str | None = None
    oracle_text: str | None = None


class Card(BaseModel):
    """One Magic card (oracle data), keyed by its normalised front-face name."""

    name: str
    mana_cost: str | None = None
    cmc: float = 0.0
    type_line: str = ""
    colors: list[str] = Field(default_factory=list)
    color_identity: list[str] = Field(default_factory=list)
    oracle_text: str | None = None
    power: str | None = None  # as printed ("3", "*", "1+*"); None for a non-creature
    toughness: str | None = None
    loyalty: str | None = None  # a planeswalker's starting loyalty, as printed
    layout: str = "normal"
    faces: list[CardFace] = Field(default_factory=list)

    @property
    def key(self) -> str:
        return card_key(self.name)

    @property
    def is_land(self) -> bool:
        return "Land" in self.type_line.split("—")[0].split()
