"""constraints.txt pins every package pyproject.toml names, so a fresh machine installs what CI tested."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_dependency_has_a_pin() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = {_name(r) for r in project["dependencies"]}
    for extra in project["optional-dependencies"].values():
        named |= {_name(r) for r in extra if not r.startswith("meta-mage")}
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line}"
            pins[name.lower().replace("_", "-")] = version
    assert named - set(pins) == set(), "pin these in constraints.txt (bash scripts/lock.sh)"
    assert "-c constraints.txt" in (ROOT / "scripts" / "bootstrap.sh").read_text()
