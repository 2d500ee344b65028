"""Parse MTGODecklistCache tournament files (MTGO and melee.gg), quirks included.

See ``../shared/data/MANIFEST.md``: winners sit in Player1; ``Player2 == "-"`` is a bye
(``2-0-0``) or an assigned loss (``0-2-0``), never detected by substring; ``0-0-0`` is
unreported; equal game wins are a draw; card names are normalised to their front face; the
same event may arrive under several file names and is keyed by its URI's event id.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from meta_mage.analytics.aggregate import AGGREGATE_VERSION
from meta_mage.archetypes.classifier import Classification
from meta_mage.errors import echo
from meta_mage.ingest.errors import InputFileError
from meta_mage.models.cards import front_face
from meta_mage.models.tournaments import FORMAT_STARTS, FORMATS, ParsedDeck, ParsedMatch, ParsedTournament

NO_OPPONENT = "-"
_MTGO_ID = re.compile(r"\d{4}-\d{2}-\d{2}(\d+)/?$")
_MELEE_ID = re.compile(r"melee\.gg/Tournament/View/(\d+)", re.IGNORECASE)
_RESULT = re.compile(r"^(\d+)-(\d+)-(\d+)$")

Classifier = Callable[[str, dict[str, int], dict[str, int]], Classification]


def event_key(uri: str, name: str, date: str, fmt: str) -> str:
    """Stable identity of an event, shared by re-dated or renamed copies of its file."""
    if match := _MELEE_ID.search(uri):
        return f"melee:{match.group(1)}"
    if "mtgo.com" in uri and (match := _MTGO_ID.search(uri)):
        return f"mtgo:{match.group(1)}"
    basis = uri or f"{name}|{date}|{fmt}"
    return "uri:" + hashlib.sha256(basis.encode()).hexdigest()[:20]


def _format_of(header: dict[str, Any], source: str) -> str:
    raw = header.get("Formats") or header.get("Format")
    if isinstance(raw, list):
        raw = raw[0] if len(raw) == 1 else None
    candidates = [raw] if isinstance(raw, str) else []
    name = str(header.get("Name", ""))
    if not candidates:  # Badaro-era files have no Formats: infer from the event name's whole words
        named = [f for f in FORMATS if re.search(rf"(?<!\w){f}(?!\w)", name, re.I)]
        variant = re.search(r"\b(cube|premodern|highlander|commander|duel)\b", name, re.I)
        if len(named) == 1 and not variant:
            candidates = named
        elif named:
            also = f" and names '{variant.group(1)}'" if variant else ""
            raise InputFileError(
                source,
                f"Tournament.Formats is missing and the event name {name!r} names {', '.join(named)}{also}; "
                "add Tournament.Formats",
            )
    for candidate in candidates:
        for fmt in FORMATS:
            if candidate.strip().lower() == fmt.lower():
                return fmt
    raise InputFileError(
        source,
        f"Tournament.Formats is {raw!r}; expected one of {', '.join(FORMATS)}",
    )


def _cards(entries: Any, where: str, source: str) -> dict[str, int]:
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise InputFileError(source, f"{where} must be a list")
    cards: dict[str, int] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("CardName"), str):
            raise InputFileError(source, f"{where} has an entry without a CardName")
        count = entry.get("Count")
        if not isinstance(count, int) or count < 1:
            raise InputFileError(source, f"{where}: {entry['CardName']!r} has Count {count!r}")
        name = front_face(entry["CardName"])
        cards[name] = cards.get(name, 0) + count  # upstream does not promise one line per name
    return cards


def _match(raw: Any, round_name: str, source: str) -> ParsedMatch:
    if not isinstance(raw, dict):
        raise InputFileError(source, f"round {round_name!r} has a match that is not an object")
    p1, p2, result = raw.get("Player1"), raw.get("Player2"), raw.get("Result")
    parsed = _RESULT.match(result) if isinstance(result, str) else None
    if not isinstance(p1, str) or not isinstance(p2, str) or parsed is None:
        raise InputFileError(source, f"round {round_name!r}: match {raw!r} needs Player1, Player2 and Result 'W-L-D'")
    g1, g2, gd = (int(x) for x in parsed.groups())
    if NO_OPPONENT in (p1, p2):
        outcome = "bye" if (g1 > g2) == (p2 == NO_OPPONENT) else "assigned_loss"
    elif g1 == g2 == gd == 0:
        outcome = "unreported"
    elif g1 == g2:
        outcome = "draw"
    else:
        outcome = "result"
    return ParsedMatch(round_name, p1.strip(), p2.strip(), g1, g2, gd, outcome)


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

    Refused, naming why: a date that is not one, later than a day after ``today`` (the ingest clock, UTC)
    or earlier than the format; more rounds, or more meetings of a player or a pair, than an event's
    structure allows (which would let one file skew a format's window or an archetype's record)."""
    if not isinstance(document, dict):
        raise InputFileError(source, "expected a JSON object with Tournament, Decks and Rounds")
    for key in ("Tournament", "Decks", "Rounds"):
        if key not in document:
            raise InputFileError(source, f"missing '{key}'")
    header = document["Tournament"]
    if not isinstance(header, dict):
        raise InputFileError(source, "'Tournament' must be an object")
    fmt = _format_of(header, source)
    date = _event_date(header.get("Date"), fmt, source, today or dt.datetime.now(dt.UTC).date())
    uri = str(header.get("Uri") or "")
    name = str(header.get("Name") or "").strip()
    if not isinstance(document["Decks"], list) or not isinstance(document["Rounds"], list):
        raise InputFileError(source, "'Decks' and 'Rounds' must be lists")

    decks: list[ParsedDeck] = []
    for index, raw in enumerate(document["Decks"]):
        if not isinstance(raw, dict) or not isinstance(raw.get("Player"), str):
            raise InputFileError(source, f"deck #{index + 1} has no Player")
        main = _cards(raw.get("Mainboard"), f"deck of {raw['Player']!r} Mainboard", source)
        side = _cards(raw.get("Sideboard"), f"deck of {raw['Player']!r} Sideboard", source)
        deck = ParsedDeck(raw["Player"].strip(), str(raw.get("Result") or ""), main, side)
        if main:
            verdict = classify(fmt, main, side)
            deck.archetype = verdict.archetype
            deck.colors = verdict.colors
            deck.strategy = verdict.strategy
            deck.classification = verdict.kind
        decks.append(deck)

    matches: list[ParsedMatch] = []
    for round_index, raw_round in enumerate(document["Rounds"]):
        if not isinstance(raw_round, dict) or not isinstance(raw_round.get("Matches"), list):
            raise InputFileError(source, f"round #{round_index + 1} has no Matches list")
        round_name = str(raw_round.get("RoundName") or f"Round {round_index + 1}")
        matches.extend(_match(m, round_name, source) for m in raw_round["Matches"])

    _check_structure(document["Rounds"], matches, source)
    source_kind = "MTGO" if "mtgo.com" in uri else "melee" if "melee.gg" in uri else "other"
    return ParsedTournament(
        event_key=event_key(uri, name, date, fmt),
        name=name,
        date=date,
        format=fmt,
        source=source_kind,
        uri=uri,
        source_file=source,
        decks=decks,
        matches=matches,
    )


_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


def _event_date(raw: Any, fmt: str, source: str, today: dt.date) -> str:
    """``Tournament.Date`` as YYYY-MM-DD: a calendar date, optionally with a time of day, within the format's life."""
    match = _DATE.fullmatch(raw.strip()) if isinstance(raw, str) else None
    try:
        date = dt.date.fromisoformat(match.group(1)) if match else None
    except ValueError:
        date = None
    if date is None:
        raise InputFileError(source, f"Tournament.Date {echo(raw)} is not a date (expected YYYY-MM-DD)")
    if date > today + dt.timedelta(days=1):
        raise InputFileError(source, f"Tournament.Date {date} is in the future (today is {today})")
    if date < FORMAT_STARTS[fmt]:
        raise InputFileError(source, f"Tournament.Date {date} is before {fmt} existed ({FORMAT_STARTS[fmt]})")
    return date.isoformat()


MAX_ROUNDS = 30  # the largest real event (two days of Swiss and a top 8) has 18
MAX_MATCHES_PER_ROUND = 2  # a player's one match, listed twice in some melee.gg files
MAX_PAIR_MEETINGS = 3  # Swiss, a top 8 rematch, and one duplicate listing


def _check_structure(rounds: list[Any], matches: list[ParsedMatch], source: str) -> None:
    """Refuse pairings no event can have: they would weigh one player's or one pair's results without bound."""
    if len(rounds) > MAX_ROUNDS:
        raise InputFileError(source, f"{len(rounds):,} rounds; an event has at most {MAX_ROUNDS}")
    per_round: Counter[tuple[str, str]] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for match in matches:
        if NO_OPPONENT in (match.player1, match.player2):
            continue
        for player in (match.player1, match.player2):
            per_round[(match.round_name, player)] += 1
            if per_round[(match.round_name, player)] > MAX_MATCHES_PER_ROUND:
                raise InputFileError(
                    source,
                    f"{echo(player)} plays more than {MAX_MATCHES_PER_ROUND} matches in round {echo(match.round_name)}",
                )
        pair = (min(match.player1, match.player2), max(match.player1, match.player2))
        pairs[pair] += 1
        if pairs[pair] > MAX_PAIR_MEETINGS:
            raise InputFileError(
                source, f"{echo(pair[0])} and {echo(pair[1])} meet more than {MAX_PAIR_MEETINGS} times"
            )


def content_digest(tournament: ParsedTournament, rules_fingerprint: str) -> str:
    """Digest of what would be stored, so re-ingesting unchanged data is a no-op."""
    payload = {
        "date": tournament.date,
        "format": tournament.format,
        "name": tournament.name,
        "rules": rules_fingerprint,
        "aggregate": AGGREGATE_VERSION,
        "decks": [[d.player, d.placing, d.mainboard, d.sideboard, d.archetype] for d in tournament.decks],
        "matches": [
            [m.round_name, m.player1, m.player2, m.p1_games, m.p2_games, m.drawn_games] for m in tournament.matches
        ],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]
