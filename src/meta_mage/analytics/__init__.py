"""Statistics over tournament data: aggregates, meta share, win rates, matchups."""
