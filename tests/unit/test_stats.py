from meta_mage.analytics.stats import wilson_interval, win_rate


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
