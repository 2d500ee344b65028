"""Parse MTGODecklistCache tournament files (of every source ``models.sources`` declares), quirks included.

See ``../shared/data/MANIFEST.md``: winners sit in Player1; ``Player2 == "-"`` is a bye
(``2-0-0``) or an assigned loss (``0-2-0``), never detected by substring; ``0-0-0`` is
unreported; equal game wins are a draw; card names are normalised to their front face; the
same event may arrive under several file names and is keyed by its URI's event id. A round's pairings are
read as matches between two players (``models.names.player_identity``): melee.gg lists a drawn match once for
each player, and a match listed twice is one match. Rounds are told apart by their place in the file.

A file is first validated against :mod:`meta_mage.models.tournament_file` (its shape and bounds), so nothing
unbounded reaches the coach; what is reported rather than refused comes back in ``ParsedTournament.warnings``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from meta_mage.analytics.aggregate import AGGREGATE_VERSION
from meta_mage.archetypes.classifier import Classification
from meta_mage.errors import echo
from meta_mage.ingest.errors import InputFileError
from meta_mage.models import sources
from meta_mage.models.cards import front_face
from meta_mage.models.names import player_identity, without_markup
from meta_mage.models.tournament_file import (
    ANY_NUMBER_ALLOWED,
    BASIC_LANDS,
    FOUR_OF_LIMIT,
    MAX_BASIC_COPIES,
    MAX_COPIES,
    MAX_GAME_DIGITS,
    MAX_MAINBOARD_CARDS,
    MAX_NUMBER_DIGITS,
    MAX_PLAYER_NAME_CHARS,
    MAX_SIDEBOARD_CARDS,
    MAX_WARNINGS,
    TOURNAMENT_FILE,
    CardLine,
    DeckEntry,
    MatchEntry,
    RoundEntry,
)
from meta_mage.models.tournaments import FORMAT_STARTS, FORMATS, ParsedDeck, ParsedMatch, ParsedTournament

NO_OPPONENT = "-"
SPLIT = " // "  # split cards, and melee's full names of double-faced ones (see models.cards.front_face)

Classifier = Callable[[str, dict[str, int], dict[str, int]], Classification]


def event_key(uri: str, name: str, date: str, fmt: str) -> str:
    """Stable identity of an event, shared by re-dated or renamed copies of its file: the id its source names
    (``models.sources``), else a digest of its Uri (or of its name, date and format when it has none)."""
    if key := sources.event_key_of_uri(uri):
        return key
    basis = uri or f"{name}|{date}|{fmt}"
    return "uri:" + hashlib.sha256(basis.encode()).hexdigest()[:20]


def _declared_format(header: Mapping[str, object]) -> object:
    """``Formats`` (else ``Format``) as the file gives it; a list counts only when it holds one format."""
    raw = header.get("Formats") or header.get("Format")
    if isinstance(raw, list):
        return raw[0] if len(raw) == 1 else None
    return raw


def _formats_in_name(name: str, source: str) -> list[str]:
    """The format an event name names as a whole word (Badaro-era files have no Formats), or none.

    A name naming several formats, or one beside a variant ("Vintage Cube"), is refused: a guess could be wrong."""
    named = [f for f in FORMATS if re.search(rf"(?<!\w){f}(?!\w)", name, re.I)]
    variant = re.search(r"\b(cube|premodern|highlander|commander|duel)\b", name, re.I)
    if named and (len(named) > 1 or variant):
        also = f" and names '{variant.group(1)}'" if variant else ""
        raise InputFileError(
            source,
            f"Tournament.Formats is missing and the event name {echo(name)} names {', '.join(named)}{also}; "
            "add Tournament.Formats",
        )
    return named


def _known_format(candidate: str) -> str | None:
    return next((fmt for fmt in FORMATS if candidate.strip().lower() == fmt.lower()), None)


def _format_of(header: Mapping[str, object], source: str) -> str:
    raw = _declared_format(header)
    name = str(header.get("Name") or "")
    candidates = [raw] if isinstance(raw, str) else _formats_in_name(name, source)
    for candidate in candidates:
        if fmt := _known_format(candidate):
            return fmt
    raise InputFileError(
        source,
        f"Tournament.Formats is {echo(raw)}; expected one of {', '.join(FORMATS)}",
    )


def _summed(lines: list[CardLine] | None) -> dict[str, int]:
    cards: dict[str, int] = {}
    for line in lines or ():
        name = line["CardName"]  # stripped by the model, so only a split card's name needs its front face
        if SPLIT in name:
            name = front_face(name)
        cards[name] = cards.get(name, 0) + line["Count"]  # upstream does not promise one line per name
    return cards


def _list_problem(mainboard: dict[str, int], sideboard: dict[str, int]) -> str | None:
    """Why a list cannot be a real deck's (too many copies of a card, too many cards), or None."""
    lists = (("Mainboard", mainboard, MAX_MAINBOARD_CARDS), ("Sideboard", sideboard, MAX_SIDEBOARD_CARDS))
    for label, cards, most in lists:
        for card, copies in cards.items():
            limit = MAX_BASIC_COPIES if copies > MAX_COPIES and card.casefold() in BASIC_LANDS else MAX_COPIES
            if copies > limit:
                return f"{label} has {copies:,} {echo(card)} (at most {limit})"
        if (total := sum(cards.values())) > most:
            return f"{label} has {total:,} cards (at most {most})"
    return None


def _over_four(player: str, mainboard: dict[str, int], sideboard: dict[str, int]) -> list[str]:
    """A warning per non-basic the deck holds more than four of (main and side together), bar cards that allow it."""
    copies = {card: count for card, count in mainboard.items() if count > FOUR_OF_LIMIT}
    for card, count in sideboard.items():
        if (total := count + mainboard.get(card, 0)) > FOUR_OF_LIMIT:
            copies[card] = total
    return [
        f"deck of {echo(player)} has {count} copies of {echo(card)} (a constructed deck holds at most {FOUR_OF_LIMIT})"
        for card, count in copies.items()
        if card.casefold() not in BASIC_LANDS and card.casefold() not in ANY_NUMBER_ALLOWED
    ]


def _decks(
    entries: list[DeckEntry], fmt: str, classify: Classifier, warnings: list[str], source: str
) -> list[ParsedDeck]:
    """One deck per player (``player_identity``), each list within bounds or left out, every list classified;
    what was left out is reported in ``warnings``. A player listed again with the same list is kept once and
    reported; listed again with another list (two entrants whose names are one player, "Sam Hutson" and
    "sam hutson", or one player twice), the file is refused: it cannot say whose matches are whose."""
    decks: list[ParsedDeck] = []
    listed: dict[str, tuple[str, dict[str, int], dict[str, int], list[str]]] = {}  # identity -> first deck
    for entry in entries:
        player = _player(entry["Player"])
        main, side = _summed(entry.get("Mainboard")), _summed(entry.get("Sideboard"))
        identity = player_identity(player)
        if identity in listed:
            _same_deck_again(listed[identity], player, main, side, source)
            continue
        listed[identity] = (player, main, side, [])
        if problem := _list_problem(main, side):
            warnings.append(f"deck of {echo(player)}: {problem}; its list is left out, its matches still count")
            main, side = {}, {}
        else:
            warnings.extend(_over_four(player, main, side))
        deck = ParsedDeck(player, entry.get("Result") or "", main, side)
        if main:
            verdict = classify(fmt, main, side)
            deck.archetype = verdict.archetype
            deck.colors = verdict.colors
            deck.strategy = verdict.strategy
            deck.classification = verdict.kind
        decks.append(deck)
    warnings.extend(
        f"player {echo(name)} has {len(again) + 1} decks in this file, all one list; it is kept once"
        for name, _, _, again in listed.values()
        if again
    )
    return decks


def _same_deck_again(
    first: tuple[str, dict[str, int], dict[str, int], list[str]],
    player: str,
    main: dict[str, int],
    side: dict[str, int],
    source: str,
) -> None:
    """Record a player's deck listed again (``first`` is their first), or refuse the file when its list differs."""
    name, first_main, first_side, again = first
    if (main, side) != (first_main, first_side):
        raise InputFileError(
            source,
            f"decks of {echo(name)} and {echo(player)} are one player's (names are compared without case, "
            "look-alike letters or invisible characters) with two different lists",
        )
    again.append(player)


def _player(name: str) -> str:
    """A player's name as stored: its tags dropped (``models.names``); one of nothing but markup is named by a
    digest of what the file wrote, so two such players stay two."""
    return without_markup(name) or f"(a name of markup only, {hashlib.sha256(name.encode()).hexdigest()[:8]})"


def _match(raw: MatchEntry, round_name: str, round_number: int) -> ParsedMatch:
    p1, p2 = _player(raw["Player1"]), _player(raw["Player2"])
    g1, g2, gd = (int(games) for games in raw["Result"].split("-"))
    if NO_OPPONENT in (p1, p2):
        outcome = "bye" if (g1 > g2) == (p2 == NO_OPPONENT) else "assigned_loss"
    elif g1 == g2 == gd == 0:
        outcome = "unreported"
    elif g1 == g2:
        outcome = "draw"
    else:
        outcome = "result"
    return ParsedMatch(round_name, round_number, p1, p2, g1, g2, gd, outcome)


def _pairing(match: ParsedMatch) -> tuple[tuple[str, str], tuple[int, int, int]]:
    """Who a match is between (their identities, in order) and its result as the first of them reads it, so
    that A-B ``g1-g2-d`` and B-A ``g2-g1-d`` are one pairing with one result."""
    one, two = player_identity(match.player1), player_identity(match.player2)
    if one <= two:
        return (one, two), (match.p1_games, match.p2_games, match.drawn_games)
    return (two, one), (match.p2_games, match.p1_games, match.drawn_games)


def _row(match: ParsedMatch) -> str:
    return f"{echo(match.player1)} v {echo(match.player2)} {match.p1_games}-{match.p2_games}-{match.drawn_games}"


def _one_match(first: ParsedMatch, again: ParsedMatch, source: str, warnings: list[str]) -> ParsedMatch:
    """The match a round lists twice: the same result read from either side is one match; a result on one row
    and ``0-0-0`` on the other is one match whose result the file does not confirm (counted unreported, and
    reported); two different results are refused, naming both rows."""
    if _pairing(first)[1] == _pairing(again)[1]:
        return first
    rows = f"{_row(first)} and {_row(again)}"
    unreported = next((m for m in (first, again) if m.outcome == "unreported"), None)
    if unreported is None:
        raise InputFileError(source, f"round {echo(first.round_name)} gives one match two results: {rows}")
    warnings.append(
        f"round {echo(first.round_name)} lists {rows}: one match, its result on one row only; counted unreported"
    )
    return unreported


def _round_matches(raw_round: RoundEntry, number: int, source: str, warnings: list[str]) -> list[ParsedMatch]:
    """A round's matches, each once, in the order the round first lists them."""
    name = raw_round.get("RoundName") or f"Round {number}"
    matches: dict[tuple[str, str], ParsedMatch] = {}
    for raw in raw_round["Matches"]:
        match = _match(raw, name, number)
        pair, _ = _pairing(match)
        first = matches.setdefault(pair, match)
        if first is not match:
            matches[pair] = _one_match(first, match, source, warnings)
    return list(matches.values())


def tournament_format(document: Any, source: str) -> str:
    """The format of a tournament file's document, as :func:`parse_tournament` reads it, or ``InputFileError``."""
    header = document.get("Tournament") if isinstance(document, dict) else None
    if not isinstance(header, dict):
        raise InputFileError(source, "'Tournament' must be an object")
    return _format_of(header, source)


def parse_tournament(
    document: Any, source: str, classify: Classifier, today: dt.date | None = None
) -> ParsedTournament:
    """Validate and parse one tournament file, classifying every deck with a mainboard.

    The file must fit :mod:`meta_mage.models.tournament_file` (its shape and bounds: decks, rounds, pairings,
    card lines, counts, names). Also refused, naming why: a date that is not one, later than a day after
    ``today`` (the ingest clock, UTC) or earlier than the format; more meetings of a player or a pair than an
    event's structure allows (which would let one file skew a format's window or an archetype's record).
    A pairing a round lists twice (both players' rows, as melee.gg lists a draw) is one match; refused: two
    different results for one pairing in one round. Reported in ``warnings``, not refused: a list past a deck's
    bounds (left out, the player kept), a player listed with several decks (the first kept), a non-basic over
    four copies, a pairing listed with a result and as unreported (counted unreported)."""
    if not isinstance(document, dict):
        raise InputFileError(source, "expected a JSON object with Tournament, Decks and Rounds")
    for key in ("Tournament", "Decks", "Rounds"):
        if key not in document:
            raise InputFileError(source, f"missing '{key}'")
    try:
        event = TOURNAMENT_FILE.validate_python(document)
    except ValidationError as exc:
        raise InputFileError(source, _refusal(document, exc.errors(include_url=False)[0])) from None
    header = event["Tournament"]
    fmt = _format_of(header, source)
    date = _event_date(header.get("Date"), fmt, source, today or dt.datetime.now(dt.UTC).date())
    uri = header.get("Uri") or ""
    name = header.get("Name") or ""
    warnings: list[str] = []
    decks = _decks(event["Decks"], fmt, classify, warnings, source)
    matches = [
        match
        for number, raw_round in enumerate(event["Rounds"], 1)
        for match in _round_matches(raw_round, number, source, warnings)
    ]
    _check_structure(matches, source)
    if len(warnings) > MAX_WARNINGS:
        warnings[MAX_WARNINGS:] = [f"and {len(warnings) - MAX_WARNINGS:,} more warnings"]
    return ParsedTournament(
        event_key=event_key(uri, name, date, fmt),
        name=name,
        date=date,
        format=fmt,
        source=sources.source_of_uri(uri).kind,
        uri=uri,
        source_file=source,
        decks=decks,
        matches=matches,
        warnings=warnings,
    )


# --- one sentence for pydantic's first error: where in the file (whose deck, which card, which round), and what.
# Places and messages are keyed by the error's location with list indexes as "#" and Mainboard/Sideboard as "List".
_MATCH_NEEDS = (
    "round {round}: match {match} needs Player1, Player2 and Result 'W-L-D' "
    f"(game counts of at most {MAX_GAME_DIGITS} digits)"
)
_WRONG_SHAPE = {  # a missing field or one of the wrong type (these sentences predate the model)
    ("Tournament",): "'Tournament' must be an object",
    ("Decks",): "'Decks' and 'Rounds' must be lists",
    ("Rounds",): "'Decks' and 'Rounds' must be lists",
    ("Decks", "#"): "deck #{deck_number} has no Player",
    ("Decks", "#", "Player"): "deck #{deck_number} has no Player",
    ("Decks", "#", "List"): "{deck} {list} must be a list",
    ("Decks", "#", "List", "#"): "{deck} {list} has an entry without a CardName",
    ("Decks", "#", "List", "#", "CardName"): "{deck} {list} has an entry without a CardName",
    ("Rounds", "#"): "round #{round_number} has no Matches list",
    ("Rounds", "#", "Matches"): "round #{round_number} has no Matches list",
    ("Rounds", "#", "Matches", "#"): _MATCH_NEEDS,
    ("Rounds", "#", "Matches", "#", "Player1"): _MATCH_NEEDS,
    ("Rounds", "#", "Matches", "#", "Player2"): _MATCH_NEEDS,
}
_WHATEVER_WENT_WRONG = {  # fields whose every error reads the same
    ("Decks", "#", "List", "#", "Count"): (
        "{deck} {list}: {card} has Count {value}; expected a whole number of copies, at least 1 and at most "
        f"{MAX_NUMBER_DIGITS} digits"
    ),
    ("Rounds", "#", "Matches", "#", "Result"): _MATCH_NEEDS,
}
_TOO_MANY = {
    ("Decks",): "{actual_length:,} decks; an event has at most {max_length:,}",
    ("Rounds",): "{actual_length:,} rounds; an event has at most {max_length}",
    ("Rounds", "#", "Matches"): "round {round} lists {actual_length:,} matches; a round has at most {max_length:,}",
    ("Decks", "#", "List"): "{deck} {list} has {actual_length:,} card lines; a list has at most {max_length}",
}
_BAD_TEXT = {  # what is wrong with a text field (a player's name, a card's, the event's...)
    "string_too_short": "is empty",
    "string_too_long": "is longer than {max_length} characters",
    "string_pattern_mismatch": "holds a control character or a line break",
    "string_unicode": "is not valid Unicode text",
    "string_type": "must be text",
}
_FIELDS = {  # how a text field is named, by its shape or its container's ("*")
    ("Tournament", "*"): "Tournament.{field}",
    ("Decks", "#", "Player"): "deck #{deck_number}: Player",
    ("Decks", "#", "*"): "{deck}: {field}",
    ("Decks", "#", "List", "#", "*"): "{deck} {list}: {field}",
    ("Rounds", "#", "*"): "round #{round_number}: {field}",
    ("Rounds", "#", "Matches", "#", "*"): "round {round}: {field}",
}
_SPECIFIC_TEXT_ERRORS = frozenset(_BAD_TEXT) - {"string_type"}  # a name's flaw beats "has no Player"


def _item(container: object, key: int | str) -> object:
    if isinstance(container, list) and isinstance(key, int) and key < len(container):
        return container[key]
    return container.get(key) if isinstance(container, dict) and isinstance(key, str) else None


def _names_at(document: Mapping[str, object], loc: tuple[int | str, ...]) -> dict[str, object]:
    """What the raw document calls the places along ``loc``: the deck's player, the list, the card, the round."""
    if len(loc) < 2 or not isinstance(loc[1], int):
        return {}
    index = loc[1]
    entry = _item(_item(document, loc[0]), index)
    if loc[0] == "Rounds":
        name = _item(entry, "RoundName")
        shown = name.strip() if isinstance(name, str) and name.strip() else f"Round {index + 1}"
        match = _item(_item(entry, "Matches"), loc[3]) if len(loc) > 3 else None
        return {"round_number": index + 1, "round": echo(shown), "match": echo(match)}
    player = _item(entry, "Player")
    named = isinstance(player, str) and 0 < len(player.strip()) <= MAX_PLAYER_NAME_CHARS
    names: dict[str, object] = {
        "deck_number": index + 1,
        "deck": f"deck of {echo(player.strip())}" if isinstance(player, str) and named else f"deck #{index + 1}",
        "list": loc[2] if len(loc) > 2 else "",
    }
    if len(loc) > 3 and isinstance(loc[3], int):
        card = _item(_item(_item(entry, loc[2]), loc[3]), "CardName")
        names["card"] = echo(card.strip()) if isinstance(card, str) else f"line #{loc[3] + 1}"
    return names


def _refusal(document: Mapping[str, object], error: ErrorDetails) -> str:
    """The reason a file is refused, from pydantic's first error: the place (whose deck, which card, which round)
    and what is wrong there, in the words of the checks that predate the model where there were such."""
    loc = tuple(error["loc"])
    shape = tuple("#" if isinstance(p, int) else "List" if p in ("Mainboard", "Sideboard") else p for p in loc)
    kind = error["type"]
    names = {**_names_at(document, loc), **error.get("ctx", {})}
    names["value"] = echo(error["input"]) if kind != "missing" else None
    if kind == "too_long" and shape in _TOO_MANY:
        return _TOO_MANY[shape].format(**names)
    if shape in _WHATEVER_WENT_WRONG:
        return _WHATEVER_WENT_WRONG[shape].format(**names)
    if shape in _WRONG_SHAPE and kind not in _SPECIFIC_TEXT_ERRORS:
        return _WRONG_SHAPE[shape].format(**names)
    named = _FIELDS.get(shape) or _FIELDS.get((*shape[:-1], "*")) or ".".join(str(p) for p in loc)
    field = named.format(**{**names, "field": loc[-1]})
    if kind in _BAD_TEXT:
        return f"{field} {names['value']} {_BAD_TEXT[kind].format(**names)}"
    return f"{field} {names['value']}: {error['msg']}" if kind != "missing" else f"{field} is missing"


_DATE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.\d{1,9})?)?"
    r"(?:(?P<utc>Z)|(?P<sign>[+-])(?P<off_hours>\d{2}):?(?P<off_minutes>\d{2}))?)?"
)
MAX_OFFSET_HOURS = 14  # the widest UTC offset in use (Kiribati, UTC+14)


def _utc_day(raw: str) -> dt.date | None:
    """The UTC calendar day of ``Tournament.Date``, or None when it is not one: an impossible date, time of day
    (``25:61``) or offset. A date alone is that day; a time without an offset is read as UTC."""
    match = _DATE.fullmatch(raw.strip())
    if match is None:
        return None
    parts = {k: int(v) for k, v in match.groupdict().items() if v is not None and k not in ("date", "utc", "sign")}
    try:
        day = dt.date.fromisoformat(match["date"])
        if match["hour"] is None:
            return day
        offset = dt.timedelta(hours=parts.get("off_hours", 0), minutes=parts.get("off_minutes", 0))
        if parts.get("off_minutes", 0) >= 60 or offset > dt.timedelta(hours=MAX_OFFSET_HOURS):
            return None
        zone = dt.timezone(-offset if match["sign"] == "-" else offset)
        moment = dt.datetime.combine(day, dt.time(parts["hour"], parts["minute"], parts.get("second", 0)), zone)
    except ValueError:  # a day, hour, minute or second out of range
        return None
    return moment.astimezone(dt.UTC).date()


def _event_date(raw: Any, fmt: str, source: str, today: dt.date) -> str:
    """``Tournament.Date`` as its UTC day, YYYY-MM-DD (docs/data-and-sync.md, "Inputs"): a calendar date,
    optionally with a valid time of day and UTC offset, within the format's life."""
    date = _utc_day(raw) if isinstance(raw, str) else None
    if date is None:
        raise InputFileError(
            source, f"Tournament.Date {echo(raw)} is not a date (expected YYYY-MM-DD, optionally with a time)"
        )
    if date > today + dt.timedelta(days=1):
        raise InputFileError(source, f"Tournament.Date {date} is in the future (today is {today})")
    if date < FORMAT_STARTS[fmt]:
        raise InputFileError(source, f"Tournament.Date {date} is before {fmt} existed ({FORMAT_STARTS[fmt]})")
    return date.isoformat()


# Counted over distinct matches (a match listed twice is one) and rounds told apart by their place in the file;
# the real maxima over ../shared/data (376 events) and the bundled demo files are both 2.
MAX_MATCHES_PER_ROUND = 2  # real maximum 2: a melee.gg league file (7o-torneio-13a-liga) lists players against
# two opponents in one round; a well-formed round gives a player one match
MAX_PAIR_MEETINGS = 3  # rounds in which one pair meets: real maximum 2 (a Swiss match and its top-8 rematch),
# and one round to spare, as the other bounds keep a margin


def _check_structure(matches: list[ParsedMatch], source: str) -> None:
    """Refuse pairings no event can have: they would weigh one player's or one pair's results without bound
    (the number of rounds is bounded by the file's model, ``MAX_ROUNDS``). ``matches`` are distinct: a round
    holds one match per pair, so a pair's matches count the rounds it meets in."""
    per_round: Counter[tuple[int, str]] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for match in matches:
        if NO_OPPONENT in (match.player1, match.player2):
            continue
        for player in (match.player1, match.player2):
            key = (match.round_number, player_identity(player))
            per_round[key] += 1
            if per_round[key] > MAX_MATCHES_PER_ROUND:
                raise InputFileError(
                    source,
                    f"{echo(player)} plays more than {MAX_MATCHES_PER_ROUND} matches in round {echo(match.round_name)}",
                )
        pair, _ = _pairing(match)
        pairs[pair] += 1
        if pairs[pair] > MAX_PAIR_MEETINGS:
            raise InputFileError(
                source,
                f"{echo(match.player1)} and {echo(match.player2)} meet in more than {MAX_PAIR_MEETINGS} rounds",
            )


@dataclass(frozen=True, order=True)
class VersionRank:
    """How one version of an event ranks against another in one input: the one with more decks, then more
    rounds, then more pairing rows, then the earlier date (a re-dated copy is a copy), then the larger digest of
    its content is kept (so the choice depends on the files, never on the order they are read in)."""

    decks: int
    rounds: int
    rows: int
    earlier: int  # minus the day's ordinal: the earlier day ranks higher
    digest: str


def version_rank(document: Any, source: str, today: dt.date | None = None) -> tuple[str, VersionRank] | None:
    """The event key of a tournament file's document and its version's rank, read without classifying it; None
    for a document the parse refuses on its header (it fails on its own, ranked against nothing)."""
    if not isinstance(document, dict) or not isinstance(document.get("Tournament"), dict):
        return None
    header, decks, rounds = document["Tournament"], document.get("Decks"), document.get("Rounds")
    if not isinstance(decks, list) or not isinstance(rounds, list):
        return None
    try:
        fmt = _format_of(header, source)
        date = _event_date(header.get("Date"), fmt, source, today or dt.datetime.now(dt.UTC).date())
    except InputFileError:
        return None
    uri, name = header.get("Uri"), header.get("Name")
    key = event_key(uri if isinstance(uri, str) else "", name if isinstance(name, str) else "", date, fmt)
    rows = sum(len(r["Matches"]) for r in rounds if isinstance(r, dict) and isinstance(r.get("Matches"), list))
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    earlier = -dt.date.fromisoformat(date).toordinal()
    return key, VersionRank(len(decks), len(rounds), rows, earlier, hashlib.sha256(canonical.encode()).hexdigest())


IDENTITY_RULE = 2  # part of each event's digest: 2, players compared without case, look-alikes or invisibles
# (``models.names.player_identity``), so events stored under the case-kept rule are stored again


def content_digest(tournament: ParsedTournament, rules_fingerprint: str) -> str:
    """Digest of what would be stored, so re-ingesting unchanged data is a no-op."""
    payload = {
        "date": tournament.date,
        "format": tournament.format,
        "name": tournament.name,
        "rules": rules_fingerprint,
        "aggregate": AGGREGATE_VERSION,
        "identity": IDENTITY_RULE,
        "decks": [[d.player, d.placing, d.mainboard, d.sideboard, d.archetype] for d in tournament.decks],
        "matches": [
            [m.round_number, m.round_name, m.player1, m.player2, m.p1_games, m.p2_games, m.drawn_games]
            for m in tournament.matches
        ],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]
