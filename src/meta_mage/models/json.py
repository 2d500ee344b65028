"""The one alias for a JSON document at the wire (HTTP bodies, SSE payloads, JSON-schema documents)."""

from typing import Any

JsonObject = dict[str, Any]
