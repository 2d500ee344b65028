#!/usr/bin/env bash
# Set everything up and run the checks: ruff, mypy and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev --lazy-bytecode
# the browser tests need Debian's Chromium: installed where apt-get can (as root), else said in one line
if ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get install -y -q chromium >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1) || true
    fi
    command -v chromium >/dev/null 2>&1 \
        || echo "Chromium not found: the browser tests are skipped (install it with: sudo apt-get install chromium)"
fi
# the suite starts many Python processes (workers, servers, commands): each reuses the bytecode of the
# project and of the tests (pytest's rewritten asserts) another wrote, where PYTHONDONTWRITEBYTECODE would
# have each compile them afresh
unset PYTHONDONTWRITEBYTECODE
.venv/bin/ruff check src tests bench scripts functions layers
# On a fresh clone pytest has not yet rewritten the asserts of the test modules and its plugins (it keeps each
# rewrite beside its module): one collection does it while mypy runs, instead of every worker doing it apart
warm_up=
if ! compgen -G "tests/__pycache__/conftest.*-pytest-*.pyc" >/dev/null; then
    .venv/bin/python -m pytest --collect-only -q >/dev/null 2>&1 &
    warm_up=$!
fi
.venv/bin/mypy
[ -z "$warm_up" ] || wait "$warm_up" || true  # a collection error is pytest's to report, below
# one worker process more than the machine has cores, at most 8 (a worker waiting on a server or a command it
# started leaves its core to another; each worker collects the suite and builds its own worlds), one test file
# each at a time (module fixtures stay shared); PYTEST_WORKERS=0 runs in this process, which also prints the
# reliability suites' report tables (schemathesis, bad input, faults)
# --durations: the slowest tests of every run, where the time of a slow fixture shows
cores="$(nproc 2>/dev/null || echo 1)"
workers="${PYTEST_WORKERS:-$(( cores < 8 ? cores + 1 : 8 ))}"
.venv/bin/python -m pytest -n "$workers" --dist loadfile -rs --durations=15 "$@"
echo "scripts/test.sh: ruff, mypy and pytest ($workers workers) in ${SECONDS} s"
