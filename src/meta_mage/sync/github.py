"""A small client of GitHub's REST API and raw contents, over urllib3 (which botocore already brings).

urllib3's ``Retry`` retries connection errors and 5xx answers with backoff (and a 503's ``Retry-After``, up to
``max_wait_seconds``). GitHub's rate limits (a 403 or 429 with ``X-RateLimit-Remaining: 0``, or with
``Retry-After``) are waited out here, up to ``max_wait_seconds``; a longer wait raises :class:`RateLimited`.
Answers are streamed and bounded (:mod:`meta_mage.sync.bounds`); redirects stay on the configured hosts.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar
from urllib.parse import quote, urljoin, urlsplit

import urllib3
from pydantic import BaseModel, ConfigDict, RootModel, ValidationError
from urllib3 import HTTPHeaderDict
from urllib3.exceptions import HTTPError
from urllib3.util import Retry

from meta_mage import __version__
from meta_mage.errors import MetaMageError
from meta_mage.sync.bounds import BadFile, Collector, Deadline, FetchLimits, TimedOut, shown

if TYPE_CHECKING:
    from meta_mage.config import Settings

API_URL = "https://api.github.com"
RAW_URL = "https://raw.githubusercontent.com"
COMPARE_FILE_LIMIT = 300  # the compare API lists at most this many files
PER_PAGE = 100
Query = dict[str, str]  # a request's query fields


class _Streamed(TypedDict):
    redirect: bool
    preload_content: bool
    decode_content: bool


_STREAMED: _Streamed = {  # redirects are followed by hand (hosts checked), bodies read under the caps
    "redirect": False,
    "preload_content": False,
    "decode_content": False,
}
MAX_PAGES = 300  # a paginated listing longer than this is a bug or a loop, not data
RATE_LIMIT_WAITS = 3  # rate-limit waits for one request before giving up
SECONDARY_LIMIT_WAIT = 60.0  # GitHub's advice for a 429 that says neither Retry-After nor a reset
CONNECT_TIMEOUT = 10.0
CHUNK_BYTES = 64 * 1024  # at most this much per socket read, the deadline checked in between
ERROR_BODY_BYTES = 64 * 1024  # an error answer's body is read this far (for its message)
MAX_REDIRECTS = 3
REDIRECTS = frozenset({301, 302, 303, 307, 308})
IDENTITY = ("", "identity")
COMPRESSED = ("gzip", "x-gzip", "deflate")
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')

_Model = TypeVar("_Model", bound=BaseModel)


class SyncError(MetaMageError):
    """The upstream repository could not be read (after retries); nothing was skipped for good."""

    code = "upstream_unavailable"


class GitHubError(SyncError):
    """GitHub answered with an error, or could not be reached, after the retries."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RateLimited(GitHubError):
    """GitHub's rate limit resets later than we are allowed to wait."""

    def __init__(self, url: str, reset: float, wait: float, allowed: float, retry_after: str | None = None) -> None:
        asked = f" (Retry-After: {shown(retry_after[:40])!r})" if retry_after else ""
        until = ""
        self.reset_at: dt.datetime | None = None
        if wait < 10**9:  # a reset time Python can date
            self.reset_at = dt.datetime.fromtimestamp(reset, dt.UTC)
            until = f"it resets at {self.reset_at.isoformat(timespec='seconds')}, "
        super().__init__(
            f"GitHub rate limit reached ({url}): {until}in {_seconds(wait)}{asked}, longer than the "
            f"{max(0.0, allowed):.0f} s allowed to wait (a token raises the limit)",
            429,
        )


class _Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ChangedFile(_Body):
    """A file a commit or comparison changed: ``status`` is added, modified, removed, renamed, copied..."""

    filename: str
    status: str
    previous_filename: str | None = None


class ParentRef(_Body):
    sha: str


class Commit(_Body):
    """A commit; ``files`` is set (one page of them) only by the single-commit endpoint."""

    sha: str
    parents: tuple[ParentRef, ...] = ()
    files: tuple[ChangedFile, ...] = ()

    @property
    def parent(self) -> str | None:
        return self.parents[0].sha if self.parents else None


class Comparison(_Body):
    """``base...head``: its commits (oldest first) and the files changed (at most 300 listed)."""

    total_commits: int
    commits: tuple[Commit, ...] = ()
    files: tuple[ChangedFile, ...] = ()

    @property
    def truncated(self) -> bool:
        """Whether GitHub may have left files out (it lists at most ``COMPARE_FILE_LIMIT``)."""
        return len(self.files) >= COMPARE_FILE_LIMIT


class CommitList(RootModel[tuple[Commit, ...]]):
    """One page of a commit listing."""


class WaitTooLong(Exception):
    """A 503's ``Retry-After`` asks for a longer wait than allowed (raised from urllib3's retry sleep)."""

    def __init__(self, header: str, seconds: float, max_wait: float, sent: int) -> None:
        super().__init__(
            f"asked to retry in {_seconds(seconds)} (Retry-After: {header[:40]!r}), longer than the "
            f"{max_wait:g} s allowed to wait"
        )
        self.sent = sent


class _Retry(Retry):
    """urllib3's retries, leaving 429s (and their ``Retry-After``) to the client's rate-limit handling, and
    honouring a 503's ``Retry-After`` only up to ``max_wait`` (longer: :class:`WaitTooLong`; unreadable: the
    backoff instead)."""

    RETRY_AFTER_STATUS_CODES = frozenset({503})

    def __init__(self, *args: Any, max_wait: float = 120.0, **options: Any) -> None:
        super().__init__(*args, **options)
        self.max_wait = max_wait

    def new(self, **options: Any) -> _Retry:
        return super().new(**{"max_wait": self.max_wait, **options})

    def parse_retry_after(self, retry_after: str) -> float:
        seconds = retry_after_seconds(retry_after)
        if seconds is None:
            return 0.0  # falsy: urllib3 sleeps its backoff instead
        if seconds > self.max_wait:
            raise WaitTooLong(retry_after, seconds, self.max_wait, len(self.history))
        return seconds


def retry_after_seconds(value: str) -> float | None:
    """A ``Retry-After`` header as seconds from now (a number of seconds or an HTTP date), None when unreadable."""
    text = value.strip()
    if text.isdigit():
        return float(min(int(text), 10**12))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f} s"


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None."""
    match = _NEXT_LINK.search(header or "")
    return match.group(1) if match else None


class GitHubClient:
    """Reads one repository: ``repository`` is ``owner/name``. Safe to share between threads.

    Every answer is streamed under ``limits`` (its size, once decompressed, and the time to read it), and
    redirects are followed only to the hosts of ``api_url`` and ``raw_url``.
    """

    def __init__(
        self,
        repository: str,
        *,
        token: str | None = None,
        api_url: str = API_URL,
        raw_url: str = RAW_URL,
        max_wait_seconds: float = 120.0,
        retries: int = 4,
        backoff_factor: float = 0.5,
        limits: FetchLimits | None = None,
    ) -> None:
        self.repository = repository
        self.api_url = api_url.rstrip("/")
        self.raw_url = raw_url.rstrip("/")
        self.max_wait_seconds = max_wait_seconds
        self.limits = limits or FetchLimits()
        self._hosts = {_origin(self.api_url), _origin(self.raw_url)}
        self._retry = _Retry(
            total=retries,
            redirect=False,
            status_forcelist=(500, 502, 503, 504),
            allowed_methods=frozenset({"GET"}),
            backoff_factor=backoff_factor,
            raise_on_status=False,
            respect_retry_after_header=True,
            max_wait=max_wait_seconds,
        )
        self._http = urllib3.PoolManager(num_pools=4, maxsize=8, retries=self._retry)
        self._headers = {"User-Agent": f"meta-mage-sync/{__version__}", "X-GitHub-Api-Version": "2022-11-28"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._lock = threading.Lock()
        self._requests = 0

    @classmethod
    def from_settings(cls, settings: Settings, repository: str, token: str | None) -> GitHubClient:
        """A client of ``repository`` with the ``sync_*`` settings' URLs, rate-limit wait and download limits."""
        return cls(
            repository,
            token=token,
            api_url=settings.sync_api_url,
            raw_url=settings.sync_raw_url,
            max_wait_seconds=settings.sync_max_wait_seconds,
            limits=FetchLimits.from_settings(settings),
        )

    @property
    def requests(self) -> int:
        """HTTP requests sent so far, retries included."""
        return self._requests

    # --- the endpoints ---------------------------------------------------------------------

    def head(self, branch: str) -> Commit:
        """The newest commit of ``branch`` (its files are not read)."""
        return self._api(Commit, f"/commits/{quote(branch)}", {"per_page": "1"})

    def compare(self, base: str, head: str) -> Comparison:
        """``base...head``, every commit included (paged when there are more than GitHub's first 250)."""
        path = f"/compare/{quote(base, safe='')}...{quote(head, safe='')}"
        first = self._api(Comparison, path)
        if len(first.commits) >= first.total_commits:
            return first
        commits = [c for page in self._pages(Comparison, path) for c in page.commits]
        return first.model_copy(update={"commits": tuple(commits)})

    def commit_files(self, sha: str) -> list[ChangedFile]:
        """Every file one commit changed (followed over its pages)."""
        return [f for page in self._pages(Commit, f"/commits/{quote(sha, safe='')}") for f in page.files]

    def commits_since(self, ref: str, since: dt.datetime) -> list[Commit]:
        """The commits reachable from ``ref`` dated ``since`` or later, newest first."""
        fields = {"sha": ref, "since": since.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        pages = self._pages(CommitList, "/commits", fields)
        return [commit for page in pages for commit in page.root]

    def raw(self, sha: str, path: str, deadline: Deadline | None = None) -> bytes:
        """The contents of ``path`` at commit ``sha`` (a ``Content-Encoding`` undone), read by ``deadline``
        (default: ``limits.file_seconds`` from now). Raises ``BadFile`` past the size or
        ratio cap, ``TimedOut`` past the deadline, ``GitHubError`` on an error answer."""
        return self._get(f"{self.raw_url}/{self.repository}/{sha}/{quote(path)}", None, "*/*", deadline).data

    # --- the plumbing ---------------------------------------------------------------------

    def _api(self, model: type[_Model], path: str, fields: Query | None = None) -> _Model:
        return _parse(model, self._api_get(f"{self.api_url}/repos/{self.repository}{path}", fields))

    def _pages(self, model: type[_Model], path: str, fields: Query | None = None) -> Iterator[_Model]:
        """Each page of a listing, following ``Link: rel="next"``."""
        url: str | None = f"{self.api_url}/repos/{self.repository}{path}"
        query: Query | None = {**(fields or {}), "per_page": str(PER_PAGE)}
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self._api_get(url, query)
            yield _parse(model, response)
            url, query = next_link(response.headers.get("Link")), None
        raise GitHubError(f"{path} has more than {MAX_PAGES} pages")

    def _api_get(self, url: str, fields: Query | None) -> Answer:
        try:
            return self._get(url, fields, "application/vnd.github+json", None)
        except (BadFile, TimedOut) as exc:
            raise GitHubError(f"GitHub's answer {exc.reason} ({url})") from exc

    def _get(self, url: str, fields: Query | None, accept: str, deadline: Deadline | None) -> Answer:
        """GET ``url``, waiting out rate limits; ``GitHubError`` on an error answer."""
        headers = {**self._headers, "Accept": accept}
        until = Deadline.after(self.limits.file_seconds) if deadline is None else deadline
        for waits in range(RATE_LIMIT_WAITS + 1):
            answer = self._follow(url, fields, headers, until)
            wait = self._rate_limit_wait(url, answer, until)
            if wait is None:
                break
            if waits == RATE_LIMIT_WAITS:
                raise GitHubError(f"GitHub rate limit still reached after {RATE_LIMIT_WAITS} waits ({url})", 429)
            time.sleep(wait)
        if answer.status >= 400:
            raise GitHubError(f"GitHub answered {answer.status} {_reason(answer)} ({url})", answer.status)
        return answer

    def _follow(self, url: str, fields: Query | None, headers: dict[str, str], until: Deadline) -> Answer:
        """The answer at ``url`` after redirects, which must stay on the configured hosts (else ``BadFile``)."""
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(url, fields, headers, until)
            location = response.headers.get("Location")
            if response.status not in REDIRECTS or not location:
                return self._read(url, response, until)
            response.close()
            target = urljoin(url, location)
            if _origin(target) not in self._hosts:
                raise BadFile(f"redirects to {shown(target[:200])}, off the configured hosts")
            url, fields = target, None
        raise BadFile(f"redirects more than {MAX_REDIRECTS} times")

    def _send(
        self, url: str, fields: Query | None, headers: dict[str, str], until: Deadline
    ) -> urllib3.BaseHTTPResponse:
        left = until.left()
        if left <= 0:
            raise until.missed()
        timeout = urllib3.Timeout(connect=min(CONNECT_TIMEOUT, left), read=min(self.limits.read_timeout, left))
        retries = self._retry.new(max_wait=min(self.max_wait_seconds, left))
        try:
            response = self._http.request(
                "GET", url, fields=fields, headers=headers, timeout=timeout, retries=retries, **_STREAMED
            )
        except WaitTooLong as exc:
            self._count(exc.sent)
            raise GitHubError(f"GitHub answered 503 and {exc} ({url})", 503) from exc
        except HTTPError as exc:
            self._count(self._retry.total + 1 if isinstance(self._retry.total, int) else 1)
            raise GitHubError(f"GitHub could not be reached ({url}): {exc}") from exc
        history = response.retries.history if response.retries is not None else ()
        self._count(1 + len(history))
        return response

    def _read(self, url: str, response: urllib3.BaseHTTPResponse, until: Deadline) -> Answer:
        """The body of ``response`` under the limits (an error answer's first ``ERROR_BODY_BYTES`` only). A read
        still waiting at ``until`` is cut: a timer shuts the socket down."""
        encoding = response.headers.get("Content-Encoding", "").strip().lower()
        failed = response.status >= 400
        watchdog = threading.Timer(max(0.0, until.left()), response.shutdown)
        watchdog.daemon = True
        watchdog.start()
        try:
            if encoding not in IDENTITY + COMPRESSED:
                raise BadFile(f"has an unsupported Content-Encoding {shown(encoding[:40])!r}")
            limits = replace(self.limits, max_bytes=ERROR_BODY_BYTES) if failed else self.limits
            collector = Collector(limits, compressed=encoding in COMPRESSED)
            while chunk := response.read1(CHUNK_BYTES, decode_content=False):
                collector.feed(chunk)
            if until.left() <= 0:  # the socket was shut down: what was read is not the whole body
                raise until.missed()
            body = collector.result()
        except BadFile:
            response.close()
            if not failed:
                raise
            body = b""
        except (HTTPError, OSError) as exc:
            response.close()
            if until.left() <= 0:
                raise until.missed() from exc
            raise GitHubError(f"GitHub stopped answering ({url}): {exc}") from exc
        except BaseException:
            response.close()
            raise
        finally:
            watchdog.cancel()
        response.release_conn()
        return Answer(response.status, response.headers, body)

    def _count(self, sent: int) -> None:
        with self._lock:
            self._requests += sent

    def _rate_limit_wait(self, url: str, answer: Answer, until: Deadline) -> float | None:
        """Seconds to wait when ``answer`` is a rate limit, else None; ``RateLimited`` past the allowed wait
        (``max_wait_seconds``, and the time left before ``until``)."""
        if answer.status not in (403, 429):
            return None
        headers, now = answer.headers, time.time()
        retry_after, reset = headers.get("Retry-After"), headers.get("X-RateLimit-Reset")
        seconds = retry_after_seconds(retry_after) if retry_after else None
        if seconds is not None:
            at = now + seconds
        elif headers.get("X-RateLimit-Remaining") == "0" and reset and reset.isdigit() and len(reset) < 13:
            at = float(reset)
        elif answer.status == 429 or retry_after:  # no reset, or a Retry-After that says nothing readable
            at = now + SECONDARY_LIMIT_WAIT
        else:
            return None  # a 403 that is no rate limit: no access
        wait, allowed = max(0.0, at - now), min(self.max_wait_seconds, until.left())
        if wait > allowed:
            raise RateLimited(url, at, wait, allowed, retry_after)
        return wait + 1.0  # the reset is a whole second, and clocks differ


@dataclass(frozen=True)
class Answer:
    """A read answer: its status, headers and (decompressed) body."""

    status: int
    headers: HTTPHeaderDict
    data: bytes


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _parse(model: type[_Model], answer: Answer) -> _Model:
    try:
        return model.model_validate_json(answer.data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise GitHubError(f"unexpected answer from GitHub ({where}: {problem['msg']})") from exc


def _reason(answer: Answer) -> str:
    """The ``message`` of GitHub's error body, when it has one."""
    try:
        message = _ErrorBody.model_validate_json(answer.data).message
    except ValidationError:
        return ""
    return shown(message[:200])


class _ErrorBody(BaseModel):
    message: str = ""
