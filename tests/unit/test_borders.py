"""What stays at its border: the AWS SDK in storage, the Bedrock adapter and the SnapStart priming; each tool's
name in its record."""

from __future__ import annotations

import ast

from tests.unit.test_layers import MODULES

SDK = ("boto3", "botocore")
SDK_BORDERS = ("meta_mage.storage", "meta_mage.bedrock", "meta_mage.snapstart")


def sdk_imports(module: str) -> set[str]:
    """The SDK modules ``module`` imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        found |= {name for name in names if name.split(".")[0] in SDK}
    return found


def test_the_aws_sdk_is_imported_only_at_its_borders() -> None:
    outside = {
        module: sorted(sdk_imports(module))
        for module in MODULES
        if not any(module == border or module.startswith(border + ".") for border in SDK_BORDERS)
    }
    assert {module: found for module, found in outside.items() if found} == {}


def test_the_sdk_border_check_sees_the_borders_themselves() -> None:
    assert sdk_imports("meta_mage.storage.dynamo") >= {"boto3", "botocore.exceptions"}
