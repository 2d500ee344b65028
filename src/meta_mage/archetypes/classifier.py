"""Rule-based archetype classification over rule files in the MTGOFormatData layout.

A rules directory holds ``Formats/<Format>/Archetypes/*.json``, ``Formats/<Format>/Fallbacks/*.json``,
optional ``Formats/<Format>/color_overrides.json`` and a shared ``Formats/card_colors.json``.
A deck gets the archetype whose Conditions all hold (then the first Variant that holds); if none
does, the provisional archetype (``archetypes/provisional.py``: one named from a cluster of lists no rule
names) whose Conditions hold; then the fallback whose CommonCards cover the largest share (at least 10 %) of the
deck's distinct mainboard cards; otherwise "Unknown". Matching is on normalised front-face names.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Iterable, KeysView, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from meta_mage.models.cards import WUBRG, card_key
from meta_mage.models.json import JsonObject

UNKNOWN = "Unknown"
FALLBACK_MIN_OVERLAP = 0.10
PROVISIONAL_REFRESH_SECONDS = 300.0  # how long a process applies the provisional rules it read before reading again
STRATEGIES = ("aggro", "midrange", "control", "combo", "tempo", "ramp", "unknown")

COLOR_NAMES = {
    "": "Colorless",
    "W": "Mono White",
    "U": "Mono Blue",
    "B": "Mono Black",
    "R": "Mono Red",
    "G": "Mono Green",
    "WU": "Azorius",
    "UB": "Dimir",
    "BR": "Rakdos",
    "RG": "Gruul",
    "WG": "Selesnya",
    "WB": "Orzhov",
    "UR": "Izzet",
    "BG": "Golgari",
    "WR": "Boros",
    "UG": "Simic",
    "WUB": "Esper",
    "UBR": "Grixis",
    "BRG": "Jund",
    "WRG": "Naya",
    "WUG": "Bant",
    "WBG": "Abzan",
    "WUR": "Jeskai",
    "UBG": "Sultai",
    "WBR": "Mardu",
    "URG": "Temur",
    "WUBRG": "5-Color",
}

_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_CONDITION_TYPES = {
    "InMainboard",
    "InSideboard",
    "InMainOrSideboard",
    "OneOrMoreInMainboard",
    "OneOrMoreInSideboard",
    "OneOrMoreInMainOrSideboard",
    "TwoOrMoreInMainboard",
    "TwoOrMoreInSideboard",
    "TwoOrMoreInMainOrSideboard",
    "DoesNotContain",
    "DoesNotContainMainboard",
    "DoesNotContainSideboard",
}


class RuleFileError(ValueError):
    """A rule file that cannot be read; the message names the file."""


def color_name(colors: str) -> str:
    """Community name of a WUBRG colour string ("WR" → "Boros")."""
    return COLOR_NAMES.get(colors, "4-Color" if len(colors) == 4 else colors)


def read_lenient_json(path: Path) -> Any:
    """JSON that tolerates the trailing commas some upstream rule files have."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return json.loads(_TRAILING_COMMA.sub(r"\1", text))
        except json.JSONDecodeError as exc:
            raise RuleFileError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from exc


@dataclass(frozen=True)
class Condition:
    kind: str
    cards: tuple[str, ...]
    # Derived once from ``kind`` and ``cards``: which boards are searched, what is asked of them, the cards as a set
    _boards: tuple[bool, bool] = field(init=False, repr=False, compare=False)
    _asks: str = field(init=False, repr=False, compare=False)
    _card_set: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kind = self.kind
        if kind.endswith("MainOrSideboard") or kind == "DoesNotContain":
            boards = (True, True)
        elif kind.endswith("Sideboard"):
            boards = (False, True)
        else:
            boards = (True, False)
        asks = "all"
        for prefix, what in (("DoesNotContain", "none"), ("OneOrMore", "any"), ("TwoOrMore", "two")):
            if kind.startswith(prefix):
                asks = what
                break
        object.__setattr__(self, "_boards", boards)
        object.__setattr__(self, "_asks", asks)
        object.__setattr__(self, "_card_set", frozenset(self.cards))

    def holds(self, main: Mapping[str, int], side: Mapping[str, int]) -> bool:
        """Whether a deck (normalised name → count) satisfies this condition."""
        in_main, in_side = self._boards
        if in_main and in_side:
            return self._holds_in_both(main, side)
        return self._holds_in((main if in_main else side).keys())

    def _holds_in(self, board: KeysView[str]) -> bool:
        asks, cards = self._asks, self._card_set
        if asks == "two":  # counts the listed cards, a card listed twice twice
            return sum(c in board for c in self.cards) >= 2
        if asks == "all":
            return cards <= board
        return board.isdisjoint(cards) == (asks == "none")

    def _holds_in_both(self, main: Mapping[str, int], side: Mapping[str, int]) -> bool:
        asks, cards = self._asks, self._card_set
        if asks == "two":
            return sum(c in main or c in side for c in self.cards) >= 2
        if asks == "all":
            return all(c in main or c in side for c in cards)
        disjoint = main.keys().isdisjoint(cards) and side.keys().isdisjoint(cards)
        return disjoint == (asks == "none")


@dataclass(frozen=True)
class ArchetypeRule:
    name: str
    include_color: bool
    strategy: str
    conditions: tuple[Condition, ...]
    variants: tuple[ArchetypeRule, ...] = ()
    source: str = ""
    # Every card an "InMainboard" condition asks for: a mainboard missing one fails the rule at once
    _main_needs: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        needs = [c.cards for c in self.conditions if c.kind == "InMainboard"]
        object.__setattr__(self, "_main_needs", frozenset().union(*needs))

    def matches(self, main: Mapping[str, int], side: Mapping[str, int]) -> bool:
        return self._main_needs <= main.keys() and all(c.holds(main, side) for c in self.conditions)

    @property
    def specificity(self) -> tuple[int, int]:
        return len(self.conditions), sum(len(c.cards) for c in self.conditions)


@dataclass(frozen=True)
class FallbackRule:
    name: str
    include_color: bool
    strategy: str
    common_cards: frozenset[str]


@dataclass(frozen=True)
class Classification:
    """The classifier's verdict for one deck."""

    archetype: str
    base_name: str
    colors: str
    strategy: str
    kind: str  # "archetype" | "provisional" | "fallback" | "unknown"
    candidates: tuple[str, ...] = ()


def _strategy(raw: JsonObject, name: str, default: str = "unknown") -> str:
    value = str(raw.get("Strategy") or "").lower()
    if value in STRATEGIES:
        return value
    lowered = name.lower()
    for strategy in STRATEGIES[:-1]:
        if strategy in lowered:
            return strategy
    return default


def parse_rule(raw: JsonObject, source: str, parent_strategy: str = "unknown") -> ArchetypeRule:
    """An archetype rule file's body (``Archetypes/*.json``) as the classifier reads it; ``source`` names it in
    errors (``RuleFileError``)."""
    if not isinstance(raw, dict) or "Name" not in raw:
        raise RuleFileError(f"{source}: an archetype needs a 'Name'")
    conditions = []
    for cond in raw.get("Conditions") or []:
        kind = cond.get("Type")
        if kind not in _CONDITION_TYPES:
            raise RuleFileError(f"{source}: unknown condition type {kind!r}")
        conditions.append(Condition(kind, tuple(card_key(c) for c in cond.get("Cards") or [])))
    strategy = _strategy(raw, raw["Name"], parent_strategy)
    return ArchetypeRule(
        name=raw["Name"],
        include_color=bool(raw.get("IncludeColorInName")),
        strategy=strategy,
        conditions=tuple(conditions),
        variants=tuple(parse_rule(v, source, strategy) for v in raw.get("Variants") or []),
        source=source,
    )


def _color_table(raw: Any) -> dict[str, str]:
    table: dict[str, str] = {}
    for entry in raw or []:
        if isinstance(entry, dict) and "Name" in entry:
            table[card_key(entry["Name"])] = "".join(c for c in WUBRG if c in entry.get("Color", ""))
    return table


@dataclass
class FormatRules:
    """All rules of one format."""

    format: str
    archetypes: list[ArchetypeRule]
    fallbacks: list[FallbackRule]
    land_colors: dict[str, str] = field(default_factory=dict)
    nonland_colors: dict[str, str] = field(default_factory=dict)
    provisional: Sequence[ArchetypeRule] = ()  # applied after ``archetypes``, before ``fallbacks``

    def deck_colors(self, main: Mapping[str, int]) -> str:
        """WUBRG colours of a mainboard: its spells' colours, limited to what its lands make."""
        spells: set[str] = set()
        lands: set[str] = set()
        land_colors, nonland_colors = self.land_colors, self.nonland_colors
        for name in main:
            land = land_colors.get(name)
            if land is not None:
                lands.update(land)
            elif (spell := nonland_colors.get(name)) is not None:
                spells.update(spell)
        colors = spells & lands if lands and spells & lands else spells or lands
        return "".join(c for c in WUBRG if c in colors)

    def classify(self, main: Mapping[str, int], side: Mapping[str, int]) -> Classification:
        """Classify a deck given as normalised name → count maps."""
        colors = self.deck_colors(main)
        for kind, rules in (("archetype", self.archetypes), ("provisional", self.provisional)):
            matched = [rule for rule in rules if rule.matches(main, side)]
            if matched:
                best = max(matched, key=lambda r: (r.specificity, r.name))
                chosen = next((v for v in best.variants if v.matches(main, side)), best)
                return self._classified(chosen, colors, kind, tuple(sorted(r.name for r in matched)))
        distinct = set(main)
        if distinct and self.fallbacks:
            scored = [(len(distinct & fb.common_cards) / len(distinct), fb.name, fb) for fb in self.fallbacks]
            overlap, _, fallback = max(scored, key=lambda s: (s[0], s[1]))
            if overlap >= FALLBACK_MIN_OVERLAP:
                return self._classified(fallback, colors, "fallback")
        return Classification(UNKNOWN, UNKNOWN, colors, "unknown", "unknown")

    @staticmethod
    def _classified(
        rule: ArchetypeRule | FallbackRule, colors: str, kind: str, candidates: tuple[str, ...] = ()
    ) -> Classification:
        named = f"{color_name(colors)} {rule.name}" if rule.include_color else rule.name
        return Classification(named, rule.name, colors, rule.strategy, kind, candidates)


def _normalised(cards: Mapping[str, int]) -> dict[str, int]:
    return {card_key(n): c for n, c in cards.items()}


def _names(archetype: str, rule_name: str) -> bool:
    """Whether an archetype name is the rule's (or the rule's with colours before it: "Boros Energy")."""
    return archetype == rule_name or archetype.endswith(" " + rule_name)


def _defining(cond: Condition, deck: tuple[dict[str, int], dict[str, int]] | None) -> set[str]:
    """The cards of one condition that define an archetype: all of them without a deck (or when the deck does not
    meet it), else those without which the deck would no longer meet it; none of a "does not contain"."""
    if "DoesNotContain" in cond.kind:
        return set()
    if deck is None or not cond.holds(*deck):
        return set(cond.cards)
    return {card for card in cond.cards if not cond.holds(*_without(card, deck))}


def _without(card: str, deck: tuple[dict[str, int], dict[str, int]]) -> tuple[dict[str, int], ...]:
    return tuple({k: v for k, v in part.items() if k != card} for part in deck)


ProvisionalLoader = Callable[[str], Sequence[ArchetypeRule] | None]  # a format's stored provisional rules; None: unread


class ArchetypeClassifier:
    """Loads rule files per format on first use and classifies decks deterministically."""

    def __init__(self, rules_dir: Path) -> None:
        self.rules_dir = Path(rules_dir)
        formats_dir = self.rules_dir / "Formats"
        self._formats_dir = formats_dir if formats_dir.is_dir() else self.rules_dir
        self._cache: dict[str, FormatRules] = {}
        self._card_colors: tuple[dict[str, str], dict[str, str]] | None = None
        self._fingerprint: str | None = None
        self._loader: tuple[ProvisionalLoader, float, Callable[[], float]] | None = None
        self._read_at: dict[str, float] = {}

    def formats(self) -> list[str]:
        """Formats that have rule files."""
        return sorted(p.name for p in self._formats_dir.iterdir() if (p / "Archetypes").is_dir())

    def rules_for(self, fmt: str) -> FormatRules:
        """The rules of ``fmt`` (empty rules if the directory has none)."""
        key = fmt.lower()
        if key not in self._cache:
            self._cache[key] = self._load(fmt)
        if self._loader is not None:
            self._read_provisional(fmt, key, *self._loader)
        return self._cache[key]

    def reading_provisional(
        self,
        loader: ProvisionalLoader,
        refresh_seconds: float = PROVISIONAL_REFRESH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> ArchetypeClassifier:
        """A classifier over the same rule files that applies each format's stored provisional rules, read by
        ``loader`` on first use and again once ``refresh_seconds`` have passed (a failed read, None, keeps those
        applied): the chat process names, and guides keep the cards of, the decks the ingest named."""
        copy = self.with_provisional({})
        copy._loader = (loader, refresh_seconds, clock)
        return copy

    def _read_provisional(
        self, fmt: str, key: str, loader: ProvisionalLoader, every: float, clock: Callable[[], float]
    ) -> None:
        now = clock()
        if now - self._read_at.get(key, -math.inf) < every:
            return
        self._read_at[key] = now
        rules = loader(fmt)
        if rules is not None:
            self._cache[key] = replace(self._cache[key], provisional=tuple(rules))

    def classify(self, fmt: str, main: Mapping[str, int], side: Mapping[str, int]) -> Classification:
        """Classify a deck of ``fmt``; card names may be in any case or ``A // B`` form."""
        norm_main = {card_key(n): c for n, c in main.items()}
        norm_side = {card_key(n): c for n, c in side.items()}
        return self.rules_for(fmt).classify(norm_main, norm_side)

    def defining_cards(
        self, fmt: str, archetype: str, main: Mapping[str, int] | None = None, side: Mapping[str, int] | None = None
    ) -> frozenset[str]:
        """The cards (normalised) the archetype's rule asks for: what the deck is named after. Given a deck
        (``main`` and ``side``, any name form), only those without which it would no longer meet the rule: every
        card of an "all of" condition, and the last card it plays of a "one or more" list (Prowess lists name
        five cards and need one, so none of the five defines a list that plays three)."""
        deck = None if main is None else (_normalised(main), _normalised(side or {}))
        found: set[str] = set()
        rules = self.rules_for(fmt)
        for rule in (*rules.archetypes, *rules.provisional):
            for named in (rule, *rule.variants):
                if _names(archetype, named.name):
                    for cond in named.conditions:
                        found |= _defining(cond, deck)
        return frozenset(found)

    def strategy_of(self, fmt: str, archetype: str) -> str:
        """The strategy ("aggro", "combo"…) the rule named ``archetype`` declares; "unknown" when none does."""
        rules = self.rules_for(fmt)
        named: list[ArchetypeRule | FallbackRule] = [
            v for r in (*rules.archetypes, *rules.provisional) for v in (*r.variants, r)
        ]
        for rule in [*named, *rules.fallbacks]:
            if _names(archetype, rule.name):
                return rule.strategy
        return "unknown"

    def with_provisional(self, by_format: Mapping[str, Iterable[ArchetypeRule]]) -> ArchetypeClassifier:
        """A classifier over the same rule files that also applies ``by_format``'s provisional rules (format →
        rules; a format not named keeps the provisional rules this one has). Its fingerprint is the rule files'
        (a deck's stored name is part of its event's digest, so a provisional rule that renames it is seen)."""
        copy = ArchetypeClassifier(self.rules_dir)
        copy._card_colors, copy._fingerprint = self._card_colors, self._fingerprint
        copy._cache = dict(self._cache)
        for fmt, rules in by_format.items():
            copy._cache[fmt.lower()] = replace(self.rules_for(fmt), provisional=tuple(rules))
        return copy

    def naming_also(self, fmt: str, rules: Iterable[ArchetypeRule]) -> ArchetypeClassifier:
        """A classifier whose ``fmt`` archetype rules also hold ``rules`` (as if they were rule files), without
        provisional rules: what a candidate rule would change is measured against it."""
        copy = self.with_provisional({fmt: ()})
        declared = copy.rules_for(fmt)
        copy._cache[fmt.lower()] = replace(declared, archetypes=[*declared.archetypes, *rules])
        return copy

    def fingerprint(self) -> str:
        """A digest of every rule file, so stored classifications know which rules made them (read once, as
        the rules themselves are)."""
        if self._fingerprint is None:
            digest = hashlib.sha256()
            for path in sorted(self._formats_dir.rglob("*.json")):
                digest.update(str(path.relative_to(self._formats_dir)).encode())
                digest.update(path.read_bytes())
            self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint

    def _shared_colors(self) -> tuple[dict[str, str], dict[str, str]]:
        if self._card_colors is None:
            path = self._formats_dir / "card_colors.json"
            raw = read_lenient_json(path) if path.exists() else {}
            self._card_colors = (_color_table(raw.get("Lands")), _color_table(raw.get("NonLands")))
        return self._card_colors

    def _load(self, fmt: str) -> FormatRules:
        folder = (
            next(
                (p for p in self._formats_dir.iterdir() if p.is_dir() and p.name.lower() == fmt.lower()),
                None,
            )
            if self._formats_dir.is_dir()
            else None
        )
        lands, nonlands = self._shared_colors()
        lands, nonlands = dict(lands), dict(nonlands)
        if folder is None:
            return FormatRules(fmt, [], [], lands, nonlands)
        archetypes = [parse_rule(read_lenient_json(p), str(p)) for p in sorted((folder / "Archetypes").glob("*.json"))]
        fallbacks = []
        for path in sorted((folder / "Fallbacks").glob("*.json")) if (folder / "Fallbacks").is_dir() else []:
            raw = read_lenient_json(path)
            fallbacks.append(
                FallbackRule(
                    name=raw["Name"],
                    include_color=bool(raw.get("IncludeColorInName")),
                    strategy=_strategy(raw, raw["Name"]),
                    common_cards=frozenset(card_key(c) for c in raw.get("CommonCards") or []),
                )
            )
        overrides_path = folder / "color_overrides.json"
        if overrides_path.exists():
            overrides = read_lenient_json(overrides_path) or {}
            lands.update(_color_table(overrides.get("Lands")))
            nonlands.update(_color_table(overrides.get("NonLands")))
        return FormatRules(folder.name, archetypes, fallbacks, lands, nonlands)


@lru_cache(maxsize=4)
def get_classifier(rules_dir: Path) -> ArchetypeClassifier:
    """A shared classifier per rules directory."""
    return ArchetypeClassifier(rules_dir)
