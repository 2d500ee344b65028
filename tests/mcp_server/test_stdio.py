"""``meta-mage mcp --transport stdio`` as a desktop client runs it: a subprocess speaking MCP on
stdin/stdout, over a moto server that shares this process's Modern world."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from moto.server import ThreadedMotoServer


@pytest.fixture(scope="module")
def moto_url(modern_world: dict[str, Any]) -> Iterator[str]:
    """moto's server mode on loopback; it serves the same in-memory backend as the session's world."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def server_env(moto_url: str, world: dict[str, Any]) -> dict[str, str]:
    settings = world["settings"]
    return {
        "PATH": os.environ.get("PATH", ""),
        "AWS_ENDPOINT_URL_DYNAMODB": moto_url,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        **{f"META_MAGE_{key.upper()}": getattr(settings, key) for key in ("meta_table", "cards_table", "drafts_table")},
    }


COMMAND = [sys.executable, "-m", "meta_mage.cli", "mcp", "--transport", "stdio"]


async def test_stdio_server_lists_calls_and_reports_errors(moto_url: str, modern_world: dict[str, Any]) -> None:
    params = StdioServerParameters(command=COMMAND[0], args=COMMAND[1:], env=server_env(moto_url, modern_world))
    # the server's stderr (logs) stays out of the test output; a hung server fails the test
    with open(os.devnull, "w") as errlog, anyio.fail_after(60):
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            info = await session.initialize()
            assert info.serverInfo.name == "meta-mage"
            tools = (await session.list_tools()).tools
            assert [t.name for t in tools] == modern_world["registry"].names()

            formats = await session.call_tool("list_formats", {})
            assert not formats.isError
            assert [f["format"] for f in json.loads(formats.content[0].text)["formats"]] == ["Modern"]  # type: ignore[union-attr]

            bad = await session.call_tool("get_format_meta_rankings", {"format": "Modern", "current_days": 400})
            assert bad.isError and json.loads(bad.content[0].text)["field"] == "current_days"  # type: ignore[union-attr]
            pool = await session.call_tool("get_draft_pool", {"draft_id": "tarkir", "name_contains": "dragon"})
            assert not pool.isError and pool.structuredContent and pool.structuredContent["total_cards"] > 0


def test_stdout_carries_only_protocol_messages(moto_url: str, modern_world: dict[str, Any]) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_drafts", "arguments": {}}},
    ]  # fmt: skip
    process = subprocess.Popen(
        COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=server_env(moto_url, modern_world),
    )
    assert process.stdin and process.stdout
    watchdog = threading.Timer(60, process.kill)  # a hung server fails the test instead of hanging it
    watchdog.start()
    try:
        process.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        process.stdin.flush()
        replies = []
        while len(replies) < 2:  # until the tool call's reply: nothing else may come first
            line = process.stdout.readline()
            assert line, "the server closed stdout"
            replies.append(json.loads(line))  # every line is JSON-RPC
        process.stdin.close()
        assert process.stdout.read() == ""
        assert process.wait(10) == 0
    finally:
        watchdog.cancel()
        process.kill()
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1]["result"]["structuredContent"]["drafts"][0]["draft_id"] == "tarkir"
