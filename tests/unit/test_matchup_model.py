"""The hierarchical Bradley–Terry matchup model recovers known strengths and deviations from simulated matches."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from meta_mage.analytics.matchup_model import (
    DEVIATION_PRIOR_SD,
    STRENGTH_PRIOR_SD,
    Match,
    MatchupModel,
    fit_matchup_model,
    log_loss,
    sigmoid,
)

TRUE_STRENGTHS = {"Amulet": -0.6, "Burn": -0.2, "Control": 0.0, "Domain": 0.3, "Eldrazi": 0.7}
# Two rock-paper-scissors cycles: every archetype's deviations sum to zero, so none of it is a strength.
TRUE_DEVIATIONS = {
    ("Amulet", "Burn"): 0.6,
    ("Burn", "Control"): 0.6,
    ("Control", "Amulet"): 0.6,
    ("Control", "Domain"): -0.4,
    ("Domain", "Eldrazi"): -0.4,
    ("Eldrazi", "Control"): -0.4,
}


def true_probability(a: str, b: str) -> float:
    deviation = TRUE_DEVIATIONS.get((a, b), 0.0) - TRUE_DEVIATIONS.get((b, a), 0.0)
    return sigmoid(TRUE_STRENGTHS[a] - TRUE_STRENGTHS[b] + deviation)


def simulate(per_pair: int, seed: int, skip: frozenset[tuple[str, str]] = frozenset()) -> list[Match]:
    """``per_pair`` matches of every pair (both seat orders), outcomes drawn from the true model."""
    rng = random.Random(seed)
    matches: list[Match] = []
    for a, b in itertools.combinations(sorted(TRUE_STRENGTHS), 2):
        if (a, b) in skip:
            continue
        for n in range(per_pair):
            first, second = (a, b) if n % 2 == 0 else (b, a)
            matches.append((first, second, rng.random() < true_probability(first, second)))
    rng.shuffle(matches)
    return matches


@pytest.fixture(scope="module")
def rich_model() -> MatchupModel:
    return fit_matchup_model(simulate(10000, seed=1), tau=0.5, strength_sd=1.0)  # a weak prior: recover them


def test_strengths_recovered_in_order_and_value(rich_model: MatchupModel) -> None:
    order = sorted(TRUE_STRENGTHS, key=rich_model.strength)
    assert order == sorted(TRUE_STRENGTHS, key=TRUE_STRENGTHS.__getitem__)
    mean = sum(rich_model.strength(n) for n in TRUE_STRENGTHS) / len(TRUE_STRENGTHS)
    true_mean = sum(TRUE_STRENGTHS.values()) / len(TRUE_STRENGTHS)
    for name, value in TRUE_STRENGTHS.items():  # λ is defined up to a shift: compare centred values
        assert rich_model.strength(name) - mean == pytest.approx(value - true_mean, abs=0.1)


def test_deviations_recovered_with_many_matches(rich_model: MatchupModel) -> None:
    for a, b in itertools.permutations(TRUE_STRENGTHS, 2):
        expected = TRUE_DEVIATIONS.get((a, b), 0.0) - TRUE_DEVIATIONS.get((b, a), 0.0)
        assert rich_model.deviation(a, b) == pytest.approx(expected, abs=0.1)
    assert rich_model.deviation("Amulet", "Control") == pytest.approx(-0.6, abs=0.1)
    assert rich_model.matches("Eldrazi", "Amulet") == 10000
    for a, b in itertools.permutations(TRUE_STRENGTHS, 2):
        assert rich_model.probability(a, b) == pytest.approx(true_probability(a, b), abs=0.04)


def test_deviations_shrunk_toward_zero_with_few_matches() -> None:
    few = simulate(6, seed=2)
    model = fit_matchup_model(few, tau=0.3)
    wide = fit_matchup_model(few, tau=5.0)  # nearly unshrunk: each pair close to its own record
    assert max(abs(model.deviation(a, b)) for a, b in itertools.combinations(TRUE_STRENGTHS, 2)) < 0.3
    assert sum(abs(model.deviation(a, b)) for a, b in itertools.combinations(TRUE_STRENGTHS, 2)) < sum(
        abs(wide.deviation(a, b)) for a, b in itertools.combinations(TRUE_STRENGTHS, 2)
    )


def test_probabilities_of_a_pair_sum_to_one(rich_model: MatchupModel) -> None:
    for a, b in itertools.permutations(TRUE_STRENGTHS, 2):
        assert rich_model.probability(a, b) + rich_model.probability(b, a) == pytest.approx(1.0, abs=1e-12)
    assert rich_model.probability("Amulet", "Amulet") == 0.5
    assert rich_model.probability("Amulet", "Unheard Of") == 0.5
    assert rich_model.strength("Unheard Of") == 0.0


def test_pair_without_matches_follows_the_strengths() -> None:
    model = fit_matchup_model(simulate(300, seed=3, skip=frozenset({("Amulet", "Eldrazi")})), tau=0.3)
    assert model.matches("Amulet", "Eldrazi") == 0
    assert model.deviation("Amulet", "Eldrazi") == 0.0
    expected = sigmoid(model.strength("Amulet") - model.strength("Eldrazi"))
    assert model.probability("Amulet", "Eldrazi") == pytest.approx(expected, abs=1e-15)


def test_the_backtests_prior_scales_by_default_and_mirrors_ignored() -> None:
    matches = simulate(60, seed=4) + [("Burn", "Burn", True)] * 50
    model = fit_matchup_model(matches)
    assert model.tau == DEVIATION_PRIOR_SD
    assert model.matches("Burn", "Burn") == 0
    assert log_loss(model, matches) < math.log(2.0)


def test_the_chosen_priors_claim_little_from_a_small_lopsided_sample() -> None:
    """Given 12 matches of one pair going 10-2, when fitted with the chosen priors, then the estimate stays
    near 50 % (next week's results move little with past matchups) yet leans the record's way."""
    matches: list[Match] = [("Burn", "Control", True)] * 10 + [("Burn", "Control", False)] * 2
    model = fit_matchup_model(matches)
    assert 0.5 < model.probability("Burn", "Control") < 0.6
    loose = fit_matchup_model(matches, tau=1.0, strength_sd=1.0)
    assert loose.probability("Burn", "Control") > model.probability("Burn", "Control")
    assert STRENGTH_PRIOR_SD < DEVIATION_PRIOR_SD  # what is common to a deck's matchups moves least


def test_positive_tau_required() -> None:
    with pytest.raises(ValueError):
        fit_matchup_model([("A", "B", True)], tau=0.0)
    with pytest.raises(ValueError):
        fit_matchup_model([("A", "B", True)], strength_sd=0.0)
