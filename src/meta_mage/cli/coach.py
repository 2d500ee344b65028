"""Asking the coach and its tools: ``tool``, ``ask`` and ``bedrock-check``."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from meta_mage.cli import shared
from meta_mage.cli.arguments import format_name, window_days
from meta_mage.cli.environment import (
    credentials_found,
    demo_database,
    dynamodb_configured,
    quiet_turn_warnings,
    storage_problem,
)
from meta_mage.cli.shared import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from meta_mage.config import DEFAULT_DAYS
from meta_mage.errors import MetaMageError, StorageUnavailable


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
        result = registry.call(args.name, arguments, shared.wiring(shared.settings_for(args), registry).tool_context)
    except StorageUnavailable:
        raise  # one line from main, like every other AWS failure
    except MetaMageError as exc:
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return EXIT_USAGE if exc.code == "invalid_argument" else EXIT_FAILED
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return EXIT_OK


NO_DYNAMODB = (
    "No DynamoDB configured: answering from the embedded one with the bundled demo data "
    "(set AWS_ENDPOINT_URL_DYNAMODB to use yours)."
)


def cmd_ask(args: argparse.Namespace) -> int:
    """One turn with the coach, streamed to the terminal: against the configured DynamoDB, else (no endpoint,
    no AWS credentials) against the embedded one with the demo data, as ``demo`` runs."""
    import asyncio

    from meta_mage.local.terminal import can_draw, draw, render, waiting

    settings = shared.settings_for(args)
    embedded = not dynamodb_configured()
    if embedded and args.conversation:
        print(
            "ask: --conversation needs a DynamoDB that keeps conversations: set AWS_ENDPOINT_URL_DYNAMODB (e.g. to "
            "'meta-mage dynamodb'), or talk with 'meta-mage serve' and 'meta-mage chat'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not embedded and (problem := storage_problem(settings)):
        print(f"ask: {problem}", file=sys.stderr)
        return EXIT_FAILED
    quiet_turn_warnings()
    with contextlib.ExitStack() as stack:
        if embedded:
            print(NO_DYNAMODB, flush=True)
            if not stack.enter_context(demo_database(settings, verbose=False))[1].ok:
                return EXIT_FAILED
        with waiting("Starting the coach…", plain=False):
            conversations = shared.wiring(settings).coach()
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

    settings = shared.settings_for(args)
    model_id = args.model or bedrock_model_id(settings.model)
    if not model_id:
        print("bedrock-check: no Bedrock model: pass --model ID or set META_MAGE_MODEL", file=sys.stderr)
        return EXIT_USAGE
    if not credentials_found():
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
            ready = stack.enter_context(demo_database(settings, verbose=False))[1].ok
        if ready:
            quiet_turn_warnings()
            conversations = shared.wiring(settings).coach()
            question = args.question or QUESTION.format(format=args.format)
            print(f"Asking: {question}\n", flush=True)
            asyncio.run(streamed_answer(conversations, question, report, lambda text: print(text, end="", flush=True)))
    print("\n".join(report.lines))
    return EXIT_OK if report.ok else EXIT_FAILED


def tool_arguments(tool: argparse.ArgumentParser) -> None:
    """The arguments of ``tool NAME '{json args}'``, and its handler."""
    tool.add_argument("name", nargs="?", help="the tool's name (see --list)")
    tool.add_argument("arguments", nargs="?", help='its arguments as a JSON object, e.g. \'{"format": "Modern"}\'')
    tool.add_argument("--list", action="store_true", help="print the tool catalog")
    tool.add_argument("--json", action="store_true", help="with --list: full catalog with input schemas")
    tool.set_defaults(func=cmd_tool)


def ask_arguments(ask: argparse.ArgumentParser) -> None:
    """The arguments of ``ask MESSAGE``, and its handler."""
    ask.add_argument("message", help="your question (or a pasted decklist)")
    ask.add_argument("--conversation", help="continue this conversation id")
    ask.add_argument(
        "--format", type=format_name, help="the format to ask about (e.g. Modern), as the page's Format box sends it"
    )
    ask.add_argument(
        "--days", type=window_days, help=f"the window in days, 1-365 (default {DEFAULT_DAYS}, said with the answer)"
    )
    ask.set_defaults(func=cmd_ask)


def bedrock_check_arguments(check: argparse.ArgumentParser) -> None:
    """The arguments of ``bedrock-check``, and its handler."""
    check.add_argument("--model", help="model or inference profile id (default: META_MAGE_MODEL)")
    check.add_argument(
        "--format", type=format_name, default="Modern", help="the format of the question (default Modern)"
    )
    check.add_argument("--question", help="ask this instead of the top decks of --format over 30 days")
    check.add_argument(
        "--tables", action="store_true", help="answer from the configured tables (default: the embedded demo data)"
    )
    check.set_defaults(func=cmd_bedrock_check)
