"""``meta-mage chat``: a terminal client for the HTTP API (streams SSE, shows tool progress)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from meta_mage.local.terminal import render


@dataclass(frozen=True)
class _Event:
    event: str
    data: dict[str, Any]


async def stream_chat(client: httpx.AsyncClient, body: dict[str, Any]) -> AsyncIterator[_Event]:
    """POST /chat and yield its server-sent events as they arrive (HTTP errors as ``error``)."""
    async with client.stream("POST", "/chat", json=body, timeout=None) as response:
        if response.status_code != 200:
            await response.aread()
            yield _Event("error", response.json())
            return
        kind, data = "message", ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
            elif not line.strip():
                if data:
                    yield _Event(kind, json.loads(data))
                kind, data = "message", ""


async def chat_loop(url: str, fmt: str | None, days: int | None) -> int:
    """Read messages from stdin until EOF or 'quit'; one conversation for the whole session."""
    context = {k: v for k, v in {"format": fmt, "days": days}.items() if v is not None}
    async with httpx.AsyncClient(base_url=url) as client:
        try:
            welcome = (await client.get("/welcome")).json()
        except httpx.HTTPError as exc:
            print(f"error: cannot reach {url} ({exc}); start it with 'meta-mage serve'", file=sys.stderr)
            return 1
        conversation_id = welcome["conversation_id"]
        print(welcome["message"], "\n")
        while True:
            try:
                message = input("you> ").strip()
            except EOFError:
                return 0
            if message.lower() in {"quit", "exit"}:
                return 0
            if not message:
                continue
            body = {"message": message, "conversation_id": conversation_id, "context": context}
            summary = await render(stream_chat(client, body))
            conversation_id = summary.get("conversation_id", conversation_id)
            print()
