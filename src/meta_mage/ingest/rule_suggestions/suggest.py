"""Candidate rule files for the clusters of decks the current rules leave unnamed, with their evidence."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meta_mage.archetypes.catch_alls import all_rules
from meta_mage.archetypes.classifier import (
    COLOR_NAMES,
    ArchetypeClassifier,
    ArchetypeRule,
    Condition,
    FormatRules,
    color_name,
    parse_rule,
)
from meta_mage.ingest.rule_suggestions.clusters import cluster_decks
from meta_mage.models.cards import card_key
from meta_mage.storage.meta import StoredDeck

BASIC_LANDS = frozenset(
    card_key(f"{snow}{name}")
    for name in ("Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes")
    for snow in ("", "Snow-Covered ")
)
SUGGESTED_SUFFIX = ".suggested.json"
MAX_CLUSTERED_DECKS = 3000  # average linkage is quadratic in memory: the newest decks beyond this are left out
MAX_CONDITION_CARDS = 8
MAX_EXTRA_CARDS = 8  # distinctive cards the evidence lists beyond the rule's
_COLOR_WORDS = {word.casefold() for name in COLOR_NAMES.values() for word in name.split() if word != "Mono"}


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
