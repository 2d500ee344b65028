"""IngestFunction: S3 ``ObjectCreated`` notifications from the IngestBucket → :mod:`meta_mage.ingest.drop_zone`.

How failures are handled
------------------------

S3 invokes the function **asynchronously**, one record per object in practice. Each record is
ingested on its own (its key URL-decoded), and one record's failure never stops the others:

- **A bad file** (unknown prefix, wrong extension, invalid JSON, a tournament missing
  ``Rounds``, a draft naming unknown cards, an object deleted before it was read, an
  unexpected exception from the ingest code) is the file's fault and a retry cannot fix it.
  The handler sends one message per failed file to the failure queue
  (``META_MAGE_INGEST_FAILURE_QUEUE_URL``), body ``{"bucket", "key", "source", "reason",
  "error_code"}`` (``source`` is ``key:member`` for a member of a tar archive), and
  **returns normally**, so Lambda does not retry and no work is done twice. Nothing of the
  file was written: the ingest code parses a file completely before its first write.
- **An infrastructure error** (DynamoDB or S3 failing, or the failure queue refusing a
  message) may pass. The handler finishes the other records, then **raises**, so Lambda's
  asynchronous retries (twice by default) run the event again, and if they fail too the
  function's ``OnFailure`` destination (the same queue, set in ``template.yaml``) receives
  Lambda's invocation record. Retrying is safe: ingest is idempotent, records already done
  report ``unchanged`` (a bad file in the same event may be reported twice).

Invocations must not run concurrently: a day's aggregates, the format registry and the card
name index are rebuilt with read-then-write, so ``template.yaml`` gives the function a reserved
concurrency of 1 (S3 events wait in Lambda's async queue meanwhile). Without a failure queue
configured (e.g. ``sam local invoke``) failures are only logged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote_plus

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes import S3Event
from aws_lambda_powertools.utilities.typing import LambdaContext

from meta_mage.config import get_settings
from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.drop_zone import FileFailure, ObjectResult, Targets, failed, ingest_object, kind_of_key
from meta_mage.models.json import JsonObject
from meta_mage.observability import logger, metrics, tracer
from meta_mage.storage.objects import DropZoneBucket, FailureQueue
from meta_mage.wiring import Wiring


class IngestRetryError(RuntimeError):
    """Raised after every record was tried, when some failed on the infrastructure: Lambda retries."""


@dataclass(frozen=True)
class Runtime:
    """Clients made once per container (by its ``Wiring``); repositories are made per record (see ``Targets``)."""

    wiring: Wiring
    bucket: DropZoneBucket
    failure_queue: FailureQueue | None  # None when no queue is configured (sam local invoke)

    def targets(self) -> Targets:
        return self.wiring.ingest_targets()


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    """The clients and settings for this container, made on first use and kept for warm invocations."""
    wiring = Wiring(get_settings())
    return Runtime(wiring=wiring, bucket=wiring.drop_zone_bucket, failure_queue=wiring.failure_queue)


def failure_message(result: ObjectResult, failure: FileFailure) -> dict[str, str]:
    """The failure queue's message body for one failed file."""
    return {
        "bucket": result.bucket,
        "key": result.key,
        "source": failure.source,
        "reason": failure.reason,
        "error_code": failure.error_code,
    }


def report_failures(result: ObjectResult, rt: Runtime) -> int:
    """Send one message per non-retryable failure; return how many were sent.

    Raises ``StorageUnavailable`` when SQS refuses a message (an infrastructure error).
    """
    sent = 0
    for failure in result.failures:
        if failure.retryable:
            continue
        body = failure_message(result, failure)
        logger.warning("file not ingested", extra=body)
        if rt.failure_queue is None:
            logger.error("no failure queue configured (META_MAGE_INGEST_FAILURE_QUEUE_URL); failure only logged")
            continue
        rt.failure_queue.send(json.dumps(body, ensure_ascii=False), failure.error_code)
        sent += 1
    return sent


def _ingest_record(bucket: str, key: str, rt: Runtime) -> ObjectResult:
    try:
        return ingest_object(bucket, key, rt.bucket, rt.targets())
    except StorageUnavailable as exc:
        # ingest_object reports these itself; never lose a retry
        logger.exception("AWS error while ingesting", extra={"bucket": bucket, "key": key})
        return failed(bucket, key, kind_of_key(key), f"AWS error: {exc}", "storage_error")
    except Exception as exc:  # a bug triggered by this object: report it, keep the others going
        logger.exception("unexpected error while ingesting", extra={"bucket": bucket, "key": key})
        return failed(bucket, key, kind_of_key(key), f"internal error: {type(exc).__name__}: {exc}", "internal_error")


@tracer.capture_method
def process_event(event: S3Event, rt: Runtime) -> tuple[list[ObjectResult], list[str]]:
    """Ingest every ``ObjectCreated`` record; return the results and the infrastructure problems met."""
    results: list[ObjectResult] = []
    problems: list[str] = []
    for record in event.records:
        bucket, key = record.s3.bucket.name, unquote_plus(record.s3.get_object.key)
        if not record.event_name.startswith("ObjectCreated"):
            logger.info("ignored event", extra={"event_name": record.event_name, "key": key})
            continue
        result = _ingest_record(bucket, key, rt)
        results.append(result)
        logger.info("object processed", extra=result.to_dict())
        metrics.add_metric(name="ObjectsProcessed", unit=MetricUnit.Count, value=1)
        metrics.add_metric(name="FilesFailed", unit=MetricUnit.Count, value=len(result.failures))
        if result.retryable:
            problems += [f"{f.source}: {f.reason}" for f in result.failures if f.retryable]
        try:
            sent = report_failures(result, rt)
        except StorageUnavailable as exc:
            problems.append(f"{key}: {exc.message}")
            continue
        metrics.add_metric(name="FailureReportsSent", unit=MetricUnit.Count, value=sent)
    return results, problems


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def handle(event: JsonObject, context: LambdaContext) -> JsonObject:
    """Entry point of IngestFunction (an S3 notification event)."""
    results, problems = process_event(S3Event(event), runtime())
    if problems:
        # Lambda retries the whole event; files already stored report "unchanged" next time.
        raise IngestRetryError("infrastructure errors, retry: " + "; ".join(problems))
    return {"objects": [result.to_dict() for result in results]}
