"""What stays at its border: the AWS SDK in storage, the Bedrock adapter and the SnapStart priming; each tool's
name in its record."""

from __future__ import annotations

import ast
from collections import Counter

from tests.unit.test_layers import MODULES

SDK = ("boto3", "botocore")
SDK_BORDERS = ("meta_mage.storage", "meta_mage.bedrock", "meta_mage.snapstart")


def sdk_imports(module: str) -> set[str]:
    """The SDK modules ``module`` imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        found |= {name for name in names if name.split(".")[0] in SDK}
    return found


def test_the_aws_sdk_is_imported_only_at_its_borders() -> None:
    outside = {
        module: sorted(sdk_imports(module))
        for module in MODULES
        if not any(module == border or module.startswith(border + ".") for border in SDK_BORDERS)
    }
    assert {module: found for module, found in outside.items() if found} == {}


def test_the_sdk_border_check_sees_the_borders_themselves() -> None:
    assert sdk_imports("meta_mage.storage.dynamo") >= {"boto3", "botocore.exceptions"}


# Places that spell a tool's name outside its record, each with its reason: (module, tool name) → how many times.
KNOWN_SPELLINGS: dict[tuple[str, str], tuple[int, str]] = {
    **{
        ("meta_mage.tools.catalog", name): (
            1,
            "FAMILY_OF, the lazy index: a function finds one tool's family before any record is imported "
            "(tests/unit/test_tool_families.py keeps it equal to the records)",
        )
        for name in (
            "list_formats", "get_format_meta_rankings", "get_format_matchup_stats", "get_format_archetypes",
            "get_enriched_deck", "classify_deck", "get_deck_matchup_stats", "generate_deck_matchup_strategy",
            "optimize_mainboard", "optimize_sideboard", "get_card_evidence", "get_archetype_page", "list_drafts",
            "get_draft_pool",
        )
    },
}  # fmt: skip


def spellings(names: set[str]) -> Counter[tuple[str, str]]:
    """How many string constants in each module of ``src/`` equal each of ``names``."""
    found: Counter[tuple[str, str]] = Counter()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                found[(module, node.value)] += 1
    return found


def test_each_tool_name_is_spelt_once_in_its_record() -> None:
    from meta_mage.tools.catalog import FAMILY_OF

    found = spellings(set(FAMILY_OF))
    for place, (count, _reason) in KNOWN_SPELLINGS.items():
        found[place] -= min(count, found[place])
    expected = Counter({(f"meta_mage.tools.catalog.{family}", name): 1 for name, family in FAMILY_OF.items()})
    assert +found == expected


def test_the_spelling_count_sees_a_spelling_outside_the_record() -> None:
    found = spellings({"list_formats"})
    assert found[("meta_mage.tools.catalog.meta", "list_formats")] == 1  # the record
    assert found[("meta_mage.tools.catalog", "list_formats")] == 1  # the lazy index
