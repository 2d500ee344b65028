"""The tool catalog: one record per tool (``tools.tool.Tool``), one file per family. ``meta.py``: format-wide
statistics; ``decks.py``: one deck and its archetype; ``drafts.py``: cube drafts; ``charts.py``: the pictures
some of them carry. The registry, the MCP server, the CLI and the coach all read ``TOOLS``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from meta_mage.tools.tool import Tool

    TOOLS: dict[str, Tool[Any]]  # made on first use by ``__getattr__`` below

FAMILIES = ("meta", "decks", "drafts")  # the catalog's files, in catalog order
# Which family holds each tool, so a function that serves a few tools imports only their families (the read
# functions never load deck coaching); tests/unit/test_tool_families.py keeps it equal to the files.
FAMILY_OF = {
    "list_formats": "meta",
    "get_format_meta_rankings": "meta",
    "get_format_matchup_stats": "meta",
    "get_format_archetypes": "meta",
    "get_enriched_deck": "decks",
    "classify_deck": "decks",
    "get_deck_matchup_stats": "decks",
    "generate_deck_matchup_strategy": "decks",
    "optimize_mainboard": "decks",
    "optimize_sideboard": "decks",
    "get_card_evidence": "decks",
    "get_archetype_page": "decks",
    "list_drafts": "drafts",
    "get_draft_pool": "drafts",
}


def family_tools(family: str) -> tuple[Tool[Any], ...]:
    """The tools of one catalog file, imported on first use."""
    module = importlib.import_module(f"meta_mage.tools.catalog.{family}")
    return tuple(module.TOOLS)


def _all_tools() -> dict[str, Tool[Any]]:
    found: dict[str, Tool[Any]] | None = globals().get("TOOLS")
    if found is None:
        found = {tool.name: tool for family in FAMILIES for tool in family_tools(family)}
        globals()["TOOLS"] = found
    return found


def __getattr__(name: str) -> Any:
    # ``TOOLS``, every tool by name in catalog order (a test may add one for its duration), is made on first
    # use: importing this package loads no family
    if name == "TOOLS":
        return _all_tools()
    raise AttributeError(name)


def workflow_tools(workflow: str) -> tuple[str, ...]:
    """The tools ``workflow`` may call, in catalog order."""
    return tuple(name for name, tool in _all_tools().items() if workflow in tool.workflows)
