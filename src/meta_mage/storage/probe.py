"""Whether the configured DynamoDB answers and holds the tables, as a typed result (the SDK stays in storage)."""

from __future__ import annotations

from dataclasses import dataclass, field

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, EndpointConnectionError

from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region, default_session, sdk_problem


@dataclass(frozen=True)
class TablesProbe:
    """What one quick look at the tables found: ``unreachable`` ("connection refused", "no connection") or
    ``refused`` (the SDK's problem in one line) when it could not look; else the ``missing`` tables and
    whether the meta table is ``empty``."""

    missing: list[str] = field(default_factory=list)
    empty: bool = False
    unreachable: str | None = None
    refused: str | None = None


def probe_tables(settings: Settings) -> TablesProbe:
    """Describe each configured table and scan one item of the meta table, with short timeouts."""
    quick = Config(connect_timeout=3, read_timeout=10, retries={"mode": "standard", "max_attempts": 2})
    client = default_session().client("dynamodb", region_name=aws_region(settings), config=quick)
    missing = []
    try:
        for name in settings.table_names().values():
            try:
                client.describe_table(TableName=name)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
                    raise
                missing.append(name)
        empty = not missing and not client.scan(TableName=settings.meta_table, Limit=1).get("Items")
    except (EndpointConnectionError, ConnectTimeoutError) as exc:
        refused = "refused" in str(exc.kwargs.get("error", "")).lower()
        return TablesProbe(unreachable="connection refused" if refused else "no connection")
    except (ClientError, BotoCoreError) as exc:
        return TablesProbe(refused=sdk_problem(exc))
    return TablesProbe(missing=missing, empty=empty)


def sigv4_headers(
    method: str, url: str, body: bytes, content_type: str, region: str, service: str
) -> dict[str, str] | None:
    """The SigV4 headers (authorization, date, session token) for one request; None without AWS credentials."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest

    credentials = default_session().get_credentials()
    if credentials is None:
        return None
    signed = AWSRequest(method=method, url=url, data=body, headers={"content-type": content_type})
    SigV4Auth(credentials.get_frozen_credentials(), service, region).add_auth(signed)
    wanted = {"authorization", "x-amz-date", "x-amz-security-token"}
    return {name: value for name, value in signed.headers.items() if name.lower() in wanted}
