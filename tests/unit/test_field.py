"""What to play (analytics/field.py): the interval is never narrower than the deck's own record allows."""

from __future__ import annotations

from meta_mage.analytics.field import expected_vs_field
from meta_mage.analytics.meta import record
from meta_mage.models.meta import MatchupCell, MatchupRow

OPPONENTS = [f"Deck {i}" for i in range(12)]


def row(name: str, share: float, cells: dict[str, tuple[int, int]]) -> MatchupRow:
    wins = sum(w for w, _ in cells.values())
    losses = sum(lost for _, lost in cells.values())
    return MatchupRow(
        archetype=name,
        meta_share=share,
        overall=record(wins, losses, 0, 20),
        mirror_matches=0,
        matchups=[MatchupCell(opponent=o, **record(w, lost, 0, 20).model_dump()) for o, (w, lost) in cells.items()],
    )


def test_a_few_matches_spread_thin_do_not_outrank_a_measured_deck() -> None:
    # Given a fringe deck 15-9 in 24 matches, two against each of twelve opponents, and an established deck
    # 100-80 in 180 matches, fifteen against each
    fringe = row("Fringe", 0.3, {o: (2, 0) if i < 3 else (1, 1) for i, o in enumerate(OPPONENTS)})
    established = row("Established", 9.0, {o: (9, 6) if i < 8 else (7, 8) for i, o in enumerate(OPPONENTS)})
    others = [row(o, 7.5, {}) for o in OPPONENTS]
    # When the field is ranked
    ranked = {f.archetype: f for f in expected_vs_field([fringe, established, *others])}
    # Then the fringe deck's interval is at least as wide as its 24 matches allow, and it ranks below
    thin = ranked["Fringe"]
    assert thin.decided == 24 and thin.measured > 89
    p = fringe.overall.estimate / 100  # 15-9 shrunk by 10 matches at 50 %: 20 of 34
    outside_mirror = 1 - 0.3 / (0.3 + 9.0 + 12 * 7.5)
    assert thin.ci_high - thin.ci_low >= 2 * 1.96 * 100 * outside_mirror * (p * (1 - p) / 34) ** 0.5 - 0.2
    assert list(ranked).index("Established") < list(ranked).index("Fringe")
