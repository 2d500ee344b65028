"""The local servers and the demo: ``serve``, ``dynamodb``, ``mcp``, ``chat`` and ``demo``."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from meta_mage.cli import shared
from meta_mage.cli.arguments import format_name, window_days
from meta_mage.cli.environment import credentials_for_local_endpoint, demo_database, quiet_turn_warnings
from meta_mage.cli.shared import EXIT_FAILED, EXIT_OK, RESEED_HELP
from meta_mage.config import DEFAULT_DAYS


def this_command() -> str:
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


def cmd_demo(args: argparse.Namespace) -> int:
    """Embedded DynamoDB + demo data + a short conversation with the coach."""
    import asyncio
    import time

    from meta_mage.local.terminal import can_draw, draw, render, waiting
    from meta_mage.tools.catalog.meta import META_RANKINGS

    settings = shared.settings_for(args)
    quiet_turn_warnings()
    with demo_database(settings) as (url, seeded):
        print()
        with waiting("Starting the coach…"):
            wiring = shared.wiring(settings)
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
                f"  AWS_ENDPOINT_URL_DYNAMODB={url} {this_command()} ask "
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
    settings = shared.settings_for(args).model_copy(update={"cors_origin": origin})
    with contextlib.ExitStack() as stack:
        if args.dynamodb_endpoint:
            os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = args.dynamodb_endpoint
            credentials_for_local_endpoint()
            print(f"DynamoDB at {args.dynamodb_endpoint}")
        else:
            url = stack.enter_context(embedded_dynamodb())
            print(f"Embedded DynamoDB (moto server) on {url}")
        create_tables(shared.dynamodb(settings), settings)  # idempotent; --no-seed skips only the demo data
        if not args.no_seed:
            try:
                with waiting("Loading the demo data…", plain=False):
                    seeded = seed_demo(settings, shared.dynamodb(settings), reseed=args.reseed)
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
    settings = shared.settings_for(args)
    # under stdio, stdout carries the protocol and nothing else
    out = sys.stderr if args.transport == "stdio" else sys.stdout
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    with contextlib.ExitStack() as stack:
        if args.embedded:
            url = stack.enter_context(embedded_dynamodb())
            print(f"Embedded DynamoDB (moto server) on {url}; loading the demo data...", file=out, flush=True)
            print("\n".join(seed_demo(settings, shared.dynamodb(settings)).lines()), file=out, flush=True)
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


def serve_arguments(serve: argparse.ArgumentParser) -> None:
    """The arguments of ``serve``, and its handler."""
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


def dynamodb_arguments(dynamodb: argparse.ArgumentParser) -> None:
    """The arguments of ``dynamodb``, and its handler."""
    dynamodb.add_argument("--port", type=int, default=8002, help="port to listen on (default 8002)")
    dynamodb.set_defaults(func=cmd_dynamodb)


def mcp_arguments(mcp: argparse.ArgumentParser) -> None:
    """The arguments of ``mcp``, and its handler."""
    mcp.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="stdio (desktop clients) or streamable http"
    )
    mcp.add_argument("--host", default="127.0.0.1", help="with --transport http")
    mcp.add_argument("--port", type=int, default=8001, help="with --transport http")
    mcp.add_argument(
        "--embedded", action="store_true", help="start the embedded DynamoDB and load the demo data (about 2 s)"
    )
    mcp.set_defaults(func=cmd_mcp)


def chat_arguments(chat: argparse.ArgumentParser) -> None:
    """The arguments of ``chat``, and its handler."""
    chat.add_argument("--url", default="http://127.0.0.1:8000", help="the server (default http://127.0.0.1:8000)")
    chat.add_argument("--format", type=format_name, help="the format sent with each message (e.g. Modern)")
    chat.add_argument(
        "--days",
        type=window_days,
        default=DEFAULT_DAYS,
        help=f"the window sent with each message, 1-365 (default {DEFAULT_DAYS})",
    )
    chat.set_defaults(func=cmd_chat)


def demo_arguments(demo: argparse.ArgumentParser) -> None:
    """The arguments of ``demo``, and its handler."""
    demo.add_argument("--format", type=format_name, default="Modern", help="the format to talk about")
    demo.add_argument("--days", type=window_days, default=DEMO_DAYS, help=f"the window, 1-365 (default {DEMO_DAYS})")
    demo.add_argument("--keep-running", action="store_true", help="keep the embedded DynamoDB up afterwards")
    demo.set_defaults(func=cmd_demo)
