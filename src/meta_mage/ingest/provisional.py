"""Name the lists the declared rules leave unnamed: provisional archetypes, found and retired at ingest.

After an ingest stores its events, each format's decks of the last :data:`WINDOW_DAYS` days are classified by
the declared rules; those left "Unknown" or to a catch-all are clustered as ``meta-mage rules suggest`` clusters
them (:func:`~meta_mage.ingest.rule_suggestions.suggest_rules`), the provisional archetypes already stored
counting as named. Each cluster of at least :data:`MIN_LISTS` lists from :data:`MIN_EVENTS` events and
:data:`MIN_PLAYERS` players becomes a provisional archetype (``archetypes/provisional.py``). A stored one is
kept while it names unnamed lists, and retired once the declared rules name the lists it matches (a rule file
added later wins). The set is stored as one versioned item (``MetaRepository.put_provisional_archetypes``);
the ingest then re-labels the events whose decks the new set names otherwise (``tournament_ingest.py``).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from meta_mage.analytics.clustering import MIN_PLAYERS as WHAT_TO_PLAY_MIN_PLAYERS
from meta_mage.archetypes.classifier import ArchetypeClassifier, ArchetypeRule, Classification
from meta_mage.archetypes.provisional import ProvisionalArchetype, provisional_name, stored_provisional, won_event
from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.rule_suggestions import RuleSuggestion, suggest_rules
from meta_mage.models.cards import card_key
from meta_mage.storage.meta import MetaRepository, StoredDeck

# Thresholds of a coherent cluster. MIN_LISTS is the smallest cluster `rules suggest` accepts (--min-decks 5);
# MIN_EVENTS: more than one event (one team's list at one event is not yet an archetype); MIN_PLAYERS: what to
# play picks no deck played by fewer distinct players, so a provisional name on fewer would name one player's list.
MIN_LISTS = 5
MIN_EVENTS = 2
MIN_PLAYERS = WHAT_TO_PLAY_MIN_PLAYERS
WINDOW_DAYS = 30  # the window the clusters are read from: the rankings' longest default window
MAX_PROVISIONAL = 40  # per format, the largest first: bounds the stored item (about 1 KB each)
_WRITE_ATTEMPTS = 5  # conditional writes lost to concurrent ingests of the format before giving up


@dataclass(frozen=True)
class ProvisionalUpdate:
    """What one refresh of a format's provisional archetypes did."""

    format: str
    kept: tuple[ProvisionalArchetype, ...]
    new: tuple[ProvisionalArchetype, ...]
    retired: dict[str, dict[str, int]] = field(default_factory=dict)  # name -> the declared names its lists have
    decks: tuple[StoredDeck, ...] = ()  # the window's decks it was derived from

    @property
    def archetypes(self) -> tuple[ProvisionalArchetype, ...]:
        return self.kept + self.new

    @property
    def changed(self) -> bool:
        return bool(self.new or self.retired)

    def lines(self) -> list[str]:
        """The report's lines: each new deck, each retired one with the names its lists now have."""
        lines = [archetype.line() for archetype in self.new]
        for name, named in self.retired.items():
            now = ", ".join(f"{n} {count}" for n, count in named.items()) or "no list in the window"
            lines.append(f"Retired: {name}, its lists are now named by the archetype rules ({now})")
        return lines


def derive_provisional(
    decks: Sequence[StoredDeck],
    fmt: str,
    classifier: ArchetypeClassifier,
    existing: Sequence[ProvisionalArchetype] = (),
    today: str = "",
) -> ProvisionalUpdate:
    """The provisional archetypes of ``fmt`` over a window's ``decks``: ``existing`` kept or retired, new ones
    named from the clusters of lists neither the declared rules (``classifier``'s rule files) nor the kept ones
    name."""
    declared = classifier.with_provisional({fmt: ()})
    verdicts = [declared.classify(fmt, d.mainboard, d.sideboard) for d in decks]
    unnamed = [d for d, v in zip(decks, verdicts, strict=True) if v.kind != "archetype"]
    kept: list[ProvisionalArchetype] = []
    retired: dict[str, dict[str, int]] = {}
    for archetype in existing:
        outcome = _kept_or_retired(archetype, decks, verdicts)
        if isinstance(outcome, ProvisionalArchetype):
            kept.append(outcome)
        else:
            retired[archetype.name] = outcome
    new: list[ProvisionalArchetype] = []
    while len(kept) + len(new) < MAX_PROVISIONAL:  # once a cluster is named, the lists left may form another
        found = _new_archetypes(decks, unnamed, fmt, declared, [*kept, *new], today)
        if not found:
            break
        new += found[: MAX_PROVISIONAL - len(kept) - len(new)]
    return ProvisionalUpdate(fmt, tuple(kept), tuple(new), retired, tuple(decks))


def _kept_or_retired(
    archetype: ProvisionalArchetype, decks: Sequence[StoredDeck], verdicts: Sequence[Classification]
) -> ProvisionalArchetype | dict[str, int]:
    """The archetype with the window's figures, or (retired) the declared names of the lists it matches: it is
    retired when the declared rules name more of them than they leave unnamed."""
    rule = archetype.archetype_rule()
    matched = [(d, v) for d, v in zip(decks, verdicts, strict=True) if rule.matches(*_normalised(d))]
    named = Counter(v.archetype for _, v in matched if v.kind == "archetype")
    still = [d for d, v in matched if v.kind != "archetype"]
    if named and sum(named.values()) >= len(still):
        return dict(named.most_common())
    if len(still) < MIN_LISTS:
        return archetype  # played less in this window: kept as it was named
    return _with_figures(archetype, still)


def _normalised(deck: StoredDeck) -> tuple[dict[str, int], dict[str, int]]:
    return {card_key(n): c for n, c in deck.mainboard.items()}, {card_key(n): c for n, c in deck.sideboard.items()}


def _with_figures(archetype: ProvisionalArchetype, decks: Sequence[StoredDeck]) -> ProvisionalArchetype:
    """``archetype`` with the figures of ``decks``, the lists it names."""
    return replace(
        archetype,
        lists=len(decks),
        events=len({d.event_key for d in decks}),
        players=len({d.player for d in decks}),
        wins=sum(won_event(d.placing) for d in decks),
    )


def _new_archetypes(
    decks: Sequence[StoredDeck],
    unnamed: Sequence[StoredDeck],
    fmt: str,
    declared: ArchetypeClassifier,
    kept: Sequence[ProvisionalArchetype],
    today: str,
) -> list[ProvisionalArchetype]:
    """A provisional archetype per coherent cluster of the lists no declared nor kept rule names."""
    if len(unnamed) < MIN_LISTS:
        return []
    # the kept provisional rules count as declared here, so a cluster they name is not named twice
    naming = declared.naming_also(fmt, [k.archetype_rule() for k in kept])
    taken = {k.name.casefold() for k in kept}
    found: list[ProvisionalArchetype] = []
    for suggestion in suggest_rules(decks, fmt, naming, min_cluster=MIN_LISTS, min_events=MIN_EVENTS):
        archetype = _named(suggestion, unnamed, fmt, taken, today)
        if archetype is not None:
            taken.add(archetype.name.casefold())
            found.append(archetype)
    return found


def _named(
    suggestion: RuleSuggestion, unnamed: Sequence[StoredDeck], fmt: str, taken: set[str], today: str
) -> ProvisionalArchetype | None:
    """The suggestion as a provisional archetype, with the figures of the unnamed lists it matches; None when
    they are too few, from too few events or players."""
    name = provisional_name(suggestion.display_name)
    number = 2
    while name.casefold() in taken:
        name, number = provisional_name(f"{suggestion.display_name} {number}"), number + 1
    body = {**suggestion.rule, "Name": name, "IncludeColorInName": False}
    archetype = ProvisionalArchetype(fmt, name, body, 0, 0, 0, 0, today)
    rule = archetype.archetype_rule()
    named = _with_figures(archetype, [d for d in unnamed if rule.matches(*_normalised(d))])
    if named.lists < MIN_LISTS or named.events < MIN_EVENTS or named.players < MIN_PLAYERS:
        return None
    return named


def window_of(repository: MetaRepository, fmt: str, last_date: str) -> tuple[str, str]:
    """The :data:`WINDOW_DAYS` days ending at the later of ``last_date`` and the format's registry's last date."""
    info = repository.get_format(fmt)
    end = max(last_date, info.last_date if info else "")
    start = (dt.date.fromisoformat(end) - dt.timedelta(days=WINDOW_DAYS - 1)).isoformat()
    return start, end


def refresh_provisional(
    repository: MetaRepository, classifier: ArchetypeClassifier, fmt: str, last_date: str
) -> ProvisionalUpdate:
    """Derive ``fmt``'s provisional archetypes from its stored window and store them when they changed, on the
    version read (a concurrent refresh that stored first makes this one read and derive again)."""
    start, end = window_of(repository, fmt, last_date)
    decks = repository.format_decks(fmt, start, end)
    for _ in range(_WRITE_ATTEMPTS):
        version, existing = stored_provisional(repository, fmt)
        update = derive_provisional(decks, fmt, classifier, existing, today=end)
        if not update.changed and [a.to_row() for a in update.kept] == [a.to_row() for a in existing]:
            return update
        if repository.put_provisional_archetypes(fmt, [a.to_row() for a in update.archetypes], version):
            return update
    raise StorageUnavailable(f"{fmt}: the provisional archetypes changed under this write {_WRITE_ATTEMPTS} times")


def events_to_relabel(update: ProvisionalUpdate, classifier: ArchetypeClassifier) -> set[str]:
    """The window's events holding a deck whose stored name ``classifier`` (with the update's provisional
    rules) would now change."""
    events: set[str] = set()
    for deck in update.decks:
        if deck.event_key not in events and (
            classifier.classify(update.format, deck.mainboard, deck.sideboard).archetype != deck.archetype
        ):
            events.add(deck.event_key)
    return events


def by_format(updates: Mapping[str, ProvisionalUpdate]) -> dict[str, list[ArchetypeRule]]:
    """Each updated format's provisional rules, for ``ArchetypeClassifier.with_provisional``."""
    return {fmt: [a.archetype_rule() for a in update.archetypes] for fmt, update in updates.items()}
