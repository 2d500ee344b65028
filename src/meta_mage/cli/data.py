"""The data commands: ``tables``, ``ingest``, ``upload``, ``seed`` and ``repair``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from meta_mage.cli import shared
from meta_mage.cli.arguments import format_name, iso_day
from meta_mage.cli.environment import storage_problem
from meta_mage.cli.shared import EXIT_FAILED, EXIT_OK, EXIT_USAGE, RESEED_HELP, finish

if TYPE_CHECKING:
    from meta_mage.config import Settings


def cmd_tables_create(args: argparse.Namespace) -> int:
    from meta_mage.storage.tables import create_tables

    settings = shared.settings_for(args)
    created = create_tables(shared.dynamodb(settings), settings)
    print(f"created: {', '.join(created)}" if created else "all tables already exist")
    return EXIT_OK


def _cannot_store(settings: Settings) -> bool:
    """Whether the configured DynamoDB cannot take an ingest: said in one line first, not once per file."""
    problem = storage_problem(settings, note_empty=False)
    if problem:
        print(f"ingest: {problem}", file=sys.stderr)
    return problem is not None


def cmd_ingest_tournaments(args: argparse.Namespace) -> int:
    from meta_mage.archetypes.classifier import get_classifier
    from meta_mage.ingest.tournament_ingest import ingest_tournaments

    settings = shared.settings_for(args)
    if _cannot_store(settings):
        return EXIT_FAILED
    classifier = get_classifier(settings.archetype_rules_dir)
    return finish(ingest_tournaments(args.paths, shared.wiring(settings).meta, classifier, provisional=True))


def cmd_ingest_cards(args: argparse.Namespace) -> int:
    from meta_mage.ingest.card_ingest import ingest_cards

    settings = shared.settings_for(args)
    if _cannot_store(settings):
        return EXIT_FAILED
    return finish(ingest_cards(args.paths, shared.wiring(settings).cards))


def cmd_ingest_draft(args: argparse.Namespace) -> int:
    from meta_mage.ingest.drafts import ingest_draft, load_draft
    from meta_mage.ingest.errors import InputFileError

    if args.file is None and not (args.pool and args.picks):
        print("error: give a draft FILE, or --pool and --picks CSV files", file=sys.stderr)
        return EXIT_USAGE
    wiring = shared.wiring(shared.settings_for(args))
    overrides = {"draft_id": args.draft_id, "draft_name": args.name, "draft_date": args.date}
    try:
        draft = load_draft(args.file, overrides, args.pool, args.picks)
    except InputFileError as exc:
        print(f"draft: FAILED {exc}", file=sys.stderr)
        return EXIT_FAILED
    return finish(ingest_draft(draft, str(args.file or args.pool), wiring.drafts, wiring.cards))


def cmd_seed(args: argparse.Namespace) -> int:
    from meta_mage.local.seed import seed_demo
    from meta_mage.local.terminal import waiting
    from meta_mage.storage.snapshot import SnapshotDamaged

    settings = shared.settings_for(args)
    try:
        # said at once (a spinner on a terminal): loading into tables that hold other data takes a while
        with waiting("Loading the demo data (checking what the tables hold first)…", plain=False):
            result = seed_demo(settings, shared.dynamodb(settings), reseed=args.reseed)
    except SnapshotDamaged as exc:  # refused before anything was loaded
        print(f"seed: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    print("\n".join(result.lines()))
    return EXIT_OK if result.ok else EXIT_FAILED


def cmd_upload(args: argparse.Namespace) -> int:
    """Put local files in the ingest bucket (the drop zone); IngestFunction ingests them in the cloud."""
    from meta_mage.ingest.drop_zone import UploadFailed, upload
    from meta_mage.wiring import Wiring

    settings = shared.settings_for(args)
    bucket = args.bucket or settings.ingest_bucket
    if not bucket:
        print(
            "upload: give --bucket or set META_MAGE_INGEST_BUCKET (the stack output IngestBucketName)", file=sys.stderr
        )
        return EXIT_USAGE
    try:
        uploaded = upload(args.paths, bucket, Wiring(settings).drop_zone_bucket, kind=args.kind)
    except UploadFailed as exc:
        print(f"upload: FAILED {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    kinds = {kind: sum(1 for u in uploaded if u.kind == kind) for kind in ("tournaments", "cards", "drafts")}
    counts = ", ".join(f"{n} {kind}" for kind, n in kinds.items() if n)
    print(f"upload: {len(uploaded)} file(s) to s3://{bucket} ({counts or 'nothing'}); IngestFunction ingests them")
    return EXIT_OK


def cmd_repair(args: argparse.Namespace) -> int:
    """Check the storage invariants and fix every violation (``--check``: report them, change nothing)."""
    from meta_mage.ingest.invariants import check_storage
    from meta_mage.ingest.repair import repair_storage
    from meta_mage.models.tournaments import FORMATS

    formats = [args.format] if args.format else list(FORMATS)
    since = args.since.isoformat() if args.since else ""
    meta = shared.wiring(shared.settings_for(args)).meta
    if args.check:
        check = check_storage(meta, formats, since)
        print("\n".join(check.lines()))
        if not check.ok:
            print("run 'meta-mage repair' (with the same --format / --since) to fix them")
        return EXIT_OK if check.ok else EXIT_FAILED
    report = repair_storage(meta, formats, since)
    print("\n".join(report.lines()))
    return EXIT_OK if report.ok else EXIT_FAILED


def tables_arguments(tables: argparse.ArgumentParser) -> None:
    """The arguments of ``tables create``, and its handler."""
    tables_sub = tables.add_subparsers(dest="action", required=True)
    tables_sub.add_parser("create", help="create missing tables (idempotent)").set_defaults(func=cmd_tables_create)


def ingest_arguments(ingest: argparse.ArgumentParser) -> None:
    """The arguments of ``ingest tournaments|cards|draft``, and its handler."""
    ingest_sub = ingest.add_subparsers(dest="kind", required=True)
    t = ingest_sub.add_parser("tournaments", help="MTGODecklistCache JSON files, folders or .tar.gz archives")
    t.add_argument("paths", nargs="+", type=Path, help="JSON files, folders (read recursively) or .tar.gz archives")
    t.set_defaults(func=cmd_ingest_tournaments)
    c = ingest_sub.add_parser("cards", help="card corpus: MTGJSON-derived list, AtomicCards or Scryfall oracle cards")
    c.add_argument("paths", nargs="+", type=Path, help="card files (JSON; .gz too)")
    c.set_defaults(func=cmd_ingest_cards)
    d = ingest_sub.add_parser("draft", help="a cube draft: JSON file, or --pool/--picks CSVs")
    d.add_argument("file", nargs="?", type=Path, help="the draft as one JSON file (or give --pool and --picks)")
    d.add_argument("--pool", type=Path, help="pool.csv (name,quantity)")
    d.add_argument("--picks", type=Path, help="picks.csv (pick_n,drafter,card)")
    d.add_argument("--draft-id", help="with --pool/--picks: the draft's id (lowercase letters, digits, - and _)")
    d.add_argument("--name", help="with --pool/--picks: the draft's name")
    d.add_argument("--date", help="YYYY-MM-DD")
    d.set_defaults(func=cmd_ingest_draft)


def upload_arguments(up: argparse.ArgumentParser) -> None:
    """The arguments of ``upload PATH…``, and its handler."""
    up.add_argument("paths", nargs="+", type=Path, help="JSON files, folders (recursive) or .tar.gz archives")
    up.add_argument(
        "--kind", choices=["tournaments", "cards", "drafts"], help="what the files are (default: guessed per file)"
    )
    up.add_argument("--bucket", help="the drop-zone bucket (default: META_MAGE_INGEST_BUCKET)")
    up.set_defaults(func=cmd_upload)


def seed_arguments(seed: argparse.ArgumentParser) -> None:
    """The arguments of ``seed [--reseed]``, and its handler."""
    seed.add_argument("--reseed", action="store_true", help=RESEED_HELP)
    seed.set_defaults(func=cmd_seed)


def repair_arguments(repair: argparse.ArgumentParser) -> None:
    """The arguments of ``repair [--check]``, and its handler."""
    repair.add_argument(
        "--check", action="store_true", help="only read and report every violation (exit 1 if any); change nothing"
    )
    repair.add_argument("--format", type=format_name, help="only this format (default: every format)")
    repair.add_argument("--since", type=iso_day, help="only days on or after YYYY-MM-DD")
    repair.set_defaults(func=cmd_repair)
