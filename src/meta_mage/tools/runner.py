"""Running one registry tool for the agent or the MCP server: in a worker thread, a CPU-heavy tool on
a small pool of its own (one thread per core), so a flood of costly requests queues there instead of
taking every worker thread from the I/O-bound tools, and every call under a cooperative deadline
(``meta_mage.deadline``) that stops the tool itself, not only the wait for it."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel

from meta_mage.deadline import ToolTimeout, deadline
from meta_mage.models.json import JsonObject
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import ToolRegistry

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def cpu_slots(configured: int = 0) -> int:
    """CPU-heavy calls allowed at once: ``configured``, or one per core when it is 0."""
    return configured or os.cpu_count() or 1


def cpu_pool(slots: int) -> ThreadPoolExecutor:
    """The process's pool of ``slots`` threads for CPU-heavy tool calls (shared by every event loop)."""
    with _pools_lock:
        pool = _pools.get(slots)
        if pool is None:
            pool = _pools[slots] = ThreadPoolExecutor(max_workers=slots, thread_name_prefix=f"meta-mage-cpu{slots}")
        return pool


async def run_tool(
    registry: ToolRegistry,
    name: str,
    arguments: JsonObject | None,
    context: ToolContext,
    *,
    timeout_seconds: float | None = None,
) -> BaseModel:
    """Validate and run one tool in a worker thread and return its output model. The call must end within
    ``timeout_seconds`` (default ``context.timeout_seconds``), or by a deadline already set if that is
    sooner; past it the tool stops at its next check and the call raises ``ToolTimeout``."""
    tool = registry.get(name)
    pool = cpu_pool(cpu_slots(context.cpu_slots)) if tool.cpu_heavy else None  # None: the loop's default pool
    with deadline(context.timeout_seconds if timeout_seconds is None else timeout_seconds, name) as limit:
        assert limit is not None  # a number of seconds was given
        # run_in_executor does not copy the context (asyncio.to_thread does): the thread needs the deadline
        work = functools.partial(contextvars.copy_context().run, registry.run, name, arguments, context)
        future = asyncio.get_running_loop().run_in_executor(pool, work)
        scope = asyncio.timeout(limit.seconds_left())
        try:
            async with scope:
                return await future
        except TimeoutError:
            if not scope.expired():  # the tool's own TimeoutError (a socket's), not the deadline
                raise
            raise ToolTimeout(limit.message) from None  # a queued call never starts; a running one stops
