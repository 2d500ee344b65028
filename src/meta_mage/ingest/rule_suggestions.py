"""Suggest archetype rule files from the decks the current rules leave unnamed.

A deck the rules cannot name gets a fallback ("Aggro", "Combo" …) or "Unknown"; when a new deck
appears, such decks pile up. This module measures that pile per format (:func:`fallback_shares`,
read from the per-day aggregates), clusters the unnamed decks of a window by their shared mainboard
cards (:func:`suggest_rules`), turns each cluster of ``min_cluster`` decks or more into a candidate
rule file in the MTGOFormatData shape (the conditions: the cluster's distinctive cards, checked
against the decks the current rules already name) and writes the candidates, with their evidence,
for a person to review (:func:`write_suggestions`). Nothing here changes the rules in use: a
suggestion becomes a rule only when someone renames it to ``<Name>.json`` and moves it into the
rules directory.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import heapq
import json
import os
import re
import secrets
import stat
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meta_mage.analytics.meta import MetaService
from meta_mage.analytics.stats import wilson_interval, win_rate
from meta_mage.archetypes.catch_alls import all_rules, unnamed_names
from meta_mage.archetypes.classifier import (
    COLOR_NAMES,
    ArchetypeClassifier,
    ArchetypeRule,
    Condition,
    FormatRules,
    color_name,
    parse_rule,
)
from meta_mage.archetypes.provisional import is_provisional
from meta_mage.config import Settings
from meta_mage.models.cards import card_key
from meta_mage.models.meta import FormatSummary
from meta_mage.storage.meta import MetaRepository, StoredDeck

BASIC_LANDS = frozenset(
    card_key(f"{snow}{name}")
    for name in ("Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes")
    for snow in ("", "Snow-Covered ")
)
SUGGESTED_SUFFIX = ".suggested.json"
MAX_CLUSTERED_DECKS = 3000  # average linkage is quadratic in memory: the newest decks beyond this are left out
MAX_CONDITION_CARDS = 8
MAX_EXTRA_CARDS = 8  # distinctive cards the evidence lists beyond the rule's
MAX_DAYS = 3650  # ten years: more overflows no date, but means nothing for a meta
_COLOR_WORDS = {word.casefold() for name in COLOR_NAMES.values() for word in name.split() if word != "Mono"}


# --- 1. how many decks the rules leave unnamed ------------------------------------------------------


@dataclass(frozen=True)
class FallbackShare:
    """The share of a format's decks named "Unknown" or by a fallback, over a window."""

    format: str
    start: str
    end: str
    unnamed_decks: int
    total_decks: int
    share: float | None  # percent; None without decks
    ci_low: float | None  # 95 % Wilson interval of the share, percent
    ci_high: float | None
    by_name: dict[str, int] = field(default_factory=dict)  # unnamed decks per stored name, most first

    def line(self) -> str:
        """The share in one human line."""
        if self.share is None:
            return f"{self.format}: no decks between {self.start} and {self.end}"
        names = ", ".join(f"{name} {count}" for name, count in self.by_name.items())
        return (
            f"{self.format}: {self.unnamed_decks} of {self.total_decks} decks unnamed ({self.share:.1f} %, "
            f"95 % CI {self.ci_low:.1f}–{self.ci_high:.1f} %) from {self.start} to {self.end}"
            + (f": {names}" if names else "")
        )


def _check_days(days: int) -> None:
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")


def fallback_share(
    meta: MetaRepository,
    classifier: ArchetypeClassifier,
    info: FormatSummary,
    days: int = 14,
    today: dt.date | None = None,
) -> FallbackShare:
    """The share of ``info``'s format's decks left unnamed over ``days`` days.

    The window ends at ``today`` when given, else at the format's newest stored date (so older data,
    such as the bundled demo, still reads). One Query on the format's per-day aggregates; which names
    are fallbacks comes from ``classifier``'s rules for the format."""
    _check_days(days)
    period, total = MetaService(meta).total_of(info, days, today)
    archetypes: dict[str, Any] = total.get("archetypes", {})
    # a provisional archetype's lists are named by no rule file yet: what a suggestion would name
    unnamed = unnamed_names(classifier.rules_for(info.format), archetypes) | set(filter(is_provisional, archetypes))
    by_name = {name: int(archetypes[name]["decks"]) for name in unnamed}
    count, decks = sum(by_name.values()), int(total.get("decks", 0))
    interval = wilson_interval(count, decks - count)
    return FallbackShare(
        format=info.format,
        start=period.start,
        end=period.end,
        unnamed_decks=count,
        total_decks=decks,
        share=win_rate(count, decks - count),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        by_name=dict(sorted(by_name.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def fallback_shares(
    meta: MetaRepository,
    classifier: ArchetypeClassifier,
    days: int = 14,
    today: dt.date | None = None,
    formats: Collection[str] | None = None,
) -> list[FallbackShare]:
    """Per format with data (or only ``formats``), by name, :func:`fallback_share` over ``days`` days: one
    Query for the formats, then one per format."""
    _check_days(days)
    wanted = {f.lower() for f in formats} if formats is not None else None
    return [
        fallback_share(meta, classifier, info, days, today)
        for info in sorted(meta.list_formats(), key=lambda f: f.format)
        if wanted is None or info.format.lower() in wanted
    ]


# --- 2. clustering and candidate rules ---------------------------------------------------------------


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    common = len(a & b)
    union = len(a) + len(b) - common
    return common / union if union else 0.0


def cluster_decks(card_sets: Sequence[frozenset[str]], min_similarity: float = 0.3) -> list[list[int]]:
    """Average-linkage agglomerative clustering of decks (their distinct card names) on Jaccard similarity.

    Two clusters merge while the mean similarity of their deck pairs is at least ``min_similarity``,
    most similar first (ties: the earlier decks first, so the result is deterministic). Returns lists
    of indexes into ``card_sets``, largest cluster first. Quadratic in the number of decks: fine for a
    few thousand."""
    sums: dict[int, dict[int, float]] = {i: {} for i in range(len(card_sets))}
    heap: list[tuple[float, int, int]] = []
    for i, cards in enumerate(card_sets):
        for j in range(i + 1, len(card_sets)):
            similarity = jaccard(cards, card_sets[j])
            if similarity > 0:
                sums[i][j] = sums[j][i] = similarity
                if similarity >= min_similarity:
                    heap.append((-similarity, i, j))
    heapq.heapify(heap)
    members: dict[int, list[int]] = {i: [i] for i in range(len(card_sets))}
    next_id = len(card_sets)
    while heap:
        _, a, b = heapq.heappop(heap)
        if a not in members or b not in members:  # one side merged since: a stale pair
            continue
        merged_id, next_id = next_id, next_id + 1
        members[merged_id] = members.pop(a) + members.pop(b)
        sums_a, sums_b = sums.pop(a), sums.pop(b)
        merged: dict[int, float] = {}
        for other in (set(sums_a) | set(sums_b)) - {a, b}:
            total = sums_a.get(other, 0.0) + sums_b.get(other, 0.0)
            merged[other] = total
            neighbours = sums[other]
            neighbours.pop(a, None)
            neighbours.pop(b, None)
            neighbours[merged_id] = total
            mean = total / (len(members[merged_id]) * len(members[other]))
            if mean >= min_similarity:
                heapq.heappush(heap, (-mean, other, merged_id))
        sums[merged_id] = merged
    clusters = [sorted(m) for m in members.values()]
    return sorted(clusters, key=lambda m: (-len(m), m[0]))


@dataclass(frozen=True)
class CardShare:
    """A card's presence: share (0–1) of the cluster's decks playing it in the mainboard, and of the window's
    other decks."""

    card: str
    in_cluster: float
    outside: float
    condition: str = ""  # the rule's condition type naming the card, "" when it names none


@dataclass(frozen=True)
class DeckExample:
    player: str
    event: str
    date: str
    placing: str


@dataclass
class RuleSuggestion:
    """A candidate rule file for one cluster of unnamed decks, with the evidence for it.

    ``rule`` is the file's JSON body (the shape of the bundled ``Archetypes/*.json``). ``matched``: the
    cluster's decks the rule names once added to the current rules; ``also_unnamed``: other unnamed
    decks of the window it would name; ``overlaps``: decks the current rules already name that the
    rule's conditions also hold for, per their current archetype (the rule must not take decks over:
    the suggestion adds ``DoesNotContainMainboard`` cards to avoid them; what is left is reported);
    ``takes_over``: those of them the rule would actually rename (it is more specific)."""

    format: str
    name: str
    display_name: str
    file_stem: str
    rule: dict[str, Any]
    decks: int
    events: int
    matched: int
    also_unnamed: int
    cards: list[CardShare]
    colors: dict[str, int]
    previous_names: dict[str, int]
    examples: list[DeckExample]
    overlaps: dict[str, int]
    takes_over: dict[str, int]

    @property
    def coverage(self) -> float:
        """Share (0–1) of the cluster's decks the rule names."""
        return self.matched / self.decks if self.decks else 0.0

    @property
    def condition_cards(self) -> list[str]:
        """Every card the rule's positive conditions name."""
        return [
            card
            for condition in self.rule["Conditions"]
            if not condition["Type"].startswith("DoesNotContain")
            for card in condition["Cards"]
        ]


@dataclass(frozen=True)
class _Deck:
    record: StoredDeck
    main: dict[str, int]  # normalised names
    side: dict[str, int]
    cards: frozenset[str]  # distinct non-basic mainboard names
    kind: str
    current: str
    colors: str
    strategy: str


def short_card_name(card: str) -> str:
    """A card's name as a deck name: the part before a comma ("Ragavan, Nimble Pilferer" → "Ragavan")."""
    return card.split(",", 1)[0].strip()


def file_stem(name: str) -> str:
    """A rule file's stem in the bundled style ("Goryo's Vengeance" → "GoryosVengeance")."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().replace("'", "")
    words = re.findall(r"[A-Za-z0-9]+", ascii_name)
    return "".join(w[:1].upper() + w[1:] for w in words) or "Suggested"


def _rule_names(rules: FormatRules) -> set[str]:
    return {fb.name.casefold() for fb in rules.fallbacks} | {rule.name.casefold() for rule in all_rules(rules)}


def _shares(decks: Sequence[_Deck]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for deck in decks:
        counts.update(deck.cards)
    return counts


Conditions = list[tuple[str, list[str]]]


def _condition_options(ranked: Sequence[str], in_share: Mapping[str, float], require_share: float) -> list[Conditions]:
    """Ways to write the cluster's distinctive cards (``ranked``) as conditions, most specific first."""
    required = [c for c in ranked if in_share[c] >= require_share][:2]
    options: list[Conditions] = []
    for count in range(len(required), 0, -1):
        others = [c for c in ranked if c not in required[:count]][:MAX_CONDITION_CARDS]
        options.append([("InMainboard", required[:count])] + ([("OneOrMoreInMainboard", others)] if others else []))
    top = list(ranked[:MAX_CONDITION_CARDS])
    options.append([("TwoOrMoreInMainboard", top)] if len(top) >= 3 else [("OneOrMoreInMainboard", top)])
    return options


def _holds(conditions: Conditions, deck: _Deck) -> bool:
    return all(Condition(kind, tuple(cards)).holds(deck.main, deck.side) for kind, cards in conditions)


def suggest_rules(
    decks: Iterable[StoredDeck],
    format_name: str,
    existing_rules_dir: Path | ArchetypeClassifier,
    min_cluster: int = 5,
    *,
    min_events: int = 2,
    min_similarity: float = 0.3,
    core_share: float = 0.8,
    require_share: float = 0.9,
    max_outside_share: float = 0.1,
    min_coverage: float = 0.7,
    examples: int = 5,
) -> list[RuleSuggestion]:
    """Candidate rules for the clusters of unnamed decks among ``decks`` (one format's window).

    A deck is unnamed when the current rules (``existing_rules_dir``, or a classifier over them) give it
    a fallback or "Unknown": it is reclassified here, so decks stored under older rules count as the
    current rules see them. Unnamed decks are clustered on their distinct non-basic mainboard cards
    (:func:`cluster_decks`); a cluster of at least ``min_cluster`` decks gives a rule from its
    distinctive cards: those in at least ``core_share`` of its decks and at most ``max_outside_share``
    of the window's other decks. The one or two of them in at least ``require_share`` of the cluster
    become ``InMainboard``, the next ``OneOrMoreInMainboard``; when that holds for under 90 % of the
    cluster, one ``InMainboard`` card, else ``TwoOrMoreInMainboard`` over them. The rule is then
    checked against the decks the current rules name, and cards those decks play but the cluster does
    not are added as ``DoesNotContainMainboard`` until none matches (or what remains is reported).
    Clusters without distinctive cards, from fewer than ``min_events`` events (one team's list at one
    event is not yet an archetype), or whose rule names under ``min_coverage`` of them, give no
    suggestion. Largest cluster first."""
    window = _Window.of(decks, _classifier_of(existing_rules_dir).rules_for(format_name))
    taken = _rule_names(window.rules)
    limits = _Limits(core_share, require_share, max_outside_share, examples)
    suggestions: list[RuleSuggestion] = []
    for members in cluster_decks([d.cards for d in window.unnamed], min_similarity):
        if len(members) < min_cluster:
            break
        cluster = [window.unnamed[i] for i in members]
        if len({d.record.event_key for d in cluster}) < min_events:
            continue
        suggestion = _suggest(window, cluster, taken, limits)
        if suggestion is not None and suggestion.coverage >= min_coverage:
            taken.add(suggestion.name.casefold())
            suggestions.append(suggestion)
    return suggestions


def _classifier_of(existing_rules_dir: Path | ArchetypeClassifier) -> ArchetypeClassifier:
    if isinstance(existing_rules_dir, ArchetypeClassifier):
        return existing_rules_dir
    return ArchetypeClassifier(Path(existing_rules_dir))


def _classified(record: StoredDeck, rules: FormatRules) -> _Deck | None:
    """A stored deck as the current rules name it; None without a mainboard."""
    main = {card_key(n): c for n, c in record.mainboard.items()}
    side = {card_key(n): c for n, c in record.sideboard.items()}
    if not main:
        return None
    verdict = rules.classify(main, side)
    distinct = frozenset(main) - BASIC_LANDS
    return _Deck(record, main, side, distinct, verdict.kind, verdict.archetype, verdict.colors, verdict.strategy)


@dataclass(frozen=True)
class _Window:
    """One format's decks with a mainboard, oldest first, as the current rules name them."""

    rules: FormatRules
    decks: list[_Deck]
    unnamed: list[_Deck]  # the newest MAX_CLUSTERED_DECKS of them
    named: list[_Deck]
    display: dict[str, str]  # each card's most used spelling

    @classmethod
    def of(cls, records: Iterable[StoredDeck], rules: FormatRules) -> _Window:
        spelled: dict[str, Counter[str]] = {}
        decks: list[_Deck] = []
        for record in sorted(records, key=lambda d: (d.date, d.event_key, d.player)):
            deck = _classified(record, rules)
            if deck is None:
                continue
            for name in record.mainboard:
                spelled.setdefault(card_key(name), Counter())[name] += 1
            decks.append(deck)
        return cls(
            rules,
            decks,
            unnamed=[d for d in decks if d.kind != "archetype"][-MAX_CLUSTERED_DECKS:],
            named=[d for d in decks if d.kind == "archetype"],
            display={key: names.most_common(1)[0][0] for key, names in spelled.items()},
        )

    def split(self, cluster: Sequence[_Deck]) -> tuple[_Cluster, list[_Deck]]:
        """``cluster`` beside the window's other decks; and the unnamed decks outside it."""
        chosen = {id(d) for d in cluster}
        view = _Cluster.of(cluster, [d for d in self.decks if id(d) not in chosen])
        return view, [d for d in self.unnamed if id(d) not in chosen]


@dataclass(frozen=True)
class _Limits:
    """The shares and counts :func:`suggest_rules` applies to each cluster (see there)."""

    core_share: float
    require_share: float
    max_outside_share: float
    examples: int


@dataclass(frozen=True)
class _Cluster:
    """A cluster's decks and the window's other decks, with how many of each play each card."""

    decks: Sequence[_Deck]
    others: Sequence[_Deck]
    inside: Counter[str]
    outside: Counter[str]
    in_share: dict[str, float]  # share (0–1) of the cluster's decks, per card of the cluster
    out_share: dict[str, float]  # share of the other decks, per card of the cluster

    @classmethod
    def of(cls, decks: Sequence[_Deck], others: Sequence[_Deck]) -> _Cluster:
        inside, outside = _shares(decks), _shares(others)
        in_share = {card: n / len(decks) for card, n in inside.items()}
        out_share = {card: outside[card] / len(others) if others else 0.0 for card in inside}
        return cls(decks, others, inside, outside, in_share, out_share)


def _distinctive(cluster: _Cluster, display: Mapping[str, str], limits: _Limits) -> list[str]:
    """Cards in most of the cluster and few other decks, the widest gap first."""
    in_share, out_share = cluster.in_share, cluster.out_share
    return sorted(
        (c for c in cluster.inside if in_share[c] >= limits.core_share and out_share[c] <= limits.max_outside_share),
        key=lambda c: (-(in_share[c] - out_share[c]), -in_share[c], display[c]),
    )


def _chosen_conditions(ranked: Sequence[str], cluster: _Cluster, require_share: float) -> Conditions:
    """The most specific way of writing ``ranked`` that still holds for nearly all the cluster (else the widest)."""
    options = _condition_options(ranked, cluster.in_share, require_share)
    decks = cluster.decks
    coverage = [sum(_holds(option, d) for d in decks) / len(decks) for option in options]
    return next((o for o, c in zip(options, coverage, strict=True) if c >= 0.9), options[coverage.index(max(coverage))])


def _names_a_colour(name: str) -> bool:
    return bool(_COLOR_WORDS & set(name.casefold().split()))


def _free_name(ranked: Sequence[str], display: Mapping[str, str], taken: set[str]) -> str:
    """The most distinctive card not already a rule's name, one without a colour's name first ("Jeskai Jeskai …")."""
    names = [short_card_name(display[c]) for c in ranked]
    free = sorted((n for n in names if n.casefold() not in taken), key=_names_a_colour)
    return free[0] if free else f"{names[0]} {len(taken) + 1}"


def _main_strategy(decks: Sequence[_Deck]) -> str:
    strategies = Counter(d.strategy for d in decks if d.strategy != "unknown")
    return strategies.most_common(1)[0][0] if strategies else "unknown"


@dataclass(frozen=True)
class _Candidate:
    """A candidate rule: everything but the cards it excludes."""

    name: str
    strategy: str
    conditions: Conditions
    display: Mapping[str, str]

    def body(self, excluded: Sequence[str]) -> dict[str, Any]:
        """The rule file's JSON body."""
        display = self.display
        conds = [{"Type": kind, "Cards": [display[c] for c in cards]} for kind, cards in self.conditions]
        if excluded:
            conds.append({"Type": "DoesNotContainMainboard", "Cards": [display[c] for c in excluded]})
        return {"Name": self.name, "IncludeColorInName": True, "Strategy": self.strategy, "Conditions": conds}

    def rule(self, excluded: Sequence[str]) -> ArchetypeRule:
        return parse_rule(self.body(excluded), "suggested")


def _next_exclusion(
    overlapping: Sequence[_Deck], cluster: _Cluster, excluded: Sequence[str], display: Mapping[str, str]
) -> str | None:
    """The card the overlapping decks play most and the cluster (almost) never, or None."""
    theirs = _shares(overlapping)
    inside, size = cluster.inside, len(cluster.decks)
    candidates = sorted(
        (c for c in theirs if inside[c] / size <= 0.05 and c not in excluded),
        key=lambda c: (-(theirs[c] / len(overlapping) - inside[c] / size), display[c]),
    )
    return candidates[0] if candidates else None


def _kept_off_named(
    candidate: _Candidate, cluster: _Cluster, named: Sequence[_Deck]
) -> tuple[list[str], ArchetypeRule, list[_Deck]]:
    """Keep the rule off decks the current rules name by excluding cards they play and the cluster does not.

    Returns the excluded cards, the rule with them, and the named decks it still matches."""
    excluded: list[str] = []
    rule = candidate.rule(excluded)
    overlapping = [d for d in named if rule.matches(d.main, d.side)]
    while overlapping and len(excluded) < MAX_CONDITION_CARDS:
        card = _next_exclusion(overlapping, cluster, excluded, candidate.display)
        if card is None:
            break
        excluded.append(card)
        rule = candidate.rule(excluded)
        overlapping = [d for d in named if rule.matches(d.main, d.side)]
    return excluded, rule, overlapping


def _renamer(rules: FormatRules, rule: ArchetypeRule) -> Callable[[_Deck], bool]:
    """Whether a deck would get ``rule``'s name once ``rule`` is added to ``rules``."""
    with_rule = FormatRules(
        rules.format, [*rules.archetypes, rule], rules.fallbacks, rules.land_colors, rules.nonland_colors
    )

    def renamed(deck: _Deck) -> bool:
        return with_rule.classify(deck.main, deck.side).base_name == rule.name

    return renamed


def _card_shares(
    cluster: _Cluster, ranked: Sequence[str], candidate: _Candidate, excluded: Sequence[str]
) -> list[CardShare]:
    """The rule's cards, then up to :data:`MAX_EXTRA_CARDS` other distinctive ones, then the excluded ones."""
    role = {card: kind for kind, cards in candidate.conditions for card in cards} | dict.fromkeys(
        excluded, "DoesNotContainMainboard"
    )
    shown = [
        *(c for _, cards in candidate.conditions for c in cards),
        *[c for c in ranked if c not in role][:MAX_EXTRA_CARDS],
    ]
    inside, outside, size, others = cluster.inside, cluster.outside, len(cluster.decks), cluster.others
    return [
        CardShare(
            candidate.display[c],
            round(inside[c] / size, 3),
            round(outside[c] / len(others) if others else 0.0, 3),
            role.get(c, ""),
        )
        for c in [*shown, *excluded]
    ]


def _colour_counts(decks: Sequence[_Deck]) -> list[tuple[str, int]]:
    """The decks' colours, most decks first."""
    return sorted(Counter(d.colors for d in decks).items(), key=lambda kv: (-kv[1], kv[0]))


def _by_event_spread(decks: Sequence[_Deck]) -> list[_Deck]:
    """The newest deck of each event first, then each event's second newest …: examples show how widely it is played."""
    newest_first = sorted(decks, key=lambda d: (d.record.date, d.record.event_key), reverse=True)
    seen: Counter[str] = Counter()
    nth_of_event = []
    for deck in newest_first:
        nth_of_event.append(seen[deck.record.event_key])
        seen[deck.record.event_key] += 1
    return [d for _, _, d in sorted(zip(nth_of_event, range(len(newest_first)), newest_first, strict=True))]


def _suggest(window: _Window, decks: Sequence[_Deck], taken: set[str], limits: _Limits) -> RuleSuggestion | None:
    """The rule suggested for one cluster of unnamed decks; None when no card is distinctive of it."""
    cluster, other_unnamed = window.split(decks)
    display, rules = window.display, window.rules
    ranked = _distinctive(cluster, display, limits)
    if not ranked:
        return None
    conditions = _chosen_conditions(ranked, cluster, limits.require_share)
    candidate = _Candidate(_free_name(ranked, display, taken), _main_strategy(decks), conditions, display)
    excluded, rule, overlapping = _kept_off_named(candidate, cluster, window.named)
    renamed = _renamer(rules, rule)
    colors = _colour_counts(decks)
    return RuleSuggestion(
        format=rules.format,
        name=candidate.name,
        display_name=f"{color_name(colors[0][0])} {candidate.name}",
        file_stem=file_stem(candidate.name),
        rule=candidate.body(excluded),
        decks=len(decks),
        matched=sum(renamed(d) for d in decks),
        also_unnamed=sum(renamed(d) for d in other_unnamed),
        events=len({d.record.event_key for d in decks}),
        cards=_card_shares(cluster, ranked, candidate, excluded),
        colors={color or "C": n for color, n in colors},
        previous_names=dict(Counter(d.current for d in decks).most_common()),
        examples=[
            DeckExample(d.record.player, d.record.event_name, d.record.date, d.record.placing)
            for d in _by_event_spread(decks)[: limits.examples]
        ],
        overlaps=dict(Counter(d.current for d in overlapping).most_common()),
        takes_over=dict(Counter(d.current for d in overlapping if renamed(d)).most_common()),
    )


# --- 3. writing them for review --------------------------------------------------------------------------
#
# The output folder is walked from the root one directory at a time, each opened with O_NOFOLLOW, and every
# file is made under such a descriptor: a symbolic link anywhere in or below --out is refused, never followed,
# whatever is swapped in meanwhile. Each file is written to a temporary name beside it and then linked (a rule
# file: never replacing anything) or renamed (the README) into place, so no file is ever half-written.


class OutputRefused(ValueError):
    """The output folder cannot be written safely: a link, a file or device, inside the rules in use, or a
    README.md that ``rules suggest`` did not write."""


README = "README.md"
README_MARK = "Generated by `meta-mage rules suggest`"  # in every README written here; see _readme
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a directory",
    stat.S_IFREG: "a file",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
}


def _format_dir(out_dir: Path, fmt: str) -> Path:
    return out_dir / "Formats" / fmt


def _kind(info: os.stat_result) -> str:
    return _KINDS.get(stat.S_IFMT(info.st_mode), "a special file")


def _lstat(folder: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _child_dir(parent: int, name: str, shown: Path, create: bool) -> int | None:
    """A descriptor of the directory ``name`` in ``parent``, never through a link; made when missing and
    ``create``, else None when missing."""
    try:
        info = _lstat(parent, name)
        if info is None:
            if not create:
                return None
            with contextlib.suppress(FileExistsError):  # made meanwhile: checked below like any other
                os.mkdir(name, dir_fd=parent)
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            raise OutputRefused(f"{shown} is a symbolic link; suggestions are never written through one")
        if not stat.S_ISDIR(info.st_mode):
            raise OutputRefused(f"{shown} is {_kind(info)}, not a directory")
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:  # no permission, or swapped for a link or a file since the check
        raise OutputRefused(f"{shown}: {exc.strerror or exc}") from None


def _open_dirs(path: Path, stack: contextlib.ExitStack, create: bool) -> int | None:
    """A descriptor of ``path`` (absolute, normalised) opened from the root down (see :func:`_child_dir`)."""
    folder = os.open(path.anchor, _DIR_FLAGS)
    stack.callback(os.close, folder)
    for depth in range(1, len(path.parts)):
        child = _child_dir(folder, path.parts[depth], Path(*path.parts[: depth + 1]), create)
        if child is None:
            return None
        stack.callback(os.close, child)
        folder = child
    return folder


def _checked_name(fmt: str) -> str:
    if fmt in ("", ".", "..") or any(c in fmt for c in "/\\") or not fmt.isprintable():
        raise OutputRefused(f"the format name {fmt!r} cannot be a folder name")
    return fmt


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _head(folder: int, name: str, size: int, shown: Path) -> bytes | None:
    """The first ``size`` bytes of the regular file ``name``, or None when there is none by that name."""
    try:
        info = _lstat(folder, name)
        if info is None:
            return None
        if not stat.S_ISREG(info.st_mode):
            raise OutputRefused(f"{shown} is {_kind(info)}, not a file; remove it or choose another --out")
        handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
        with os.fdopen(handle, "rb") as file:
            return file.read(size)
    except OSError as exc:
        raise OutputRefused(f"{shown}: {exc.strerror or exc}") from None


def _refuse_inside(out_dir: Path, rules_dir: Path | None, written: Path) -> None:
    """Refuse ``out_dir`` when ``written``, a folder it writes to, is inside the rules in use (links resolved)."""
    if rules_dir is not None and _inside(Path(os.path.realpath(written)), Path(os.path.realpath(rules_dir))):
        raise OutputRefused(
            f"{out_dir} is inside the rules directory in use ({rules_dir}): the classifier would read "
            "the suggestions as rules; write them elsewhere"
        )


class _Output:
    """One format's output folders, opened safely (see :func:`_open_dirs`) for as long as the ``with`` lasts."""

    def __init__(self, out_dir: Path, fmt: str, rules_dir: Path | None, create: bool) -> None:
        self.shown = _format_dir(Path(out_dir), _checked_name(fmt))
        self.path = Path(os.path.abspath(self.shown))
        _refuse_inside(out_dir, rules_dir, self.path / "Archetypes")  # the deepest: any folder above it inside too
        self._stack = contextlib.ExitStack()
        try:
            self.folder = _open_dirs(self.path, self._stack, create)
            self.archetypes = (
                None
                if self.folder is None
                else _child_dir(self.folder, "Archetypes", self.shown / "Archetypes", create)
            )
            if self.archetypes is not None:
                self._stack.callback(os.close, self.archetypes)
        except BaseException:
            self._stack.close()
            raise

    def __enter__(self) -> _Output:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def check_readme(self, force: bool) -> None:
        """Refuse a README.md that is not a file, or that ``rules suggest`` did not write unless ``force``."""
        if self.folder is None:
            return
        head = _head(self.folder, README, 4096, self.shown / README)
        if head is not None and not force and README_MARK.encode() not in head:
            raise OutputRefused(
                f"{self.shown / README} was not written by `meta-mage rules suggest`; choose another --out "
                "or pass --force to replace it"
            )


def _write_temp(folder: int, name: str, data: bytes) -> str:
    """Write ``data`` to a new hidden file beside ``name`` (exclusive, no link followed) and flush it to disk."""
    temp = f".{name}.{secrets.token_hex(8)}.tmp"
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        os.unlink(temp, dir_fd=folder)
        raise
    return temp


def _create(folder: int, name: str, data: bytes) -> bool:
    """Make the file ``name`` holding ``data``, whole or not at all; False (nothing written) when it exists."""
    temp = _write_temp(folder, name, data)
    try:
        os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder)  # fails on any existing entry, links included
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links: rename, which replaces a link rather than follow it
        if _lstat(folder, name) is not None:
            return False
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder)
    return True


def _replace(folder: int, name: str, data: bytes) -> None:
    """Replace the file ``name`` by one holding ``data`` in one rename (a link there is replaced, not followed)."""
    temp = _write_temp(folder, name, data)
    try:
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        os.unlink(temp, dir_fd=folder)
        raise


def check_output(
    out_dir: Path, rules_dir: Path | None = None, formats: Iterable[str] = (), force: bool = False
) -> None:
    """Raise :class:`OutputRefused` when suggestions for ``formats`` cannot be written safely to ``out_dir``
    (with no format: when ``out_dir`` itself cannot be); nothing is made. See :func:`write_suggestions`."""
    _refuse_inside(out_dir, rules_dir, out_dir)
    with contextlib.ExitStack() as stack:
        _open_dirs(Path(os.path.abspath(out_dir)), stack, create=False)
    for fmt in formats:
        with _Output(out_dir, fmt, rules_dir, create=False) as output:
            output.check_readme(force)


def write_suggestions(
    suggestions: Sequence[RuleSuggestion],
    out_dir: Path,
    share: FallbackShare | None = None,
    rules_dir: Path | None = None,
    force: bool = False,
) -> list[Path]:
    """Write each suggestion to ``<out_dir>/Formats/<Format>/Archetypes/<Stem>.suggested.json`` and a
    ``README.md`` per format beside them (the evidence, regenerated on each run).

    An existing rule file is never overwritten: the same content is left as it is, other content moves
    the new suggestion to ``<Stem>-2.suggested.json`` (``-3`` …). A README.md is replaced only when this
    command wrote it (or ``force``). Every file appears whole or not at all; a symbolic link, file or device
    on the way, or ``out_dir`` inside ``rules_dir`` (the rules in use: the classifier reads every ``*.json``
    there), raises :class:`OutputRefused` before anything is written. Returns the rule files' paths in the
    order of ``suggestions``."""
    by_format: dict[str, list[RuleSuggestion]] = {}
    for suggestion in suggestions:
        by_format.setdefault(suggestion.format, []).append(suggestion)
    if share is not None:
        by_format.setdefault(share.format, [])
    check_output(out_dir, rules_dir, by_format, force)  # nothing made yet; checked again while made below
    with contextlib.ExitStack() as stack:
        outputs = {fmt: stack.enter_context(_Output(out_dir, fmt, rules_dir, create=True)) for fmt in by_format}
        for output in outputs.values():
            output.check_readme(force)
        paths: list[Path] = []
        for suggestion in suggestions:
            paths.append(_write_rule(outputs[suggestion.format], suggestion, paths))
        for fmt, output in outputs.items():
            written = [(s, p) for s, p in zip(suggestions, paths, strict=True) if s.format == fmt]
            text = _readme(fmt, written, share if share and share.format == fmt else None)
            assert output.folder is not None
            _replace(output.folder, README, text.encode())
    return paths


def _suggested_name(stem: str, number: int) -> str:
    """``<stem>.suggested.json``, then ``<stem>-2.suggested.json`` …"""
    return f"{stem}{f'-{number}' if number > 1 else ''}{SUGGESTED_SUFFIX}"


def _holds_data(folder: int, name: str, data: bytes, shown: Path) -> bool:
    """Whether the file ``name`` holds ``data`` once this returns: made here when missing, else compared."""
    while True:
        existing = _head(folder, name, len(data) + 1, shown)
        if existing is not None:
            return existing == data
        if _create(folder, name, data):
            return True
        # made meanwhile: look at it again


def _write_rule(output: _Output, suggestion: RuleSuggestion, paths: Sequence[Path]) -> Path:
    """Write ``suggestion``'s rule file under the first name free of other content (and of ``paths``, this run's)."""
    assert output.archetypes is not None  # made by the caller
    data = (json.dumps(suggestion.rule, indent=2, ensure_ascii=False) + "\n").encode()
    number = 1
    while True:
        name = _suggested_name(suggestion.file_stem, number)
        path = output.shown / "Archetypes" / name
        if path not in paths and _holds_data(output.archetypes, name, data, path):
            return path
        number += 1


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _percent(value: float) -> str:
    return f"{100 * value:.0f} %"


def _readme(fmt: str, written: Sequence[tuple[RuleSuggestion, Path]], share: FallbackShare | None) -> str:
    lines = [
        f"# Suggested {fmt} archetype rules",
        "",
        "Generated by `meta-mage rules suggest` (this file is rewritten on each run; the rule files never are).",
        "Each `*.suggested.json` is a candidate rule for a cluster of decks the current rules leave unnamed.",
        "To adopt one: check its evidence, rename the archetype if needed (`Name`), save it as",
        f"`<rules dir>/Formats/{fmt}/Archetypes/<Name>.json` and re-ingest the tournaments.",
        "",
    ]
    if share is not None:
        lines += [f"Unnamed decks now: {share.line()}", ""]
    if not written:
        lines.append("No cluster of unnamed decks was large and distinct enough for a rule.")
    for suggestion, path in written:
        lines += [
            f"## {suggestion.display_name} (`{path.name}`)",
            "",
            f"- decks in the cluster: {suggestion.decks} from {_count(suggestion.events, 'event')}; the rule names "
            f"{suggestion.matched} of them ({_percent(suggestion.coverage)}) and {suggestion.also_unnamed} other "
            "unnamed decks",
            "- now named: " + ", ".join(f"{n} {c}" for n, c in suggestion.previous_names.items()),
            "- colours: " + ", ".join(f"{color_name('' if c == 'C' else c)} {n}" for c, n in suggestion.colors.items()),
            "- decks the current rules name that the conditions also match: "
            + (", ".join(f"{n} {c}" for n, c in suggestion.overlaps.items()) or "none")
            + (
                "; it would rename " + ", ".join(f"{n} {c}" for n, c in suggestion.takes_over.items())
                if suggestion.takes_over
                else ""
            ),
            "",
            "| card | in the cluster | other decks | condition |",
            "| --- | ---: | ---: | --- |",
            *(
                f"| {c.card} | {_percent(c.in_cluster)} | {_percent(c.outside)} | {c.condition or '-'} |"
                for c in suggestion.cards
            ),
            "",
            "Examples:",
            "",
            *(f"- {e.player}, {e.placing or 'unplaced'}, {e.event} ({e.date})" for e in suggestion.examples),
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


# --- 4. the command ------------------------------------------------------------------------------------------


# (default, largest): no cluster holds more than MAX_CLUSTERED_DECKS decks, so from as many events at most
OPTION_RANGES = {"days": (30, MAX_DAYS), "min_decks": (5, MAX_CLUSTERED_DECKS), "min_events": (2, MAX_CLUSTERED_DECKS)}


def _option(args: argparse.Namespace, name: str) -> int:
    """``args.<name>`` (its default when unset), checked against :data:`OPTION_RANGES`."""
    default, largest = OPTION_RANGES[name]
    value = getattr(args, name, None)
    value = int(default if value is None else value)
    if not 1 <= value <= largest:
        raise ValueError(f"--{name.replace('_', '-')} must be between 1 and {largest}, got {value}")
    return value


def open_meta(settings: Settings) -> MetaRepository:
    """The configured meta table (ingest sits below ``wiring``, so the command opens it through storage)."""
    from meta_mage.storage.dynamo import dynamodb_resource

    return MetaRepository(dynamodb_resource(settings).Table(settings.meta_table))


def cmd_rules_suggest(args: argparse.Namespace) -> int:
    """``meta-mage rules suggest FORMAT [--days 30] [--min-decks 5] [--out DIR] [--force]`` (global ``--rules-dir``).

    Reads ``args.format``, ``args.days`` (30), ``args.min_decks`` (5), ``args.min_events`` (2),
    ``args.out`` (``suggested-rules``), ``args.force`` and ``args.rules_dir`` (the configured rules when
    unset). Exit status 0; 2 for a bad argument, an --out it may not write (see :func:`write_suggestions`)
    or a format without data; 1 when writing fails (a full disk)."""
    from meta_mage.config import get_settings

    settings = get_settings()
    rules_dir = Path(getattr(args, "rules_dir", None) or settings.archetype_rules_dir)
    out_dir = Path(getattr(args, "out", None) or "suggested-rules")
    force = bool(getattr(args, "force", False))
    try:
        days, min_decks, min_events = (_option(args, name) for name in ("days", "min_decks", "min_events"))
        check_output(out_dir, rules_dir)  # before any query: the folder alone
    except ValueError as exc:  # a number out of range, or OutputRefused
        return _failed(exc, 2)
    meta = open_meta(settings)
    info = _format_with_data(meta, args.format)
    if info is None:
        return 2
    fmt = info.format
    try:
        check_output(out_dir, rules_dir, [fmt], force)  # before the clustering, which takes seconds
    except OutputRefused as exc:
        return _failed(exc, 2)
    classifier = ArchetypeClassifier(rules_dir)
    share = fallback_share(meta, classifier, info, days)
    print(share.line())
    decks = meta.format_decks(fmt, share.start, share.end)
    suggestions = suggest_rules(decks, fmt, classifier, min_cluster=min_decks, min_events=min_events)
    try:
        paths = write_suggestions(suggestions, out_dir, share, rules_dir, force)
    except OutputRefused as exc:  # changed since the check
        return _failed(exc, 2)
    except OSError as exc:
        return _failed(f"cannot write the suggestions to {out_dir}: {exc.strerror or exc}", 1)
    _print_written(suggestions, paths, min_decks, min_events)
    print(f"evidence: {_format_dir(out_dir, fmt) / 'README.md'}")
    return 0


def _failed(error: object, status: int) -> int:
    """Print ``error`` as the command's one error line; return ``status``."""
    print(f"error: {error}", file=sys.stderr)
    return status


def _format_with_data(meta: MetaRepository, wanted: object) -> FormatSummary | None:
    """The stored format named ``wanted`` (any case); None, with an error naming those there are, when none is."""
    known = {info.format.lower(): info for info in meta.list_formats()}
    info = known.get(str(wanted).strip().lower())
    if info is None:
        listed = ", ".join(sorted(i.format for i in known.values())) or "none"
        _failed(f"no tournament data for {wanted}; formats with data: {listed}", 2)
    return info


def _print_written(
    suggestions: Sequence[RuleSuggestion], paths: Sequence[Path], min_decks: int, min_events: int
) -> None:
    for suggestion, path in zip(suggestions, paths, strict=True):
        overlap = sum(suggestion.overlaps.values())
        print(
            f"  {suggestion.display_name}: {suggestion.decks} decks ({_count(suggestion.events, 'event')}),"
            f" the rule names {suggestion.matched}"
            f"{f', also matches {overlap} named decks' if overlap else ''} -> {path}"
        )
    if not suggestions:
        print(
            f"  no cluster of {min_decks} or more unnamed decks from {min_events} or more events with distinctive cards"
        )
