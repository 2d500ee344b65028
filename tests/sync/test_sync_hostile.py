"""A hostile or unlucky upstream, on the loopback GitHub: every bad file is reported and passed, every download
is bounded in size and time, paths and redirects stay where they were configured, and rate-limit headers of any
shape end in a wait or a one-line error. Streams and bombs are generated lazily, as the client reads them."""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from werkzeug.wrappers import Request, Response

from meta_mage.config import Settings
from meta_mage.storage.meta import MetaRepository
from meta_mage.sync.bounds import MB, FetchLimits
from meta_mage.sync.github import GitHubError, RateLimited, retry_after_seconds
from meta_mage.sync.upstream import CursorLost
from tests.sync.conftest import files, run, scan, tournaments_per_format
from tests.sync.fake_github import FakeGitHub, FakeRepository, Fault, Override, day, serving

REPO = "fbettega/MTG_decklistcache"
BAD = "Tournaments/MTGO/2025/11/01/bad-event-2025-11-0100000001.json"


def a_tournament() -> tuple[str, bytes]:
    """A demo tournament file (path, bytes) that the good files of these tests do not include."""
    return next(iter(files(20, 21).items()))


def with_first_deck(data: bytes, mainboard: list[dict[str, Any]], player: str | None = None) -> bytes:
    document = json.loads(data)
    document["Decks"][0]["Mainboard"] = mainboard
    if player is not None:
        document["Decks"][0]["Player"] = player
    return json.dumps(document).encode()


def zeros_gzip(total: int) -> Iterator[bytes]:
    """A gzip stream of ``total`` zero bytes, compressed a megabyte at a time as it is read."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(MB)
    for _ in range(total // MB):
        if out := compressor.compress(block):
            yield out
    yield compressor.flush()


def spaces(total: int) -> Iterator[bytes]:
    """``total`` bytes of JSON whitespace, 64 KB at a time (chunked: no Content-Length)."""
    block = b" " * 65536
    for _ in range(total // len(block)):
        yield block


def streamed(chunks: Callable[[], Iterator[bytes]], **headers: str) -> Callable[[Request], Response]:
    return lambda request: Response(chunks(), 200, headers=headers, content_type="text/plain", direct_passthrough=True)


def drip(seconds: float, count: int) -> Callable[[Request], Response]:
    """A body of ``count`` bytes, one every ``seconds``."""

    def chunks() -> Iterator[bytes]:
        for _ in range(count):
            time.sleep(seconds)
            yield b" "

    return streamed(chunks)


def peak_during(action: Callable[[], Any]) -> tuple[Any, float]:
    """``action()``'s result and the peak of Python allocations while it ran (MB, every thread)."""
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()


# --- 3. one bad file never stops the sync ------------------------------------------------------------------


def _deep() -> bytes:
    return b"[" * 5000 + b"]" * 5000  # 10 KB


def _surrogate() -> bytes:
    return a_tournament()[1].replace(b'"Player": "', b'"Player": "\\ud800', 1)


def _huge_deck() -> bytes:
    cards = [{"Count": 1, "CardName": f"Card number {i:05d} of a very long list"} for i in range(20_000)]
    return with_first_deck(a_tournament()[1], cards)


BAD_FILES: dict[str, tuple[Callable[[], bytes], str]] = {
    "nested 5,000 deep": (_deep, "nested more than 64 deep"),
    "a list of 20,000 card lines": (_huge_deck, "20,000 card lines; a list has at most 250"),
    "a .json.gz bomb": (lambda: b"".join(zeros_gzip(128 * MB)), "a decompression bomb"),
    "an unpaired surrogate": (_surrogate, "unpaired surrogate"),
    "not UTF-8": (lambda: a_tournament()[1].decode().encode("utf-16"), "not UTF-8"),
    "a JSON string": (lambda: b'"Tournament"', "expected a JSON object"),
    "a JSON list": (lambda: b"[1, 2]", "expected a JSON object"),
    "truncated gzip": (lambda: gzip.compress(a_tournament()[1])[:200], "truncated or corrupt gzip data"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_is_reported_and_passed_and_the_others_are_stored(
    case: str, github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    # Given a commit of three good files and one bad one
    make, reason = BAD_FILES[case]
    name = BAD + (".gz" if case.endswith("bomb") or "gzip" in case else "")
    head = github.repository.commit({**files(0, 3), name: make()}, day(1))
    # When it is synced
    report = run(github, meta, settings)
    # Then the bad file is reported with its reason, the good ones are stored, and the cursor moves past it
    assert [(f.path, f.retryable) for f in report.failures] == [(name, False)], report.summary()
    assert reason in report.failures[0].reason
    assert not report.retryable and report.ingested == 3
    assert report.new_cursor == head.sha == meta.sync_cursor(REPO, "main")
    assert report.to_dict()["bad_files"] == [name]
    assert f"--retry {name}" in report.summary()


def test_a_failing_dynamodb_still_keeps_the_cursor(
    github: FakeGitHub, meta: MetaRepository, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from meta_mage.errors import StorageUnavailable

    github.repository.commit(files(0, 3), day(1))

    def unavailable(*args: Any, **kwargs: Any) -> None:
        raise StorageUnavailable("ProvisionedThroughputExceededException (table meta)")

    monkeypatch.setattr(MetaRepository, "write_event", unavailable)
    report = run(github, meta, settings)
    assert report.retryable and len(report.failures) == 3 and not report.bad_files
    assert meta.sync_cursor(REPO, "main") is None


# --- 4. downloads bounded in size ------------------------------------------------------------------------

STREAMS: dict[str, tuple[Callable[[], Response] | Callable[[Request], Response], str]] = {
    "a 200 MB file": (streamed(lambda: spaces(200 * MB)), "larger than 20 MB"),
    "a stream that does not end": (streamed(lambda: spaces(64 * MB)), "larger than 20 MB"),
    "a Content-Encoding gzip bomb": (
        streamed(lambda: zeros_gzip(256 * MB), **{"Content-Encoding": "gzip"}),
        "a decompression bomb",
    ),
    "a .json.gz bomb": (streamed(lambda: zeros_gzip(256 * MB)), "a decompression bomb"),
}


@pytest.mark.parametrize("case", list(STREAMS))
def test_a_download_is_cut_at_its_cap_while_it_streams(
    case: str, github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    respond, reason = STREAMS[case]
    head = github.repository.commit({**files(0, 2), BAD: b"{}"}, day(1))
    github.overrides.append(Override(f"/raw/{REPO}/{head.sha}/{BAD}", respond))  # type: ignore[arg-type]
    started = time.monotonic()
    report, peak = peak_during(lambda: run(github, meta, settings))
    # Then the file is a bad file named with its reason, and memory stayed near the 20 MB cap
    assert [(f.path, f.retryable) for f in report.failures] == [(BAD, False)] and reason in report.failures[0].reason
    assert report.ingested == 2 and report.new_cursor == head.sha
    assert peak < 48, f"{peak:.0f} MB"
    assert time.monotonic() - started < 20


def test_the_caps_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert FetchLimits.from_settings(Settings()) == FetchLimits(20 * MB, 100, 30.0, 120.0)
    monkeypatch.setenv("META_MAGE_SYNC_MAX_FILE_BYTES", str(3 * MB))
    monkeypatch.setenv("META_MAGE_SYNC_FILE_SECONDS", "5")
    limits = FetchLimits.from_settings(Settings())
    assert limits.too_large().reason == "larger than 3 MB" and limits.file_seconds == 5


def test_an_answer_of_the_api_is_bounded_too(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    github.repository.commit(files(0, 2), day(1))
    github.overrides.append(Override("/commits/main", streamed(lambda: spaces(64 * MB))))
    with pytest.raises(GitHubError, match="larger than 2 MB"):
        run(github, meta, settings, limits=FetchLimits(max_bytes=2 * MB))
    assert meta.sync_cursor(REPO, "main") is None


# --- 5. downloads bounded in time ------------------------------------------------------------------------


@pytest.mark.parametrize("bound", ["file_seconds", "time_left"])
def test_a_drip_is_cut_at_the_download_deadline(
    bound: str, github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    # Given a file that sends one byte every 0.25 s for 10 s (each read well within the read timeout)
    head = github.repository.commit({**files(0, 2), BAD: b"{}"}, day(1))
    github.overrides.append(Override(f"/raw/{REPO}/{head.sha}/{BAD}", drip(0.25, 40)))
    # When the deadline is the file's own limit, or the time the run has left (the Lambda's remaining time)
    started, deadline_at = time.monotonic(), time.monotonic() + 1.0
    if bound == "file_seconds":
        report = run(github, meta, settings, limits=FetchLimits(file_seconds=1.0))
    else:
        report = run(github, meta, settings, time_left=lambda: deadline_at - time.monotonic())
    # Then the download stops at it: the file failed on time (retried next run), the cursor stays
    assert time.monotonic() - started < 4
    assert [(f.path, f.retryable) for f in report.failures] == [(BAD, True)]
    assert "not read within" in report.failures[0].reason
    assert meta.sync_cursor(REPO, "main") is None


def test_a_silent_server_hits_the_read_timeout(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    head = github.repository.commit({**files(0, 2), BAD: b"{}"}, day(1))
    github.overrides.append(Override(f"/raw/{REPO}/{head.sha}/{BAD}", drip(3, 2)))
    started = time.monotonic()
    report = run(github, meta, settings, limits=FetchLimits(read_timeout=0.5), retries=0)
    assert time.monotonic() - started < 2.5
    assert [(f.path, f.retryable) for f in report.failures] == [(BAD, True)]
    assert "timed out" in report.failures[0].reason


@pytest.mark.parametrize("where", ["/raw/", "/commits/main"])
def test_a_503_asking_for_a_longer_wait_than_allowed_fails_at_once(
    where: str, github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    github.repository.commit(files(0, 2), day(1))
    github.faults.append(Fault(where, 503, lambda: {"Retry-After": "8"}))
    started = time.monotonic()
    if where == "/raw/":
        report = run(github, meta, settings, max_wait_seconds=1)
        assert report.retryable and "asked to retry in 8 s" in report.failures[0].reason
    else:
        with pytest.raises(GitHubError, match=r"503 and asked to retry in 8 s \(Retry-After: '8'\), longer than"):
            run(github, meta, settings, max_wait_seconds=1)
    assert time.monotonic() - started < 3
    assert meta.sync_cursor(REPO, "main") is None


# --- 9. rate-limit headers of any shape ------------------------------------------------------------------


def test_an_unreadable_retry_after_falls_back_to_the_reset_or_the_backoff(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    github.repository.commit(files(0, 2), day(1))
    reset = lambda: {  # noqa: E731
        "Retry-After": "soon-ish",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": str(int(time.time()) + 1),
    }
    github.faults += [Fault("/commits/main", 403, reset), Fault("/raw/", 503, lambda: {"Retry-After": "soon-ish"})]
    report = run(github, meta, settings, backoff_factor=0)
    assert report.ok and report.ingested == 2, report.summary()
    assert [entry.status for entry in github.requests_to("/commits/main")] == [403, 200]


@pytest.mark.parametrize("value", ["99999999999", "9" * 40, "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_a_huge_retry_after_fails_at_once_and_says_so(
    value: str, github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    github.repository.commit(files(0, 2), day(1))
    github.faults.append(Fault("/commits/main", 429, lambda: {"Retry-After": value}))
    started = time.monotonic()
    with pytest.raises(RateLimited) as raised:
        run(github, meta, settings, max_wait_seconds=5)
    assert time.monotonic() - started < 2
    message = raised.value.message
    assert f"Retry-After: {value[:40]!r}" in message and "longer than the 5 s allowed to wait" in message
    assert "21600" not in message


def test_retry_after_values() -> None:
    assert retry_after_seconds(" 120 ") == 120
    assert retry_after_seconds("soon-ish") is None and retry_after_seconds("") is None
    assert retry_after_seconds("Mon, 01 Jan 2001 00:00:00 GMT") == 0
    assert retry_after_seconds("9" * 400) == 10**12


# --- 7. paths and redirects ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "Tournaments/MTGmelee/../../../../evil/victim/main/Tournaments/MTGO/x.json",
        "Tournaments/MTGO/%2e%2e/%2e%2e/x.json",
        "Tournaments/MTGO/..\\..\\x.json",
        "Tournaments/MTGO/2025/11/01/x\x1b[2J.json",
        "Tournaments/MTGO//x.json",
    ],
)
def test_a_listed_path_outside_the_folders_is_refused_and_never_fetched(
    path: str, github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    # Given a compare listing a crafted path, which another repository on the same host would answer
    _, other = a_tournament()
    github.overrides.append(Override("/evil/", lambda request: Response(other, 200)))
    head = github.repository.commit({**files(0, 2), path: other}, day(1))
    report = run(github, meta, settings)
    # Then it is refused as a bad file, nothing but the good files was fetched, and the cursor moves on
    assert len(report.failures) == 1 and not report.retryable
    assert report.failures[0].reason.startswith("refused: its path")
    assert "\x1b" not in report.summary()
    assert len(github.requests_to("/raw/")) == 2 and not github.requests_to("evil")
    assert report.ingested == 2 and report.new_cursor == head.sha
    assert sum(tournaments_per_format(meta).values()) == 2


def test_a_redirect_off_the_configured_hosts_is_not_followed(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    # Given a raw file that redirects to another server, which answers with a valid tournament
    _, other = a_tournament()
    elsewhere = FakeGitHub(FakeRepository())
    elsewhere.overrides.append(Override("/", lambda request: Response(other, 200)))
    with serving(elsewhere):
        head = github.repository.commit({**files(0, 2), BAD: b"{}"}, day(1))
        found = Response("", 302, headers={"Location": f"{elsewhere.base_url}/x.json"})
        github.overrides.append(Override(f"/{BAD}", lambda request: found))
        report = run(github, meta, settings)
    # Then the redirect is not followed: a bad file, the other server never asked
    assert [(f.path, f.retryable) for f in report.failures] == [(BAD, False)]
    assert "off the configured hosts" in report.failures[0].reason
    assert not elsewhere.log and report.ingested == 2 and report.new_cursor == head.sha


def test_a_redirect_on_the_configured_host_is_followed(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    _, data = a_tournament()
    github.repository.commit({**files(0, 2), BAD: b"{}"}, day(1))
    moved = Response("", 301, headers={"Location": "/moved/x.json"})
    github.overrides += [
        Override(f"/{BAD}", lambda request: moved),
        Override("/moved/x.json", lambda request: Response(data, 200)),
    ]
    report = run(github, meta, settings)
    assert report.ok and report.ingested == 3, report.summary()


# --- 8. a force-push -------------------------------------------------------------------------------------


def test_a_cursor_lost_to_a_force_push_names_the_reset(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    github.repository.commit(files(0, 2), day(1))
    assert run(github, meta, settings).ok
    # When the branch is rewritten: the cursor's commit is gone
    github.repository.commits.clear()
    github.repository.commit(files(0, 3), day(2))
    with pytest.raises(CursorLost, match="--github fbettega/MTG_decklistcache --reset --since YYYY-MM-DD"):
        run(github, meta, settings)
    assert scan(meta.table)  # nothing was removed


def test_the_deadline_of_a_download_includes_its_rate_limit_wait(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    head = github.repository.commit({**files(0, 2), BAD: b"{}"}, day(1))
    reset = lambda: {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 30)}  # noqa: E731
    github.faults.append(Fault(f"/{head.sha}/{BAD}", 403, reset))
    started = time.monotonic()
    report = run(github, meta, settings, limits=FetchLimits(file_seconds=2))
    assert time.monotonic() - started < 3
    assert [(f.path, f.retryable) for f in report.failures] == [(BAD, True)]
    assert "rate limit" in report.failures[0].reason
