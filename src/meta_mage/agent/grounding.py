"""Every figure an LLM's answer states, checked against the turn's tool results before the turn ends.

What is checked in the model's text, and what counts as a match (the rule the README states):
- **percentages** ("55.9%", "56%"): a number of the results (or a win rate of one of their records) that
  rounds to it at the precision written (55.9% matches 55.94; 56% matches 55.6 to 56.49);
- **intervals** ("50-62%", "95% CI 50–62%"): both ends, as percentages;
- **records** ("161-127-29", "6-5"): a wins-losses(-draws) record of the results;
- **counts** ("161 lists", "138 matches"): a whole number of the results;
- **names**: an archetype or card name the text mentions (from the format's archetype names and the card
  names known) must occur in the results or in what the player told the coach (their deck and archetype).
A sentence that names archetypes or cards is held to their own figures (the objects of the results that name
them: an archetype's row, a matchup cell, a card's record, less the objects inside that name something
else), so a right number beside the wrong deck is caught; a sentence that names none, to all the figures.
Dates, windows ("30 days"), "95%" (the confidence level) and "50%" (even) are not figures of a result. A
figure that does not match is reported in the ``grounding`` event and counted in the
``UngroundedFigures`` metric."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from meta_mage.models.json import JsonObject

ALWAYS = {95.0, 50.0, 100.0, 0.0}  # the confidence level, even, all and none
_INTERVAL = re.compile(r"(?<![\d.-])(\d{1,3}(?:\.\d+)?)%?\s*(?:-|–|to)\s*(\d{1,3}(?:\.\d+)?)\s*%")
_PERCENT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*%")
_RECORD = re.compile(r"(?<![\d.\-/])(\d{1,4})-(\d{1,4})(?:-(\d{1,4}))?(?![\d%]|\.\d|\s*%|-\d)")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NOUNS = r"(?:decks?|lists?|matches|tournaments?|events?|players?|copies|drafters?|picks?|cards?|spells?|lands?)\b"
# "161 lists", "138 decided matches", "7 of their 12 key spells", "74 of the 168 decided matches"
_COUNT = re.compile(
    r"(?<![\d.,-])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:of\s+(?:[\w'’]+\s+){0,3}?(?=\d|key|decided|" + _NOUNS[3:-4] + r"))?"
    r"(?:(\d{1,3}(?:,\d{3})+|\d+)\s+)?(?:decided\s+|key\s+)?" + _NOUNS
)


@dataclass(frozen=True)
class Unmatched:
    """A figure of the answer that no tool result of the turn holds."""

    kind: str  # percentage, interval, record, count, name
    figure: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "figure": self.figure}


ENTITY_KEYS = ("name", "card_name", "archetype", "opponent", "card", "opponent_archetype")


@dataclass
class Figures:
    """Numbers and records (wins-losses and wins-losses-draws), with the win rate of each record."""

    numbers: set[float] = field(default_factory=lambda: set(ALWAYS))
    records: set[tuple[int, ...]] = field(default_factory=set)
    intervals: set[tuple[float, float]] = field(default_factory=set)

    def add_record(self, wins: int, losses: int, draws: int) -> None:
        self.records.update({(wins, losses, draws), (wins, losses)})
        if wins + losses:
            self.numbers.add(100 * wins / (wins + losses))

    def update(self, other: Figures) -> None:
        self.numbers |= other.numbers
        self.records |= other.records
        self.intervals |= other.intervals

    def has_interval(self, low: str, high: str) -> bool:
        """One result's 95 % interval whose ends round to ``low`` and ``high`` (both from the same record)."""
        return any(_rounds_to(low, a) and _rounds_to(high, b) for a, b in self.intervals)

    def has_percent(self, written: str) -> bool:
        """A number that rounds to ``written`` at its precision (a half unit of the last digit either way)."""
        return any(_rounds_to(written, n) for n in self.numbers)

    def has_count(self, written: str) -> bool:
        return float(written.replace(",", "")) in self.numbers


@dataclass
class Facts:
    """What the turn's tool results (and the player's own words) hold: all their figures, each named thing's own
    figures (an archetype's row, a matchup cell, a card's record: the object that names it, less the objects
    inside it that name something else), and their text."""

    figures: Figures = field(default_factory=Figures)
    owned: dict[str, Figures] = field(default_factory=dict)
    text: str = ""

    @classmethod
    def of(cls, results: Iterable[Any], said: Iterable[str] = ()) -> Facts:
        """The facts of tool results (JSON text, parsed, or pydantic models) and of names the player gave."""
        facts = cls()
        strings: list[str] = list(said)
        for result in results:
            facts._collect(_parsed(result), (), strings)
        facts.text = "\n".join(strings).lower()
        return facts

    def _collect(self, node: Any, owners: tuple[str, ...], strings: list[str]) -> None:
        if isinstance(node, dict):
            self._collect_object(node, owners, strings)
        elif isinstance(node, list):
            self._add_number(owners, float(len(node)))  # "answers 7 of their key cards" counts a list
            for value in node:
                self._collect(value, owners, strings)
        elif isinstance(node, str):
            strings.append(node)
        elif isinstance(node, int | float) and not isinstance(node, bool):
            self._add_number(owners, float(node))

    def _collect_object(self, node: JsonObject, owners: tuple[str, ...], strings: list[str]) -> None:
        named = tuple(node[k] for k in ENTITY_KEYS if isinstance(node.get(k), str) and node[k])
        owners = named or owners  # an object that names things owns its figures, not its parent's names
        self._add_interval_and_record(node, owners)
        for key, value in node.items():
            strings.append(str(key))
            self._collect(value, owners, strings)

    def _add_interval_and_record(self, node: JsonObject, owners: tuple[str, ...]) -> None:
        """An object's 95 % interval (``ci_low``, ``ci_high``) and its record (``wins``, ``losses``, ``draws``)."""
        low, high = node.get("ci_low"), node.get("ci_high")
        if isinstance(low, int | float) and isinstance(high, int | float):
            for figures in self._targets(owners):
                figures.intervals.add((float(low), float(high)))
        wins, losses, draws = node.get("wins"), node.get("losses"), node.get("draws", 0)
        if isinstance(wins, int) and isinstance(losses, int):
            for figures in self._targets(owners):
                figures.add_record(wins, losses, draws if isinstance(draws, int) else 0)

    def _add_number(self, owners: tuple[str, ...], number: float) -> None:
        for figures in self._targets(owners):
            figures.numbers.add(number)

    def _targets(self, owners: tuple[str, ...]) -> list[Figures]:
        return [self.figures, *(self.owned.setdefault(owner, Figures()) for owner in owners)]

    def for_names(self, names: list[str]) -> Figures:
        """The figures a sentence naming ``names`` may state: those names' own, or all when it names none."""
        known = [self.owned[n] for n in names if n in self.owned]
        if not known:
            return self.figures
        joined = Figures()
        for figures in known:
            joined.update(figures)
        return joined


_BOUNDARY = re.compile(r"(?<=[.;!?])\s+|\n+")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.")


def sentence_ends(text: str) -> list[int]:
    """Where each sentence of ``text`` ends (after its closing space or line break): after ``.``, ``;``, ``!`` or
    ``?`` and a space, or at a line break; never inside parentheses nor after an abbreviation ("e.g.", "vs."), so a
    sentence keeps the name its figures belong to."""
    ends: list[int] = []
    for match in _BOUNDARY.finditer(text):
        before = text[: match.start()]
        line_break = "\n" in match.group(0)
        if not line_break and (before.count("(") > before.count(")") or before.endswith(_ABBREVIATIONS)):
            continue
        ends.append(match.end())
    return ends


def sentences(text: str) -> list[str]:
    """``text`` cut at ``sentence_ends`` (each piece with the space after it)."""
    cuts = [0, *sentence_ends(text), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(cuts) if a < b]


def unmatched_figures(text: str, facts: Facts, names: Iterable[str] = ()) -> list[Unmatched]:
    """The figures of ``text`` that ``facts`` do not hold, in the order written (each once). A sentence that
    names things (archetypes, cards) is held to those things' own figures."""
    found: list[Unmatched] = []
    known_names = set(names)

    def keep(kind: str, figure: str) -> None:
        miss = Unmatched(kind, figure)
        if miss not in found:
            found.append(miss)

    for sentence in sentences(text):
        figures = facts.for_names(mentioned_names(sentence, facts.owned))
        for kind, figure in _unmatched_in(sentence, figures):
            keep(kind, figure)
    for name in mentioned_names(text, known_names):
        if name.lower() not in facts.text:
            keep("name", name)
    return found


def _unmatched_in(sentence: str, figures: Figures) -> Iterator[tuple[str, str]]:
    rest = _DATE.sub(" ", sentence)
    for match in _INTERVAL.finditer(rest):
        low, high = match.groups()
        if float(low) <= float(high) and not figures.has_interval(low, high):
            yield "interval", match.group(0).strip()
    rest = _INTERVAL.sub(" ", rest)
    for match in _PERCENT.finditer(rest):
        if not figures.has_percent(match.group(1)):
            yield "percentage", match.group(0).strip()
    rest = _PERCENT.sub(" ", rest)
    for match in _RECORD.finditer(rest):
        if tuple(int(g) for g in match.groups() if g is not None) not in figures.records:
            yield "record", match.group(0)
    rest = _RECORD.sub(" ", rest)
    for match in _COUNT.finditer(rest):
        if not all(figures.has_count(n) for n in match.groups() if n):
            yield "count", match.group(0)


def mentioned_names(text: str, names: Iterable[str]) -> list[str]:
    """The names of ``names`` that ``text`` mentions as written (whole words, case as printed), longest first so
    "Boros Energy" is not also read as a card named "Energy"."""
    found: list[str] = []
    taken: list[tuple[int, int]] = []
    for name in sorted({n for n in names if len(n) >= 4}, key=len, reverse=True):
        if name.split()[0] not in text:  # most names are not there: skip the regex
            continue
        for match in re.finditer(rf"(?<![\w'-]){re.escape(name)}(?![\w'-])", text):
            span = match.span()
            if any(a < span[1] and span[0] < b for a, b in taken):
                continue
            taken.append(span)
            if name not in found:
                found.append(name)
    return found


def _rounds_to(written: str, number: float) -> bool:
    """``number`` shown at the precision of ``written`` (a half unit of its last digit either way) is ``written``."""
    decimals = len(written.split(".")[1]) if "." in written else 0
    return bool(abs(number - float(written)) <= 0.5 / 10**decimals + 1e-9)


def _parsed(result: Any) -> Any:
    if hasattr(result, "model_dump"):
        return result.model_dump(mode="json")
    if isinstance(result, str):
        try:
            return json.loads(result)
        except ValueError:
            return result
    return result
