"""Helpers for API tests: parse a server-sent-event body."""

from __future__ import annotations

import json
from typing import Any


def sse_events(body: str) -> list[tuple[str, dict[str, Any]]]:
    """(event, data) pairs of an SSE body, pings left out."""
    events = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        kind, data = "message", ""
        for line in block.split("\n"):
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
        if data:
            events.append((kind, json.loads(data)))
    return events
