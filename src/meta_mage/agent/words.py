"""The player's words read as values: a pasted decklist, a format, a window in days, archetype names among known
ones, a pool filter. Plain text in, plain values out: no conversation state, no data look-ups (``lookups`` reads
the names these match against; ``reading`` puts them together into one ``Reading``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from meta_mage.models.meta import MAX_DAYS
from meta_mage.models.tournaments import FORMATS

OPPONENT_WORDS = r"\b(against|vs\.?|versus|facing|beat|into)\b"  # the words that name whom a deck plays
# The words that ask for an archetype's page when the question names one
PAGE_WORDS = (
    r"\btell me (?:more )?about\b|\bstock\b|\bdeck ?lists?\b|\blists? looks? like\b"
    r"|\bwhat (?:does|do) .{0,40}\blooks? like\b|\bwhat'?s in\b"
    r"|\b(?:typical|usual|standard|aggregate|average)\b.{0,40}\b(?:list|deck ?list|75|build)\b"
)
_CARD_LINE = re.compile(r"^\s*(?:SB:\s*)?\d{1,2}x?\s+[A-Za-z0-9\"'].*$")
_SECTION_LINE = re.compile(r"^\s*(?://\s*)?(sideboard|deck|mainboard|main deck|companion|commander)\s*:?\s*$", re.I)
YES = re.compile(r"^\s*(y|yes|yep|yeah|yup|correct|right|exactly|confirmed?|that'?s (it|right|correct)|sure)\b", re.I)
NO = re.compile(r"^\s*(n|no|nope|not really|wrong|incorrect)\b", re.I)
_COLORS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G", "colorless": "C", "colourless": "C"}
_TYPES = ("creature", "instant", "sorcery", "artifact", "enchantment", "planeswalker", "land", "battle")
_COMMON_WORDS = {
    "deck", "decks", "mono", "control", "aggro", "combo", "midrange", "tempo", "ramp", "the", "against",
    "good", "best", "meta", "modern", "legacy", "pauper", "pioneer", "standard", "vintage", "with", "from",
    "what", "which", "does", "play", "cards", "card", "about", "their", "there", "other", "list",
    "and", "end", "key", "for", "you", "how", "who", "its", "one", "top", "day", "days", "last", "over",
}  # fmt: skip
# Players' shorthand for decks whose names do not contain the word (every word of a name, short ones
# like "Zoo" too, already names its most played deck): the first of the candidates played in the window.
ALIASES: dict[str, tuple[str, ...]] = {
    "cascade": ("Living End", "Crashing Footfalls"),
    "rhinos": ("Crashing Footfalls", "Temur Rhinos"),
    "reanimator": ("Goryo's Reanimator", "Reanimator"),
    "murktide": ("Izzet Murktide", "Dimir Murktide"),
    "scam": ("Rakdos Scam", "Grief Scam"),
    "8cast": ("Affinity",),
    "creativity": ("Indomitable Creativity",),
    "yawg": ("Yawgmoth Samwise", "Yawgmoth"),
    "dredge": ("Loam Dredge", "Dredge"),
    "uw": ("Azorius Control",),
}


@functools.lru_cache(maxsize=16)
def extract_decklist(text: str) -> str | None:
    """The decklist inside a message (six or more "4 Card Name" lines), or None.

    Read once per message: the route's steps (``resumed_question``, ``rule_route``, ``tidy``,
    ``merge_slots``) each ask for the same message's list, and the answer is remembered (a message is at
    most ``max_message_chars`` long; the last 16 are kept)."""
    lines = text.splitlines()
    card_rows = [i for i, line in enumerate(lines) if _CARD_LINE.match(line)]
    if len(card_rows) < 6:
        return None
    start, end = card_rows[0], card_rows[-1]
    if start > 0 and _SECTION_LINE.match(lines[start - 1]):
        start -= 1
    block = [
        line
        for line in lines[start : end + 1]
        if not line.strip() or _CARD_LINE.match(line) or _SECTION_LINE.match(line)
    ]
    return "\n".join(block).strip()


def split_paste(message: str) -> tuple[str, str | None]:
    """``message`` as the player's words and the decklist pasted in it (None when there is none): the list's lines
    go to the list, every other line (a question, a comment such as "// burn" between cards) to the words."""
    pasted = extract_decklist(message)
    if pasted is None:
        return message, None
    listed = {line.strip() for line in pasted.splitlines() if line.strip()}
    words = [line for line in message.splitlines() if line.strip() not in listed]
    return "\n".join(words), pasted


def find_format(text: str) -> str | None:
    """The format named in ``text``; a one-letter slip in a word of five letters or more ("moderm",
    "standart") still names it."""
    for fmt in FORMATS:
        if re.search(rf"\b{fmt}\b", text, re.I):
            return fmt
    for word in re.findall(r"[a-z]{5,}", text.lower()):
        close = [fmt for fmt in FORMATS if Levenshtein.distance(word, fmt.lower(), score_cutoff=1) <= 1]
        if len(close) == 1:
            return close[0]
    return None


def asked_days(text: str) -> int | None:
    """The window a message names in days ("30 days", "2 weeks", "9999 days"), as asked: not clamped."""
    lower = text.lower()
    rules: list[tuple[str, int]] = [
        (r"\b(\d{1,6})\s*-?\s*(?:days?|d)\b", 1),
        (r"\b(\d{1,4})\s*-?\s*weeks?\b", 7),
        (r"\b(\d{1,3})\s*-?\s*months?\b", 30),
    ]
    for pattern, scale in rules:
        match = re.search(pattern, lower)
        if match:
            return int(match.group(1)) * scale
    return None


def days_outside_the_limit(text: str) -> int | None:
    """The days a message asks for when they are outside 1-365 (the window then used is clamped)."""
    days = asked_days(text)
    return days if days is not None and not 1 <= days <= MAX_DAYS else None


def find_days(text: str, expecting_days: bool = False) -> int | None:
    """A window length: "30 days", "last 2 weeks", "past month"; a bare number if one was asked for.
    A window outside 1-365 days is clamped to it (``days_outside_the_limit`` tells the user)."""
    lower = text.lower()
    days = asked_days(text)
    if days is not None:
        return min(MAX_DAYS, max(1, days))
    words = {"a week": 7, "last week": 7, "past week": 7, "this week": 7, "two weeks": 14, "fortnight": 14,
             "three weeks": 21, "a month": 30, "last month": 30, "past month": 30, "this month": 30,
             "two months": 60}  # fmt: skip
    for phrase, days in words.items():
        if phrase in lower:
            return days
    if expecting_days:  # the last line: an answer may follow the question it answers
        match = re.fullmatch(r"\s*(\d{1,6})\s*\.?\s*", (lower.strip().splitlines() or [""])[-1])
        if match and int(match.group(1)) >= 1:
            return int(match.group(1))  # over 365 is clamped (and said) by the caller
    return None


def find_archetypes(text: str, known: list[str], older: Sequence[str] = ()) -> list[tuple[int, str]]:
    """Archetypes named in ``text`` with their position: full names first, then distinctive words.

    ``known`` is ordered most played first, so an ambiguous word ("Energy") picks the popular deck. ``older``
    names (played outside the window) count only when named in full: "Mardu Energy" is Mardu Energy even in a
    window without it, but "Energy" alone stays the window's deck.
    """
    lower = text.lower()
    found, taken = _full_names(lower, [*known, *older])
    owners = _word_owners(known)
    for match in re.finditer(r"[a-z0-9][a-z0-9'-]{2,}", lower):  # "Zoo" and "End" are words of names too
        word = match.group(0).replace("'", "")
        if word in _COMMON_WORDS or any(s <= match.start() < e for s, e in taken):  # inside a full name
            continue
        owner = owners.get(word) or (owners.get(word[:-1]) if _plural(word) else None)
        if owner:
            found.append((match.start(), owner))
    return sorted(found)


def _plural(word: str) -> bool:
    return word.endswith("s") and len(word) > 4  # "Blinks", not "Ross"


def _full_names(lower: str, names: list[str]) -> tuple[list[tuple[int, str]], list[tuple[int, int]]]:
    """Names written in full in ``lower``, longest first (a span is one name's), and the spans they take."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", lower):
            span = match.span()
            if not any(s < span[1] and span[0] < e for s, e in taken):
                taken.append(span)
                found.append((span[0], name))
    return found, taken


def _word_owners(known: list[str]) -> dict[str, str]:
    """Each word of a name (and each alias) -> its most played archetype: one pass, not one per word."""
    owners: dict[str, str] = {}
    for name in known:
        for word in re.findall(r"[a-z][a-z'-]+", name.lower()):
            owners.setdefault(word.replace("'", ""), name)  # "goryos" names Goryo's Reanimator
    by_lower = {name.lower(): name for name in known}
    for alias, candidates in ALIASES.items():
        owner = next((by_lower[c.lower()] for c in candidates if c.lower() in by_lower), None)
        if owner:
            owners.setdefault(alias, owner)
    return owners


def has(pattern: str, text: str) -> bool:
    """Whether ``pattern`` occurs in ``text``, case aside."""
    return re.search(pattern, text, re.I) is not None


_PLACES = {"top": 0, "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}
_AFTER_PLACE = r"(?=\s*(?:$|[?.,!;:)]|(?:do|does|vs|versus|against|and|or|in|over|is|with|beat)\b))"
_PLACE = re.compile(  # "the top one", "the second deck", "the third" before a verb or "against"; "#2"
    rf"\bthe ({'|'.join(_PLACES)})(?: (?:one|deck|archetype)\b|{_AFTER_PLACE})|(?<!\w)#([1-9])\b",
    re.I,
)


# "against the most played deck", "vs the top deck", "beat the best deck": whom the format's first archetype plays
MOST_PLAYED = re.compile(
    rf"(?P<cue>{OPPONENT_WORDS}\s+)(?P<deck>the (?:most played|most popular|top|best)(?: (?:deck|archetype|one)\b)?)"
    r"(?=\s*(?:[?.!,;:]|$)|\s+(?:in|over|for|and|or|right now)\b)",  # "against the top decks": the field
    re.I,
)


def with_places(question: str, names: list[str]) -> str:
    """``question`` with "the top one", "the second", "#3" written as the archetype in that place of ``names``
    (the window's archetypes, most played first: the order of the top-decks table)."""

    def named(match: re.Match[str]) -> str:
        place = _PLACES[match.group(1).lower()] if match.group(1) else int(match.group(2)) - 1
        return names[place] if place < len(names) else match.group(0)

    return _PLACE.sub(named, question)


@dataclass(frozen=True)
class PoolEntry:
    """A card of a draft's pool as the player may name it: its name and who took its copies."""

    card_name: str
    drafters: tuple[str, ...] = ()


async def pool_names(text: str, pool: Sequence[PoolEntry]) -> dict[str, str]:
    """``name_contains`` for a pool card named in ``text``, ``drafter`` for a drafter named in it."""
    lower = text.lower()
    found: dict[str, str] = {}
    for name in sorted({c.card_name for c in pool}, key=len, reverse=True):
        # a substring test first: a pattern per card of the pool would churn the re module's cache every turn
        if len(name) > 3 and name.lower() in lower and re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", lower):
            found["name_contains"] = name
            break
    drafters = {drafter for c in pool for drafter in c.drafters}
    for drafter in sorted(filter(None, drafters), key=len, reverse=True):
        who = drafter.lower()
        if who in lower and re.search(rf"(?<!\w){re.escape(who)}(?!\w)", lower):
            found["drafter"] = drafter
            break
    return found


def card_filter(text: str) -> dict[str, str] | None:
    """The colour (one only) and card type ``text`` asks about in a pool, or None."""
    found: dict[str, str] = {}
    lower = text.lower()
    colors = [code for word, code in _COLORS.items() if re.search(rf"\b{word}\b", lower)]
    if len(colors) == 1:
        found["color"] = colors[0]
    for kind in _TYPES:
        if re.search(rf"\b{kind}s?\b", lower):
            found["type_contains"] = kind.capitalize()
            break
    return found or None
