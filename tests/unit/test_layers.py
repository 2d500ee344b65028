"""The import fence: no import circle inside ``src/`` and no import running up the declared layers.

Every import counts: at the top of a module, inside a function (lazy) and under ``TYPE_CHECKING``. A module
sits in the layer of the longest prefix ``LAYERS`` declares for it; it may import its own layer and those
below, never one above.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SOURCE / "meta_mage"

# lowest first; a module whose name starts with an entry of a row sits in that row (the longest entry wins;
# "meta_mage" is the package's own __init__ alone)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("meta_mage", "meta_mage.errors", "meta_mage.config", "meta_mage.deadline", "meta_mage.observability",
     "meta_mage.startup"),
    ("meta_mage.models",),
    ("meta_mage.storage", "meta_mage.bedrock", "meta_mage.snapstart"),  # the AWS SDK's borders
    ("meta_mage.analytics", "meta_mage.card_rules"),
    ("meta_mage.archetypes",),
    ("meta_mage.decks", "meta_mage.drafts"),
    ("meta_mage.ingest",),
    ("meta_mage.tools",),
    ("meta_mage.agent",),
    ("meta_mage.mcp",),  # the client of a remote tool server, which the wiring may choose
    ("meta_mage.wiring",),
    # entry points: handlers, routes, servers, commands
    ("meta_mage.api", "meta_mage.mcp.server", "meta_mage.mcp.function", "meta_mage.ingest.lambda_handler",
     "meta_mage.sync", "meta_mage.local", "meta_mage.cli"),
)  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(module: str) -> set[str]:
    """The project modules ``module`` imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:  # relative: from the module's own package upwards
                package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
                base = ".".join([*package[: len(package) - node.level + 1], node.module])
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    return {name for name in found if name in MODULES and name != module}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Each module's project imports (parsed when a test first asks: collection stays quick in every worker)."""
    return {module: imports_of(module) for module in MODULES}


def layer_of(module: str) -> int:
    matches = [
        (len(prefix), index)
        for index, row in enumerate(LAYERS)
        for prefix in row
        if module == prefix or (prefix != "meta_mage" and module.startswith(prefix + "."))
    ]
    assert matches, f"{module} is in no declared layer: add it to LAYERS"
    return max(matches)[1]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} -> {imported}"
        for module, imported_set in graph.items()
        for imported in imported_set
        if layer_of(imported) > layer_of(module)
    )


def test_every_module_sits_in_a_declared_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_import_circle() -> None:
    assert circles(import_graph()) == []


def test_no_import_runs_up_the_layers() -> None:
    assert upward_imports(import_graph()) == []


@pytest.mark.parametrize(
    ("graph", "circle"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_the_circle_finder_finds_circles(graph: dict[str, set[str]], circle: list[list[str]]) -> None:
    assert circles(graph) == circle


def test_the_fence_sees_lazy_and_type_checking_imports() -> None:
    assert "meta_mage.mcp.client" in import_graph()["meta_mage.wiring"]  # imported inside a method
    assert "meta_mage.agent.conversation" in import_graph()["meta_mage.wiring"]  # imported under TYPE_CHECKING
    assert upward_imports({"meta_mage.tools.rules": {"meta_mage.agent.state"}}) == [
        "meta_mage.tools.rules -> meta_mage.agent.state"
    ]
