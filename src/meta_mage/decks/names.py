"""Card-name matching past an exact lookup: a card's short name, then spelling mistakes (rapidfuzz),
over an index of every card name built once per name list (so once per process)."""

from __future__ import annotations

import threading

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from meta_mage.models.cards import card_key

MAX_EDIT_DISTANCE = 2
MAX_SUGGESTIONS = 3
SIMILARITY_CUTOFF = 75  # percent (rapidfuzz's ratio, difflib's ratio x 100) when nothing is within MAX_EDIT_DISTANCE


class CardNameIndex:
    """Every card name with its lookup key, and short names ("Phlage") mapped to their cards."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.keys = [card_key(name) for name in names]
        self.short: dict[str, list[str]] = {}
        for name in names:
            if ", " in name:
                self.short.setdefault(card_key(name.split(", ")[0]), []).append(name)

    def closest(self, name: str) -> tuple[str | None, list[str]]:
        """The single best name (if one is unambiguous) and up to 3 suggestions: a card's short name
        first, then names within edit distance 2 (closest first), else names at least 75 % similar."""
        key = card_key(name)
        short = self.short.get(key, [])
        if len(short) == 1:
            return short[0], short
        near = process.extract(key, self.keys, scorer=Levenshtein.distance, score_cutoff=MAX_EDIT_DISTANCE, limit=None)
        scored = sorted((distance, self.names[index]) for _, distance, index in near)
        if scored:
            unique = len(scored) == 1 or scored[0][0] < scored[1][0]
            return (scored[0][1] if unique else None), [n for _, n in scored[:MAX_SUGGESTIONS]]
        similar = process.extract(key, self.keys, scorer=fuzz.ratio, score_cutoff=SIMILARITY_CUTOFF, limit=None)
        ranked = sorted((-score, self.names[index]) for _, score, index in similar)
        return None, [n for _, n in ranked[:MAX_SUGGESTIONS]]


_indexes: list[CardNameIndex] = []  # the newest few, each for one list object
_lock = threading.Lock()


def name_index(names: list[str]) -> CardNameIndex:
    """The index of ``names``, built on first use. Keyed by the list object: ``CardsRepository.all_names``
    returns the same cached list for the life of the repository and a new one when cards are added."""
    with _lock:  # one build even when a burst of requests arrives at once
        for index in _indexes:
            if index.names is names:
                return index
        index = CardNameIndex(names)
        _indexes.insert(0, index)
        del _indexes[4:]
        return index


def closest_names(name: str, names: list[str]) -> tuple[str | None, list[str]]:
    """The single best name within the edit limit (if any) and up to 3 suggestions (see ``CardNameIndex``)."""
    return name_index(names).closest(name)
