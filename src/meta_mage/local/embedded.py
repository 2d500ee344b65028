"""Start moto's ``ThreadedMotoServer`` on loopback and point boto3 at it."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_MOTO_DYNAMODB = threading.Lock()


def serialise_moto_dynamodb() -> None:
    """Make moto's DynamoDB take one request at a time (idempotent).

    moto is not thread-safe where DynamoDB is atomic: ``TransactWriteItems`` deep-copies every table it
    touches (to roll back) while other request threads write to it, and fails with "dictionary changed
    size during iteration". moto's work is CPU-bound under the GIL anyway, so one lock costs little.
    """
    from moto.dynamodb.responses import DynamoHandler

    if getattr(DynamoHandler.call_action, "serialised", False):
        return
    unlocked = DynamoHandler.call_action

    def call_action(self: Any) -> Any:
        with _MOTO_DYNAMODB:
            return unlocked(self)

    call_action.serialised = True  # type: ignore[attr-defined]
    DynamoHandler.call_action = call_action  # type: ignore[method-assign]


@contextmanager
def embedded_dynamodb(port: int = 0) -> Iterator[str]:
    """Run an in-memory DynamoDB on 127.0.0.1 for the duration of the block; yield its URL.

    Sets ``AWS_ENDPOINT_URL_DYNAMODB`` (and dummy credentials when none are configured) so every
    boto3 client made inside the block talks to it. moto never expires TTL items; the app does.
    """
    try:
        from moto.server import ThreadedMotoServer
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError("the embedded DynamoDB needs moto: pip install 'meta-mage[local]'") from exc

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    serialise_moto_dynamodb()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    host, bound_port = server.get_host_and_port()
    url = f"http://{host}:{bound_port}"
    saved = {
        k: os.environ.get(k)
        for k in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")
    }
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = url
    if not os.environ.get("AWS_ACCESS_KEY_ID"):
        os.environ["AWS_ACCESS_KEY_ID"] = os.environ["AWS_SECRET_ACCESS_KEY"] = "local"
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    try:
        yield url
    finally:
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
