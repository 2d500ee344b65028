"""Names from data files (players, drafters, drafts) as plain text: markup is dropped where the name is read, so
no name can carry a tag into an answer, a page or a model's prompt (they are escaped there too)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from pydantic import BeforeValidator

_TAG = re.compile(r"<[^<>]*>")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def without_markup(value: Any) -> Any:
    """``value`` without HTML tags or angle brackets, its spaces collapsed (anything but a string as it is)."""
    if not isinstance(value, str):
        return value
    return " ".join(_TAG.sub(" ", value).replace("<", " ").replace(">", " ").split())


def plain_name(value: Any) -> Any:
    """``without_markup``, control characters and line breaks made spaces first."""
    return without_markup(_CONTROL.sub(" ", value)) if isinstance(value, str) else value


PlainName = BeforeValidator(plain_name)


# Letters of other scripts drawn like a Latin letter (Unicode's confusables for the Cyrillic and Greek letters
# that look identical to one in common fonts), read as that letter. Upper and lower case are mapped apart, as they
# look like different Latin letters (Greek capital Eta is an H, its small letter an n).
_LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic capitals, then small letters
        "А": "A", "В": "B", "Е": "E", "Ѕ": "S", "І": "I", "Ј": "J", "К": "K", "М": "M", "Н": "H", "О": "O",
        "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ү": "Y", "Һ": "H", "Ӏ": "I", "Ԛ": "Q", "Ԝ": "W",
        "а": "a", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
        "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "к": "k",
        # Greek capitals, then small letters
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
        "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "ι": "i", "α": "a", "ρ": "p", "κ": "k",
        "υ": "u", "ϲ": "c", "ϳ": "j",
    }
)  # fmt: skip
# Code points that draw nothing but are not format characters (Unicode's default-ignorable ones outside Cf):
# the combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation selectors, variation
# selectors, and the blank Braille pattern that renders as a space.
_INVISIBLE = frozenset((0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x2800, *range(0x180B, 0x1810))).union(
    range(0xFE00, 0xFE10), range(0xE0100, 0xE01F0)
)


def _visible(char: str) -> bool:
    return unicodedata.category(char) != "Cf" and ord(char) not in _INVISIBLE


@lru_cache(maxsize=16_384)  # a file names each player in every round
def player_identity(name: str) -> str:
    """Who a player's name means: two names are one player exactly when their identities are equal.

    The one rule for every comparison of players (a file's validation and bounds, the deck a pairing is
    credited to, the aggregates' players and pilots): the name without what draws nothing (Unicode's format
    characters: zero-width spaces and joiners, bidi marks and overrides, a byte-order mark; and the other
    default-ignorable code points), NFKC-normalised (fullwidth ``ＡＬＩＣＥ`` and ligatures read as plain letters,
    an accent typed as one character or two is one name), the Cyrillic and Greek letters drawn like Latin ones
    read as those (``_LOOK_ALIKES``), case folded, spaces collapsed. So ``"Ali\u200bce"``, ``"ＡＬＩＣＥ"``,
    ``"Аlice"`` (a Cyrillic A) and ``"alice"`` are one player (docs/data-and-sync.md, "Who a player is")."""
    if name.isascii():  # no format characters, look-alikes or compatibility forms
        return " ".join(name.casefold().split())
    visible = "".join(char for char in name if _visible(char))
    folded = unicodedata.normalize("NFKC", visible).translate(_LOOK_ALIKES).casefold()
    return " ".join(unicodedata.normalize("NFC", folded).split())
