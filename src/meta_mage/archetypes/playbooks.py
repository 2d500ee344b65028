"""Archetype playbooks: what a strong player knows about each deck of a format, declared beside its rules.

``Formats/<Format>/playbook.toml`` holds one ``[[archetype]]`` table per archetype (named exactly as the classifier
names it): its role, its plan, the cards its plan runs on (``engine``), how it wins, what puts cards into play
early, its graveyard plan, what beats it and why, and its key interaction. ``engine_share`` is the share of the
archetype's current lists an engine card must reach; below it the playbook is stale (:func:`staleness`), which the
daily check (:func:`check_playbooks`) reports with the archetypes of 1 %+ share that have no playbook.

The classifier's fingerprint hashes only ``*.json``: editing a playbook never forces a reclassification.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from meta_mage.models.cards import card_key

if TYPE_CHECKING:
    from meta_mage.analytics.meta import MetaService
    from meta_mage.models.evidence import ArchetypeStats

Role = Literal["aggro", "tempo", "midrange", "control", "ramp", "combo"]
ROLES: tuple[str, ...] = get_args(Role)
PLAYBOOK_FILE = "playbook.toml"
MIN_SHARE = 0.01  # an archetype with this share of the format's lists or more should have a playbook
MIN_JUDGED_LISTS = 5  # fewer lists than this in the window say too little to call an engine card stale
UNKNOWN = "Unknown"

TEXT_FIELDS = ("name", "role", "plan", "fears_why")
CARD_FIELDS = ("engine", "win_conditions", "fast_mana", "graveyard", "fears", "interaction")
NUMBER_FIELDS = ("engine_share",)
FIELDS = (*TEXT_FIELDS, *CARD_FIELDS, *NUMBER_FIELDS)
REQUIRED_NONEMPTY = ("engine", "win_conditions", "fears")


class PlaybookError(ValueError):
    """A playbook file that cannot be used; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class Playbook:
    """One archetype's playbook in one format."""

    format: str
    archetype: str
    role: Role
    plan: str
    engine: tuple[str, ...]
    win_conditions: tuple[str, ...]
    fast_mana: tuple[str, ...]
    graveyard: tuple[str, ...]
    fears: tuple[str, ...]
    fears_why: str
    interaction: tuple[str, ...]
    engine_share: float

    @property
    def kept_on_rules(self) -> frozenset[str]:
        """Card keys a guide keeps whatever the statistics say: the engine, the win conditions, the fast mana."""
        return frozenset(card_key(c) for c in (*self.engine, *self.win_conditions, *self.fast_mana))

    @property
    def has_graveyard_plan(self) -> bool:
        return bool(self.graveyard)

    def cards(self) -> frozenset[str]:
        """Every card the playbook names (fears included), by name as written."""
        return frozenset(card for field in CARD_FIELDS for card in getattr(self, field))


@dataclass(frozen=True)
class Staleness:
    """The engine cards of a playbook that fell below its ``engine_share``, each with its current share (0-1)."""

    archetype: str
    stale_cards: tuple[tuple[str, float], ...]

    @property
    def stale(self) -> bool:
        return bool(self.stale_cards)


def staleness(playbook: Playbook, inclusion: Mapping[str, float]) -> Staleness:
    """Which engine cards of ``playbook`` are played by fewer than ``engine_share`` of the archetype's lists;
    ``inclusion`` maps a card key to its share of the lists (0-1), a card missing from it has none."""
    shares = ((card, inclusion.get(card_key(card), 0.0)) for card in playbook.engine)
    return Staleness(
        playbook.archetype, tuple((card, round(share, 3)) for card, share in shares if share < playbook.engine_share)
    )


# --- loading -------------------------------------------------------------------------------------------------


def _formats_dir(rules_dir: Path) -> Path:
    formats = rules_dir / "Formats"
    return formats if formats.is_dir() else rules_dir


def playbook_path(rules_dir: Path, fmt: str) -> Path | None:
    """The playbook file of ``fmt`` (format folder matched case-insensitively), or None when there is none."""
    formats = _formats_dir(Path(rules_dir))
    if not formats.is_dir():
        return None
    folder = next((p for p in formats.iterdir() if p.is_dir() and p.name.lower() == fmt.lower()), None)
    path = folder / PLAYBOOK_FILE if folder is not None else None
    return path if path is not None and path.is_file() else None


def playbooks(rules_dir: Path, fmt: str) -> dict[str, Playbook]:
    """The playbooks of ``fmt`` by archetype name; {} when the format has no playbook file. Read once per
    (rules directory, format); a bad file raises :class:`PlaybookError`."""
    return dict(_load(Path(rules_dir), fmt.lower()))


def playbook_for(rules_dir: Path, fmt: str, archetype: str) -> Playbook | None:
    """The playbook of ``archetype`` in ``fmt`` (name matched case-insensitively), or None."""
    wanted = archetype.strip().casefold()
    return next((book for name, book in _load(Path(rules_dir), fmt.lower()) if name.casefold() == wanted), None)


@lru_cache(maxsize=32)
def _load(rules_dir: Path, fmt: str) -> tuple[tuple[str, Playbook], ...]:
    path = playbook_path(rules_dir, fmt)
    if path is None:
        return ()
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PlaybookError(f"{path}: cannot be read ({exc})") from exc
    entries = document.get("archetype")
    if not isinstance(entries, list) or not entries:
        raise PlaybookError(f"{path}: expected one or more [[archetype]] tables")
    unexpected = sorted(set(document) - {"archetype"})
    if unexpected:
        raise PlaybookError(f"{path}: unknown top-level key {unexpected[0]!r} (only [[archetype]] tables)")
    folder = path.parent.name
    found: dict[str, Playbook] = {}
    for index, raw in enumerate(entries, start=1):
        book = parse_entry(raw, folder, f"{path}: entry {index}")
        if book.archetype.casefold() in {name.casefold() for name in found}:
            raise PlaybookError(f"{path}: entry {index} ({book.archetype}): field 'name' repeats an earlier entry")
        found[book.archetype] = book
    return tuple(found.items())


def parse_entry(raw: Any, fmt: str, where: str) -> Playbook:
    """One ``[[archetype]]`` table as a :class:`Playbook`; ``where`` (file and entry) starts every error."""
    if not isinstance(raw, dict):
        raise PlaybookError(f"{where}: expected a table")
    name = raw.get("name")
    where = f"{where} ({name})" if isinstance(name, str) and name.strip() else where
    for key in sorted(raw):
        if key not in FIELDS:
            raise PlaybookError(f"{where}: unknown field {key!r}")
    for key in FIELDS:
        if key not in raw:
            raise PlaybookError(f"{where}: field {key!r} is missing")
    texts = {key: _text(raw[key], where, key) for key in TEXT_FIELDS}
    if texts["role"] not in ROLES:
        raise PlaybookError(f"{where}: field 'role' is {texts['role']!r}, expected one of {', '.join(ROLES)}")
    cards = {key: _card_list(raw[key], where, key) for key in CARD_FIELDS}
    for key in REQUIRED_NONEMPTY:
        if not cards[key]:
            raise PlaybookError(f"{where}: field {key!r} names no card")
    return Playbook(
        format=fmt,
        archetype=texts["name"],
        role=texts["role"],  # type: ignore[arg-type]  # checked against ROLES above
        plan=texts["plan"],
        engine=cards["engine"],
        win_conditions=cards["win_conditions"],
        fast_mana=cards["fast_mana"],
        graveyard=cards["graveyard"],
        fears=cards["fears"],
        fears_why=texts["fears_why"],
        interaction=cards["interaction"],
        engine_share=_share(raw["engine_share"], where),
    )


def _text(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PlaybookError(f"{where}: field {key!r} must be a non-empty string, got {value!r}")
    return value.strip()


def _card_list(value: Any, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(card, str) and card.strip() for card in value):
        raise PlaybookError(f"{where}: field {key!r} must be a list of card names, got {value!r}")
    keys = [card_key(card) for card in value]
    if len(set(keys)) != len(keys):
        raise PlaybookError(f"{where}: field {key!r} names a card twice")
    return tuple(card.strip() for card in value)


def _share(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise PlaybookError(f"{where}: field 'engine_share' must be a number above 0 and at most 1, got {value!r}")
    return float(value)


# --- the daily check -----------------------------------------------------------------------------------------


def inclusion_of(stats: ArchetypeStats) -> dict[str, float]:
    """Each card's share (0-1) of an archetype's lists, by card key: the larger of its main-deck and sideboard
    shares (a list playing it in both counts once)."""
    if not stats.decks:
        return {}
    shares: dict[str, float] = {}
    for section in (stats.main, stats.side):
        for card, row in section.items():
            key = card_key(card)
            shares[key] = max(shares.get(key, 0.0), row.decks / stats.decks)
    return shares


@dataclass(frozen=True)
class PlaybookStatus:
    """One playbook against the window: the archetype's lists and share there, and its staleness (an archetype
    with fewer than ``MIN_JUDGED_LISTS`` lists in the window is not judged)."""

    playbook: Playbook
    lists: int
    share: float
    staleness: Staleness

    @property
    def verdict(self) -> str:
        if not self.lists:
            return "no lists"
        if self.lists < MIN_JUDGED_LISTS:
            return "too few lists"
        return "stale" if self.staleness.stale else "current"


@dataclass(frozen=True)
class PlaybookCheck:
    """The daily check of one format's playbooks over one window."""

    format: str
    start: str
    end: str
    decks: int
    statuses: tuple[PlaybookStatus, ...]
    missing: tuple[tuple[str, float], ...]  # archetypes of MIN_SHARE+ without a playbook, with their share

    @property
    def stale(self) -> tuple[PlaybookStatus, ...]:
        return tuple(s for s in self.statuses if s.verdict == "stale")

    @property
    def ok(self) -> bool:
        return not self.stale and not self.missing

    def summary(self) -> str:
        """One line: how many playbooks are current, which are stale (and by which card), which are missing."""
        current = sum(s.verdict == "current" for s in self.statuses)
        parts = [f"{self.format} playbooks {self.start}..{self.end}: {current} current"]
        if self.stale:
            stale = "; ".join(
                f"{s.playbook.archetype} ({', '.join(f'{c} {share:.0%}' for c, share in s.staleness.stale_cards)})"
                for s in self.stale
            )
            parts.append(f"{len(self.stale)} stale: {stale}")
        if self.missing:
            parts.append(f"{len(self.missing)} without one: {', '.join(f'{a} {s:.1%}' for a, s in self.missing)}")
        return ", ".join(parts)

    def table_lines(self) -> list[str]:
        """The check as an aligned text table: one row per playbook, then one per archetype without one."""
        header = ("Archetype", "Role", "Lists", "Share", "Verdict", f"Engine cards below their share ({self.format})")
        rows: list[tuple[str, ...]] = [
            (
                s.playbook.archetype,
                s.playbook.role,
                str(s.lists),
                f"{s.share:.1%}",
                s.verdict,
                ", ".join(
                    f"{card} {share:.0%} < {s.playbook.engine_share:.0%}" for card, share in s.staleness.stale_cards
                ),
            )
            for s in self.statuses
        ]
        rows += [
            (name, "-", str(round(share * self.decks)), f"{share:.1%}", "no playbook", "")
            for name, share in self.missing
        ]
        widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]
        return [
            "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]).rstrip()
            for row in (header, *rows)
        ]


def check_playbooks(
    meta: MetaService, rules_dir: Path, fmt: str, days: int = 30, today: dt.date | None = None
) -> PlaybookCheck:
    """``fmt``'s playbooks against the stored aggregates of ``days`` days ending at the format's newest date (or
    ``today``): each playbook's staleness by its archetype's current inclusion per card, and the archetypes of
    ``MIN_SHARE``+ of the lists (catch-all fallbacks and "Unknown" aside) that have no playbook. One Query for
    the format's totals, then one per playbook archetype with lists."""
    from meta_mage.archetypes.catch_alls import unnamed_names
    from meta_mage.archetypes.classifier import get_classifier

    info = meta.format_info(fmt)
    win, total = meta.total_of(info, days, today)
    decks = total.decks
    by_name = {name: entry.decks for name, entry in total.archetypes.items()}
    books = playbooks(rules_dir, info.format)
    statuses = []
    for name, book in books.items():
        lists = by_name.get(name, 0)
        stats = meta.repository.archetype_stats(info.format, name, win.start, win.end) if lists else None
        judged = staleness(book, inclusion_of(stats)) if stats is not None else Staleness(name, ())
        statuses.append(PlaybookStatus(book, lists, lists / decks if decks else 0.0, judged))
    catch_alls = unnamed_names(get_classifier(Path(rules_dir)).rules_for(info.format), set(by_name)) | {UNKNOWN}
    missing = sorted(
        ((name, n / decks) for name, n in by_name.items() if decks and n / decks >= MIN_SHARE),
        key=lambda item: (-item[1], item[0]),
    )
    return PlaybookCheck(
        format=info.format,
        start=win.start,
        end=win.end,
        decks=decks,
        statuses=tuple(sorted(statuses, key=lambda s: (-s.lists, s.playbook.archetype))),
        missing=tuple((name, share) for name, share in missing if name not in books and name not in catch_alls),
    )


def playbooks_summary(meta: MetaService, rules_dir: Path, days: int = 30, today: dt.date | None = None) -> str:
    """One line over every format with data, for the daily sync report: per format its current, stale and
    missing playbooks (``PlaybookCheck.summary``), joined by " | "; a bad playbook file is named, not raised."""
    lines = []
    for info in sorted(meta.repository.list_formats(), key=lambda f: f.format):
        try:
            lines.append(check_playbooks(meta, rules_dir, info.format, days, today).summary())
        except PlaybookError as exc:
            lines.append(f"{info.format} playbooks: unreadable ({exc})")
    return " | ".join(lines) if lines else "playbooks: no formats with data"
