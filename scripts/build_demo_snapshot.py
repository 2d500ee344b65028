#!/usr/bin/env python3
"""Build ``src/meta_mage/demo_data/snapshot.jsonl.gz``: the table items a real ingest of the bundled demo
data produces, which ``meta-mage serve``/``demo``/``seed`` load into an empty DynamoDB in seconds.

Run it after changing the demo files, the archetype rules or anything the ingest writes (the test
``tests/integration/test_demo_snapshot.py`` fails until you do). It ingests into an in-process moto
DynamoDB, so it needs no server and no AWS account; the output is byte-identical for the same inputs, and
its header holds the digest of its items, which every load checks first. ``--out PATH`` writes elsewhere.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from moto import mock_aws

from meta_mage.config import Settings
from meta_mage.local.embedded import serialise_moto_dynamodb
from meta_mage.local.seed import DEMO_SNAPSHOT, build_demo_snapshot
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.snapshot import read_header, write_snapshot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the demo data's snapshot from a real ingest.")
    parser.add_argument("--out", type=Path, default=DEMO_SNAPSHOT, help=f"where to write it (default {DEMO_SNAPSHOT})")
    out: Path = parser.parse_args(argv).out
    for key in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL", "AWS_PROFILE"):
        os.environ.pop(key, None)  # never a real or local server: the in-process mock only
    os.environ.update(AWS_ACCESS_KEY_ID="snapshot", AWS_SECRET_ACCESS_KEY="snapshot", AWS_DEFAULT_REGION="us-east-1")
    serialise_moto_dynamodb()
    started = time.perf_counter()
    with mock_aws():
        snapshot = build_demo_snapshot(Settings(), dynamodb_resource(Settings()))
    write_snapshot(out, snapshot)
    counts = ", ".join(f"{table} {n:,}" for table, n in snapshot.counts.items())
    size, digest = out.stat().st_size / 1e6, read_header(out)["items_digest"][:16]
    elapsed = time.perf_counter() - started
    print(f"wrote {out} ({size:.1f} MB; {counts}; items digest {digest}…) in {elapsed:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
