"""The house's measures of ``src/``: no file over 600 lines, untyped dicts counted, raw items kept in storage.

A file longer than a screenful of screenfuls holds several jobs; ``dict[str, Any]`` is data whose shape no reader
can see. JSON at the wire has one name (``models.json.JsonObject``) and raw DynamoDB items another
(``storage`` ``Item``); the storage one never leaves ``storage/``.
"""

from __future__ import annotations

import ast
import re

from tests.unit.test_layers import MODULES

MAX_LINES = 600
MAX_UNTYPED_DICTS = 80
UNTYPED = re.compile(r"\bdict\[str, Any\]")


def test_no_source_file_is_over_600_lines() -> None:
    lengths = {module: len(path.read_text(encoding="utf-8").splitlines()) for module, path in MODULES.items()}
    assert {module: n for module, n in lengths.items() if n > MAX_LINES} == {}


def untyped_dicts() -> dict[str, int]:
    counts = {module: len(UNTYPED.findall(path.read_text(encoding="utf-8"))) for module, path in MODULES.items()}
    return {module: n for module, n in counts.items() if n}


def test_untyped_dicts_stay_at_80_or_fewer() -> None:
    counts = untyped_dicts()
    worst = ", ".join(f"{m} {n}" for m, n in sorted(counts.items(), key=lambda kv: -kv[1])[:8])
    assert sum(counts.values()) <= MAX_UNTYPED_DICTS, f"{sum(counts.values())} dict[str, Any]; most in: {worst}"


def test_the_untyped_dict_count_sees_annotations_and_aliases() -> None:
    text = "def f(x: dict[str, Any]) -> list[dict[str, Any]]: ...\nItem = dict[str, Any]\nok: dict[str, int]\n"
    assert len(UNTYPED.findall(text)) == 3


def raw_item_importers() -> set[str]:
    """Modules outside ``storage`` that import a name ``Item`` from ``meta_mage.storage``."""
    found = set()
    for module, path in MODULES.items():
        if module.startswith("meta_mage.storage"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("meta_mage.storage"):
                found |= {module for alias in node.names if alias.name == "Item"}
    return found


def test_raw_storage_items_never_leave_storage() -> None:
    assert raw_item_importers() == set()
