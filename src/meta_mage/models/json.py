"""A JSON object at the wire: an HTTP body, an SSE payload, an MCP or JSON-schema document."""

from typing import Any

JsonObject = dict[str, Any]
