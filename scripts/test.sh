#!/usr/bin/env bash
# Set everything up and run the checks: ruff, mypy and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev
.venv/bin/ruff check src tests bench scripts functions layers
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
