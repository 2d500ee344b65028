#!/usr/bin/env bash
# The SAM checks: `sam validate --lint`, a policy scan (checkov), then `sam build` when a python3.12 (the
# Lambda runtime) exists.
# aws-sam-cli lives in its own virtualenv, .venv-sam, because it pins its own boto3.
set -euo pipefail
cd "$(dirname "$0")/.."
export SAM_CLI_TELEMETRY=0
if [ ! -x .venv-sam/bin/sam ]; then
  echo "Installing aws-sam-cli into .venv-sam"
  python3 -m venv .venv-sam
  .venv-sam/bin/python -m pip install --quiet --upgrade pip
  .venv-sam/bin/python -m pip install --quiet aws-sam-cli
fi
.venv-sam/bin/sam validate --lint   # cfn-lint over the SAM-transformed template

# The policy scan: checkov (pinned, in its own .venv-scan) over the transformed template; .checkov.yaml says
# why each skipped check does not apply. Any other finding fails the check.
CHECKOV_VERSION=3.3.30
if [ ! -x .venv-scan/bin/checkov ]; then
  echo "Installing checkov $CHECKOV_VERSION into .venv-scan"
  python3 -m venv .venv-scan
  .venv-scan/bin/python -m pip install --quiet "checkov==$CHECKOV_VERSION"
fi
mkdir -p build
AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}" .venv-sam/bin/python scripts/sam_transform.py > build/transformed.json
.venv-scan/bin/checkov --config-file .checkov.yaml -f build/transformed.json

find_python312() {
  # the folder of a python3.12 that runs (a pyenv shim may exist without its version selected)
  local candidates=(python3.12)
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.|$)' | sort -rV); do
      candidates+=("$(pyenv root)/versions/$v/bin/python3.12")
    done
  fi
  for candidate in "${candidates[@]}"; do
    if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' >/dev/null 2>&1; then
      dirname "$("$candidate" -c 'import os, sys; print(os.path.realpath(sys.executable))')"; return
    fi
  done
}
py312="$(find_python312 || true)"
if [ -z "$py312" ]; then
  echo "sam build skipped: no python3.12 on this machine (the python3.12 functions need one to build)"
  exit 0
fi
# The layers' Makefiles run `python3`: the 3.12 found above, fetching arm64 wheels from PyPI.
PATH="$py312:$PATH" .venv-sam/bin/sam build
du -sh .aws-sam/build/*/ | sed 's|\.aws-sam/build/||'
