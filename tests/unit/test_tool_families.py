"""The catalog's families load on demand: the map of tool to family matches the files, a registry by family
serves the same tools in the same order, and the read functions never import deck coaching."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from meta_mage.tools.catalog import FAMILIES, FAMILY_OF, family_tools
from meta_mage.tools.registry import FamilyRegistry, build_registry

FORMATS_APP = Path(__file__).parents[2] / "functions" / "formats" / "app.py"


def test_each_tool_is_mapped_to_the_file_that_holds_it() -> None:
    assert {tool.name: family for family in FAMILIES for tool in family_tools(family)} == FAMILY_OF


def test_a_family_registry_loads_only_what_is_asked_then_matches_the_whole_catalog() -> None:
    registry = FamilyRegistry()
    assert registry.get("list_formats").name == "list_formats"
    assert set(registry.tools) == {name for name, family in FAMILY_OF.items() if family == "meta"}
    assert registry.names() == build_registry().names()
    assert registry.catalog() == build_registry().catalog()


def test_the_read_functions_do_not_import_deck_coaching() -> None:
    code = (
        f"import sys, runpy; runpy.run_path({str(FORMATS_APP)!r});"
        "print(sorted(m for m in sys.modules if m.startswith(('meta_mage.models.decks', 'meta_mage.tools.catalog.',"
        " 'meta_mage.decks', 'meta_mage.agent', 'langchain'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
