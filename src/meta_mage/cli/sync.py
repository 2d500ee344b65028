"""``meta-mage sync``: ingest what a GitHub repository (or a local clone) gained since the last sync."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from meta_mage.cli import shared
from meta_mage.cli.arguments import github_repository, iso_day, positive_seconds
from meta_mage.cli.shared import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def cmd_sync(args: argparse.Namespace) -> int:
    """Ingest the tournament files a GitHub repository (or a local clone) gained since the last sync."""
    import os
    import time

    from meta_mage.archetypes.classifier import get_classifier
    from meta_mage.sync.bounds import FetchLimits
    from meta_mage.sync.git import LocalClone
    from meta_mage.sync.github import GitHubClient, SyncError
    from meta_mage.sync.run import SyncFilter, retry_files, sync
    from meta_mage.sync.upstream import GitHubUpstream, Upstream

    if args.reset and args.github and not args.since:
        print("sync: --reset with --github needs --since YYYY-MM-DD (where the new first sync starts)", file=sys.stderr)
        return EXIT_USAGE
    settings = shared.settings_for(args)
    wanted = SyncFilter.of(args.source or (), args.format or ())
    limits = FetchLimits.from_settings(settings)
    started = time.monotonic()
    time_left = None if args.time_limit is None else lambda: args.time_limit - (time.monotonic() - started)
    try:
        upstream: Upstream
        if args.git_dir:
            upstream = LocalClone(args.git_dir, limits)
        else:
            client = GitHubClient.from_settings(settings, args.github, os.environ.get(args.token_env) or None)
            upstream = GitHubUpstream(client, args.branch)
        meta, classifier = shared.wiring(settings).meta, get_classifier(settings.archetype_rules_dir)
        if args.retry:
            report = retry_files(upstream, meta, classifier, args.retry, time_left=time_left)
        else:
            report = sync(
                upstream, meta, classifier, since=args.since, wanted=wanted, time_left=time_left, reset=args.reset
            )
    except SyncError as exc:
        print(f"sync: FAILED {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    print(report.summary())
    if report.ingested:
        from meta_mage.ingest.rule_suggestions import fallback_shares

        for share in fallback_shares(meta, classifier, days=14):
            print(f"  unnamed: {share.line()}")
    return EXIT_OK if report.ok else EXIT_FAILED


def sync_arguments(sy: argparse.ArgumentParser) -> None:
    """The arguments of ``sync --github OWNER/REPO | --git-dir DIR``, and its handler."""
    where = sy.add_mutually_exclusive_group(required=True)
    where.add_argument("--github", metavar="OWNER/REPO", type=github_repository, help="e.g. fbettega/MTG_decklistcache")
    where.add_argument("--git-dir", type=Path, help="a local clone: its checked-out branch, read at HEAD")
    sy.add_argument("--branch", default="main", help="with --github (default: main)")
    sy.add_argument(
        "--since",
        type=iso_day,
        help="first sync or --reset only: commits from this date (YYYY-MM-DD; a clone: all files without)",
    )
    sy.add_argument("--source", action="append", help="only Tournaments/<SOURCE>/ or a kind's folders (repeatable)")
    sy.add_argument("--format", action="append", help="only tournaments of this format (repeatable)")
    sy.add_argument("--token-env", default="GITHUB_TOKEN", help="environment variable holding a GitHub token")
    sy.add_argument(
        "--time-limit",
        type=positive_seconds,
        metavar="SECONDS",
        help="stop reading new files after this long (each download is bounded by it too); the rest: next run",
    )
    again = sy.add_mutually_exclusive_group()
    again.add_argument(
        "--reset",
        action="store_true",
        help="ignore the stored cursor (e.g. after a force-push upstream) and sync as a first sync, from --since "
        "(required with --github; a clone without it: all its files); the cursor is then replaced by the head "
        "once every file is stored or reported bad",
    )
    again.add_argument(
        "--retry",
        nargs="+",
        metavar="PATH",
        help="read these files (bad files a sync reported and passed) again at the branch's head and ingest "
        "them; the cursor is not touched",
    )
    sy.set_defaults(func=cmd_sync)
