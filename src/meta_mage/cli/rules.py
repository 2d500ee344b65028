"""``meta-mage rules``: suggest archetype rule files, check the playbooks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from meta_mage.cli import shared
from meta_mage.cli.arguments import format_name, window_days
from meta_mage.cli.shared import EXIT_FAILED, EXIT_OK

SUGGEST_DESCRIPTION = (
    "Cluster the format's recent unnamed decks and write candidate rules to "
    "OUT/Formats/FORMAT/Archetypes/*.suggested.json with the evidence in OUT/Formats/FORMAT/README.md. "
    "Existing rule files are never replaced (a changed suggestion goes to <Stem>-2.suggested.json); the README "
    "is replaced only when 'rules suggest' wrote it, unless --force. Each file appears whole or not at all. "
    "Refused (exit 2): an OUT that is or passes through a symbolic link (give its real path), a file or device "
    "on the way, any OUT inside the rules in use (--rules-dir, META_MAGE_ARCHETYPE_RULES_DIR or the bundled "
    "rules), and numbers out of range."
)


def cmd_rules_suggest(args: argparse.Namespace) -> int:
    """Cluster recent unnamed decks of a format and write candidate rule files for a person to review."""
    from meta_mage.ingest.rule_suggestions import cmd_rules_suggest as suggest

    return suggest(args)


def cmd_rules_playbooks(args: argparse.Namespace) -> int:
    """Check the archetype playbooks against the stored lists: stale engine cards, archetypes without one."""
    from meta_mage.archetypes.playbooks import PlaybookError, check_playbooks

    settings = shared.settings_for(args)
    meta = shared.wiring(settings).tool_context.meta
    formats = [args.format] if args.format else sorted(f.format for f in meta.repository.list_formats())
    ok = True
    for fmt in formats:
        try:
            check = check_playbooks(meta, settings.archetype_rules_dir, fmt, args.days)
        except PlaybookError as exc:
            print(f"{fmt}: {exc}", file=sys.stderr)
            ok = False
            continue
        print(f"{check.format} {check.start}..{check.end}: {check.decks} lists")
        print("\n".join(check.table_lines()))
        print(check.summary(), end="\n\n")
        ok = ok and check.ok
    return EXIT_OK if ok else EXIT_FAILED


def rules_arguments(rules: argparse.ArgumentParser) -> None:
    """The arguments of ``rules suggest|playbooks``, and its handler."""
    rules_sub = rules.add_subparsers(dest="rules_action", required=True)
    suggest = rules_sub.add_parser(
        "suggest",
        help="suggest rule files (for review) for recent decks the rules leave unnamed: rules suggest FORMAT",
        description=SUGGEST_DESCRIPTION,
    )
    suggest.add_argument("format", help="the format whose unnamed decks to cluster (e.g. Modern)")
    suggest.add_argument("--days", type=int, default=30, help="the window, ending at the format's last date (1-3650)")
    suggest.add_argument(
        "--min-decks", dest="min_decks", type=int, default=5, help="smallest cluster to suggest (1-3000)"
    )
    suggest.add_argument(
        "--min-events", dest="min_events", type=int, default=2, help="fewest events in a cluster (1-3000)"
    )
    suggest.add_argument(
        "--out",
        type=Path,
        default=Path("suggested-rules"),
        help="where the suggestions go (default: suggested-rules); not inside the rules in use, no symbolic links",
    )
    suggest.add_argument(
        "--force",
        action="store_true",
        help="replace an --out/Formats/FORMAT/README.md that 'rules suggest' did not write (rule files: never)",
    )
    suggest.set_defaults(func=cmd_rules_suggest)
    playbooks = rules_sub.add_parser(
        "playbooks",
        help="check the archetype playbooks (Formats/F/playbook.toml) against the stored lists",
        description="Per format: each playbook's engine cards below its engine_share of the archetype's lists "
        "(stale), and the archetypes of 1 %+ share without a playbook. Exit 1 when any is stale or missing.",
    )
    playbooks.add_argument("--format", type=format_name, help="only this format (default: every format with data)")
    playbooks.add_argument("--days", type=window_days, default=30, help="the window, ending at the format's last date")
    playbooks.set_defaults(func=cmd_rules_playbooks)
