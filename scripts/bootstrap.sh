#!/usr/bin/env bash
# Create ./.venv with a Python >= 3.11 (3.12, the Lambda runtime, when available) and install the project.
# Usage: scripts/bootstrap.sh [extra] [--lazy-bytecode]   e.g. "local" or "dev"
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
# The versions CI tested (constraints.txt), installed by uv: ~6 s on a fresh machine where pip takes ~65 s.
# A uv on the PATH is used as is; otherwise the pinned one below is put in .venv first (~2 s); pip if neither.
# Compiled to bytecode as pip does (uv does not by default): where PYTHONDONTWRITEBYTECODE is set, every
# command would otherwise compile its imports afresh, 3 of the 6 s `meta-mage serve` takes to start.
UV_VERSION=0.13.9
uv=""
if command -v uv >/dev/null 2>&1; then
  uv="$(command -v uv)"
elif [ -x .venv/bin/uv ] || .venv/bin/python -m pip install --quiet "uv==$UV_VERSION" >/dev/null 2>&1; then
  uv=.venv/bin/uv
fi
# --lazy-bytecode (the test command, which writes the bytecode of what it imports as it goes): no compiling of
# every installed module first, 9 s of a fresh setup on 2 cores, most of it for modules nothing imports
compile=--compile-bytecode
[ "${2:-}" = "--lazy-bytecode" ] && compile=
if [ -n "$uv" ] && "$uv" pip install --quiet $compile --python .venv/bin/python -c constraints.txt -e ".[$extra]"; then
  exit 0
fi
[ -n "$uv" ] && echo "uv could not install the project; trying pip" >&2
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -c constraints.txt -e ".[$extra]"
