#!/usr/bin/env bash
# Set everything up and run the checks: ruff, mypy and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev
.venv/bin/ruff check src tests bench scripts functions layers
.venv/bin/mypy
# two worker processes, one test file each at a time (module fixtures stay shared); PYTEST_WORKERS=0 runs in
# this process, which also prints the reliability suites' report tables (schemathesis, bad input, faults)
.venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" --dist loadfile -rs "$@"
