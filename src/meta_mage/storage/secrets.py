"""Secret values the functions read at start: a Secrets Manager secret or an SSM SecureString parameter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meta_mage.storage.dynamo import sdk_errors


def read_secret(client: Callable[[str], Any], name: str, what: str = "secret") -> str:
    """The value of ``name`` (a Secrets Manager ARN, else an SSM parameter name), stripped; ``client(service)``
    gives the SDK client. The SDK's errors raise ``StorageUnavailable`` naming ``what`` and ``name``."""
    with sdk_errors(f"{what} {name}"):
        if name.startswith("arn:aws:secretsmanager:"):
            return str(client("secretsmanager").get_secret_value(SecretId=name)["SecretString"]).strip()
        parameter = client("ssm").get_parameter(Name=name, WithDecryption=True)
        return str(parameter["Parameter"]["Value"]).strip()
