"""A name from data (a card's, a player's, a drafter's, an archetype's, a draft's) written into markdown as plain
text: whatever it holds, it renders as the characters it is, never as emphasis, a link, a table cell or HTML,
and no invisible character can reorder or hide what is around it."""

from __future__ import annotations

import re

# Invisible characters a name has no use for, removed (not shown as escapes): they draw nothing, so removing them
# changes nothing a reader sees but the order a bidi control would impose. Player identity drops them too
# (``names.player_identity``), so a name reads as the player it counts as.
INVISIBLE_RANGES: tuple[tuple[str, str, str], ...] = (
    ("\u061c", "\u061c", "Arabic letter mark"),
    ("\u200b", "\u200d", "zero-width space, non-joiner and joiner"),
    ("\u200e", "\u200f", "left-to-right and right-to-left marks"),
    ("\u202a", "\u202e", "bidi embeddings and overrides"),
    ("\u2060", "\u2060", "word joiner"),
    ("\u2066", "\u2069", "bidi isolates"),
    ("\ufeff", "\ufeff", "zero-width no-break space (byte-order mark)"),
)
_INVISIBLE = re.compile("[" + "".join(f"{low}-{high}" for low, high, _ in INVISIBLE_RANGES) + "]")
_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

# Characters that make markup anywhere in a line: backslash, emphasis, code, strikethrough, link and image
# brackets, HTML and autolinks, table cells, headings. An underscore is escaped unless it stands between two
# letters or digits (there, as in "abzan_houses", it can neither open nor close emphasis); an ampersand only where
# it starts an entity ("&#47;" would show as another character).
_INLINE_MARKUP = re.compile(r"[\\`*~\[\]<>|#]|(?<![^\W_])_|_(?![^\W_])|&(?=#?\w+;)")
# What starts a block at the beginning of a line: a list item, a quote, a setext underline, an ordered item.
_BLOCK_START = re.compile(r"^(\d*)([-+=.)])")


def without_invisible(text: str) -> str:
    """``text`` without bidi controls, direction marks and zero-width characters (``INVISIBLE_RANGES``)."""
    return _INVISIBLE.sub("", text)


def name_markdown(name: str) -> str:
    """``name`` as markdown that renders as the plain text it is: invisible characters removed, control
    characters and line breaks made spaces (spaces collapsed), and every character that could start markup
    backslash-escaped (an escaped character renders as itself). Names without such characters are unchanged."""
    text = " ".join(_LINE_BREAKS.sub(" ", without_invisible(name)).split())
    text = _INLINE_MARKUP.sub(lambda match: "\\" + match.group(0), text)
    return _BLOCK_START.sub(_escaped_block_start, text, count=1)


def _escaped_block_start(match: re.Match[str]) -> str:
    """A name's opening list, quote or underline marker escaped: "\\- x", "1\\. x" (a number alone stays)."""
    number, marker = match.groups()
    if number and marker not in ".)":
        return match.group(0)
    return f"{number}\\{marker}"


__all__ = ["INVISIBLE_RANGES", "name_markdown", "without_invisible"]
