"""SyncFunction: a scheduled run of :func:`meta_mage.sync.run.sync` over the configured GitHub repository.

The event (EventBridge Scheduler's or anything else) is ignored: settings come from ``META_MAGE_SYNC_*``.
Each run publishes ``FilesIngested``, ``FilesFailed``, ``FilesBad``, ``SyncRequests`` and ``UnnamedDeckShare``
(the largest share of a format's last 14 days' decks that no archetype rule names; each format's is logged).

A bad file (a refused path, too large, a bomb, undecodable, an item DynamoDB refuses) is reported (logged with
the ``meta-mage sync --retry`` command that reads it again, counted in ``FilesBad``) and passed for good. Each
download must end before the function's remaining time (less ``SAFETY_SECONDS``). A file that failed on
GitHub, DynamoDB or the time limit leaves the cursor where it was, and the handler **raises** at the end so
Lambda's asynchronous retries run it again; files already stored then report ``unchanged``. So does a failure
to list the changes (GitHub down, a rate limit resetting later than ``META_MAGE_SYNC_MAX_WAIT_SECONDS``, a
cursor lost to a force-push: its log names ``meta-mage sync --reset``). Runs must not overlap with each other
(reserved concurrency 1) nor, ideally, with IngestFunction: both rebuild a day's aggregates read-then-write.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import lru_cache

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from meta_mage.archetypes.classifier import ArchetypeClassifier, get_classifier
from meta_mage.config import Settings, get_settings
from meta_mage.models.json import JsonObject
from meta_mage.observability import logger, metrics
from meta_mage.storage.secrets import read_secret
from meta_mage.sync.github import GitHubClient, SyncError
from meta_mage.sync.run import SyncFilter, SyncReport, sync
from meta_mage.sync.upstream import GitHubUpstream
from meta_mage.wiring import Wiring

SAFETY_SECONDS = 60.0  # stop reading new files this long before the function's timeout: ingest finishes the rest


class SyncRetryError(RuntimeError):
    """Raised after the run when files failed on the infrastructure: the scheduler retries."""


@dataclass(frozen=True)
class Runtime:
    """The clients and settings of this container, made once."""

    wiring: Wiring
    upstream: GitHubUpstream
    wanted: SyncFilter
    classifier: ArchetypeClassifier


def read_token(settings: Settings, wiring: Wiring) -> str | None:
    """The GitHub token from ``sync_token_parameter``: a Secrets Manager ARN or an SSM parameter name."""
    name = settings.sync_token_parameter
    if not name:
        return None
    return read_secret(wiring.aws_client, name, "GitHub token")


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    """This container's runtime (the token is read on the first invocation)."""
    settings = get_settings()
    wiring = Wiring(settings)
    client = GitHubClient.from_settings(settings, settings.sync_repository, read_token(settings, wiring))
    wanted = SyncFilter.of(settings.sync_sources, settings.sync_formats)
    classifier = get_classifier(settings.archetype_rules_dir)
    return Runtime(wiring, GitHubUpstream(client, settings.sync_branch), wanted, classifier)


def publish(report: SyncReport) -> None:
    metrics.add_metric(name="FilesIngested", unit=MetricUnit.Count, value=report.ingested)
    metrics.add_metric(name="FilesFailed", unit=MetricUnit.Count, value=len(report.failures))
    metrics.add_metric(name="FilesBad", unit=MetricUnit.Count, value=len(report.bad_files))
    metrics.add_metric(name="SyncRequests", unit=MetricUnit.Count, value=report.requests)


def publish_unnamed_shares(rt: Runtime) -> None:
    """Log each format's share of decks no archetype rule names (last 14 days) and publish the largest as
    ``UnnamedDeckShare`` (percent; template.yaml alarms above ``UnnamedDeckAlarmShare``)."""
    from meta_mage.ingest.rule_suggestions import fallback_shares

    shares = fallback_shares(rt.wiring.meta, rt.classifier, days=14)
    for share in shares:
        logger.info("unnamed decks", extra={"format": share.format, "share": share.share, "summary": share.line()})
    measured = [share.share for share in shares if share.share is not None]
    if measured:
        metrics.add_metric(name="UnnamedDeckShare", unit=MetricUnit.Percent, value=max(measured))


def run_once(rt: Runtime, context: LambdaContext) -> SyncReport:
    """One sync, reading new files (each download bounded too) until ``SAFETY_SECONDS`` before the timeout."""
    return sync(
        rt.upstream,
        rt.wiring.meta,
        rt.classifier,
        since=rt.wiring.settings.sync_start_date,
        wanted=rt.wanted,
        time_left=lambda: context.get_remaining_time_in_millis() / 1000 - SAFETY_SECONDS,
    )


@logger.inject_lambda_context(log_event=False)
@metrics.log_metrics(capture_cold_start_metric=True)
def handle(event: JsonObject, context: LambdaContext) -> JsonObject:
    """Entry point of SyncFunction (a scheduled event)."""
    rt = runtime()
    try:
        report = run_once(rt, context)
    except SyncError as exc:
        metrics.add_metric(name="SyncErrors", unit=MetricUnit.Count, value=1)
        logger.error("sync failed before any file was read", extra={"error": exc.message})
        raise
    publish(report)
    publish_unnamed_shares(rt)
    for failure in report.failures:
        what = {"path": failure.path, "reason": failure.reason, "retryable": failure.retryable}
        if not failure.retryable:
            what["retry_with"] = f"meta-mage sync {rt.upstream.where} --retry {shlex.quote(failure.path)}"
        logger.warning("file not synced" if failure.retryable else "bad file passed", extra=what)
    logger.info("sync finished", extra=report.to_dict())
    if report.retryable:
        raise SyncRetryError(f"{len(report.failures)} files failed, the cursor stays: {report.failures[0].reason}")
    return report.to_dict()
