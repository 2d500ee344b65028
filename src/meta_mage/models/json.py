"""The one alias for JSON documents at the wire (HTTP bodies, SSE payloads, MCP schemas, graph state updates)."""

from typing import Any

JsonObject = dict[str, Any]
