"""Encoder for the AWS event-stream framing (``application/vnd.amazon.eventstream``) Bedrock streams in.

A message is: prelude (total length, headers length, both 4-byte big-endian, then the prelude's CRC32),
headers, payload, and the CRC32 of everything before it. Only string-typed headers are written.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

CONTENT_TYPE = "application/vnd.amazon.eventstream"
_STRING_HEADER = 7
_PRELUDE_LENGTH = 12
_MESSAGE_CRC_LENGTH = 4


def _crc32(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def encode_headers(headers: dict[str, str]) -> bytes:
    """The headers section: each header as name length, name, type 7 (string), value length, value."""
    encoded = bytearray()
    for name, value in headers.items():
        name_bytes = name.encode("utf-8")
        value_bytes = value.encode("utf-8")
        encoded += struct.pack(">B", len(name_bytes)) + name_bytes
        encoded += struct.pack(">BH", _STRING_HEADER, len(value_bytes)) + value_bytes
    return bytes(encoded)


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One framed event-stream message."""
    header_bytes = encode_headers(headers)
    total_length = _PRELUDE_LENGTH + len(header_bytes) + len(payload) + _MESSAGE_CRC_LENGTH
    prelude = struct.pack(">II", total_length, len(header_bytes))
    message = prelude + struct.pack(">I", _crc32(prelude)) + header_bytes + payload
    return message + struct.pack(">I", _crc32(message))


def _json_payload(body: dict[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode("utf-8")


def encode_event(event_type: str, body: dict[str, Any]) -> bytes:
    """An event message (``:message-type`` event) with a JSON payload."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return encode_message(headers, _json_payload(body))


def encode_exception(exception_type: str, body: dict[str, Any]) -> bytes:
    """An exception message (``:message-type`` exception), such as ``modelStreamErrorException``."""
    headers = {
        ":exception-type": exception_type,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return encode_message(headers, _json_payload(body))
