"""What one user message says, read once (``read_message``): the slots it fills and the cues that name a workflow,
from the player's words (``words``) matched against the data's names (``lookups``). Routing (``router.CLAIMS``)
and the follow-up rules (``follow_ups``) are look-ups over it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict

from meta_mage.agent.lookups import NAMES_DAYS, Lookups
from meta_mage.agent.state import ConversationState, Pending, Route
from meta_mage.agent.words import (
    MOST_PLAYED,
    NO,
    OPPONENT_WORDS,
    PAGE_WORDS,
    YES,
    card_filter,
    find_archetypes,
    find_days,
    find_format,
    has,
    pool_names,
    split_paste,
    with_places,
)
from meta_mage.models.meta import MAX_DAYS

_OPPONENT_CUE = re.compile(OPPONENT_WORDS, re.I)
_FOLLOW_UP = re.compile(r"^\s*(and|what about|how about|and what about|what if)\b", re.I)
_DRAFT_WORDS = r"\b(cube|draft|drafts|drafted|drafter|drafters|pool|picked|picks?|took)\b"
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
_CARDS_NAMED_AFTER = ("card_question", "strategy")  # answers after which "and Force of Vigor?" asks about a card
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


@dataclass(frozen=True)
class PoolReading:
    """What a message says about a cube draft: its words, the draft it names, the pool filter it asks for."""

    in_cube: bool  # the pending or current request is about a cube draft
    draft_words: bool
    draft: str | None
    card_filter: dict[str, str] | None


class Slots(TypedDict, total=False):
    """The slots of a routing decision a message fills, each named as ``RouteDecision`` names it."""

    format: str | None
    days: int | None
    days_asked: int | None
    archetype: str | None
    opponent: str | None
    card: str | None
    read_as: str
    has_decklist: bool
    confirms_archetype: bool | None
    draft: str | None
    card_filter: dict[str, str] | None


@dataclass(frozen=True)
class Reading:
    """What one message says (with the question it answers, if any), read once: the slots it fills and the
    cues that name a workflow."""

    question: str  # the question answered, then the reply, without any decklist
    has_decklist: bool
    slots: Slots
    draft: str | None  # a draft the message names
    card_filter: dict[str, str] | None  # colour, type, card or drafter asked about in a pool
    confirms: bool | None  # yes/no to the suggested archetype
    draft_words: bool  # names a cube draft or its pool
    in_cube: bool  # the pending or current request is about a cube draft
    my_deck: bool  # names the player's own deck
    coaching: bool  # asks for coaching (optimise, sideboard, how should I…)
    meta_words: bool  # asks about the format's metagame
    has_deck: bool  # a deck is on the table (pasted now or earlier)
    follows_deck: bool = False  # "and against X?" after an answer about the player's deck
    follow_word: bool = False  # starts "and …", "what about …", "how about …"
    names_own_deck: bool = False  # answers "which opponent?" with the player's own deck ("no, it's Mono Red …")


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
    fmt, archetype, opponent, read_as = await _names_in_format(
        named_text, fmt, days, known, lookups, pasted=deck is not None
    )
    pool = await _pool_reading(question, known, lookups)
    confirms = _confirms(reply, known)
    slots: Slots = {
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
    has_deck = known.has_deck
    coaching_now = "deck_coaching" in ((known.pending or Pending()).workflow, known.current_workflow)
    return Reading(
        follows_deck=deck is None and has_deck and _follows_deck(reply, known, fmt, archetype or opponent),
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
        names_own_deck=_names_own_deck(archetype, known),
        **_cues(
            question,
            has_deck=has_deck,
            pasted=deck is not None,
            card=card,
            coaching_now=coaching_now,
            names_unread=not (fmt or known.format),
        ),
    )


def _names_own_deck(archetype: str | None, known: ConversationState) -> bool:
    """The archetype named in answer to "which opponent?" is the player's own deck."""
    own = (known.archetype, known.deck_archetype)
    return (known.pending or Pending()).missing == "opponent" and archetype is not None and archetype in own


def _clamped(days: int | None) -> Slots:
    """A bare "999" is said and clamped, as tidy does for "999 days"."""
    return {"days": MAX_DAYS, "days_asked": days} if days is not None and days > MAX_DAYS else {}


def _confirms(reply: str, known: ConversationState) -> bool | None:
    """Yes or no to the suggested archetype (None when none awaits an answer, or the reply is neither)."""
    if not known.suggested_archetype or known.archetype:
        return None
    return True if YES.match(reply) else False if NO.match(reply) else None


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
    what_to_play = has(_WHAT_TO_PLAY, question) and not pasted
    # with a deck on the table, "my worst matchups" / "its win rate" mean that deck's, and so does a bare
    # "worst matchups?" while that deck is being coached
    its_record = has(_ITS_RECORD, question) or (coaching_now and has(_RECORD, question))
    my_deck = has(_MY_DECK, question) or has(_MY_RECORD, question) or (has_deck and its_record)
    page_unread = names_unread and has(PAGE_WORDS, question)
    return {
        "my_deck": my_deck and not what_to_play and not card,
        "coaching": has(_COACHING, question),
        "meta_words": has(_META_WORDS, question) or what_to_play or bool(card) or page_unread,
    }


async def _pool_reading(question: str, known: ConversationState, lookups: Lookups) -> PoolReading:
    """The draft ``question`` names and the colour, type, card or drafter it asks about in a pool."""
    in_cube = "cube_draft" in ((known.pending or Pending()).workflow, known.current_workflow)
    draft_words = has(_DRAFT_WORDS, question)
    about_pool = draft_words or in_cube
    draft = await lookups.resolve_draft(question) if about_pool else None
    asked = card_filter(question)
    pool_id = draft or (known.draft_id if about_pool else None)
    if pool_id and about_pool:  # a card or a drafter named in a question about the pool
        asked = {**(asked or {}), **await pool_names(question, await lookups.pool(pool_id))} or None
    return PoolReading(in_cube, draft_words, draft, asked)


async def _names_in_format(
    text: str, fmt: str | None, days: int | None, known: ConversationState, lookups: Lookups, *, pasted: bool
) -> tuple[str | None, str | None, str | None, str]:
    """The format, archetype and opponent ``text`` names, and what to say when the names belong to another format
    than the conversation's ("Boros Energy" asked in Pauper: Modern's deck, not Pauper's Boros Glint Hawk). A
    confirmed deck asked about keeps its format: another format's deck names no opponent of it (the coach asks)."""
    text, most_played = await _most_played_named(text, fmt, days, known, lookups)
    archetype, opponent = await _read_names(text, fmt, days, known, lookups)
    elsewhere = None if fmt else await _named_elsewhere(text, known, (archetype, opponent), lookups)
    if elsewhere is None:
        return fmt, archetype, opponent, most_played
    name, other, was = elsewhere
    several = " and " in name
    if known.deck_format and known.deck_archetype and not pasted and has(_ABOUT_THE_DECK, text):
        return None, None, None, ANOTHER_FORMATS_DECK[several].format(name=name, other=other, deck=known.deck_format)
    archetype, opponent = await _read_names(text, other, days, known, lookups)
    note = _ELSEWHERE[several].format(name=name, other=other, was=was)
    return other, archetype, opponent, f"{note}, so this answer is about {other}."


_ELSEWHERE = {  # several names or one -> what the answer says first
    False: "{name} is not played in {was}; it is a {other} deck",
    True: "{name} are not played in {was}; they are {other} decks",
}
ANOTHER_FORMATS_DECK = {  # the same, in a conversation about the player's deck, which stays as it is
    False: "{name} is a {other} deck; your deck is {deck}.",
    True: "{name} are {other} decks; your deck is {deck}.",
}
_ABOUT_THE_DECK = r"\b(my|deck|list|sideboard|mainboard|how (should|do|can) i)\b"


async def _most_played_named(
    text: str, fmt: str | None, days: int | None, known: ConversationState, lookups: Lookups
) -> tuple[str, str]:
    """``text`` with "against the most played deck" (the top, the best deck) written as the format's most played
    archetype (the player's own deck aside), and what to say about it; ``text`` as it is when it names none."""
    phrase = MOST_PLAYED.search(text)
    if phrase is None:
        return text, ""
    active_format = _names_format(text, fmt, known)
    played = await lookups.archetypes(active_format, days or known.days or NAMES_DAYS) if active_format else []
    names = [name for name in played if name != (known.deck_archetype or known.archetype)]
    if not names:
        return text, ""
    said = phrase.group("deck")
    after = " after yours" if played[0] != names[0] else ""
    note = f"I read “{said}” as **{names[0]}**, the most played {active_format} deck{after}."
    return f"{text[: phrase.start('deck')]}{names[0]}{text[phrase.end('deck') :]}", note


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
    """ "and against X?" / "what about X?" right after an answer about the player's deck (one is on the table),
    in its format."""
    last = known.route or Route()
    deck_format = known.deck_format or known.format
    return bool(named and last.workflow == "deck_coaching" and _FOLLOW_UP.match(reply) and fmt in (None, deck_format))


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
    again = _ANOTHER_CARD.match(question) if last.task in _CARDS_NAMED_AFTER else None
    asked = found or again
    if asked is None:
        return None
    span = next((g for g in asked.groups() if g), "").strip(" ?.,!'\"")
    if not found and (find_format(span) or find_days(span) is not None):
        return None  # "what about in Vintage?", "and the last 7 days?": the same card, another format or window
    return span


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
    about_deck = has(_ABOUT_THE_DECK, question)
    return fmt or (known.deck_format if about_deck else None) or known.format


def _older_names_count(question: str, mentioned: list[tuple[int, str]], expecting: bool) -> bool:
    """Whether names played before the window are worth reading: a name was matched by a word only ("Energy"
    for Boros Energy), or an awaited archetype was not found among the window's."""
    by_word = any(name.lower() not in question.lower() for _, name in mentioned)
    return by_word or (expecting and not mentioned)
