"""What every ``meta-mage`` command shares: exit codes, settings, the DynamoDB resource and the wiring."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from meta_mage.config import Settings, get_settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from meta_mage.wiring import Wiring

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
RESEED_HELP = "load the demo data even when the database says it holds this version already"


class Command(NamedTuple):
    """One ``meta-mage`` subcommand: its name, its one-line help, and what adds its arguments and handler."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]


def wiring(settings: Settings, registry: Any | None = None) -> Wiring:
    """The command's collaborators (``meta_mage.wiring``) over ``dynamodb``'s DynamoDB resource."""
    from meta_mage.wiring import Wiring

    return Wiring(settings, dynamodb(settings), registry)


def dynamodb(settings: Settings) -> Any:
    """The DynamoDB resource the commands use (tests put their own in its place)."""
    from meta_mage.wiring import Wiring

    return Wiring(settings).dynamodb


def settings_for(args: argparse.Namespace) -> Settings:
    """The settings, with ``--rules-dir`` when given."""
    settings = get_settings()
    if getattr(args, "rules_dir", None):
        settings = settings.model_copy(update={"archetype_rules_dir": Path(args.rules_dir)})
    return settings


def finish(report: Any) -> int:
    """Print an ingest report's summary; its exit code."""
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAILED
