"""The ``meta-mage`` command: tables, ingest, tools, the MCP server and the local demo."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meta_mage.config import DEFAULT_DAYS, Settings, get_settings
from meta_mage.errors import MetaMageError, StorageUnavailable

if TYPE_CHECKING:
    from collections.abc import Iterator

    from meta_mage.local.seed import SeedResult
    from meta_mage.wiring import Wiring

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL")


def _wiring(settings: Settings, registry: Any | None = None) -> Wiring:
    """The command's collaborators (``meta_mage.wiring``) over ``_db``'s DynamoDB resource."""
    from meta_mage.wiring import Wiring

    return Wiring(settings, _db(settings), registry)


def _db(settings: Settings) -> Any:
    from meta_mage.wiring import Wiring

    return Wiring(settings).dynamodb


def _settings(args: argparse.Namespace) -> Settings:
    settings = get_settings()
    if getattr(args, "rules_dir", None):
        settings = settings.model_copy(update={"archetype_rules_dir": Path(args.rules_dir)})
    return settings


def cmd_tables_create(args: argparse.Namespace) -> int:
    from meta_mage.storage.tables import create_tables

    settings = _settings(args)
    created = create_tables(_db(settings), settings)
    print(f"created: {', '.join(created)}" if created else "all tables already exist")
    return EXIT_OK


def _finish(report: Any) -> int:
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAILED


def _cannot_store(settings: Settings) -> bool:
    """Whether the configured DynamoDB cannot take an ingest: said in one line first, not once per file."""
    problem = _storage_problem(settings, note_empty=False)
    if problem:
        print(f"ingest: {problem}", file=sys.stderr)
    return problem is not None


def cmd_ingest_tournaments(args: argparse.Namespace) -> int:
    from meta_mage.archetypes.classifier import get_classifier
    from meta_mage.ingest.tournament_ingest import ingest_tournaments

    settings = _settings(args)
    if _cannot_store(settings):
        return EXIT_FAILED
    classifier = get_classifier(settings.archetype_rules_dir)
    return _finish(ingest_tournaments(args.paths, _wiring(settings).meta, classifier, provisional=True))


def cmd_ingest_cards(args: argparse.Namespace) -> int:
    from meta_mage.ingest.card_ingest import ingest_cards

    settings = _settings(args)
    if _cannot_store(settings):
        return EXIT_FAILED
    return _finish(ingest_cards(args.paths, _wiring(settings).cards))


def cmd_ingest_draft(args: argparse.Namespace) -> int:
    from meta_mage.ingest.drafts import ingest_draft, load_draft
    from meta_mage.ingest.errors import InputFileError

    if args.file is None and not (args.pool and args.picks):
        print("error: give a draft FILE, or --pool and --picks CSV files", file=sys.stderr)
        return EXIT_USAGE
    wiring = _wiring(_settings(args))
    overrides = {"draft_id": args.draft_id, "draft_name": args.name, "draft_date": args.date}
    try:
        draft = load_draft(args.file, overrides, args.pool, args.picks)
    except InputFileError as exc:
        print(f"draft: FAILED {exc}", file=sys.stderr)
        return EXIT_FAILED
    return _finish(ingest_draft(draft, str(args.file or args.pool), wiring.drafts, wiring.cards))


def cmd_tool(args: argparse.Namespace) -> int:
    from meta_mage.tools import build_registry

    registry = build_registry()
    if args.list or not args.name:
        if args.json:
            print(json.dumps(registry.catalog(), indent=2))
        else:
            for tool in registry.tools.values():
                print(f"{tool.name:32} {tool.description.split('. ')[0].rstrip('.')}.")
        return EXIT_OK
    try:
        arguments = json.loads(args.arguments) if args.arguments else {}
    except json.JSONDecodeError as exc:
        print(
            json.dumps({"error": "invalid_argument", "message": f"arguments are not JSON: {exc.msg}"}), file=sys.stderr
        )
        return EXIT_USAGE
    try:
        result = registry.call(args.name, arguments, _wiring(_settings(args), registry).tool_context)
    except StorageUnavailable:
        raise  # one line from main, like every other AWS failure
    except MetaMageError as exc:
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return EXIT_USAGE if exc.code == "invalid_argument" else EXIT_FAILED
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_seed(args: argparse.Namespace) -> int:
    from meta_mage.local.seed import seed_demo
    from meta_mage.local.terminal import waiting
    from meta_mage.storage.snapshot import SnapshotDamaged

    settings = _settings(args)
    try:
        # said at once (a spinner on a terminal): loading into tables that hold other data takes a while
        with waiting("Loading the demo data (checking what the tables hold first)…", plain=False):
            result = seed_demo(settings, _db(settings), reseed=args.reseed)
    except SnapshotDamaged as exc:  # refused before anything was loaded
        print(f"seed: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    print("\n".join(result.lines()))
    return EXIT_OK if result.ok else EXIT_FAILED


def _this_command() -> str:
    """How to run ``meta-mage`` again from another shell: this install's script when it is not on PATH."""
    import shutil

    script = Path(sys.executable).parent / "meta-mage"
    if script.exists() and shutil.which("meta-mage") != str(script):
        return str(script)
    return "meta-mage"


DEMO_DAYS = DEFAULT_DAYS
DEMO_QUESTIONS = (
    "What are the top decks in {format}?",
    "How does {top} do against {second}?",
    "What green planeswalkers were in the Tarkir draft, and who took them?",  # a few lines, not a pool dump
)


def _endpoint() -> tuple[str, str] | None:
    """The variable pointing boto3 at a DynamoDB endpoint, and its URL; None when none is set."""
    return next(((name, os.environ[name]) for name in ENDPOINT_VARIABLES if os.environ.get(name)), None)


def _credentials_found() -> bool:
    from meta_mage.storage.dynamo import default_session

    return default_session().get_credentials() is not None


def _dynamodb_configured() -> bool:
    """Whether boto3 has a DynamoDB to talk to: an endpoint variable is set, or it finds AWS credentials."""
    return _endpoint() is not None or _credentials_found()


def _credentials_for_local_endpoint() -> None:
    """Dummy credentials for an endpoint set without any: DynamoDB Local and the embedded one take any
    (without, boto3 refuses to sign the first request)."""
    if _endpoint() and not _credentials_found():
        os.environ["AWS_ACCESS_KEY_ID"] = os.environ["AWS_SECRET_ACCESS_KEY"] = "local"


@contextlib.contextmanager
def _demo_database(settings: Settings, verbose: bool = True) -> Iterator[tuple[str, SeedResult]]:
    """The embedded DynamoDB holding the demo data, for the block (``demo``; ``ask`` with no DynamoDB
    configured); yields its URL and how the data got in. A spinner on a terminal while each step runs;
    ``verbose`` also prints each step as a line when there is none, and what it did."""
    from meta_mage.local.embedded import embedded_dynamodb
    from meta_mage.local.seed import seed_demo
    from meta_mage.local.terminal import waiting

    with contextlib.ExitStack() as stack:
        with waiting("Starting the embedded DynamoDB…", plain=verbose):
            url = stack.enter_context(embedded_dynamodb())
        if verbose:
            print(f"Embedded DynamoDB (moto server) on {url}")
        with waiting("Loading the demo data…", plain=verbose):
            seeded = seed_demo(settings, _db(settings))  # a fresh in-memory server each time
        if verbose or not seeded.ok:
            print("\n".join(seeded.lines()), file=sys.stdout if seeded.ok else sys.stderr)
        yield url, seeded


def _storage_problem(settings: Settings, note_empty: bool = True) -> str | None:
    """Why the configured DynamoDB cannot hold a turn or an ingest (not answering, tables missing), in one line
    saying what to do; None when it can (with a note when its tables hold no data, unless ``note_empty`` is off)."""
    from urllib.parse import urlsplit

    from meta_mage.storage.dynamo import aws_region
    from meta_mage.storage.probe import probe_tables

    endpoint = _endpoint()
    where = endpoint[1] if endpoint else f"AWS ({aws_region(settings)})"
    probe = probe_tables(settings)
    if probe.unreachable is not None:
        if not endpoint:
            return f"DynamoDB at {where} is not answering ({probe.unreachable}): check the network"
        port = urlsplit(endpoint[1]).port or "N"
        return (
            f"DynamoDB at {where} is not answering ({probe.unreachable}): start it (e.g. 'meta-mage dynamodb "
            f"--port {port}'), or unset {endpoint[0]} to answer from the embedded one with the demo data"
        )
    if probe.refused is not None:
        return f"DynamoDB at {where} refused: {probe.refused}"
    missing, empty = probe.missing, probe.empty
    if missing:
        return (
            f"DynamoDB at {where} lacks the table{'s' if len(missing) > 1 else ''} {', '.join(missing)}: 'meta-mage "
            "seed' creates the tables and loads the demo data ('meta-mage tables create' creates them empty)"
        )
    if empty and note_empty:
        print(f"(the tables at {where} hold no data: 'meta-mage seed' loads the demo data, 'meta-mage ingest' yours)")
    return None


def _quiet_turn_warnings() -> None:
    """The coach logs a failed turn, and the command prints the error event already: one line, not three."""
    import logging

    logging.getLogger("meta_mage.agent.conversation").setLevel(logging.ERROR)


NO_DYNAMODB = (
    "No DynamoDB configured: answering from the embedded one with the bundled demo data "
    "(set AWS_ENDPOINT_URL_DYNAMODB to use yours)."
)


def cmd_ask(args: argparse.Namespace) -> int:
    """One turn with the coach, streamed to the terminal: against the configured DynamoDB, else (no endpoint,
    no AWS credentials) against the embedded one with the demo data, as ``demo`` runs."""
    import asyncio

    from meta_mage.local.terminal import can_draw, draw, render, waiting

    settings = _settings(args)
    embedded = not _dynamodb_configured()
    if embedded and args.conversation:
        print(
            "ask: --conversation needs a DynamoDB that keeps conversations: set AWS_ENDPOINT_URL_DYNAMODB (e.g. to "
            "'meta-mage dynamodb'), or talk with 'meta-mage serve' and 'meta-mage chat'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not embedded and (problem := _storage_problem(settings)):
        print(f"ask: {problem}", file=sys.stderr)
        return EXIT_FAILED
    _quiet_turn_warnings()
    with contextlib.ExitStack() as stack:
        if embedded:
            print(NO_DYNAMODB, flush=True)
            if not stack.enter_context(_demo_database(settings, verbose=False))[1].ok:
                return EXIT_FAILED
        with waiting("Starting the coach…", plain=False):
            conversations = _wiring(settings).coach()
        print(f"({conversations.model_choice.description})")
        days = DEFAULT_DAYS if args.days is None else args.days  # the one default window, said below
        context = {k: v for k, v in {"format": args.format, "days": days}.items() if v is not None}
        show = draw if can_draw() else render
        summary = asyncio.run(show(conversations.turn(args.message, args.conversation, context)))
    if "error" in summary:
        return EXIT_FAILED if summary["error"].get("error") in {"internal", "storage_unavailable"} else EXIT_USAGE
    conversation_id = summary["conversation_id"]
    if embedded:
        print(
            f"\n(the demo data's last {days} days, change it with --days; the embedded DynamoDB stops with this "
            "command, so the "
            "conversation does too: 'meta-mage serve' and 'meta-mage chat' keep one going)"
        )
    else:
        print(
            f"\n(the last {days} days, change it with --days; conversation {conversation_id}: continue with "
            f"--conversation {conversation_id})"
        )
    return EXIT_OK


def cmd_bedrock_check(args: argparse.Namespace) -> int:
    """Check the configured Bedrock model end to end: access, one streamed answer with its grounding, its cost."""
    import asyncio

    from meta_mage.bedrock import bedrock_model_id
    from meta_mage.local.bedrock_check import QUESTION, CheckReport, model_line, streamed_answer
    from meta_mage.storage.dynamo import aws_client, aws_region

    settings = _settings(args)
    model_id = args.model or bedrock_model_id(settings.model)
    if not model_id:
        print("bedrock-check: no Bedrock model: pass --model ID or set META_MAGE_MODEL", file=sys.stderr)
        return EXIT_USAGE
    if not _credentials_found():
        print(
            "bedrock-check: no AWS credentials found (aws configure, AWS_PROFILE or the AWS_* variables)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    settings = settings.model_copy(update={"model": model_id})
    report = CheckReport()
    report.passed(f"AWS credentials found; region {aws_region(settings)}")
    ready = model_line(aws_client(settings, "bedrock"), model_id, report)
    with contextlib.ExitStack() as stack:
        if ready and not args.tables:
            print("Answering from the embedded DynamoDB with the bundled demo data (--tables: yours).", flush=True)
            ready = stack.enter_context(_demo_database(settings, verbose=False))[1].ok
        if ready:
            _quiet_turn_warnings()
            conversations = _wiring(settings).coach()
            question = args.question or QUESTION.format(format=args.format)
            print(f"Asking: {question}\n", flush=True)
            asyncio.run(streamed_answer(conversations, question, report, lambda text: print(text, end="", flush=True)))
    print("\n".join(report.lines))
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_demo(args: argparse.Namespace) -> int:
    """Embedded DynamoDB + demo data + a short conversation with the coach."""
    import asyncio
    import time

    from meta_mage.local.terminal import can_draw, draw, render, waiting
    from meta_mage.tools.catalog.meta import META_RANKINGS

    settings = _settings(args)
    _quiet_turn_warnings()
    with _demo_database(settings) as (url, seeded):
        print()
        with waiting("Starting the coach…"):
            wiring = _wiring(settings)
            conversations = wiring.coach()
        print(f"Coach: {conversations.model_choice.description}\n")
        show = draw if can_draw() else render

        async def talk() -> None:
            context = {"format": args.format, "days": args.days}
            rankings = await asyncio.to_thread(
                wiring.registry.call,
                META_RANKINGS.name,
                {"format": args.format, "current_days": args.days},
                wiring.tool_context,
            )
            names = [row["name"] for row in rankings["rows"][:2]] + ["", ""]
            conversation_id = None
            for question in DEMO_QUESTIONS:
                text = question.format(format=args.format, top=names[0], second=names[1])
                print(f"\nYou: {text}\n")
                summary = await show(conversations.turn(text, conversation_id, context))
                conversation_id = summary.get("conversation_id", conversation_id)

        asyncio.run(talk())
        if args.keep_running:
            print(
                f"\nDynamoDB stays up at {url}. In another shell:\n"
                f"  AWS_ENDPOINT_URL_DYNAMODB={url} {_this_command()} ask "
                '"What are the top decks in Legacy over the last 30 days?"\nCtrl-C to stop.'
            )
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    return EXIT_OK if seeded.ok else EXIT_FAILED


def _port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be served on (in use, not allowed), in one line; None when it is free."""
    import errno
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"Port {port} is in use: pass --port N (another server listens on {host}:{port})"
            return f"Cannot listen on {host}:{port} ({exc.strerror}): pass --port N"
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    """Every endpoint on one machine: embedded DynamoDB (or --dynamodb-endpoint), demo data, uvicorn."""
    problem = _port_problem(args.host, args.port)
    if problem:  # before importing the app and loading data
        print(problem, file=sys.stderr)
        return EXIT_FAILED
    import uvicorn

    from meta_mage.api.factory import build_app
    from meta_mage.local.embedded import embedded_dynamodb
    from meta_mage.local.http_server import server_options
    from meta_mage.local.seed import seed_demo
    from meta_mage.local.terminal import waiting
    from meta_mage.storage.snapshot import SnapshotDamaged
    from meta_mage.storage.tables import create_tables

    # only the page's own origin may call the local API from a browser, unless --cors-origin says otherwise
    origin = args.cors_origin or f"http://{args.host}:{args.port}"
    settings = _settings(args).model_copy(update={"cors_origin": origin})
    with contextlib.ExitStack() as stack:
        if args.dynamodb_endpoint:
            os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = args.dynamodb_endpoint
            _credentials_for_local_endpoint()
            print(f"DynamoDB at {args.dynamodb_endpoint}")
        else:
            url = stack.enter_context(embedded_dynamodb())
            print(f"Embedded DynamoDB (moto server) on {url}")
        create_tables(_db(settings), settings)  # idempotent; --no-seed skips only the demo data
        if not args.no_seed:
            try:
                with waiting("Loading the demo data…", plain=False):
                    seeded = seed_demo(settings, _db(settings), reseed=args.reseed)
                print("\n".join(seeded.lines()))
            except SnapshotDamaged as exc:  # refused before anything was loaded; nothing is served
                print(f"serve: {exc.message}", file=sys.stderr)
                return EXIT_FAILED
        app = build_app(settings, serve_page=True)
        print(f"Coach: {app.state.model_description}")
        print(f"Serving http://{args.host}:{args.port}/ (chat page), /docs (OpenAPI); Ctrl-C to stop")
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", **server_options(settings))
    return EXIT_OK


def cmd_dynamodb(args: argparse.Namespace) -> int:
    """The embedded DynamoDB on its own, for ``serve --dynamodb-endpoint`` in another process."""
    import threading

    from meta_mage.local.embedded import embedded_dynamodb

    with embedded_dynamodb(args.port) as url:
        print(f"Embedded DynamoDB (moto server) on {url}; Ctrl-C to stop", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    """The tool registry as an MCP server: stdio (desktop clients) or streamable HTTP at /mcp."""
    import logging

    from meta_mage.local.embedded import embedded_dynamodb
    from meta_mage.local.seed import seed_demo

    if args.transport == "http" and (problem := _port_problem(args.host, args.port)):
        print(problem, file=sys.stderr)
        return EXIT_FAILED
    settings = _settings(args)
    # under stdio, stdout carries the protocol and nothing else
    out = sys.stderr if args.transport == "stdio" else sys.stdout
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    with contextlib.ExitStack() as stack:
        if args.embedded:
            url = stack.enter_context(embedded_dynamodb())
            print(f"Embedded DynamoDB (moto server) on {url}; loading the demo data...", file=out, flush=True)
            print("\n".join(seed_demo(settings, _db(settings)).lines()), file=out, flush=True)
        try:
            if args.transport == "stdio":
                import anyio

                from meta_mage.mcp.server import serve_stdio

                anyio.run(serve_stdio, settings)
            else:
                import uvicorn

                from meta_mage.local.http_server import server_options
                from meta_mage.mcp.server import build_mcp_app, loopback_hosts

                loopback = args.host in {"127.0.0.1", "localhost", "::1"}
                app = build_mcp_app(settings, allowed_hosts=loopback_hosts(args.port) if loopback else None)
                print(f"MCP server (streamable HTTP) on http://{args.host}:{args.port}/mcp; Ctrl-C to stop", file=out)
                uvicorn.run(app, host=args.host, port=args.port, log_level="warning", **server_options(settings))
        except KeyboardInterrupt:
            pass
    return EXIT_OK


def cmd_chat(args: argparse.Namespace) -> int:
    """A terminal client for a running server: streams answers and tool progress."""
    import asyncio

    from meta_mage.local.chat_client import chat_loop

    return asyncio.run(chat_loop(args.url, args.format, args.days))


def cmd_upload(args: argparse.Namespace) -> int:
    """Put local files in the ingest bucket (the drop zone); IngestFunction ingests them in the cloud."""
    from meta_mage.ingest.drop_zone import UploadFailed, upload
    from meta_mage.wiring import Wiring

    settings = _settings(args)
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
    settings = _settings(args)
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
        meta, classifier = _wiring(settings).meta, get_classifier(settings.archetype_rules_dir)
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


def cmd_repair(args: argparse.Namespace) -> int:
    """Check the storage invariants and fix every violation (``--check``: report them, change nothing)."""
    from meta_mage.ingest.invariants import check_storage
    from meta_mage.ingest.repair import repair_storage
    from meta_mage.models.tournaments import FORMATS

    formats = [args.format] if args.format else list(FORMATS)
    since = args.since.isoformat() if args.since else ""
    meta = _wiring(_settings(args)).meta
    if args.check:
        check = check_storage(meta, formats, since)
        print("\n".join(check.lines()))
        if not check.ok:
            print("run 'meta-mage repair' (with the same --format / --since) to fix them")
        return EXIT_OK if check.ok else EXIT_FAILED
    report = repair_storage(meta, formats, since)
    print("\n".join(report.lines()))
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_rules_suggest(args: argparse.Namespace) -> int:
    """Cluster recent unnamed decks of a format and write candidate rule files for a person to review."""
    from meta_mage.ingest.rule_suggestions import cmd_rules_suggest as suggest

    return suggest(args)


def cmd_rules_playbooks(args: argparse.Namespace) -> int:
    """Check the archetype playbooks against the stored lists: stale engine cards, archetypes without one."""
    from meta_mage.archetypes.playbooks import PlaybookError, check_playbooks

    settings = _settings(args)
    meta = _wiring(settings).tool_context.meta
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


def _repository(value: str) -> str:
    import re

    from meta_mage.config import REPOSITORY_PATTERN

    if not re.fullmatch(REPOSITORY_PATTERN, value):
        raise argparse.ArgumentTypeError(f"expected OWNER/REPO, got {value!r}")
    return value


def _format_name(value: str) -> str:
    from meta_mage.models.meta import normalise_format
    from meta_mage.models.tournaments import FORMATS

    try:
        return normalise_format(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(FORMATS)}, got {value!r}") from None


def _window_days(value: str) -> int:
    """A window in days, 1-365: refused when the command line is read, before anything starts."""
    from meta_mage.models.meta import MAX_DAYS

    days = int(value) if value.strip().lstrip("-").isdigit() else None
    if days is None or not 1 <= days <= MAX_DAYS:
        raise argparse.ArgumentTypeError(f"expected a number of days from 1 to {MAX_DAYS}, got {value!r}")
    return days


def _day(value: str) -> Any:
    import datetime as dt

    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected YYYY-MM-DD, got {value!r}") from None


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 10**7:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {value!r}")
    return seconds


RESEED_HELP = "load the demo data even when the database says it holds this version already"
SUGGEST_DESCRIPTION = (
    "Cluster the format's recent unnamed decks and write candidate rules to "
    "OUT/Formats/FORMAT/Archetypes/*.suggested.json with the evidence in OUT/Formats/FORMAT/README.md. "
    "Existing rule files are never replaced (a changed suggestion goes to <Stem>-2.suggested.json); the README "
    "is replaced only when 'rules suggest' wrote it, unless --force. Each file appears whole or not at all. "
    "Refused (exit 2): an OUT that is or passes through a symbolic link (give its real path), a file or device "
    "on the way, any OUT inside the rules in use (--rules-dir, META_MAGE_ARCHETYPE_RULES_DIR or the bundled "
    "rules), and numbers out of range."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="meta-mage", description=(__doc__ or "").replace("``", "'"))
    parser.add_argument("--rules-dir", help="archetype rules directory (MTGOFormatData layout)")
    sub = parser.add_subparsers(dest="command", metavar="command")

    tables = sub.add_parser("tables", help="manage the DynamoDB tables of template.yaml")
    tables_sub = tables.add_subparsers(dest="action", required=True)
    tables_sub.add_parser("create", help="create missing tables (idempotent)").set_defaults(func=cmd_tables_create)

    ingest = sub.add_parser("ingest", help="load data into DynamoDB")
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

    up = sub.add_parser("upload", help="put local files in the ingest bucket (the drop zone) for IngestFunction")
    up.add_argument("paths", nargs="+", type=Path, help="JSON files, folders (recursive) or .tar.gz archives")
    up.add_argument(
        "--kind", choices=["tournaments", "cards", "drafts"], help="what the files are (default: guessed per file)"
    )
    up.add_argument("--bucket", help="the drop-zone bucket (default: META_MAGE_INGEST_BUCKET)")
    up.set_defaults(func=cmd_upload)

    sy = sub.add_parser("sync", help="ingest what a GitHub repository (or a local clone) gained since the last sync")
    where = sy.add_mutually_exclusive_group(required=True)
    where.add_argument("--github", metavar="OWNER/REPO", type=_repository, help="e.g. fbettega/MTG_decklistcache")
    where.add_argument("--git-dir", type=Path, help="a local clone: its checked-out branch, read at HEAD")
    sy.add_argument("--branch", default="main", help="with --github (default: main)")
    sy.add_argument(
        "--since",
        type=_day,
        help="first sync or --reset only: commits from this date (YYYY-MM-DD; a clone: all files without)",
    )
    sy.add_argument("--source", action="append", help="only Tournaments/<SOURCE>/ (repeatable; mtgo: MTGO, mtgo.com)")
    sy.add_argument("--format", action="append", help="only tournaments of this format (repeatable)")
    sy.add_argument("--token-env", default="GITHUB_TOKEN", help="environment variable holding a GitHub token")
    sy.add_argument(
        "--time-limit",
        type=_seconds,
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

    repair = sub.add_parser(
        "repair",
        help="check the storage invariants and fix every violation: interrupted ingests, days that miscount, "
        "the format registry (safe beside ingests)",
    )
    repair.add_argument(
        "--check", action="store_true", help="only read and report every violation (exit 1 if any); change nothing"
    )
    repair.add_argument("--format", type=_format_name, help="only this format (default: every format)")
    repair.add_argument("--since", type=_day, help="only days on or after YYYY-MM-DD")
    repair.set_defaults(func=cmd_repair)

    rules = sub.add_parser("rules", help="archetype rule files")
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
    playbooks.add_argument("--format", type=_format_name, help="only this format (default: every format with data)")
    playbooks.add_argument("--days", type=_window_days, default=30, help="the window, ending at the format's last date")
    playbooks.set_defaults(func=cmd_rules_playbooks)

    tool = sub.add_parser("tool", help="call a tool: meta-mage tool NAME '{json args}'")
    tool.add_argument("name", nargs="?", help="the tool's name (see --list)")
    tool.add_argument("arguments", nargs="?", help='its arguments as a JSON object, e.g. \'{"format": "Modern"}\'')
    tool.add_argument("--list", action="store_true", help="print the tool catalog")
    tool.add_argument("--json", action="store_true", help="with --list: full catalog with input schemas")
    tool.set_defaults(func=cmd_tool)

    seed = sub.add_parser("seed", help="load the bundled demo data into the configured DynamoDB")
    seed.add_argument("--reseed", action="store_true", help=RESEED_HELP)
    seed.set_defaults(func=cmd_seed)

    ask = sub.add_parser("ask", help="one turn with the coach: meta-mage ask 'What are the top decks in Modern?'")
    ask.add_argument("message", help="your question (or a pasted decklist)")
    ask.add_argument("--conversation", help="continue this conversation id")
    ask.add_argument(
        "--format", type=_format_name, help="the format to ask about (e.g. Modern), as the page's Format box sends it"
    )
    ask.add_argument(
        "--days", type=_window_days, help=f"the window in days, 1-365 (default {DEFAULT_DAYS}, said with the answer)"
    )
    ask.set_defaults(func=cmd_ask)

    check = sub.add_parser(
        "bedrock-check", help="check a Bedrock model end to end: access, one streamed answer and its grounding, cost"
    )
    check.add_argument("--model", help="model or inference profile id (default: META_MAGE_MODEL)")
    check.add_argument(
        "--format", type=_format_name, default="Modern", help="the format of the question (default Modern)"
    )
    check.add_argument("--question", help="ask this instead of the top decks of --format over 30 days")
    check.add_argument(
        "--tables", action="store_true", help="answer from the configured tables (default: the embedded demo data)"
    )
    check.set_defaults(func=cmd_bedrock_check)

    serve = sub.add_parser("serve", help="run every endpoint locally (embedded DynamoDB + demo data + chat page)")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--cors-origin",
        help="another web origin allowed to call the API from a browser (default: only the page's own, "
        "http://HOST:PORT; '*' allows any site you visit to drive the local coach)",
    )
    serve.add_argument(
        "--dynamodb-endpoint", help="use this DynamoDB (e.g. DynamoDB Local) instead of the embedded one"
    )
    serve.add_argument("--no-seed", action="store_true", help="do not load the bundled demo data")
    serve.add_argument("--reseed", action="store_true", help=RESEED_HELP)
    serve.set_defaults(func=cmd_serve)

    dynamodb = sub.add_parser(
        "dynamodb", help="run the embedded DynamoDB alone (moto, made safe for concurrent transactions)"
    )
    dynamodb.add_argument("--port", type=int, default=8002, help="port to listen on (default 8002)")
    dynamodb.set_defaults(func=cmd_dynamodb)

    mcp = sub.add_parser("mcp", help="serve the tools over MCP (stdio for desktop clients, or streamable HTTP)")
    mcp.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="stdio (desktop clients) or streamable http"
    )
    mcp.add_argument("--host", default="127.0.0.1", help="with --transport http")
    mcp.add_argument("--port", type=int, default=8001, help="with --transport http")
    mcp.add_argument(
        "--embedded", action="store_true", help="start the embedded DynamoDB and load the demo data (about 2 s)"
    )
    mcp.set_defaults(func=cmd_mcp)

    chat = sub.add_parser("chat", help="terminal client for a running 'meta-mage serve'")
    chat.add_argument("--url", default="http://127.0.0.1:8000", help="the server (default http://127.0.0.1:8000)")
    chat.add_argument("--format", type=_format_name, help="the format sent with each message (e.g. Modern)")
    chat.add_argument(
        "--days",
        type=_window_days,
        default=DEFAULT_DAYS,
        help=f"the window sent with each message, 1-365 (default {DEFAULT_DAYS})",
    )
    chat.set_defaults(func=cmd_chat)

    demo = sub.add_parser("demo", help="embedded DynamoDB + demo data + a short conversation with the coach")
    demo.add_argument("--format", type=_format_name, default="Modern", help="the format to talk about")
    demo.add_argument("--days", type=_window_days, default=DEMO_DAYS, help=f"the window, 1-365 (default {DEMO_DAYS})")
    demo.add_argument("--keep-running", action="store_true", help="keep the embedded DynamoDB up afterwards")
    demo.set_defaults(func=cmd_demo)
    return parser


def _connection_problem(exc: Exception) -> str | None:
    """One line for a connection that failed or was lost (AWS, a server), or None for anything else (a bug,
    whose traceback is wanted)."""
    if "botocore.exceptions" in sys.modules:  # only an SDK already loaded can have raised its errors
        from meta_mage.storage.dynamo import sdk_failure

        problem = sdk_failure(exc)
        if problem is not None:
            return f"AWS request failed: {problem}"
    httpx = sys.modules.get("httpx")
    if isinstance(exc, ConnectionError) or (httpx is not None and isinstance(exc, httpx.TransportError)):
        return f"connection lost ({exc or type(exc).__name__}); start the server again and run the command again"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named before "a command is required": "meta-mage --bogus" is about --bogus
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.error("a command is required (meta-mage --help lists them)")
    try:
        _credentials_for_local_endpoint()
        code: int = args.func(args)
    except BrokenPipeError:  # the reader went away ("ask … | head -3"): what it read is all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error flushing stdout at exit
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C: whatever was running is left as an interrupted run leaves it
        print("\nStopped.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except StorageUnavailable as exc:  # a repository's request: a missing table, a stopped local DynamoDB
        seed = "; 'meta-mage seed' creates them with the demo data" if "ResourceNotFound" in exc.message else ""
        print(f"error: AWS request failed: {exc.message}{seed}", file=sys.stderr)
        return EXIT_FAILED
    except MetaMageError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        problem = _connection_problem(exc)
        if problem is None:
            raise
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_FAILED
    return code


if __name__ == "__main__":
    sys.exit(main())
