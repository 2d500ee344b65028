"""Domain errors → HTTP status and JSON body, in one place (FastAPI app and Powertools handlers)."""

from __future__ import annotations

from meta_mage.errors import MetaMageError

STATUS_BY_CODE = {
    "invalid_argument": 400,
    "validation_error": 422,
    "not_found": 404,
    "conversation_not_found": 404,
    "conversation_expired": 404,
    "conflict": 409,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    # the local server's own-origin rules (meta_mage.api.guards)
    "forbidden_origin": 403,
    "misdirected_request": 421,
    "request_timeout": 408,
    # DynamoDB still failing after the SDK's retries: the client may try again shortly
    "conversation_unavailable": 503,
    "lock_unavailable": 503,
    "storage_unavailable": 503,
}


class Conflict(MetaMageError):
    code = "conflict"


class PayloadTooLarge(MetaMageError):
    code = "payload_too_large"


class RequestTimeout(MetaMageError):
    code = "request_timeout"


class UnsupportedMediaType(MetaMageError):
    code = "unsupported_media_type"


def http_error(exc: MetaMageError) -> tuple[int, dict[str, object]]:
    """The status and body for a domain error."""
    return STATUS_BY_CODE.get(exc.code, 500), exc.to_dict()
