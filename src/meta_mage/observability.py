"""Powertools Logger, Tracer and Metrics, made once for every entry point."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "meta-mage"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="MetaMage", service=SERVICE)
