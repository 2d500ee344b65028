#!/usr/bin/env bash
# Re-pin constraints.txt from a fresh dev environment: every package the project and its extras pull in,
# at the newest versions pyproject.toml allows. Run the tests before committing the new pins.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python="$(.venv/bin/python -c 'import sys; print(sys.executable)' 2>/dev/null || command -v python3.12 || command -v python3)"
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --upgrade pip
"$tmp/venv/bin/python" -m pip install --quiet -e ".[dev]"
{
  echo "# Exact versions CI tested (Python $("$tmp/venv/bin/python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')). scripts/bootstrap.sh installs with them as constraints;"
  echo "# regenerate with: bash scripts/lock.sh (after changing pyproject.toml's dependencies)."
  "$tmp/venv/bin/python" -m pip freeze --exclude-editable | grep -viE '^(-e|meta-mage)'
} > constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) pins"
