#!/usr/bin/env bash
# Set everything up and run the main job: an embedded DynamoDB loaded with the demo data,
# answering a sample question. Extra arguments go to `meta-mage demo` (e.g. --keep-running).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh local
exec .venv/bin/meta-mage demo "$@"
