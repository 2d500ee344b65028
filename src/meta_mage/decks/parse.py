"""Parse a pasted decklist: MTGO .txt, Arena export, "Sideboard" / "// Sideboard" / "SB:" markers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from meta_mage.errors import InvalidArgument

# Bounds on one pasted list, so a request's cost is bounded before any matching runs. The largest real
# list is a 100-card singleton deck with a 15-card sideboard; a draft pool is 45 cards.
MAX_LINES = 300  # every card on its own line twice over, with headers and blank lines
MAX_CARDS = 150  # distinct cards, the mainboard and sideboard counted apart: what the deck tools accept back
MAX_NAME_CHARS = 150  # the longest printed card name has 141 characters (an Un-card)
MAX_COPIES = 100
_LINE = re.compile(r"^(?:(?P<sb>SB:)\s*)?(?P<count>\d+)\s*x?\s+(?P<name>.+?)\s*$", re.IGNORECASE)
_ARENA_SET = re.compile(r"\s+\([A-Z0-9_]{2,6}\)\s+[\w-]+$")  # "Lightning Bolt (M10) 146"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SIDEBOARD_HEADER = re.compile(r"^(?://\s*)?sideboard:?$", re.IGNORECASE)
_IGNORED_HEADERS = re.compile(
    r"^(?://\s*)?(deck|main ?deck|mainboard|commander|companion|about|name .*):?$", re.IGNORECASE
)


@dataclass
class ParsedDeckList:
    """A pasted deck: ordered name → count per section, and lines that were not cards."""

    mainboard: dict[str, int] = field(default_factory=dict)
    sideboard: dict[str, int] = field(default_factory=dict)
    skipped_lines: list[str] = field(default_factory=list)


def parse_deck_text(text: str) -> ParsedDeckList:
    """Parse deck text; a blank line after mainboard cards starts the sideboard (MTGO .txt)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("deck is empty: paste a list such as '4 Lightning Bolt'", field="deck")
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) > MAX_LINES:
        raise InvalidArgument(f"deck has {len(lines)} lines; at most {MAX_LINES} are accepted", field="deck")
    deck = ParsedDeckList()
    section = deck.mainboard
    for number, raw in enumerate(lines, start=1):
        section = _read_line(deck, section, number, raw)
    if not deck.mainboard and not deck.sideboard:
        raise InvalidArgument("no card lines found; each line should look like '4 Lightning Bolt'", field="deck")
    if not deck.mainboard:  # everything landed after a leading blank line
        deck.mainboard, deck.sideboard = deck.sideboard, {}
    return deck


def _read_line(deck: ParsedDeckList, section: dict[str, int], number: int, raw: str) -> dict[str, int]:
    """Read line ``number`` into ``deck``; the section the next line goes to."""
    line = " ".join(_CONTROL.sub(" ", raw).split())  # tabs, NULs and other control characters are spaces
    if not line:
        return deck.sideboard if deck.mainboard and section is deck.mainboard else section
    if _SIDEBOARD_HEADER.match(line):
        return deck.sideboard
    if _IGNORED_HEADERS.match(line):
        return section
    match = _LINE.match(line)
    if not match:
        deck.skipped_lines.append(line)
        return section
    _add_card(deck, deck.sideboard if match.group("sb") else section, number, line, match)
    return section


def _add_card(deck: ParsedDeckList, target: dict[str, int], number: int, line: str, match: re.Match[str]) -> None:
    """Add a card line's copies to ``target``, within the bounds on one list."""
    name = _ARENA_SET.sub("", match.group("name")).strip()
    if len(name) > MAX_NAME_CHARS:
        raise InvalidArgument(
            f"line {number}: a card name of {len(name)} characters ({name[:40]!r}...); "
            f"at most {MAX_NAME_CHARS} are accepted",
            field="deck",
        )
    if name not in target and len(deck.mainboard) + len(deck.sideboard) >= MAX_CARDS:
        raise InvalidArgument(
            f"line {number} ({line[:60]!r}): the deck names more than {MAX_CARDS} different cards "
            f"(mainboard and sideboard counted apart); at most {MAX_CARDS} are accepted",
            field="deck",
        )
    count = int(match.group("count"))
    if count < 1 or count > MAX_COPIES:
        raise InvalidArgument(f"line {line!r}: a count must be between 1 and {MAX_COPIES}", field="deck")
    target[name] = target.get(name, 0) + count
    if target[name] > MAX_COPIES:
        raise InvalidArgument(f"deck: {name} has {target[name]} copies in total; at most {MAX_COPIES}", field="deck")
