#!/usr/bin/env bash
# Re-pin constraints.txt: every package the project and its extras pull in, at the newest versions
# pyproject.toml allows, resolved once for every Python from 3.11 up (uv's universal resolution: a package
# whose newest version needs a newer Python gets a marker and an older pin for the older ones). The pins
# already in constraints.txt are kept where they still fit. Run the tests on 3.11 and 3.12 before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev >/dev/null
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
grep -v '^#' constraints.txt > "$tmp" || true
.venv/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
  --no-header --no-annotate --quiet -o "$tmp"
{
  echo "# Exact versions CI tested, one file for Python 3.11, 3.12 (the Lambda runtime) and 3.13: where a package's"
  echo "# newest version needs 3.12, a marker pins the one before for 3.11. scripts/bootstrap.sh installs with them"
  echo "# as constraints; regenerate with: bash scripts/lock.sh (after changing pyproject.toml's dependencies)."
  cat "$tmp"
} > constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) pins"
