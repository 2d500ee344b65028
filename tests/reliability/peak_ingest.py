"""Run one ingest in this process (on moto) and print its peak memory as the last line of output, as JSON.

``python -m tests.reliability.peak_ingest cli KIND PATH...`` runs ``meta-mage ingest KIND PATH...``;
``python -m tests.reliability.peak_ingest drop KEY=PATH...`` puts each file in the drop zone under KEY and
invokes IngestFunction's handler with their notifications. The peak is the process's RSS high-water mark
(``VmHWM``) during the ingest alone: it is reset, once the tables and imports are ready, through
``/proc/self/clear_refs`` (``baseline_mb`` is the RSS at that moment).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

BUCKET = "meta-mage-ingest"


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


def _reset_peak() -> bool:
    """Reset ``VmHWM`` to the current RSS (Linux 4.0+); False where the kernel refuses."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _formats(db: Any, settings: Any) -> dict[str, int]:
    from meta_mage.storage.meta import MetaRepository

    return {f.format: f.tournaments for f in MetaRepository(db.Table(settings.meta_table)).list_formats()}


def _cli(db: Any, argv: list[str]) -> dict[str, Any]:
    from meta_mage import cli
    from meta_mage.cli import shared

    shared.dynamodb = lambda settings: db  # type: ignore[assignment]  # the tables this process made on moto
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        code = cli.main(["ingest", *argv])
    return {"exit": code, "output": output.getvalue()}


def _drop(pairs: list[str]) -> dict[str, Any]:
    import boto3

    from tests.ingest_drop_zone.conftest import ingest_entry_point, s3_event
    from tests.lambda_helpers import FakeLambdaContext

    s3, sqs = boto3.client("s3", region_name="us-east-1"), boto3.client("sqs", region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    os.environ["META_MAGE_INGEST_FAILURE_QUEUE_URL"] = sqs.create_queue(QueueName="failures")["QueueUrl"]
    os.environ["POWERTOOLS_METRICS_NAMESPACE"] = "MetaMageTest"
    keys = []
    for pair in pairs:
        key, path = pair.split("=", 1)
        s3.put_object(Bucket=BUCKET, Key=key, Body=Path(path).read_bytes())
        keys.append(key)
    handler = ingest_entry_point()
    context = FakeLambdaContext("IngestFunction", 1024, remaining_millis=300_000)
    output = io.StringIO()
    started = _start()
    with contextlib.redirect_stdout(output):  # Powertools prints its metrics
        result = handler(s3_event(*keys), context)
    return {"objects": result["objects"], **_stop(started)}


def _start() -> tuple[float, float, bool]:
    import gc

    gc.collect()
    return time.monotonic(), _status_mb("VmRSS"), _reset_peak()


def _stop(started: tuple[float, float, bool]) -> dict[str, Any]:
    at, baseline, reset = started
    return {"seconds": time.monotonic() - at, "baseline_mb": baseline, "peak_mb": _status_mb("VmHWM"), "reset": reset}


def main(argv: list[str]) -> None:
    from moto import mock_aws

    from meta_mage.config import Settings
    from meta_mage.storage.dynamo import dynamodb_resource
    from meta_mage.storage.tables import create_tables

    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1")
    for variable in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL", "AWS_PROFILE"):
        os.environ.pop(variable, None)
    surface, rest = argv[0], argv[1:]
    with mock_aws():
        settings = Settings()
        db = dynamodb_resource(settings)
        create_tables(db, settings)
        if surface == "cli":
            import meta_mage.cli  # noqa: F401  # imported before the baseline, as the drop zone's handler is

            started = _start()
            result = {**_cli(db, rest), **_stop(started)}
        else:
            result = _drop(rest)
        result["formats"] = _formats(db, settings)
    print("\n" + json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
