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


@lru_cache(maxsize=16_384)  # a file names each player in every round
def player_identity(name: str) -> str:
    """Who a player's name means: two names are one player exactly when their identities are equal.

    The name as written, NFC-normalised (an accent typed as one character or as two is one name) and without
    Unicode's invisible format characters (category Cf: zero-width spaces and joiners, bidi marks, a byte-order
    mark), so ``"Ali\\u200bce"`` is ``"Alice"``; its spaces collapsed as ``without_markup`` collapses them. Case is
    kept: melee.gg's export has no player id, only each entrant's display name, so "Sam Hutson" and "sam hutson"
    in one event are two entrants (docs/data-and-sync.md, "Who a player is")."""
    if name.isascii():  # no format characters, and already NFC
        return " ".join(name.split())
    visible = "".join(char for char in name if unicodedata.category(char) != "Cf")
    return " ".join(unicodedata.normalize("NFC", visible).split())
