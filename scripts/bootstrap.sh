#!/usr/bin/env bash
# Create ./.venv with a Python >= 3.11 (3.12, the Lambda runtime, when available) and install the project.
# Usage: scripts/bootstrap.sh [extra]   e.g. "local" or "dev"
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-local}"
pick_python() {
  for candidate in python3.12 python3.13 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return
    fi
  done
  # pyenv installs 3.12 without putting it on PATH.
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.1[1-3]' | sort -rV); do
      echo "$(pyenv root)/versions/$v/bin/python3"; return
    done
  fi
  echo "error: Python 3.11 or newer is required" >&2; exit 1
}
if [ ! -x .venv/bin/python ]; then
  python="$(pick_python)"
  echo "Creating .venv with $("$python" --version)"
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[$extra]"
