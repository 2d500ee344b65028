"""Average-linkage clustering of decks on the Jaccard similarity of their cards."""

from __future__ import annotations

import heapq
from collections.abc import Sequence


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
