"""What to play (analytics/field.py) and matchup verdicts (analytics/matchup_rates.py) on the matchup model,
with players counted: a record one player made is an anecdote, not a verdict or a pick."""

from __future__ import annotations

import math
from typing import Any

from meta_mage.analytics.field import PICK_MARGIN, choose_pick, expectation, expected_vs_field
from meta_mage.analytics.matchup_fit import fit_window, pair_records_of
from meta_mage.analytics.matchup_model import Z95, fit_pairs
from meta_mage.analytics.matchup_rates import field_expectation, pair_rate
from meta_mage.models.aggregates import FormatTotals
from meta_mage.models.meta import FieldExpectation
from meta_mage.storage.meta import format_totals_of

OPPONENTS = [f"Deck {i}" for i in range(12)]


def add(
    total: dict[str, Any], a: str, b: str, wins: int, losses: int, pilots_a: list[str], pilots_b: list[str]
) -> None:
    """A's ``wins``-``losses`` against B, A's matches dealt round-robin to ``pilots_a``, B's to ``pilots_b``."""
    for x, y, w, l, pilots in ((a, b, wins, losses, pilots_a), (b, a, losses, wins, pilots_b)):
        cell = total.setdefault("results", {}).setdefault(x, {}).setdefault(y, [0, 0, 0])
        cell[0] += w
        cell[1] += l
        who = total.setdefault("players", {}).setdefault(x, {}).setdefault(y, {})
        for i in range(w + l):
            who[pilots[i % len(pilots)]] = who.get(pilots[i % len(pilots)], 0) + 1
        entry = total.setdefault("archetypes", {}).setdefault(x, {"decks": 0, "pilots": {}})
        for pilot in pilots:
            entry["pilots"].setdefault(pilot, 1)
        entry["decks"] = len(entry["pilots"])


def typed(total: dict[str, Any]) -> FormatTotals:
    """A window's JSON as storage returns it."""
    return format_totals_of(total)


def base_field() -> dict[str, Any]:
    """Twelve archetypes of five pilots each, every pair 5-5."""
    total: dict[str, Any] = {}
    for i, a in enumerate(OPPONENTS):
        for b in OPPONENTS[i + 1 :]:
            add(total, a, b, 5, 5, [f"{a} p{k}" for k in range(5)], [f"{b} p{k}" for k in range(5)])
    return total


def test_a_deck_one_player_piloted_does_not_outrank_a_measured_deck() -> None:
    # Given a fringe deck one player took to 15-9 (two matches against each of twelve opponents) and an
    # established deck 100-80 by thirty players
    total = base_field()
    for i, opponent in enumerate(OPPONENTS):
        add(total, "Fringe", opponent, 2 if i < 3 else 1, 0 if i < 3 else 1, ["solo"], [f"{opponent} p0"])
        w, l = (9, 6) if i < 8 else (7, 8)
        add(total, "Established", opponent, w, l, [f"e{k}" for k in range(30)], [f"{opponent} p{k}" for k in range(5)])
    # When the field is ranked on the model
    ranked = expected_vs_field(typed(total), fit_window(typed(total)))
    order = [f.archetype for f in ranked]
    fringe = ranked[order.index("Fringe")]
    # Then the fringe deck is named as one player's and ranks below the established deck
    assert fringe.players == 1 and fringe.decided == 24
    assert order.index("Established") < order.index("Fringe")
    assert (
        fringe.ci_high - fringe.ci_low
        > ranked[order.index("Established")].ci_high - ranked[order.index("Established")].ci_low
    )


def five_nil(pilots: list[str]) -> dict[str, Any]:
    """A field where Tempo beat Energy 5-0, Tempo's five wins played by ``pilots``; Energy's by five players."""
    total = base_field()
    add(total, "Tempo", "Energy", 5, 0, pilots, [f"energy {k}" for k in range(5)])
    for opponent in OPPONENTS:
        add(total, "Tempo", opponent, 5, 5, [f"tempo {k}" for k in range(5)], [f"{opponent} p{k}" for k in range(5)])
        add(total, "Energy", opponent, 5, 5, [f"energy {k}" for k in range(5)], [f"{opponent} p{k}" for k in range(5)])
    return total


def test_five_matches_by_one_player_get_no_verdict_while_five_players_can() -> None:
    # Given the same 5-0 record, once all by one player and once by five players
    by_one, by_five = five_nil(["solo"]), five_nil([f"p{k}" for k in range(5)])
    # When the matchup is judged with the model fitted at a τ that lets a pair move (not the data's choice)
    one = pair_rate("Tempo", "Energy", typed(by_one), fit_pairs(pair_records_of(typed(by_one)), tau=1.0), 20)
    five = pair_rate("Tempo", "Energy", typed(by_five), fit_pairs(pair_records_of(typed(by_five)), tau=1.0), 20)
    # Then one player's 5-0 is an anecdote, said as such, and five players' 5-0 gets a verdict word
    assert one.verdict == "anecdote: 5 matches all by one player" and one.players == 1
    assert five.players == 5 and five.verdict in ("favoured", "too close to call")  # judged, not an anecdote
    # and one player's matches are worth fewer independent ones, so the record's interval is wider
    assert one.effective_matches is not None and five.effective_matches == 5.0
    assert one.effective_matches < 5.0
    assert (one.ci_high or 0) - (one.ci_low or 0) > (five.ci_high or 0) - (five.ci_low or 0)
    # and the model trusts one player's record less
    assert (one.estimate or 0) < (five.estimate or 0)


def test_a_pair_without_matches_gets_the_strengths_estimate_labelled() -> None:
    total = base_field()
    add(total, "Strong", OPPONENTS[0], 30, 10, [f"s{k}" for k in range(8)], [f"{OPPONENTS[0]} p{k}" for k in range(5)])
    rate = pair_rate("Strong", OPPONENTS[5], typed(total), fit_window(typed(total)), 20)
    assert rate.basis == "model: strengths only" and rate.verdict == "no decided matches"
    assert rate.estimate is not None and rate.estimate > 50 and rate.wins + rate.losses == 0


VERDICT_RANK = {
    "unfavoured": 0,
    "too close to call": 2,
    "too few matches to call": 2,
    "favoured": 4,
}


def test_a_short_clean_record_is_never_called_more_favoured_than_a_long_strong_one() -> None:
    # Given, in one field, Infect 4-0 against Painter by four players and Burn 10-3 against Painter by ten
    # (the coach said "Infect 4-0: favoured" beside "Painter 10-3: leans favoured")
    total = base_field()
    add(total, "Infect", "Painter", 4, 0, [f"i{k}" for k in range(4)], [f"p{k}" for k in range(4)])
    add(total, "Burn", "Painter", 10, 3, [f"b{k}" for k in range(10)], [f"p{k}" for k in range(10)])
    for name in ("Infect", "Burn", "Painter"):
        for opponent in OPPONENTS[:6]:
            add(total, name, opponent, 3, 3, [f"{name} {k}" for k in range(3)], [f"{opponent} p{k}" for k in range(3)])
    for tau in (0.3, 1.0):
        model = fit_pairs(pair_records_of(typed(total)), tau=tau)
        short = pair_rate("Infect", "Painter", typed(total), model, 20)
        long = pair_rate("Burn", "Painter", typed(total), model, 20)
        # Then the short record is never called more favoured than the long one, nor favoured outright
        assert VERDICT_RANK[short.verdict] <= VERDICT_RANK[long.verdict], (tau, short, long)
        assert short.verdict != "favoured"
        # and its interval is the wider: four matches know less than thirteen
        assert (short.estimate_high or 0) - (short.estimate_low or 0) > (long.estimate_high or 0) - (
            long.estimate_low or 0
        )


def test_players_are_those_behind_the_decided_matches_not_the_pilots_of_the_lists() -> None:
    # Given an archetype eight players registered, whose every decided match one of them played
    total = base_field()
    for opponent in OPPONENTS:
        add(total, "Niche", opponent, 2, 1, ["main pilot"], [f"{opponent} p0"])
    total["archetypes"]["Niche"]["pilots"] |= {f"listed only {k}": 1 for k in range(7)}
    total["archetypes"]["Niche"]["decks"] = 8
    # When the field is ranked
    niche = next(f for f in expected_vs_field(typed(total), fit_window(typed(total))) if f.archetype == "Niche")
    # Then it stands on one player's results, and so is no pick
    assert niche.players == 1 and niche.decided == 36
    assert "Niche" not in choose_pick(expected_vs_field(typed(total), fit_window(typed(total)))).leaders


def _row(name: str, low: float, players: int = 5, catch_all: bool = False) -> FieldExpectation:
    return FieldExpectation(
        archetype=name,
        meta_share=5.0,
        decks=10,
        players=players,
        expected=low + 3,
        ci_low=low,
        ci_high=low + 6,
        decided=40,
        measured=80.0,
        drivers=[],
        catch_all=catch_all,
    )


def test_one_pick_only_when_its_low_end_clears_the_next_by_the_margin() -> None:
    # Given a first whose low end leads the next eligible deck's by less than the margin
    close = [
        _row("Unknown", 60.0, catch_all=True),
        _row("A", 52.0),
        _row("B", 52.0 - PICK_MARGIN + 0.1),
        _row("Solo", 51.0, players=1),
        _row("C", 40.0),
    ]
    decision = choose_pick(close)
    # Then no single pick is named, and the decks it cannot separate are A and B (not the catch-all or Solo)
    assert decision.archetype is None and decision.leaders == ("A", "B")
    # Given a lead of the margin, Then the first is the pick
    clear = choose_pick([_row("A", 52.0), _row("B", 52.0 - PICK_MARGIN), _row("C", 40.0)])
    assert clear.archetype == "A" and clear.leaders == ("A",)
    assert choose_pick([_row("Solo", 60.0, players=2)]).archetype is None


def test_the_rankings_estimate_interval_counts_each_matchups_uncertainty_not_only_the_strengths() -> None:
    # Given a field of twelve archetypes, every pair 5-5
    total = base_field()
    model = fit_window(typed(total))
    name = OPPONENTS[0]
    # When the rankings state an archetype's expected win rate against the field
    estimate = field_expectation(name, typed(total), model)
    assert estimate is not None
    centre, low, high = estimate
    # Then its interval is the delta method over the strength and every pair's deviation, as what-to-play's is
    strength_only = 2 * Z95 * math.sqrt(model.strength_variances[name]) * 0.25 * 100
    assert high - low > 1.5 * strength_only
    assert low < centre < high
    shares = {o: 1 / (len(OPPONENTS) - 1) for o in OPPONENTS if o != name}
    assert (centre, low, high) == tuple(round(v, 2) for v in expectation(name, shares, model))
