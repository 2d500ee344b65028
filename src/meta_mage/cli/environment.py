"""What DynamoDB a command finds (an endpoint variable, AWS credentials, the embedded one) and whether it can serve."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

from meta_mage.cli import shared

if TYPE_CHECKING:
    from collections.abc import Iterator

    from meta_mage.config import Settings
    from meta_mage.local.seed import SeedResult

ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL")


def endpoint_variable() -> tuple[str, str] | None:
    """The variable pointing boto3 at a DynamoDB endpoint, and its URL; None when none is set."""
    return next(((name, os.environ[name]) for name in ENDPOINT_VARIABLES if os.environ.get(name)), None)


def credentials_found() -> bool:
    from meta_mage.storage.dynamo import default_session

    return default_session().get_credentials() is not None


def dynamodb_configured() -> bool:
    """Whether boto3 has a DynamoDB to talk to: an endpoint variable is set, or it finds AWS credentials."""
    return endpoint_variable() is not None or credentials_found()


def credentials_for_local_endpoint() -> None:
    """Dummy credentials for an endpoint set without any: DynamoDB Local and the embedded one take any
    (without, boto3 refuses to sign the first request)."""
    if endpoint_variable() and not credentials_found():
        os.environ["AWS_ACCESS_KEY_ID"] = os.environ["AWS_SECRET_ACCESS_KEY"] = "local"


@contextlib.contextmanager
def demo_database(settings: Settings, verbose: bool = True) -> Iterator[tuple[str, SeedResult]]:
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
            seeded = seed_demo(settings, shared.dynamodb(settings))  # a fresh in-memory server each time
        if verbose or not seeded.ok:
            print("\n".join(seeded.lines()), file=sys.stdout if seeded.ok else sys.stderr)
        yield url, seeded


def storage_problem(settings: Settings, note_empty: bool = True) -> str | None:
    """Why the configured DynamoDB cannot hold a turn or an ingest (not answering, tables missing), in one line
    saying what to do; None when it can (with a note when its tables hold no data, unless ``note_empty`` is off)."""
    from urllib.parse import urlsplit

    from meta_mage.storage.dynamo import aws_region
    from meta_mage.storage.probe import probe_tables

    endpoint = endpoint_variable()
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


def quiet_turn_warnings() -> None:
    """The coach logs a failed turn, and the command prints the error event already: one line, not three."""
    import logging

    logging.getLogger("meta_mage.agent.conversation").setLevel(logging.ERROR)
