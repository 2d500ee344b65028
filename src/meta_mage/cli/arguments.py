"""Argument types of the ``meta-mage`` commands: a bad value is refused when the command line is read."""

from __future__ import annotations

import argparse
from typing import Any


def github_repository(value: str) -> str:
    import re

    from meta_mage.config import REPOSITORY_PATTERN

    if not re.fullmatch(REPOSITORY_PATTERN, value):
        raise argparse.ArgumentTypeError(f"expected OWNER/REPO, got {value!r}")
    return value


def format_name(value: str) -> str:
    from meta_mage.models.meta import normalise_format
    from meta_mage.models.tournaments import FORMATS

    try:
        return normalise_format(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(FORMATS)}, got {value!r}") from None


def window_days(value: str) -> int:
    """A window in days, 1-365: refused when the command line is read, before anything starts."""
    from meta_mage.models.meta import MAX_DAYS

    days = int(value) if value.strip().lstrip("-").isdigit() else None
    if days is None or not 1 <= days <= MAX_DAYS:
        raise argparse.ArgumentTypeError(f"expected a number of days from 1 to {MAX_DAYS}, got {value!r}")
    return days


def iso_day(value: str) -> Any:
    import datetime as dt

    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected YYYY-MM-DD, got {value!r}") from None


def positive_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 10**7:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {value!r}")
    return seconds
