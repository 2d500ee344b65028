"""Render the agent's events in a terminal: the answer as it streams, tool calls as they happen."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO


async def render(events: AsyncIterator[Any], out: TextIO | None = None) -> dict[str, Any]:
    """Print each event (to ``out``, else the ``sys.stdout`` of the moment); return a summary
    (conversation id, final state, error if any)."""
    out = out or sys.stdout  # not a default argument: that would keep the stdout of import time
    summary: dict[str, Any] = {}
    for_line_start = True
    async for event in events:
        kind, data = event.event, event.data
        if kind == "metadata":
            summary["conversation_id"] = data["conversation_id"]
        elif kind == "thinking":
            out.write(f"  … {data['content']}\n")
        elif kind == "tool_call":
            if data["status"] == "calling":
                out.write(f"  → {data['tool']} {json.dumps(data.get('arguments') or {}, ensure_ascii=False)}\n")
            else:
                mark = "✓" if data["status"] == "complete" else "✗"
                out.write(f"  {mark} {data['tool']}: {data.get('summary', '')}\n")
        elif kind == "content":
            out.write(data["text"])
            for_line_start = data["text"].endswith("\n")
        elif kind == "state":
            summary["state"] = data
        elif kind == "error":
            summary["error"] = data
            out.write(f"error: {data.get('message', data)}\n")
        out.flush()
    if not for_line_start:
        out.write("\n")
    return summary
