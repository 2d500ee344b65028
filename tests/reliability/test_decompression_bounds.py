"""Decompression bombs and huge numbers, on every path that decompresses or decodes JSON: the CLI's
``meta-mage ingest``, the drop zone's handler and the sync. One bounded reader (``meta_mage.ingest.bounded``)
refuses a file past its byte cap or its compression-ratio cap as it streams, so memory stays near the
baseline, and a number of more than ``MAX_NUMBER_DIGITS`` digits is one failed file; the good files beside a
refused one are stored.

The bombs are 1 GiB of spaces in about 1 MB of gzip, written without ever holding the 1 GiB: the run of
spaces is compressed once as a full-flushed block and that block's output repeated. Peak memory is measured
in a fresh process (``tests/reliability/peak_ingest.py``: ``VmHWM`` reset once the tables are ready).
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.bounded import MAX_NUMBER_DIGITS, MB, Limits, decode_json
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import (
    MAX_TOURNAMENT_BYTES,
    SourceFile,
    count_source_files,
    iter_archive,
    iter_source_files,
)
from meta_mage.sync import bounds
from tests.conftest import DEMO_TOURNAMENTS, SHARED_DATA, demo_members

ROOT = Path(__file__).resolve().parents[2]
BOMB_MB = 1024  # 1 GiB once decompressed
PEAK_ABOVE_BASELINE_MB = 64  # measured +1 to +10 MB; before: +1,100 MB (tar.gz) and +2,050 MB (.json.gz)
PEAK_TOTAL_MB = 300  # baselines: about 100 MB (CLI) and 145 MB (drop zone, with moto's S3 and SQS)
BOMB_REASON = "compressed more than 100:1 (a decompression bomb)"
LONG_NUMBER = f"a number with more than {MAX_NUMBER_DIGITS} digits"

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc")


# --- inputs ----------------------------------------------------------------------------------------------


def good_events() -> list[tuple[str, bytes]]:
    """Three real Modern events (the shared data's MTGO Challenges, else the demo archive's)."""
    shared = sorted((SHARED_DATA / "tournaments" / "Tournaments" / "MTGO").glob("2025/11/*/modern-challenge-*.json"))
    if len(shared) >= 3:
        return [(path.name, path.read_bytes()) for path in shared[:3]]
    return [(Path(name).name, data) for name, data in demo_members(formats=("Modern",))[:3]]


def with_long_number(data: bytes, digits: int = 5000) -> bytes:
    """A tournament file whose first card's Count is an integer literal of ``digits`` digits."""
    document = json.loads(data)
    document["Decks"][0]["Mainboard"][0]["Count"] = 424242424242
    text = json.dumps(document)
    assert text.count("424242424242") == 1
    return text.replace("424242424242", "9" * digits).encode()


def tar_member(name: str, data: bytes) -> bytes:
    """One member of an uncompressed tar stream (header, data, padding)."""
    buffer = io.BytesIO()
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tarfile.TarFile(fileobj=buffer, mode="w").addfile(info, io.BytesIO(data))  # not closed: no end blocks
    return buffer.getvalue()


def tar_header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    return info.tobuf(tarfile.DEFAULT_FORMAT, "utf-8", "surrogateescape")


def tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def gzip_with_run(path: Path, prefix: bytes, megabytes: int, suffix: bytes = b"") -> Path:
    """``prefix``, ``megabytes`` MB of spaces, then ``suffix``, as one gzip member at level 9. The run is
    compressed once, a MB after a full flush (which resets the compressor's history, so every such MB compresses
    to the same bytes), and that output written ``megabytes`` times; the trailer's CRC is computed over all."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b" " * MB
    with path.open("wb") as out:
        out.write(compressor.compress(prefix) + compressor.flush(zlib.Z_FULL_FLUSH))
        repeated = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
        crc = zlib.crc32(prefix)
        for _ in range(megabytes):
            out.write(repeated)
            crc = zlib.crc32(block, crc)
        tail = compressor.compress(suffix) + compressor.flush()
        size = len(prefix) + megabytes * MB + len(suffix)
        out.write(tail[:-8] + struct.pack("<II", zlib.crc32(suffix, crc), size & 0xFFFFFFFF))
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The bombs and the files beside them, made once: the 1 GiB member sits between two good events and
    one more after it."""
    folder = tmp_path_factory.mktemp("bombs")
    (first, first_data), (second, second_data), (third, third_data) = good_events()
    prefix = tar_member(first, first_data) + tar_member(second, second_data) + tar_header("bomb.json", BOMB_MB * MB)
    files = {
        "bomb.tar.gz": gzip_with_run(
            folder / "bomb.tar.gz", prefix, BOMB_MB, tar_member(third, third_data) + bytes(1024)
        ),
        "bomb.json.gz": gzip_with_run(folder / "bomb.json.gz", b"", BOMB_MB),
        "digits.json": folder / "digits.json",
        "digits.tar.gz": folder / "digits.tar.gz",
        "first": folder / first,
        "second": folder / second,
    }
    files["digits.json"].write_bytes(with_long_number(third_data))
    files["digits.tar.gz"].write_bytes(
        tar_gz([(first, first_data), ("digits.json", with_long_number(third_data)), (second, second_data)])
    )
    files["first"].write_bytes(first_data)
    files["second"].write_bytes(second_data)
    return files


def peak(*argv: str) -> dict[str, Any]:
    """``tests/reliability/peak_ingest.py``'s result for ``argv``, run in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.reliability.peak_ingest", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def assert_small_peak(result: dict[str, Any]) -> None:
    above = result["peak_mb"] - result["baseline_mb"]
    assert above < PEAK_ABOVE_BASELINE_MB and result["peak_mb"] < PEAK_TOTAL_MB, result
    assert result["seconds"] < 30, result


# --- 1 GiB inside a small file ---------------------------------------------------------------------------


def test_cli_refuses_a_tar_member_of_1_gib_and_stores_the_members_before_it(inputs: dict[str, Path]) -> None:
    archive = inputs["bomb.tar.gz"]
    result = peak("cli", "tournaments", str(archive))
    # The bomb's header says 1 GiB: refused unread; skipping it passes the ratio cap, so the archive stops there
    assert result["exit"] == 1
    assert f"FAILED {archive}:bomb.json: larger than {MAX_TOURNAMENT_BYTES // MB} MB" in result["output"], result
    assert f"FAILED {archive}: {BOMB_REASON} in bomb.json; the members after it were not read" in result["output"]
    assert "2 added" in result["output"] and result["formats"] == {"Modern": 2}, result
    assert_small_peak(result)


def test_the_drop_zone_refuses_a_tar_member_of_1_gib_and_stores_the_members_before_it(
    inputs: dict[str, Path],
) -> None:
    result = peak("drop", f"tournaments/bomb.tar.gz={inputs['bomb.tar.gz']}")
    (answer,) = result["objects"]
    assert answer["status"] == "partial" and answer["outcomes"] == {"added": 2, "failed": 2}, answer
    reasons = {f["source"]: (f["reason"], f["error_code"]) for f in answer["failures"]}
    assert reasons == {
        "tournaments/bomb.tar.gz:bomb.json": (f"larger than {MAX_TOURNAMENT_BYTES // MB} MB", "invalid_file"),
        "tournaments/bomb.tar.gz": (f"{BOMB_REASON} in bomb.json; the members after it were not read", "invalid_file"),
    }
    assert result["formats"] == {"Modern": 2}
    assert_small_peak(result)


@pytest.mark.parametrize(
    ("surface", "kind", "key"),
    [
        ("cli", "cards", ""),
        ("cli", "draft", ""),
        ("drop", "", "cards/bomb.json.gz"),
        ("drop", "", "drafts/bomb.json.gz"),
    ],
    ids=["cli cards", "cli draft", "drop zone cards", "drop zone draft"],
)
def test_a_json_gz_of_1_gib_is_refused_at_the_ratio_cap(
    inputs: dict[str, Path], surface: str, kind: str, key: str
) -> None:
    bomb = inputs["bomb.json.gz"]
    if surface == "cli":
        result = peak("cli", kind, str(bomb))
        assert result["exit"] == 1 and f"FAILED {bomb}: {BOMB_REASON}" in result["output"], result
    else:
        result = peak("drop", f"{key}={bomb}")
        (answer,) = result["objects"]
        assert answer["status"] == "failed", answer
        assert [(f["source"], f["reason"]) for f in answer["failures"]] == [(key, BOMB_REASON)]
    assert_small_peak(result)


# --- a 5,000-digit integer -------------------------------------------------------------------------------


def test_cli_refuses_a_5000_digit_integer_and_stores_the_other_files(inputs: dict[str, Path]) -> None:
    paths = [inputs["digits.json"], inputs["first"], inputs["second"]]
    result = peak("cli", "tournaments", *map(str, paths))
    assert result["exit"] == 1 and "Traceback" not in result["output"], result
    assert f"FAILED {inputs['digits.json']}: {LONG_NUMBER} (5,000: 999999999999…)" in result["output"], result
    assert "2 added, 1 failed" in result["output"] and result["formats"] == {"Modern": 2}, result


def test_the_drop_zone_refuses_a_5000_digit_integer_in_an_archive_and_counts_the_others(
    inputs: dict[str, Path],
) -> None:
    result = peak("drop", f"tournaments/events.tar.gz={inputs['digits.tar.gz']}")
    (answer,) = result["objects"]
    assert answer["status"] == "partial" and answer["outcomes"] == {"added": 2, "failed": 1}, answer
    (failure,) = answer["failures"]
    assert failure["source"] == "tournaments/events.tar.gz:digits.json" and failure["error_code"] == "invalid_file"
    assert failure["reason"].startswith(LONG_NUMBER), failure
    assert answer["totals"]["decks"] > 0 and result["formats"] == {"Modern": 2}, result


# --- the JSON decoder, on every path (in process) --------------------------------------------------------

NUMBERS_REFUSED = {
    "5,000-digit integer": (b'{"n": ' + b"9" * 5000 + b"}", f"{LONG_NUMBER} (5,000: "),
    "25-digit integer": (b'{"n": -' + b"1" * 25 + b"}", f"{LONG_NUMBER} (25: "),
    "5,000-digit float": (b'{"n": 0.' + b"1" * 5000 + b"}", LONG_NUMBER),
    "float past its range": (b'{"n": 1e400}', "a number out of a float's range (1e400)"),
    "negative float past its range": (b'{"n": -1.5E+999}', "a number out of a float's range (-1.5E+999)"),
    "NaN": (b'{"n": NaN}', "NaN is not a JSON number"),
    "Infinity": (b'{"n": Infinity}', "Infinity is not a JSON number"),
    "-Infinity": (b'{"n": [-Infinity]}', "-Infinity is not a JSON number"),
}


@pytest.mark.parametrize("case", list(NUMBERS_REFUSED))
@pytest.mark.parametrize("reader", ["ingest", "ingest gzipped", "sync"])
def test_every_json_reader_refuses_numbers_python_would_choke_on(case: str, reader: str) -> None:
    data, reason = NUMBERS_REFUSED[case]
    with pytest.raises(InputFileError) as refused:
        if reader == "sync":
            bounds.decode_json("f.json", data, bounds.FetchLimits())
        else:
            SourceFile("f.json", zlib.compress(data, wbits=31) if reader == "ingest gzipped" else data).json()
    assert refused.value.source == "f.json" and reason in refused.value.reason, refused.value.reason


def test_ordinary_numbers_decode_as_before() -> None:
    text = b'{"a": 18446744073709551615, "b": 0.30000000000000004, "c": 1e-400, "d": -0.00012345678901234567, "e": 7}'
    assert SourceFile("f.json", text).json() == json.loads(text)
    assert bounds.decode_json("f.json", text, bounds.FetchLimits()) == json.loads(text)


# --- caps on members and the real files ------------------------------------------------------------------


def test_an_archive_member_over_its_cap_is_skipped_unread_and_the_next_ones_are_read() -> None:
    # an uncompressed tar (a fair ratio): the member's header says it is too large, the next member still counts
    archive = b"".join(tar_member(name, data) for name, data in [("a.json", b"{}"), ("big.json", b" " * 5000)])
    archive += tar_member("b.json", b"[]") + bytes(1024)
    found = list(iter_archive("x.tar", archive, max_member_bytes=4096))
    assert [(type(f).__name__, f.name if isinstance(f, SourceFile) else f.reason) for f in found] == [
        ("SourceFile", "x.tar:a.json"),
        ("InputFileError", "larger than 4,096 bytes"),
        ("SourceFile", "x.tar:b.json"),
    ]


def test_a_file_over_the_byte_cap_at_a_fair_ratio_is_refused_at_the_cap() -> None:
    # random hex compresses about 2:1: the ratio cap lets it through, the byte cap stops it a step past 2 MB
    data = zlib.compress(os.urandom(3 * MB).hex().encode(), wbits=31)
    with pytest.raises(InputFileError, match="larger than 2 MB once decompressed"):
        decode_json("hex.json.gz", data, Limits(2 * MB))


def test_a_bomb_is_counted_for_progress_without_inflating_it(inputs: dict[str, Path]) -> None:
    # the progress total matches what is yielded: two events, the refused member, the archive's refusal
    paths = [inputs["bomb.tar.gz"]]
    assert count_source_files(paths) == len(list(iter_source_files(paths))) == 4


def test_every_real_file_is_accepted_under_the_caps() -> None:
    members = list(iter_archive("demo", DEMO_TOURNAMENTS))
    assert members and all(isinstance(m, SourceFile) for m in members)
    assert all(isinstance(m.json(MAX_TOURNAMENT_BYTES), dict) for m in members if isinstance(m, SourceFile))
    corpora = [SHARED_DATA / "cards" / "oracle_corpus.json.gz", DEMO_DATA_DIR / "cards.json.gz"]
    for corpus in (path for path in corpora if path.exists()):
        assert SourceFile(corpus.name, corpus.read_bytes()).json()
    shared = sorted((SHARED_DATA / "tournaments").rglob("*.json"))
    for path in shared:
        assert SourceFile(path.name, path.read_bytes()).json(MAX_TOURNAMENT_BYTES)
