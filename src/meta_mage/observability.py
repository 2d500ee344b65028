"""Powertools Logger, Metrics and Tracer, made once for every entry point.

The Tracer is made on first use: Powertools' Tracer loads the X-Ray SDK, whose recorder builds two
botocore clients at import (about as long as ``import boto3`` itself). The small read functions skip it
to keep their cold start short; Lambda's active tracing still records each of their invocations.
"""

from __future__ import annotations

from functools import lru_cache

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "meta-mage"

logger = Logger(service=SERVICE)
metrics = Metrics(namespace="MetaMage", service=SERVICE)


@lru_cache(maxsize=1)
def get_tracer() -> Tracer:
    """The process's Tracer (X-Ray), made on first use."""
    return Tracer(service=SERVICE)


def __getattr__(name: str) -> Tracer:
    # `from meta_mage.observability import tracer` keeps working, and only then loads the X-Ray SDK
    if name == "tracer":
        return get_tracer()
    raise AttributeError(name)


def count_now(name: str, value: float) -> None:
    """One Count metric flushed at once (an EMF line on stdout): for long-running processes such as the chat
    app, which have no handler whose end flushes ``metrics``."""
    from aws_lambda_powertools.metrics import MetricUnit, single_metric

    with single_metric(name=name, unit=MetricUnit.Count, value=value, namespace="MetaMage") as metric:
        metric.add_dimension("service", SERVICE)
