"""Names from data files (players, drafters, drafts) as plain text: markup is dropped where the name is read, so
no name can carry a tag into an answer, a page or a model's prompt (they are escaped there too)."""

from __future__ import annotations

import re
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
