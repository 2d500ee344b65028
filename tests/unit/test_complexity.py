"""No function anywhere in ``src/`` grows past a cyclomatic complexity of 15.

Measured with radon, which counts each boolean operator as a branch (ruff's mccabe does not): a policy that
needs more is a table of rules, not a longer ladder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Function

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "meta_mage"
# every package, and the modules at the top of the source tree ("."): one test each, so a failure names its package
CHECKED = (".", *sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()))
MAX_COMPLEXITY = 15


def _functions(block: object) -> list[Function]:
    """Every function and method, nested ones included (radon nests closures and class methods)."""
    found = [block] if isinstance(block, Function) else []
    for child in getattr(block, "closures", []) + getattr(block, "methods", []):
        found += _functions(child)
    return found


@pytest.mark.parametrize("package", CHECKED)
def test_no_function_over_the_complexity_limit(package: str) -> None:
    over: set[str] = set()
    folder = PACKAGE / package
    for path in sorted(folder.glob("*.py") if package == "." else folder.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            over |= {
                f"{path.relative_to(PACKAGE)}:{f.lineno} {f.fullname} {f.complexity}"
                for f in _functions(block)
                if f.complexity > MAX_COMPLEXITY
            }
    assert not over, f"over {MAX_COMPLEXITY} (radon cc): " + "; ".join(sorted(over))
