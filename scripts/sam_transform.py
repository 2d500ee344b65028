#!/usr/bin/env python3
"""Print template.yaml as CloudFormation sees it after the SAM transform (JSON), without an AWS account.

Local ``CodeUri``/``ContentUri`` folders become placeholder S3 URIs (what ``sam package`` would upload), so
the transform runs offline. Run it with the SAM CLI's virtualenv, which has samtranslator:
``AWS_DEFAULT_REGION=us-east-1 .venv-sam/bin/python scripts/sam_transform.py > build/transformed.json``;
the policy scanner in ``scripts/sam_check.sh`` reads that output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

ROOT = Path(__file__).resolve().parents[1]


class _NoManagedPolicies:
    """The transform asks IAM for managed policy ARNs by name; the template uses none by name."""

    def load(self) -> dict[str, str]:
        return {}


def main() -> int:
    template: dict[str, Any] = yaml_parse((ROOT / "template.yaml").read_text(encoding="utf-8"))
    for name, resource in template["Resources"].items():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://placeholder-bucket/{name}.zip"
    print(json.dumps(transform(template, {}, _NoManagedPolicies()), indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
