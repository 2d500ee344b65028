#!/usr/bin/env bash
# Create ./.venv with a Python >= 3.11 (3.12, the Lambda runtime, when available) and install the project.
# Usage: scripts/bootstrap.sh [extra]   e.g. "local" or "dev"
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-local}"
runs() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
pick_python() {
  # Prefer 3.12 (the Lambda runtime), also when pyenv has it installed but not on PATH.
  if runs python3.12; then echo python3.12; return; fi
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.|$)' | sort -rV); do
      candidate="$(pyenv root)/versions/$v/bin/python3"
      if runs "$candidate"; then echo "$candidate"; return; fi
    done
  fi
  for candidate in python3.13 python3.11 python3; do
    if runs "$candidate"; then echo "$candidate"; return; fi
  done
  echo "error: Python 3.11 or newer is required" >&2; exit 1
}
if [ ! -x .venv/bin/python ]; then
  python="$(pick_python)"
  echo "Creating .venv with $("$python" --version)"
  "$python" -m venv .venv
fi
# the versions CI tested (constraints.txt); uv installs the same set faster when it is on the PATH
if command -v uv >/dev/null 2>&1; then
  uv pip install --quiet --python .venv/bin/python -c constraints.txt -e ".[$extra]"
else
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -c constraints.txt -e ".[$extra]"
fi
