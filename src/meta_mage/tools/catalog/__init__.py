"""The tool catalog: one record per tool (``tools.tool.Tool``), one file per family. ``meta.py``: format-wide
statistics; ``decks.py``: one deck and its archetype; ``drafts.py``: cube drafts; ``charts.py``: the pictures
some of them carry. The registry, the MCP server, the CLI and the coach all read ``TOOLS``."""

from __future__ import annotations

from typing import Any

from meta_mage.tools.catalog import decks, drafts, meta
from meta_mage.tools.tool import Tool

# Every tool by name, in catalog order (a test may add one for its duration).
TOOLS: dict[str, Tool[Any]] = {tool.name: tool for tool in (*meta.TOOLS, *decks.TOOLS, *drafts.TOOLS)}


def workflow_tools(workflow: str) -> tuple[str, ...]:
    """The tools ``workflow`` may call, in catalog order."""
    return tuple(name for name, tool in TOOLS.items() if workflow in tool.workflows)
