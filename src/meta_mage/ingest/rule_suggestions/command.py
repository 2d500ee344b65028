"""``meta-mage rules suggest``: measure a format's unnamed decks, suggest rules for them and write them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from meta_mage.archetypes.classifier import (
    ArchetypeClassifier,
)
from meta_mage.config import Settings
from meta_mage.ingest.rule_suggestions.output import OutputRefused, check_output, counted, format_dir, write_suggestions
from meta_mage.ingest.rule_suggestions.shares import MAX_DAYS, fallback_share
from meta_mage.ingest.rule_suggestions.suggest import MAX_CLUSTERED_DECKS, RuleSuggestion, suggest_rules
from meta_mage.models.meta import FormatSummary
from meta_mage.storage.meta import MetaRepository

# (default, largest): no cluster holds more than MAX_CLUSTERED_DECKS decks, so from as many events at most
OPTION_RANGES = {"days": (30, MAX_DAYS), "min_decks": (5, MAX_CLUSTERED_DECKS), "min_events": (2, MAX_CLUSTERED_DECKS)}


def _option(args: argparse.Namespace, name: str) -> int:
    """``args.<name>`` (its default when unset), checked against :data:`OPTION_RANGES`."""
    default, largest = OPTION_RANGES[name]
    value = getattr(args, name, None)
    value = int(default if value is None else value)
    if not 1 <= value <= largest:
        raise ValueError(f"--{name.replace('_', '-')} must be between 1 and {largest}, got {value}")
    return value


def open_meta(settings: Settings) -> MetaRepository:
    """The configured meta table (ingest sits below ``wiring``, so the command opens it through storage)."""
    from meta_mage.storage.dynamo import dynamodb_resource

    return MetaRepository(dynamodb_resource(settings).Table(settings.meta_table))


def cmd_rules_suggest(args: argparse.Namespace) -> int:
    """``meta-mage rules suggest FORMAT [--days 30] [--min-decks 5] [--out DIR] [--force]`` (global ``--rules-dir``).

    Reads ``args.format``, ``args.days`` (30), ``args.min_decks`` (5), ``args.min_events`` (2),
    ``args.out`` (``suggested-rules``), ``args.force`` and ``args.rules_dir`` (the configured rules when
    unset). Exit status 0; 2 for a bad argument, an --out it may not write (see :func:`write_suggestions`)
    or a format without data; 1 when writing fails (a full disk)."""
    from meta_mage.config import get_settings

    settings = get_settings()
    rules_dir = Path(getattr(args, "rules_dir", None) or settings.archetype_rules_dir)
    out_dir = Path(getattr(args, "out", None) or "suggested-rules")
    force = bool(getattr(args, "force", False))
    try:
        days, min_decks, min_events = (_option(args, name) for name in ("days", "min_decks", "min_events"))
        check_output(out_dir, rules_dir)  # before any query: the folder alone
    except ValueError as exc:  # a number out of range, or OutputRefused
        return _failed(exc, 2)
    meta = open_meta(settings)
    info = _format_with_data(meta, args.format)
    if info is None:
        return 2
    fmt = info.format
    try:
        check_output(out_dir, rules_dir, [fmt], force)  # before the clustering, which takes seconds
    except OutputRefused as exc:
        return _failed(exc, 2)
    classifier = ArchetypeClassifier(rules_dir)
    share = fallback_share(meta, classifier, info, days)
    print(share.line())
    decks = meta.format_decks(fmt, share.start, share.end)
    suggestions = suggest_rules(decks, fmt, classifier, min_cluster=min_decks, min_events=min_events)
    try:
        paths = write_suggestions(suggestions, out_dir, share, rules_dir, force)
    except OutputRefused as exc:  # changed since the check
        return _failed(exc, 2)
    except OSError as exc:
        return _failed(f"cannot write the suggestions to {out_dir}: {exc.strerror or exc}", 1)
    _print_written(suggestions, paths, min_decks, min_events)
    print(f"evidence: {format_dir(out_dir, fmt) / 'README.md'}")
    return 0


def _failed(error: object, status: int) -> int:
    """Print ``error`` as the command's one error line; return ``status``."""
    print(f"error: {error}", file=sys.stderr)
    return status


def _format_with_data(meta: MetaRepository, wanted: object) -> FormatSummary | None:
    """The stored format named ``wanted`` (any case); None, with an error naming those there are, when none is."""
    known = {info.format.lower(): info for info in meta.list_formats()}
    info = known.get(str(wanted).strip().lower())
    if info is None:
        listed = ", ".join(sorted(i.format for i in known.values())) or "none"
        _failed(f"no tournament data for {wanted}; formats with data: {listed}", 2)
    return info


def _print_written(
    suggestions: Sequence[RuleSuggestion], paths: Sequence[Path], min_decks: int, min_events: int
) -> None:
    for suggestion, path in zip(suggestions, paths, strict=True):
        overlap = sum(suggestion.overlaps.values())
        print(
            f"  {suggestion.display_name}: {suggestion.decks} decks ({counted(suggestion.events, 'event')}),"
            f" the rule names {suggestion.matched}"
            f"{f', also matches {overlap} named decks' if overlap else ''} -> {path}"
        )
    if not suggestions:
        print(
            f"  no cluster of {min_decks} or more unnamed decks from {min_events} or more events with distinctive cards"
        )
