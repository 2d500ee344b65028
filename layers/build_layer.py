"""Build a Lambda layer for python3.12 on arm64: ``sam build`` runs this through each layer's Makefile.

Wheels are fetched for the Lambda platform (manylinux aarch64, CPython 3.12) whatever machine builds,
so no Docker is needed. Distributions that the runtime already provides (boto3 and its dependencies)
or that a lower layer already ships are removed, so a function never carries a package twice.

    python layers/build_layer.py --requirements layers/light/requirements.txt --target OUT/python --with-library
"""

from __future__ import annotations

import argparse
import compileall
import py_compile
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAMBDA_ARCH = "aarch64"
CONSTRAINTS = ROOT / "constraints.txt"  # the versions CI tested
# Shipped by the python3.12 Lambda runtime itself.
RUNTIME_PROVIDED = {"boto3", "botocore", "s3transfer", "jmespath", "urllib3", "python-dateutil", "six"}
# Pulled in by langchain-aws for embeddings and Redis utilities the app never imports (~65 MB on arm64);
# tests/deploy/test_template.py checks the chat and MCP apps load without them.
NEVER_IMPORTED = {"numpy"}
# Never needed in the cloud: the demo archives are for `meta-mage seed` on a laptop.
LIBRARY_EXCLUDES = ("demo_data/tournaments.tar.gz", "demo_data/cards.json.gz", "demo_data/snapshot.jsonl.gz")


def canonical(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return name.lower().replace("_", "-").replace(".", "-")


def platform_flags(arch: str = LAMBDA_ARCH) -> list[str]:
    """pip's flags for CPython 3.12 wheels of ``arch`` (Lambda's arm64 unless a benchmark asks for another):
    manylinux2014, or manylinux_2_28 (Lambda's python3.12 runs on Amazon Linux 2023, glibc 2.34)."""
    platforms = [flag for tag in ("manylinux2014", "manylinux_2_28") for flag in ("--platform", f"{tag}_{arch}")]
    return [*platforms, "--implementation", "cp", "--python-version", "3.12", "--only-binary=:all:"]


def pip_install(target: Path, *args: str) -> None:
    """``pip install --target`` with the versions of ``constraints.txt``."""
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c", str(CONSTRAINTS)]
    subprocess.run([*pip, "--target", str(target), *args], check=True)


def installed(target: Path) -> set[str]:
    """Canonical names of the distributions installed under ``target``."""
    return {canonical(d.metadata["Name"]) for d in distributions(path=[str(target)])}


def remove_distributions(target: Path, names: set[str]) -> list[str]:
    """Delete every file (from its RECORD) of the named distributions; return the names removed."""
    removed = []
    for dist in distributions(path=[str(target)]):
        name = canonical(dist.metadata["Name"])
        if name not in names:
            continue
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                path.unlink()
        removed.append(name)
    for folder in sorted(target.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return sorted(removed)


def strip_caches(target: Path) -> None:
    """Drop whatever bytecode caches pip left (compiled by whichever Python ran it)."""
    for cache in target.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def compile_bytecode(target: Path) -> None:
    """Replace whatever caches pip left with bytecode for python3.12, checked by nothing at import.

    ``/opt`` is read-only on Lambda, so a layer without bytecode is compiled from source at every cold
    start (about three times the import time). Unchecked-hash pycs are used without reading the sources'
    timestamps, which a zip does not keep anyway.
    """
    if sys.version_info[:2] != (3, 12):
        raise SystemExit(
            f"layers are built by python3.12 (their bytecode is per version), not {sys.version.split()[0]}"
        )
    strip_caches(target)
    compileall.compile_dir(target, quiet=2, workers=0, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


def build(
    requirements: Path,
    target: Path,
    with_library: bool,
    below: list[Path],
    keep_boto3: bool,
    arch: str = LAMBDA_ARCH,
    bytecode: bool = True,
) -> None:
    """Install ``requirements`` into ``target`` minus what the runtime or the ``below`` layers ship."""
    target.mkdir(parents=True, exist_ok=True)
    pip_install(target, *platform_flags(arch), "-r", str(requirements))
    if with_library:
        pip_install(target, "--no-deps", str(ROOT))
        for relative in LIBRARY_EXCLUDES:
            (target / "meta_mage" / relative).unlink(missing_ok=True)
    provided = set() if keep_boto3 else set(RUNTIME_PROVIDED)
    for lower in below:
        with tempfile.TemporaryDirectory() as scratch:
            pip_install(Path(scratch), *platform_flags(arch), "-r", str(lower))
            provided |= installed(Path(scratch)) - (RUNTIME_PROVIDED if keep_boto3 else set())
    removed = remove_distributions(target, provided | NEVER_IMPORTED)
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts are of no use in a layer
    if bytecode:
        compile_bytecode(target)
    else:
        strip_caches(target)
    left_out = ", ".join(removed) or "nothing"
    print(f"{target}: {len(installed(target))} distributions; left to the runtime or lower layers: {left_out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requirements", type=Path, required=True)
    parser.add_argument("--target", type=Path, required=True, help="the layer's python/ folder")
    parser.add_argument("--with-library", action="store_true", help="also install meta_mage itself")
    parser.add_argument("--below", type=Path, action="append", default=[], help="requirements of a lower layer")
    parser.add_argument("--keep-boto3", action="store_true", help="ship boto3 instead of the runtime's")
    parser.add_argument("--arch", default=LAMBDA_ARCH, help="wheel architecture (bench/: this machine's)")
    parser.add_argument("--no-bytecode", action="store_true", help="ship sources only (bench/: the old layers)")
    args = parser.parse_args()
    build(
        args.requirements,
        args.target,
        args.with_library,
        args.below,
        args.keep_boto3,
        args.arch,
        bytecode=not args.no_bytecode,
    )


if __name__ == "__main__":
    main()
