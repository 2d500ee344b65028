"""Routing a user turn: the LLM's structured classification, or keyword rules in offline mode,
then slots merged into the conversation state by code."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from cachetools import TTLCache
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from pydantic import BaseModel
from rapidfuzz.distance import Levenshtein

from meta_mage.agent import prompts
from meta_mage.agent.follow_ups import CONTINUATIONS, TaskChoice, deck_against, follow_up
from meta_mage.agent.reading import PoolReading, Reading
from meta_mage.agent.state import (
    ConversationState,
    Pending,
    Route,
    RouteDecision,
    TurnContext,
)
from meta_mage.agent.tasks import DEFAULT_TASK, LLM_ROUTE_DECISION, TASKS, WORKFLOW_TASKS
from meta_mage.agent.tasks.archetype_page import PAGE_WORDS
from meta_mage.agent.tasks.task import OPPONENT_WORDS, named_task
from meta_mage.agent.tools import AgentTools
from meta_mage.models.drafts import DraftPoolResult, DraftSummary, ListDraftsOutput
from meta_mage.models.meta import MAX_DAYS, ArchetypesOutput, ListFormatsOutput, normalise_format
from meta_mage.models.tournaments import FORMATS

logger = logging.getLogger(__name__)

_CARD_LINE = re.compile(r"^\s*(?:SB:\s*)?\d{1,2}x?\s+[A-Za-z0-9\"'].*$")
_SECTION_LINE = re.compile(r"^\s*(?://\s*)?(sideboard|deck|mainboard|main deck|companion|commander)\s*:?\s*$", re.I)
_YES = re.compile(r"^\s*(y|yes|yep|yeah|yup|correct|right|exactly|confirmed?|that'?s (it|right|correct)|sure)\b", re.I)
_NO = re.compile(r"^\s*(n|no|nope|not really|wrong|incorrect)\b", re.I)
_COLORS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G", "colorless": "C", "colourless": "C"}
_TYPES = ("creature", "instant", "sorcery", "artifact", "enchantment", "planeswalker", "land", "battle")
_OPPONENT_CUE = re.compile(OPPONENT_WORDS, re.I)
_FOLLOW_UP = re.compile(r"^\s*(and|what about|how about|and what about|what if)\b", re.I)
_DRAFT_WORDS = r"\b(cube|draft|drafts|drafted|drafter|drafters|pool|picked|picks?|took)\b"
# words of a new request: a message without them only answers the question the coach asked
_REQUEST_WORDS = (
    r"\b(top|best|meta|metagame|matchups?|archetypes?|decks?|cards?|who|which|what are|how (does|do|should|can)"
    r"|optimi[sz]e|sideboard|mainboard|review|cube|drafts?|pool|trend\w*|win ?rates?)\b"
)
_WHAT_TO_PLAY = (
    r"\bwhat\b.{0,25}\b(should|could|can|to|would you)\b.{0,12}"
    r"\b(play|pick up|bring(?! (in|out)\b)|take(?! (in|out)\b)|run|sleeve)\b"
    r"|\bwhat'?s good\b|\bwhat is good\b|\bbest decks?\b|\bwhich decks?\b.{0,20}\b(good|best|strong)"
)
_MY_DECK = r"\b(my|i'?m|i am|i)\b.{0,30}\b(deck|list|75|sideboard|mainboard|main deck|play(ing)?)\b"
_ITS_RECORD = r"\b(its|it'?s|it|my)\b.{0,30}\b(matchups?|win ?rate|spread)\b"
_MY_RECORD = r"\bmy\b.{0,30}\b(matchups?|win ?rate|spread)\b"  # "my worst matchups": the player's deck, pasted or not
# while a deck is being coached, a record asked with no owner ("worst matchups?") is that deck's
_RECORD = r"\b(matchups?|win ?rate|spread)\b"
_COACHING = (
    r"\b(optimi[sz]e|improve|sideboard|mainboard|flex|swap|mulligan|how (should|do|can) i"
    r"|(bring|side|board|take) (in|out))\b"  # "what should I bring in against Zoo?" is sideboarding, not what to play
)
_META_WORDS = (
    r"\b(meta|metagame|top|best|good|tier|most played|popular|archetypes?|win ?rates?|matchups?|share|trend\w*"
    r"|rank|how does|how do .* do|vs\.?|versus|against)\b"
)
# "is X good against Y?", "how good is X?", "should I play X?", "what does X do against Y?": X is a card
_CARD_ASKED = re.compile(
    r"\b(?:is|are|how good is|how is)\s+(.+?)\s+(?:any\s+|still\s+|really\s+)?"
    r"(?:good|bad|worth (?:it|playing|a slot)|playable|strong|useful)\b"
    r"|\bhow good is\s+(.+?)(?=\s+(?:against|vs\.?|versus|into|in)\b|\s*[?.!]|\s*$)"
    r"|(?<!how )(?<!what )\bshould\s+i\s+(?:play|run|main ?deck|sideboard|side in|bring in|board in)\s+"
    r"(?!against\b|vs\b|versus\b|into\b|in\b|it\b)(.+?)(?=\s+(?:against|vs\.?|versus"
    r"|into|in|over|or)\b|\s*[?.!]|\s*$)"
    r"|\bwhat\s+does\s+(.+?)\s+(?:do|answer|hit|stop|beat|handle|take out)\b",
    re.I,
)
_ANOTHER_CARD = re.compile(r"^\s*(?:and|what about|how about)\s+(?!against\b|vs\b|versus\b)(.+?)\s*\??\s*$", re.I)
_NOT_CARD_WORDS = {  # words of a span that is about the player's deck or the meta, not a card
    "my",
    "your",
    "our",
    "it",
    "its",
    "they",
    "them",
    "this",
    "these",
    "those",
    "which",
    "what",
    "he",
    "she",
    "deck",
    "deck's",
    "decks",
    "list",
    "lists",
    "matchup",
    "matchups",
    "meta",
    "format",
    "archetype",
    "archetypes",
    "sideboard",
    "mainboard",
    "plan",
    "strategy",
    "anything",
    "something",
}
_BARE_DAYS = re.compile(r"\s*(?:(?:and\s+)?(?:what|how) about\s+(?:the\s+last\s+)?)?(\d{1,6})\s*\??\s*", re.I)
# what a short answer can fill in for the pending question; for a deck, its archetype too ("yes"/"no" included)
_ANSWERABLE = {"format", "days", "draft"}
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


M = TypeVar("M", bound=BaseModel)
NAMES_DAYS = 30  # the window of archetype names routing reads when the turn names none (the coach's default)
MAX_LOOKUPS = 64  # cached lookups: one per (format, window) asked, the drafts and each draft's pool


class Lookups:
    """Names the router matches against (formats, archetypes, drafts), read through the tools and cached.

    A lookup is a tool call through the graph's own runner (``AgentTools.run``: its timeout, its errors). A failed one
    (a timeout, an unreachable table or MCP server) is logged and told to the user in a ``thinking``
    note; routing then goes on without those names (the built-in format list for formats)."""

    def __init__(self, tools: AgentTools, max_age_seconds: float = 300) -> None:
        self.tools = tools
        # bounded: every window a player names is a key, so an unbounded map grew with the windows asked
        self._cache: TTLCache[str, Any] = TTLCache(maxsize=MAX_LOOKUPS, ttl=max_age_seconds)

    async def _cached(
        self, key: str, name: str, arguments: dict[str, Any], output: type[M], what: str, instead: str
    ) -> M | None:
        hit = self._cache.get(key)
        if hit is not None:
            return cast(M, hit)
        outcome = await self.tools.run(name, arguments)  # the graph's tool runner: its timeout, its errors
        if outcome.not_found:  # e.g. a format without data: an answer, not a failure
            return None
        if not outcome.ok or not isinstance(outcome.result, output):
            # routing goes on without these names; the tools report their own errors
            logger.warning("routing lookup %s failed (%s), %s: %s", name, what, instead, outcome.error)
            _thinking(f"Could not read {what} to understand your message; {instead}.")
            return None
        self._cache[key] = outcome.result
        return outcome.result

    async def formats(self) -> list[str]:
        result = await self._cached(
            "formats", "list_formats", {}, ListFormatsOutput, "the formats with data", "using the built-in list"
        )
        return [f.format for f in result.formats] if result and result.formats else list(FORMATS)

    async def archetypes(self, fmt: str, days: int = NAMES_DAYS) -> list[str]:
        """The archetypes played in ``fmt`` over the last ``days`` days, most played first (so an ambiguous
        word picks the popular deck): the window's day aggregates, not a year's."""
        result = await self._cached(
            f"arch:{fmt}:{days}",
            "get_format_archetypes",
            {"format": fmt, "days": days},
            ArchetypesOutput,
            f"the {fmt} archetype names",
            "going on without them",
        )
        return [a.name for a in result.archetypes] if result else []

    async def drafts(self) -> list[DraftSummary]:
        result = await self._cached(
            "drafts", "list_drafts", {}, ListDraftsOutput, "the imported drafts", "going on without them"
        )
        return result.drafts if result else []

    async def pool(self, draft_id: str) -> list[dict[str, Any]]:
        """A draft's whole pool with who took what (redacted names stay redacted)."""
        result = await self._cached(
            f"pool:{draft_id}",
            "get_draft_pool",
            {"draft_id": draft_id, "include_draft_results": True},
            DraftPoolResult,
            "the draft's pool",
            "going on without its card names",
        )
        return (result.cards or []) if result else []

    async def resolve_draft(self, text: str | None) -> str | None:
        """The id of the draft whose id or name ``text`` names (or contains), else None."""
        if not text:
            return None
        lower = text.lower()
        for draft in await self.drafts():
            words = [draft.draft_id.lower(), draft.draft_name.lower()]
            words += [w for w in re.findall(r"[a-z0-9]{4,}", draft.draft_name.lower()) if w not in {"cube", "draft"}]
            if any(re.search(rf"\b{re.escape(w)}\b", lower) for w in words):
                return draft.draft_id
        return None


def _thinking(text: str) -> None:
    """A ``thinking`` event for the user when called inside the graph's run (not in a bare lookup)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # outside a graph run: the log line is all there is
        return
    writer({"event": "thinking", "data": {"content": text}})


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.I) is not None


def resumed_question(message: str, known: ConversationState) -> str | None:
    """The question ``message`` answers when the coach is waiting for one (a format, a window, a draft,
    "yes, that's my deck", an archetype, or the list itself while a deck question waits), without the question's
    own decklist (that is in the state already); None when ``message`` is a new request: words that ask for
    something, or a list pasted while no deck question waits. The two are routed together, and the pending task
    stays the task, so nothing that question named is lost."""
    pending = known.pending
    asked = pending.route.question if pending is not None and pending.route is not None else None
    if not asked or pending is None or not answers_pending(message, pending):
        return None
    own = extract_decklist(asked)
    return str(asked.replace(own, " ") if own else asked)


def answers_pending(message: str, pending: Pending) -> bool:
    """Whether ``message`` answers the question ``pending`` asked, rather than asking something new."""
    return _list_answers(message, pending) if extract_decklist(message) else _words_answer(message, pending)


# words around a pasted list that only present it ("here's my deck:")
_PRESENTING_A_LIST = re.compile(r"\b(?:here'?s|here is|this is|it'?s|my|the|a|deck|decklist|list|75)\b", re.I)


def _list_answers(message: str, pending: Pending) -> bool:
    """A list pasted while a deck question waits ("How should I sideboard against Jeskai Blink?", then the list)
    answers it, unless the words with it ask for something else."""
    words = _PRESENTING_A_LIST.sub(" ", split_paste(message)[0])
    return pending.workflow == "deck_coaching" and not _has(_REQUEST_WORDS, words)


def _words_answer(message: str, pending: Pending) -> bool:
    """A short answer fills the slot the coach asked for (a yes or no confirms the suggested archetype)."""
    if pending.missing == "archetype_confirmation" and (_YES.match(message) or _NO.match(message)):
        return True
    deck_slots = {"archetype", "archetype_confirmation"} if pending.workflow == "deck_coaching" else set()
    return pending.missing in _ANSWERABLE | deck_slots and not _has(_REQUEST_WORDS, message)


async def read_message(message: str, known: ConversationState, lookups: Lookups, asked: str | None) -> Reading:
    """The slots and cues of ``message``; ``asked`` is the question it answers (see ``resumed_question``)."""
    words, deck = split_paste(message)  # the list read once (tidy and merge_slots ask for the same message's)
    reply = words.strip()
    question = f"{asked}\n{reply}" if asked else reply
    fmt = find_format(reply) or find_format(asked or "")
    days = _read_days(reply, asked, known)
    card = await _card_asked(question, fmt, days, known, lookups)
    # a word of the card's name ("Goryo's Vengeance") names no deck
    named_text = question.replace(card, " ") if card else question
    fmt, archetype, opponent, read_as = await _names_in_format(named_text, fmt, days, known, lookups)
    pool = await _pool_reading(question, known, lookups)
    confirms = _confirms(reply, known)
    slots: dict[str, Any] = {
        "format": fmt,
        "days": days,
        "archetype": archetype,
        "opponent": opponent,
        "card": card,
        "read_as": read_as,
        "has_decklist": deck is not None,
        "confirms_archetype": confirms,
        **_clamped(days),
    }
    has_deck = known.has_list or bool(known.archetype)
    coaching_now = "deck_coaching" in ((known.pending or Pending()).workflow, known.current_workflow)
    return Reading(
        follows_deck=deck is None and _follows_deck(reply, known, fmt, archetype or opponent),
        question=question,
        has_decklist=deck is not None,
        slots=slots,
        draft=pool.draft,
        card_filter=pool.card_filter,
        confirms=confirms,
        draft_words=pool.draft_words,
        in_cube=pool.in_cube,
        has_deck=has_deck,
        follow_word=bool(_FOLLOW_UP.match(question)),
        **_cues(
            question,
            has_deck=has_deck,
            pasted=deck is not None,
            card=card,
            coaching_now=coaching_now,
            names_unread=not (fmt or known.format),
        ),
    )


def _clamped(days: int | None) -> dict[str, int]:
    """A bare "999" is said and clamped, as tidy does for "999 days"."""
    return {"days": MAX_DAYS, "days_asked": days} if days is not None and days > MAX_DAYS else {}


def _confirms(reply: str, known: ConversationState) -> bool | None:
    """Yes or no to the suggested archetype (None when none awaits an answer, or the reply is neither)."""
    if not known.suggested_archetype or known.archetype:
        return None
    return True if _YES.match(reply) else False if _NO.match(reply) else None


def _cues(
    question: str,
    *,
    has_deck: bool,
    pasted: bool,
    card: str | None,
    coaching_now: bool = False,
    names_unread: bool = False,
) -> dict[str, bool]:
    """The words that name a workflow: the player's own deck, coaching, the format's metagame. ``names_unread``:
    no format is known yet, so no archetype could be read; words asking for a deck's page ("tell me about …")
    then ask about the format's decks."""
    # "what should I play in Pauper?" asks which deck is good: the format's rankings, not the user's list
    what_to_play = _has(_WHAT_TO_PLAY, question) and not pasted
    # with a deck on the table, "my worst matchups" / "its win rate" mean that deck's, and so does a bare
    # "worst matchups?" while that deck is being coached
    its_record = _has(_ITS_RECORD, question) or (coaching_now and _has(_RECORD, question))
    my_deck = _has(_MY_DECK, question) or _has(_MY_RECORD, question) or (has_deck and its_record)
    page_unread = names_unread and _has(PAGE_WORDS, question)
    return {
        "my_deck": my_deck and not what_to_play and not card,
        "coaching": _has(_COACHING, question),
        "meta_words": _has(_META_WORDS, question) or what_to_play or bool(card) or page_unread,
    }


async def _pool_reading(question: str, known: ConversationState, lookups: Lookups) -> PoolReading:
    """The draft ``question`` names and the colour, type, card or drafter it asks about in a pool."""
    in_cube = "cube_draft" in ((known.pending or Pending()).workflow, known.current_workflow)
    draft_words = _has(_DRAFT_WORDS, question)
    about_pool = draft_words or in_cube
    draft = await lookups.resolve_draft(question) if about_pool else None
    card_filter = _card_filter(question)
    pool_id = draft or (known.draft_id if about_pool else None)
    if pool_id and about_pool:  # a card or a drafter named in a question about the pool
        card_filter = {**(card_filter or {}), **await _pool_names(question, await lookups.pool(pool_id))} or None
    return PoolReading(in_cube, draft_words, draft, card_filter)


async def _names_in_format(
    text: str, fmt: str | None, days: int | None, known: ConversationState, lookups: Lookups
) -> tuple[str | None, str | None, str | None, str]:
    """The format, archetype and opponent ``text`` names, and what to say when the names belong to another format
    than the conversation's ("Boros Energy" asked in Pauper: Modern's deck, not Pauper's Boros Glint Hawk)."""
    archetype, opponent = await _read_names(text, fmt, days, known, lookups)
    elsewhere = None if fmt else await _named_elsewhere(text, known, (archetype, opponent), lookups)
    if elsewhere is None:
        return fmt, archetype, opponent, ""
    name, other, was = elsewhere
    archetype, opponent = await _read_names(text, other, days, known, lookups)
    note = _ELSEWHERE[" and " in name].format(name=name, other=other, was=was)
    return other, archetype, opponent, f"{note}, so this answer is about {other}."


_ELSEWHERE = {  # several names or one -> what the answer says first
    False: "{name} is not played in {was}; it is a {other} deck",
    True: "{name} are not played in {was}; they are {other} decks",
}


async def _named_elsewhere(
    text: str, known: ConversationState, read: tuple[str | None, str | None], lookups: Lookups
) -> tuple[str, str, str] | None:
    """(names, their format, the conversation's format) when ``text`` names in full archetypes the
    conversation's format does not have but another format does, and the names read in this format were only
    look-alikes (matched by a word): a name is never swapped for another format's look-alike without saying so."""
    active = known.format
    read_names = [name for name in read if name]
    if not active or (read_names and all(name.lower() in text.lower() for name in read_names)):
        return None  # with no format in the conversation the coach asks for one (blocking rule 1), never guesses
    found_in = await _formats_naming(text, active, lookups)
    if not found_in:
        return None
    other, found = next(iter(found_in.items()))
    return " and ".join(sorted(found, key=lambda name: text.lower().find(name.lower()))), other, active


async def _formats_naming(text: str, active: str | None, lookups: Lookups) -> dict[str, list[str]]:
    """The formats other than ``active`` whose archetypes ``text`` names in full (names ``active`` plays too
    left out), with those names."""
    here = {name.lower() for name in await lookups.archetypes(active)} if active else set()
    found_in: dict[str, list[str]] = {}
    for other in await lookups.formats():
        found = [n for n in await lookups.archetypes(other) if n.lower() not in here and _in_full(n, text)]
        if found and other != active:
            found_in[other] = found
    return found_in


def _in_full(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", text.lower()) is not None


def _follows_deck(reply: str, known: ConversationState, fmt: str | None, named: str | None) -> bool:
    """ "and against X?" / "what about X?" right after an answer about the player's deck, in its format."""
    last = known.route or Route()
    has_deck = known.has_list or bool(known.archetype)
    deck_format = known.deck_format or known.format
    return bool(
        has_deck
        and named
        and last.workflow == "deck_coaching"
        and _FOLLOW_UP.match(reply)
        and fmt in (None, deck_format)
    )


def _read_days(reply: str, asked: str | None, known: ConversationState) -> int | None:
    """The window the reply (else the question it answers) names; a bare number right after a question about
    a window, or one over a window, is one."""
    expecting_days = (known.pending or Pending()).missing == "days"
    days = find_days(reply, expecting_days) or (find_days(asked) if asked else None)
    if days is None and (expecting_days or known.current_workflow in ("meta_research", "deck_coaching")):
        bare = _BARE_DAYS.fullmatch(reply)  # "30" or "what about 30?" right after an answer over a window
        days = int(bare.group(1)) if bare and int(bare.group(1)) >= 1 else None
    return days


async def _card_asked(
    question: str, fmt: str | None, days: int | None, known: ConversationState, lookups: Lookups
) -> str | None:
    """The card a question asks about ("is Fatal Push good against Boros Energy?", "should I play Thoughtseize?",
    "what does Blood Moon do against Tron?") as typed (the card tool reads misspellings), unless it names a deck."""
    span = _card_span(question, known.route or Route())
    if span is None or len(span) < 3 or set(re.findall(r"[a-z']+", span.lower())) & _NOT_CARD_WORDS:
        return None
    active_format = fmt or known.deck_format or known.format
    names = await lookups.archetypes(active_format, days or known.days or NAMES_DAYS) if active_format else []
    words = set(re.findall(r"[a-z0-9'-]+", span.lower()))
    if any(words <= set(re.findall(r"[a-z0-9'-]+", name.lower())) for name in names):
        return None  # "is Jeskai Blink good in Modern?" asks about a deck
    return span


def _card_span(question: str, last: Route) -> str | None:
    """The words a card question puts where a card goes, or "and Unholy Heat?" after a card question."""
    found = _CARD_ASKED.search(question)
    again = _ANOTHER_CARD.match(question) if last.task == "card_question" else None
    asked = found or again
    if asked is None:
        return None
    span = next((g for g in asked.groups() if g), "").strip(" ?.,!'\"")
    if not found and (find_format(span) or find_days(span) is not None):
        return None  # "what about in Vintage?", "and the last 7 days?": the same card, another format or window
    return span


_PLACES = {"top": 0, "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}
_AFTER_PLACE = r"(?=\s*(?:$|[?.,!;:)]|(?:do|does|vs|versus|against|and|or|in|over|is|with|beat)\b))"
_PLACE = re.compile(  # "the top one", "the second deck", "the third" before a verb or "against"; "#2"
    rf"\bthe ({'|'.join(_PLACES)})(?: (?:one|deck|archetype)\b|{_AFTER_PLACE})|(?<!\w)#([1-9])\b",
    re.I,
)


def with_places(question: str, names: list[str]) -> str:
    """``question`` with "the top one", "the second", "#3" written as the archetype in that place of ``names``
    (the window's archetypes, most played first: the order of the top-decks table)."""

    def named(match: re.Match[str]) -> str:
        place = _PLACES[match.group(1).lower()] if match.group(1) else int(match.group(2)) - 1
        return names[place] if place < len(names) else match.group(0)

    return _PLACE.sub(named, question)


async def _read_names(
    question: str, fmt: str | None, days: int | None, known: ConversationState, lookups: Lookups
) -> tuple[str | None, str | None]:
    """The archetype and the opponent ``question`` names, matched against the names of the format it is about:
    a question about the pasted deck reads names in the deck's format, whatever the last question was about."""
    active_format = _names_format(question, fmt, known)
    window = days or known.days or NAMES_DAYS  # the names of the window the turn is about
    names = await lookups.archetypes(active_format, window) if active_format else []
    expecting = (known.pending or Pending()).missing in ("archetype", "archetype_confirmation")
    if not expecting:  # (an answer to "which archetype, then?" is not about the top-decks table)
        question = with_places(question, names)  # "how does the top one do against the second?"
    mentioned = find_archetypes(question, names)
    if active_format and window < MAX_DAYS and _older_names_count(question, mentioned, expecting):
        # a deck named in full that the window has not seen ("it's Mardu Energy"): a year's names, read only then
        older = [n for n in await lookups.archetypes(active_format, MAX_DAYS) if n not in names]
        mentioned = find_archetypes(question, names, older)
    return _sides(question, mentioned)


def _sides(question: str, mentioned: list[tuple[int, str]]) -> tuple[str | None, str | None]:
    """The archetype and the opponent among the names ``question`` mentions: the opponent is the first named
    after "against" (or "vs"), the archetype the first other name."""
    cue = _OPPONENT_CUE.search(question)
    opponent = next((n for pos, n in mentioned if cue and pos > cue.start()), None)
    archetype = next((n for pos, n in mentioned if n != opponent), None)
    return archetype, opponent


def _names_format(question: str, fmt: str | None, known: ConversationState) -> str | None:
    """The format whose names a question is read in: the one it names, the deck's for a question about the deck,
    else the conversation's."""
    about_deck = _has(r"\b(my|deck|list|sideboard|mainboard|how (should|do|can) i)\b", question)
    return fmt or (known.deck_format if about_deck else None) or known.format


def _older_names_count(question: str, mentioned: list[tuple[int, str]], expecting: bool) -> bool:
    """Whether names played before the window are worth reading: a name was matched by a word only ("Energy"
    for Boros Energy), or an awaited archetype was not found among the window's."""
    by_word = any(name.lower() not in question.lower() for _, name in mentioned)
    return by_word or (expecting and not mentioned)


def _task_named(workflow: str, reading: Reading) -> str:
    """The workflow's task whose cue the question matches (see each task's ``cues``), else its default."""
    tasks = [TASKS[name] for name in WORKFLOW_TASKS[workflow]]
    slots = reading.slots
    named = named_task(tasks, reading.question, slots["archetype"], slots["opponent"], slots.get("card"))
    return named or DEFAULT_TASK[workflow]


def _coaching_task(reading: Reading, state: ConversationState) -> TaskChoice:
    return _task_named("deck_coaching", reading), {}


def _draft_task(reading: Reading, state: ConversationState) -> TaskChoice:
    return _task_named("cube_draft", reading), {"draft": reading.draft, "card_filter": reading.card_filter}


def _confirmed_task(reading: Reading, state: ConversationState) -> TaskChoice:
    return (state.pending or Pending()).task or "deck_review", {}


def _meta_task(reading: Reading, state: ConversationState) -> TaskChoice:
    """The meta task the words name, or the follow-up of the last answer they make (``follow_ups.FOLLOW_UPS``)."""
    task = _task_named("meta_research", reading)
    return follow_up(reading, state, task) or (task, {})


def _about_a_deck(reading: Reading) -> bool:
    """A named archetype with its format, or with words asking for its page ("tell me about", "the stock list")."""
    return bool(reading.slots["format"]) or _has(PAGE_WORDS, reading.question)


@dataclass(frozen=True)
class Claim:
    """A workflow a message names when ``names`` holds, and how its task is chosen."""

    workflow: str
    names: Callable[[Reading], bool]
    task: Callable[[Reading, ConversationState], TaskChoice]
    confidence: float = 0.9


# Which workflow a message names, the most specific claim first: a pasted list or the player's own deck is
# coaching even when the words are the meta's; a draft is named by its words; a bare yes/no confirms the
# suggested archetype; meta words (or an archetype and a format) ask about the format. The first claim that
# holds decides; a message none claims continues the request in progress, or is asked to clarify.
CLAIMS: tuple[Claim, ...] = (
    Claim("deck_coaching", lambda r: r.follows_deck, deck_against),
    Claim(
        "deck_coaching",
        lambda r: r.has_decklist or (r.my_deck and not r.draft_words) or (r.coaching and (r.has_deck or r.my_deck)),
        _coaching_task,
    ),
    Claim("cube_draft", lambda r: r.draft_words or bool(r.draft), _draft_task),
    Claim("deck_coaching", lambda r: r.confirms is not None, _confirmed_task),
    Claim(
        "meta_research",
        lambda r: r.meta_words or bool(r.slots["archetype"] and not r.slots["opponent"] and _about_a_deck(r)),
        _meta_task,
        0.85,
    ),
)


async def decide_offline(message: str, known: ConversationState, lookups: Lookups) -> tuple[RouteDecision, str]:
    """The offline decision for a turn, and the question it answers: an answer to the coach's question
    (``resumed_question``) is read with that question, and the interrupted request stays the request. Its
    workflow is kept; a meta or draft task is read again with the answer (a format names the archetypes it
    could not match before), a deck's task as it was asked beside the list. Anything else is routed afresh."""
    asked = resumed_question(message, known)
    decision = await rule_route(message, known, lookups, asked)
    pending = known.pending
    if not asked or pending is None or pending.workflow is None:
        return decision, message
    if decision.workflow != pending.workflow or pending.workflow == "deck_coaching":
        task = pending.task or DEFAULT_TASK.get(pending.workflow, "none")
        decision = decision.model_copy(update={"workflow": pending.workflow, "task": task})
    return decision.model_copy(update={"confidence": max(decision.confidence, 0.9)}), f"{asked}\n{message}"


async def rule_route(
    message: str, known: ConversationState, lookups: Lookups, asked: str | None = None
) -> RouteDecision:
    """Offline routing: read the message (``read_message``), then the first of ``CLAIMS`` that holds picks the
    workflow and task; a message that only fills slots continues the request in progress. ``asked`` is the
    question ``message`` answers (see ``resumed_question``): the two are read as one request, with the format
    and window the answer gives winning over the question's."""
    reading = await read_message(message, known, lookups, asked)
    slots = dict(reading.slots)
    for claim in CLAIMS:
        if claim.names(reading):
            task, extra = claim.task(reading, known)
            return _decision(claim.workflow, task, claim.confidence, {**slots, **extra})
    follow_up = _continued(reading, known)
    if follow_up is not None:
        workflow, task, confidence, extra = follow_up
        return _decision(workflow, task, confidence, {**slots, **extra})
    return _decision("clarify", "none", 0.3, slots)


def _decision(workflow: str, task: str, confidence: float, slots: dict[str, Any]) -> RouteDecision:
    return RouteDecision.model_validate({"workflow": workflow, "task": task, "confidence": confidence, **slots})


def _continued(reading: Reading, known: ConversationState) -> tuple[str, str, float, dict[str, Any]] | None:
    """A message that only changes slots (a format, a window, a name, a pool filter) continues the request in
    progress as its workflow's rule in ``follow_ups.CONTINUATIONS`` says; None when there is none or the message
    fills nothing."""
    awaiting = known.pending
    if not (awaiting or known.current_workflow) or not _fills(reading):
        return None
    pending = awaiting or Pending()
    workflow = pending.workflow or known.current_workflow or "clarify"
    task = pending.task or known.current_task or DEFAULT_TASK.get(workflow, "none")
    task, extra = CONTINUATIONS[workflow](reading, known, task, pending.route or known.route or Route())
    return workflow, task, 0.8 if awaiting else 0.7, extra


def _fills(reading: Reading) -> bool:
    """The message fills a slot: a format, a window, a name, or (about a pool) a draft or a filter."""
    named = any(reading.slots[k] for k in ("format", "days", "archetype", "opponent"))
    return named or (reading.in_cube and bool(reading.draft or reading.card_filter))


async def _pool_names(text: str, pool: list[dict[str, Any]]) -> dict[str, str]:
    """``name_contains`` for a pool card named in ``text``, ``drafter`` for a drafter named in it."""
    lower = text.lower()
    found: dict[str, str] = {}
    for name in sorted({c["card_name"] for c in pool}, key=len, reverse=True):
        # a substring test first: a pattern per card of the pool would churn the re module's cache every turn
        if len(name) > 3 and name.lower() in lower and re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", lower):
            found["name_contains"] = name
            break
    drafters = {
        p for c in pool for p in [c.get("drafted_by"), *(a["drafted_by"] for a in c.get("additional_picks") or [])]
    }
    for drafter in sorted(filter(None, drafters), key=len, reverse=True):
        who = str(drafter).lower()
        if who in lower and re.search(rf"(?<!\w){re.escape(who)}(?!\w)", lower):
            found["drafter"] = str(drafter)
            break
    return found


def _card_filter(text: str) -> dict[str, str] | None:
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


def starting_with_a_question(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` from the first user message on: Bedrock refuses a conversation that starts with
    the assistant (the /welcome message, or a window cut between a question and its answer)."""
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            return list(messages[index:])
    return []


async def llm_route(model: BaseChatModel, turn: str, history: Sequence[BaseMessage]) -> RouteDecision:
    """The LLM's classification of the turn (``turn``: the player's message with its data blocks, from
    ``prompts.player_turn``), as a validated RouteDecision."""
    structured = model.with_structured_output(LLM_ROUTE_DECISION)
    recent = starting_with_a_question(history[-4:])
    prompt: list[BaseMessage] = [SystemMessage(prompts.router_prompt()), *recent, HumanMessage(turn)]
    decision = await structured.ainvoke(prompt)
    if not isinstance(decision, RouteDecision):
        decision = RouteDecision.model_validate(decision)
    return decision


def tidy(decision: RouteDecision, message: str) -> RouteDecision:
    """Code checks on a decision (from either router): valid format, a task that fits the workflow."""
    updates: dict[str, Any] = {}
    if decision.format:
        try:
            updates["format"] = normalise_format(decision.format)
        except ValueError:
            updates["format"] = None
    if decision.task not in WORKFLOW_TASKS[decision.workflow]:
        updates["task"] = DEFAULT_TASK.get(decision.workflow, "none")
    deck = extract_decklist(message)
    updates["has_decklist"] = deck is not None
    outside = days_outside_the_limit(split_paste(message)[0])
    if outside is not None:
        updates.update(days=min(MAX_DAYS, max(1, outside)), days_asked=outside)
        _thinking(f"{outside} days is outside the 1-{MAX_DAYS} days I can look at; using {updates['days']}.")
    return decision.model_copy(update=updates)


def merge_slots(
    known: ConversationState, decision: RouteDecision, context: TurnContext | None, message: str, draft_id: str | None
) -> dict[str, Any]:
    """State changes from dropdown context, then from the message's own slots (the message wins), then what
    those changes make stale."""
    updates = {**_given(context), **_said(known, decision, message, draft_id)}
    if (  # back to the deck after questions about another format: the deck keeps its own format and archetype
        decision.workflow == "deck_coaching"
        and not decision.format
        and not (context and context.format)
        and known.deck_format
        and updates.get("deck_text", known.deck_text) == known.deck_text
        and updates.get("format", known.format) != known.deck_format
    ):
        updates.update(format=known.deck_format, archetype=known.deck_archetype)
    return _stale(known, updates, decision, context)


def _given(context: TurnContext | None) -> dict[str, Any]:
    """The dropdowns' values, each for the slot of the same name."""
    if context is None:
        return {}
    given: dict[str, Any] = {"format": normalise_format(context.format)} if context.format else {}
    for key in ("days", "archetype", "opponent_archetype", "deck_text", "draft_id"):
        if value := getattr(context, key):
            given[key] = value
    return given


def _said(known: ConversationState, decision: RouteDecision, message: str, draft_id: str | None) -> dict[str, Any]:
    """The slots the message fills; a yes or no to the suggested archetype."""
    said: dict[str, Any] = {}
    answers_opponent = (known.pending or Pending()).missing == "opponent"
    for key, value in (
        ("format", decision.format),
        ("days", decision.days),
        ("opponent_archetype", decision.opponent or (decision.archetype if answers_opponent else None)),
        ("draft_id", draft_id),
        ("deck_text", extract_decklist(message)),
        ("archetype", decision.archetype if decision.workflow == "deck_coaching" and not answers_opponent else None),
    ):
        if value:
            said[key] = value
    suggested = known.suggested_archetype
    if suggested and not said.get("archetype", known.archetype):
        if decision.confirms_archetype:
            said["archetype"] = suggested
        elif decision.confirms_archetype is False:
            said.update(suggested_archetype=None, rejected_archetype=suggested)
    return said


def _stale(
    known: ConversationState, updates: dict[str, Any], decision: RouteDecision, context: TurnContext | None
) -> dict[str, Any]:
    """``updates`` plus what they make stale: a new list's derived facts, an old format's names, an archetype's
    statistics; and the format and archetype a confirmed deck keeps."""
    if updates.get("deck_text", known.deck_text) != known.deck_text:
        _clear_for_new_list(known, updates, context)
    if known.format and updates.get("format", known.format) != known.format:
        updates.update(matchup_stats=None, suggested_archetype=None)
        for key in ("archetype", "opponent_archetype"):  # names from the old format's metagame
            updates.setdefault(key, None)
    if updates.get("archetype", known.archetype) != known.archetype:
        updates["matchup_stats"] = None
    _keep_deck_identity(known, updates, decision)
    return updates


def _clear_for_new_list(known: ConversationState, updates: dict[str, Any], context: TurnContext | None) -> None:
    """A new list: what was derived from the old one no longer holds, nor does an earlier question's opponent."""
    updates.update(
        card_details=None,
        matchup_stats=None,
        suggested_archetype=None,
        rejected_archetype=None,
        deck_format=None,
        deck_archetype=None,
    )
    if updates.get("archetype", known.archetype) == known.archetype:
        updates["archetype"] = (context.archetype if context else None) or None
    if known.opponent_archetype and "opponent_archetype" not in updates and known.pending is None:
        updates["opponent_archetype"] = None  # an earlier question's opponent is not this deck's


def _keep_deck_identity(known: ConversationState, updates: dict[str, Any], decision: RouteDecision) -> None:
    """A deck confirmed in a format and archetype keeps them (a question about another format may come between)."""
    identity = (updates.get("format", known.format), updates.get("archetype", known.archetype))
    recorded = (updates.get("deck_format", known.deck_format), updates.get("deck_archetype", known.deck_archetype))
    confirmed = decision.workflow == "deck_coaching" and updates.get("deck_text", known.deck_text) and all(identity)
    if confirmed and identity != recorded:
        updates.update(deck_format=identity[0], deck_archetype=identity[1])
