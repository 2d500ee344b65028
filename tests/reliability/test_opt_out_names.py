"""Opted-out drafters' names: the demo draft names none, and no name that a draft fixture opts out ships in the
wheel or sits in a tracked file other than the test files that define it.

Names are collected from ``opt_outs`` in the draft fixtures: JSON draft files under tests/ and the demo data,
and in test modules dict literals (``{"opt_outs": [...]}``), keyword arguments (``opt_outs=[...]``) and JSON
text, whose entries are string literals or module-level string constants. Entries computed at run time (such
as ``TARKIR["opt_outs"]``) come from a file collected here already.
"""

from __future__ import annotations

import ast
import gzip
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO_DRAFTS = "src/meta_mage/demo_data/drafts/"
JSON_OPT_OUTS = re.compile(r'"opt_outs"\s*:\s*\[([^\]]*)\]')
JSON_STRING = re.compile(r'"([^"\\]+)"')


def _tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in listed.decode().split("\0") if p and (ROOT / p).is_file()]


def _json_opt_outs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "opt_outs" and isinstance(inner, list):
                yield from (o for o in inner if isinstance(o, str))
            else:
                yield from _json_opt_outs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _json_opt_outs(inner)


def _python_opt_outs(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    constants = {
        node.targets[0].id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }

    def strings(node: ast.expr | None) -> Iterator[str]:
        for item in node.elts if isinstance(node, ast.List | ast.Tuple | ast.Set) else []:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item.value
            elif isinstance(item, ast.Name) and item.id in constants:
                yield constants[item.id]

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "opt_outs":
                    yield from strings(value)
        elif isinstance(node, ast.keyword) and node.arg == "opt_outs":
            yield from strings(node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # a draft written as JSON text
            for listed in JSON_OPT_OUTS.findall(node.value):
                yield from JSON_STRING.findall(listed)


def _opt_out_names() -> dict[str, set[str]]:
    """Each opted-out name in the fixtures, with the tracked files that define it."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in _tracked():
        if not (path.startswith("tests/") or path.startswith(DEMO_DRAFTS)):
            continue
        data = (ROOT / path).read_bytes()
        text = (gzip.decompress(data) if path.endswith(".gz") else data).decode("utf-8", errors="replace")
        if "opt_outs" not in text:
            continue
        if path.endswith(".py"):
            names = set(_python_opt_outs(text))
        elif path.endswith((".json", ".json.gz")):
            names = set(_json_opt_outs(json.loads(text)))
        else:
            continue
        for name in names:
            found[name].add(path)
    return found


def _contents(data: bytes) -> Iterator[bytes]:
    """The bytes, then the bytes inside them if they are gzip, tar or zip (a draft may ship compressed)."""
    yield data
    if data[:2] == b"\x1f\x8b":
        yield from _contents(gzip.decompress(data))
    elif data[257:262] == b"ustar":
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                extracted = archive.extractfile(member) if member.isfile() else None
                if extracted is not None:
                    yield from _contents(extracted.read())
    elif data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                yield from _contents(archive.read(info))


def _hits(names: dict[str, set[str]], label: str, data: bytes) -> list[str]:
    wanted = {name: name.encode().lower() for name in names}  # ASCII case folded on both sides alike
    texts = [chunk.lower() for chunk in _contents(data)]
    return [f"{name!r} in {label}" for name, needle in wanted.items() if any(needle in t for t in texts)]


@pytest.fixture(scope="module")
def opt_out_names() -> dict[str, set[str]]:
    names = _opt_out_names()
    assert names, "no draft fixture opts anyone out by name: this check would have nothing to look for"
    return names


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from the tracked files as they are in the working tree, in a copy of them."""
    tree, out = tmp_path_factory.mktemp("tree"), tmp_path_factory.mktemp("wheel")
    for path in _tracked():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, tree / path)
    # An isolated build, as a release gets: uv (the bootstrap's, twice as fast) or pip brings pyproject's build
    # backend (from its cache or PyPI).
    uv = Path(sys.executable).with_name("uv")
    command = (
        [str(uv), "build", "--wheel", "--quiet", "--out-dir", str(out), str(tree)]
        if uv.exists()
        else [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(tree)]
    )
    built = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, f"building the wheel failed:\n{built.stderr}"
    (found,) = out.glob("*.whl")
    return found


def test_the_demo_drafts_name_no_opt_out() -> None:
    drafts = sorted((ROOT / DEMO_DRAFTS).glob("*.json"))
    assert drafts
    for path in drafts:
        assert json.loads(path.read_text()).get("opt_outs", []) == [], f"{path.name} names an opted-out drafter"


def test_no_opted_out_name_is_in_the_wheel(opt_out_names: dict[str, set[str]], wheel: Path) -> None:
    hits: list[str] = []
    with zipfile.ZipFile(wheel) as archive:
        members = archive.namelist()
        assert any(m.endswith("demo_data/drafts/tarkir.json") for m in members)
        for member in members:
            hits += _hits(opt_out_names, f"{wheel.name}:{member}", archive.read(member))
    assert not hits, "opted-out names ship in the wheel: " + "; ".join(hits)


def test_no_opted_out_name_is_in_a_tracked_file_but_its_fixture(opt_out_names: dict[str, set[str]]) -> None:
    hits: list[str] = []
    for path in _tracked():
        data = (ROOT / path).read_bytes()
        outside = {n: f for n, f in opt_out_names.items() if path not in f or not path.startswith("tests/")}
        hits += _hits(outside, path, data)
    assert not hits, "opted-out names in tracked files: " + "; ".join(hits)
