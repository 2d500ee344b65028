"""The ``meta-mage`` command: tables, ingest, tools, the MCP server and the local demo."""

from __future__ import annotations

import argparse
import os
import sys

from meta_mage.cli import coach, data, rules, serve, sync
from meta_mage.cli.environment import credentials_for_local_endpoint
from meta_mage.cli.shared import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, Command
from meta_mage.errors import MetaMageError, StorageUnavailable

# The subcommands in the order ``meta-mage --help`` lists them; each family's module adds their arguments.
COMMANDS: tuple[Command, ...] = (
    Command("tables", "manage the DynamoDB tables of template.yaml", data.tables_arguments),
    Command("ingest", "load data into DynamoDB", data.ingest_arguments),
    Command("upload", "put local files in the ingest bucket (the drop zone) for IngestFunction", data.upload_arguments),
    Command(
        "sync", "ingest what a GitHub repository (or a local clone) gained since the last sync", sync.sync_arguments
    ),
    Command(
        "repair",
        "check the storage invariants and fix every violation: interrupted ingests, days that miscount, "
        "the format registry (safe beside ingests)",
        data.repair_arguments,
    ),
    Command("rules", "archetype rule files", rules.rules_arguments),
    Command("tool", "call a tool: meta-mage tool NAME '{json args}'", coach.tool_arguments),
    Command("seed", "load the bundled demo data into the configured DynamoDB", data.seed_arguments),
    Command("ask", "one turn with the coach: meta-mage ask 'What are the top decks in Modern?'", coach.ask_arguments),
    Command(
        "bedrock-check",
        "check a Bedrock model end to end: access, one streamed answer and its grounding, cost",
        coach.bedrock_check_arguments,
    ),
    Command("serve", "run every endpoint locally (embedded DynamoDB + demo data + chat page)", serve.serve_arguments),
    Command(
        "dynamodb",
        "run the embedded DynamoDB alone (moto, made safe for concurrent transactions)",
        serve.dynamodb_arguments,
    ),
    Command("mcp", "serve the tools over MCP (stdio for desktop clients, or streamable HTTP)", serve.mcp_arguments),
    Command("chat", "terminal client for a running 'meta-mage serve'", serve.chat_arguments),
    Command("demo", "embedded DynamoDB + demo data + a short conversation with the coach", serve.demo_arguments),
)


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``--rules-dir`` and one subparser per row of ``COMMANDS``."""
    parser = argparse.ArgumentParser(prog="meta-mage", description=(__doc__ or "").replace("``", "'"))
    parser.add_argument("--rules-dir", help="archetype rules directory (MTGOFormatData layout)")
    sub = parser.add_subparsers(dest="command", metavar="command")
    for command in COMMANDS:
        command.arguments(sub.add_parser(command.name, help=command.help))
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
        credentials_for_local_endpoint()
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
