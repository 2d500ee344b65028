"""A tournament file (MTGODecklistCache's ``CacheItem``) as it may reach the ingest: its shape and its bounds.

Validated through one ``TypeAdapter`` over TypedDicts, so a file costs no model instance per card line. The
bounds come from the real files (../shared/data: 376 events, 12,502 decks; the bundled demo files are a subset)
with a safety margin; each names the real maximum it was chosen from. Keys other than these are ignored
(``Standings``, ``AnchorUri``, a deck's ``Date``): nothing reads them.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from pydantic import BeforeValidator, Field, StringConstraints, TypeAdapter
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12

# --- sizes of an event ---------------------------------------------------------------------------------------
MAX_DECKS = 4_000  # the largest real event file known has 965 decks (a Legacy championship); 583 in ../shared/data
MAX_ROUNDS = 30  # the largest real event (two days of Swiss and a top 8) has 18
MAX_PAIRINGS_PER_ROUND = 4_000  # rows a round lists: real maximum 298 (583 players), 292 matches (melee.gg
# lists a drawn match once for each player; the parse reads it as one match)
MAX_LINES_PER_LIST = 250  # real lists name at most 61 cards (19 in a sideboard); so also bounds names per list

# --- a deck's list (counts summed per front-face name); a list past these is left out, its player kept --------
MAX_COPIES = 99  # of one non-basic in a list: real lists hold at most 60 (Persistent Petitioners), bar one typo (505)
MAX_BASIC_COPIES = 250  # of one basic land in a list: real maximum 60 (Island)
MAX_MAINBOARD_CARDS = 300  # real maximum 83, bar that typo (562); a legal Battle of Wits pile needs over 200
MAX_SIDEBOARD_CARDS = 100  # 15 by the rules, but a melee list entered in the wrong box holds 63
BASIC_LANDS = frozenset(
    name.casefold()
    for basic in ("Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes")
    for name in (basic, f"Snow-Covered {basic}")
)
# --- reported, not refused -----------------------------------------------------------------------------------
FOUR_OF_LIMIT = 4  # copies of a non-basic a constructed deck may hold (every format here is constructed)
ANY_NUMBER_ALLOWED = frozenset(  # every card whose text lifts the limit (../shared/data/cards)
    name.casefold()
    for name in (
        "Battalion Foot Soldier",
        "Cid, Timeless Artificer",
        "Dragon's Approach",
        "Gathering Throng",
        "Hare Apparent",
        "Legion Conquistador",
        "Nazgûl",  # at most 9
        "Persistent Petitioners",
        "Rat Colony",
        "Relentless Rats",
        "Seven Dwarves",  # at most 7
        "Shadowborn Apostle",
        "Slime Against Humanity",
        "Tempest Hawk",
        "Templar Knight",
    )
)
MAX_WARNINGS = 25  # kept per file, then a count of the rest: a hostile file cannot flood the report

# --- numbers -------------------------------------------------------------------------------------------------
MAX_NUMBER_DIGITS = 15  # a longer count is no typo but an attack (10^15 copies made a format's average 5.9e14)
MAX_GAME_DIGITS = 2  # real results have at most 3 games a side ("3-0-0", "0-0-3")

# --- text (lengths after surrounding whitespace is stripped) -------------------------------------------------
MAX_CARD_NAME_CHARS = 150  # the longest real card name has 141 characters; these files' longest line has 60
MAX_PLAYER_NAME_CHARS = 64  # real maximum 42 ("Ernesto Filipe Teixeira Fernandes da Silva")
MAX_EVENT_NAME_CHARS = 200  # real maximum 67
MAX_URI_CHARS = 500  # real maximum 80
MAX_ROUND_NAME_CHARS = 64  # real maximum 13 ("Quarterfinals")
MAX_PLACING_CHARS = 32  # real maximum 11 ("100th Place")
# C0 and C1 control characters (NUL and DEL included) and Unicode's line and paragraph separators; any other
# printable Unicode is fine (real names hold 黃 仲勻, Rögnudóttir, Lórien). A lone surrogate is refused too.
PRINTABLE = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"
RESULT_PATTERN = rf"^[0-9]{{1,{MAX_GAME_DIGITS}}}-[0-9]{{1,{MAX_GAME_DIGITS}}}-[0-9]{{1,{MAX_GAME_DIGITS}}}$"


def _text(max_chars: int, min_chars: int = 1) -> StringConstraints:
    return StringConstraints(strip_whitespace=True, min_length=min_chars, max_length=max_chars, pattern=PRINTABLE)


def at_most(limit: int) -> BeforeValidator:
    """A list of at most ``limit`` items, checked before its items are (a million-line list is refused at once)."""

    def check(value: Any) -> Any:
        if isinstance(value, list) and len(value) > limit:
            raise PydanticCustomError(
                "too_long", "at most {max_length} items", {"max_length": limit, "actual_length": len(value)}
            )
        return value

    return BeforeValidator(check)


CardNameText = Annotated[str, _text(MAX_CARD_NAME_CHARS)]
PlayerNameText = Annotated[str, _text(MAX_PLAYER_NAME_CHARS)]
Copies = Annotated[int, Field(strict=True, ge=1, lt=10**MAX_NUMBER_DIGITS)]  # strict: not "4", 4.0 or true


class CardLine(TypedDict):
    """One line of a list; the same name may come on several lines (their counts are summed)."""

    CardName: CardNameText
    Count: Copies


CardList = Annotated[list[CardLine], at_most(MAX_LINES_PER_LIST)]


class DeckEntry(TypedDict):
    Player: PlayerNameText
    Result: NotRequired[Annotated[str, _text(MAX_PLACING_CHARS, min_chars=0)] | None]  # the final placing
    Mainboard: NotRequired[CardList | None]
    Sideboard: NotRequired[CardList | None]


class MatchEntry(TypedDict):
    """A pairing; ``Player2`` is ``"-"`` for a bye or an assigned loss."""

    Player1: PlayerNameText
    Player2: PlayerNameText
    Result: Annotated[str, StringConstraints(pattern=RESULT_PATTERN)]  # "<P1 games>-<P2 games>-<drawn games>"


class RoundEntry(TypedDict):
    RoundName: NotRequired[Annotated[str, _text(MAX_ROUND_NAME_CHARS, min_chars=0)] | None]
    Matches: Annotated[list[MatchEntry], at_most(MAX_PAIRINGS_PER_ROUND)]


class EventHeader(TypedDict):
    """``Date`` and ``Formats`` (or Badaro's ``Format``) are read by the parser itself, with their own messages."""

    Name: NotRequired[Annotated[str, _text(MAX_EVENT_NAME_CHARS, min_chars=0)] | None]
    Uri: NotRequired[Annotated[str, _text(MAX_URI_CHARS, min_chars=0)] | None]
    Date: NotRequired[Any]
    Formats: NotRequired[Any]
    Format: NotRequired[Any]


class TournamentFile(TypedDict):
    Tournament: EventHeader
    Decks: Annotated[list[DeckEntry], at_most(MAX_DECKS)]
    Rounds: Annotated[list[RoundEntry], at_most(MAX_ROUNDS)]


TOURNAMENT_FILE: TypeAdapter[TournamentFile] = TypeAdapter(TournamentFile)
