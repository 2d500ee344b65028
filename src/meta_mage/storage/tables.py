"""Create the DynamoDB tables declared in ``template.yaml`` (the single source of schemas).

The package ships them as ``table_schemas.json`` (``template.yaml`` sits beside the source, not in an
installed package); ``python -m meta_mage.storage.tables`` writes it again after a template change,
and a test checks the two agree.
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from botocore.exceptions import ClientError

from meta_mage.config import Settings
from meta_mage.models.json import JsonObject
from meta_mage.storage.dynamo import sdk_errors

TEMPLATE_PATH = Path(__file__).resolve().parents[3] / "template.yaml"  # in a source checkout only
SCHEMAS_PATH = Path(__file__).with_name("table_schemas.json")
_IN_USE_WAIT = {"Delay": 1, "MaxAttempts": 120}  # a table being created elsewhere: ACTIVE in seconds
_TABLE_TYPES = {"AWS::DynamoDB::Table"}
_TABLE_PROPERTIES = (
    "AttributeDefinitions",
    "KeySchema",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "BillingMode",
)


class _CfnLoader(yaml.SafeLoader):
    """YAML loader that keeps CloudFormation short-form tags (``!Ref`` etc.) as plain data."""


def _cfn_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


@lru_cache(maxsize=4)
def load_template(path: Path | None = None) -> JsonObject:
    """Parse a SAM/CloudFormation template, tolerating intrinsic-function tags."""
    with open(path or TEMPLATE_PATH, encoding="utf-8") as handle:
        document: JsonObject = yaml.load(handle, Loader=_CfnLoader)
    return document


@lru_cache(maxsize=1)
def _packaged() -> JsonObject:
    schemas: JsonObject = json.loads(SCHEMAS_PATH.read_text(encoding="utf-8"))
    return schemas


def export_schemas(path: Path | None = None) -> JsonObject:
    """What ``table_schemas.json`` holds: the template's table definitions and TTL attributes."""
    path = path or TEMPLATE_PATH
    return {"tables": table_definitions(path), "ttl": ttl_attributes(path)}


def table_definitions(path: Path | None = None) -> dict[str, JsonObject]:
    """The table resources of the template by logical id, as ``create_table`` arguments (without
    ``path``: as shipped in the package, which a test keeps equal to ``template.yaml``)."""
    if path is None:
        return dict(_packaged()["tables"])
    resources = load_template(path).get("Resources", {})
    tables: dict[str, JsonObject] = {}
    for logical_id, resource in resources.items():
        if resource.get("Type") not in _TABLE_TYPES:
            continue
        props = resource.get("Properties", {})
        tables[logical_id] = {key: props[key] for key in _TABLE_PROPERTIES if key in props}
    return tables


def ttl_attributes(path: Path | None = None) -> dict[str, str]:
    """The TTL attribute of each table that enables one, by logical id."""
    if path is None:
        return dict(_packaged()["ttl"])
    resources = load_template(path).get("Resources", {})
    found: dict[str, str] = {}
    for logical_id, resource in resources.items():
        spec = resource.get("Properties", {}).get("TimeToLiveSpecification")
        if resource.get("Type") in _TABLE_TYPES and spec and spec.get("Enabled"):
            found[logical_id] = spec["AttributeName"]
    return found


def create_tables(dynamodb: Any, settings: Settings, path: Path | None = None) -> list[str]:
    """Create every table of the template that does not exist yet; return the names this call created.

    Safe to run in several processes at once: a table another one is creating is waited for until ACTIVE.
    Raises ``StorageUnavailable`` when DynamoDB refuses (after the SDK's retries).
    """
    names = settings.table_names()
    created: list[str] = []
    ttl = ttl_attributes(path)
    with sdk_errors("creating the tables"):
        existing = set(dynamodb.meta.client.list_tables().get("TableNames", []))
        for logical_id, definition in table_definitions(path).items():
            if logical_id not in names:
                raise KeyError(f"template.yaml table {logical_id} has no name in Settings.table_names()")
            name = names[logical_id]
            if name in existing:
                continue
            try:
                table = dynamodb.create_table(TableName=name, **definition)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "ResourceInUseException":
                    raise
                # another process created it since list_tables (its creator sets the TTL): wait for ACTIVE
                dynamodb.meta.client.get_waiter("table_exists").wait(TableName=name, WaiterConfig=_IN_USE_WAIT)
                continue
            if table.table_status != "ACTIVE":  # DynamoDB answers CREATING; a local one may be ACTIVE at once
                table.wait_until_exists()
            if logical_id in ttl:
                dynamodb.meta.client.update_time_to_live(
                    TableName=name, TimeToLiveSpecification={"AttributeName": ttl[logical_id], "Enabled": True}
                )
            created.append(name)
    return created


if __name__ == "__main__":
    SCHEMAS_PATH.write_text(json.dumps(export_schemas(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {SCHEMAS_PATH} from {TEMPLATE_PATH}", file=sys.stderr)
