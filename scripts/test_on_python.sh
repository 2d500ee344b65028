#!/usr/bin/env bash
# Install the project with the same constraints on another Python (default 3.11, the oldest the README
# promises) in .venv-<version>, and run the unit tests and the offline and LLM answer tests there.
# Usage: scripts/test_on_python.sh [3.11|3.13] [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-3.11}"
shift || true
python=""
if command -v "python$version" >/dev/null 2>&1; then
  python="$(command -v "python$version")"
elif command -v pyenv >/dev/null 2>&1; then
  v="$(pyenv versions --bare 2>/dev/null | grep -E "^${version//./\\.}(\.|$)" | sort -rV | head -1)"
  [ -n "$v" ] && python="$(pyenv root)/versions/$v/bin/python3"
fi
if [ -z "$python" ]; then
  echo "Python $version is not installed here: skipped (install it, e.g. pyenv install $version)"
  exit 0
fi
venv=".venv-$version"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
scripts/bootstrap.sh dev >/dev/null  # for its uv
.venv/bin/uv pip install --quiet --compile-bytecode --python "$venv/bin/python" -c constraints.txt -e ".[dev]"
echo "Python $("$venv/bin/python" --version | cut -d' ' -f2): installed with constraints.txt; running the unit tests and the offline and LLM answer tests"
"$venv/bin/python" -m pytest -q -p no:cacheprovider -n "${PYTEST_WORKERS:-2}" --dist loadfile tests/unit tests/agent/test_offline_answers.py tests/agent/test_llm_scenarios.py "$@"
