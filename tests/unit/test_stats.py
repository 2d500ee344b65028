import pytest

from meta_mage.analytics.stats import MatchupEvidence, matchup_verdict, shrunk_rate, verdict, wilson_interval, win_rate


def test_win_rate_excludes_draws_and_handles_no_matches() -> None:
    assert win_rate(3, 1) == 75.0
    assert win_rate(0, 0) is None


def test_wilson_interval_matches_hand_computed_values() -> None:
    # 7 wins of 10: p=0.7, z=1.96 -> (0.3968, 0.8922), computed by hand from the Wilson formula.
    assert wilson_interval(7, 3) == (39.68, 89.22)
    # All wins still leaves an upper bound of 100 and a lower bound well below it.
    low, high = wilson_interval(5, 0)  # type: ignore[misc]
    assert high == 100.0 and 50 < low < 60
    assert wilson_interval(0, 0) is None


@pytest.mark.parametrize(
    ("wins", "losses", "estimate"),
    [
        (0, 0, None),  # nothing to estimate
        (3, 0, 61.54),  # (3 + 5) / (3 + 10): a lucky 3-0 is not 100 %
        (30, 10, 70.0),  # (30 + 5) / (40 + 10): many matches, the record counts
        (1, 1, 50.0),
        (0, 4, 35.71),
    ],
)
def test_the_estimate_adds_ten_matches_at_fifty_percent(wins: int, losses: int, estimate: float | None) -> None:
    assert shrunk_rate(wins, losses) == estimate


def test_a_solid_record_outranks_a_lucky_one_and_both_sides_add_to_100() -> None:
    lucky, solid = shrunk_rate(3, 0), shrunk_rate(30, 10)
    assert lucky is not None and solid is not None and solid > lucky
    for wins, losses in [(3, 0), (5, 3), (17, 7), (0, 4), (120, 80)]:
        here, there = shrunk_rate(wins, losses), shrunk_rate(losses, wins)
        assert here is not None and there is not None and here + there == pytest.approx(100, abs=0.02)


@pytest.mark.parametrize(
    ("wins", "losses", "said"),
    [
        (0, 0, "no decided matches"),
        (30, 10, "favoured"),  # interval 55-83 %: clear of 50 %
        (10, 30, "unfavoured"),
        (0, 4, "too few matches to call"),  # 0-4: interval 0-49 %, not clear of 50 % by 3 points
        (0, 7, "unfavoured"),  # 0-7: interval 0-35 %
        (1, 0, "too few matches to call"),  # a single win says nothing
        (3, 1, "too few matches to call"),
        (5, 3, "too close to call"),  # estimate 55.6 %: no "leans" word (it did not hold the weeks after)
        (3, 5, "too close to call"),
        (11, 10, "too close to call"),  # estimate 51.6 %
        (10, 10, "too close to call"),
    ],
)
def test_the_verdict_in_words(wins: int, losses: int, said: str) -> None:
    assert verdict(wins, losses, wilson_interval(wins, losses), shrunk_rate(wins, losses)) == said


@pytest.mark.parametrize(
    ("evidence", "said"),
    [
        (MatchupEvidence(0, None, 55.0, 30.0, 78.0), "no decided matches"),
        (MatchupEvidence(5, 1, 70.0, 55.0, 83.0), "anecdote: 5 matches all by one player"),  # one player's 5-0
        (MatchupEvidence(40, 12, 64.0, 55.0, 72.0), "favoured"),  # the interval is clear of 50 %
        (MatchupEvidence(40, 12, 36.0, 28.0, 45.0), "unfavoured"),
        (MatchupEvidence(3, 3, 63.7, 39.0, 83.0), "too few matches to call"),  # a 3-0: mostly the strengths
        (MatchupEvidence(4, 4, 42.0, 20.0, 66.0), "too few matches to call"),
        (MatchupEvidence(10, 8, 59.5, 38.0, 78.0), "too close to call"),  # no "leans": it did not hold next week
        (MatchupEvidence(11, 8, 41.0, 22.0, 63.0), "too close to call"),
        (MatchupEvidence(40, 12, 51.5, 50.5, 53.0), "too close to call"),  # clear of 50 %, not by 3 points
        # a 6-10 record the two decks' strengths put above 50 %: no word points against the pair's record
        (MatchupEvidence(16, 9, 54.0, 51.0, 57.0, lead=-4), "too close to call"),
        (MatchupEvidence(40, 12, 64.0, 55.0, 72.0, lead=-2), "too close to call"),
        (MatchupEvidence(4, 4, 58.0, 53.5, 66.0, lead=-2), "too few matches to call"),
        (MatchupEvidence(40, 12, 64.0, 55.0, 72.0, lead=10), "favoured"),
        (MatchupEvidence(26, 20, 52.4, 34.0, 70.0), "too close to call"),
    ],
)
def test_the_model_verdict_in_words(evidence: MatchupEvidence, said: str) -> None:
    assert matchup_verdict(evidence) == said
