"""A small client of GitHub's REST API and raw contents, over urllib3 (which botocore already brings).

urllib3's ``Retry`` retries connection errors and 5xx answers with backoff (and a 503's ``Retry-After``).
GitHub's rate limits (a 403 or 429 with ``X-RateLimit-Remaining: 0``, or with ``Retry-After``) are waited out
here, up to ``max_wait_seconds``; a longer wait raises :class:`RateLimited` naming the reset time.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import urllib3
from pydantic import BaseModel, ConfigDict, RootModel, ValidationError
from urllib3.exceptions import HTTPError
from urllib3.util import Retry

from meta_mage import __version__
from meta_mage.errors import MetaMageError

if TYPE_CHECKING:
    from meta_mage.config import Settings

API_URL = "https://api.github.com"
RAW_URL = "https://raw.githubusercontent.com"
COMPARE_FILE_LIMIT = 300  # the compare API lists at most this many files
PER_PAGE = 100
MAX_PAGES = 300  # a paginated listing longer than this is a bug or a loop, not data
RATE_LIMIT_WAITS = 3  # rate-limit waits for one request before giving up
SECONDARY_LIMIT_WAIT = 60.0  # GitHub's advice for a 429 that says neither Retry-After nor a reset
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

    def __init__(self, url: str, reset_at: dt.datetime, wait: float, max_wait: float) -> None:
        super().__init__(
            f"GitHub rate limit reached ({url}): it resets at {reset_at.isoformat(timespec='seconds')}, "
            f"in {wait:.0f} s, longer than the {max_wait:g} s allowed to wait (a token raises the limit)",
            429,
        )
        self.reset_at = reset_at


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


class _Retry(Retry):
    """urllib3's retries, leaving 429s (and their ``Retry-After``) to the client's rate-limit handling."""

    RETRY_AFTER_STATUS_CODES = frozenset({503})


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None."""
    match = _NEXT_LINK.search(header or "")
    return match.group(1) if match else None


class GitHubClient:
    """Reads one repository: ``repository`` is ``owner/name``. Safe to share between threads."""

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
        timeout: urllib3.Timeout | None = None,
    ) -> None:
        self.repository = repository
        self.api_url = api_url.rstrip("/")
        self.raw_url = raw_url.rstrip("/")
        self.max_wait_seconds = max_wait_seconds
        self._retry = _Retry(
            total=retries,
            status_forcelist=(500, 502, 503, 504),
            allowed_methods=frozenset({"GET"}),
            backoff_factor=backoff_factor,
            raise_on_status=False,
            respect_retry_after_header=True,
        )
        self._http = urllib3.PoolManager(
            num_pools=4, maxsize=8, retries=self._retry, timeout=timeout or urllib3.Timeout(connect=10, read=60)
        )
        self._headers = {"User-Agent": f"meta-mage-sync/{__version__}", "X-GitHub-Api-Version": "2022-11-28"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._lock = threading.Lock()
        self._requests = 0

    @classmethod
    def from_settings(cls, settings: Settings, repository: str, token: str | None) -> GitHubClient:
        """A client of ``repository`` with the ``sync_*`` settings' URLs and rate-limit wait."""
        return cls(
            repository,
            token=token,
            api_url=settings.sync_api_url,
            raw_url=settings.sync_raw_url,
            max_wait_seconds=settings.sync_max_wait_seconds,
        )

    @property
    def requests(self) -> int:
        """HTTP requests sent so far, retries included."""
        return self._requests

    # --- the endpoints ---------------------------------------------------------------------

    def head(self, branch: str) -> Commit:
        """The newest commit of ``branch`` (its files are not read)."""
        return self._api(Commit, f"/commits/{quote(branch)}", {"per_page": 1})

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

    def raw(self, sha: str, path: str) -> bytes:
        """The contents of ``path`` at commit ``sha``."""
        return self._get(f"{self.raw_url}/{self.repository}/{sha}/{quote(path)}", None, "*/*").data

    # --- the plumbing ---------------------------------------------------------------------

    def _api(self, model: type[_Model], path: str, fields: dict[str, Any] | None = None) -> _Model:
        response = self._get(f"{self.api_url}/repos/{self.repository}{path}", fields)
        return _parse(model, response)

    def _pages(self, model: type[_Model], path: str, fields: dict[str, Any] | None = None) -> Iterator[_Model]:
        """Each page of a listing, following ``Link: rel="next"``."""
        url: str | None = f"{self.api_url}/repos/{self.repository}{path}"
        query: dict[str, Any] | None = {**(fields or {}), "per_page": PER_PAGE}
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self._get(url, query)
            yield _parse(model, response)
            url, query = next_link(response.headers.get("Link")), None
        raise GitHubError(f"{path} has more than {MAX_PAGES} pages")

    def _get(
        self, url: str, fields: dict[str, Any] | None, accept: str = "application/vnd.github+json"
    ) -> urllib3.BaseHTTPResponse:
        """GET ``url``, waiting out rate limits; raise ``GitHubError`` on an error answer."""
        headers = {**self._headers, "Accept": accept}
        for waits in range(RATE_LIMIT_WAITS + 1):
            response = self._send(url, fields, headers)
            wait = self._rate_limit_wait(url, response)
            if wait is None:
                break
            if waits == RATE_LIMIT_WAITS:
                raise GitHubError(f"GitHub rate limit still reached after {RATE_LIMIT_WAITS} waits ({url})", 429)
            time.sleep(wait)
        if response.status >= 400:
            raise GitHubError(f"GitHub answered {response.status} {_reason(response)} ({url})", response.status)
        return response

    def _send(self, url: str, fields: dict[str, Any] | None, headers: dict[str, str]) -> urllib3.BaseHTTPResponse:
        try:
            response = self._http.request("GET", url, fields=fields, headers=headers)
        except HTTPError as exc:
            self._count(self._retry.total + 1 if isinstance(self._retry.total, int) else 1)
            raise GitHubError(f"GitHub could not be reached ({url}): {exc}") from exc
        retries = response.retries
        self._count(1 + (len(retries.history) if retries is not None else 0))
        return response

    def _count(self, sent: int) -> None:
        with self._lock:
            self._requests += sent

    def _rate_limit_wait(self, url: str, response: urllib3.BaseHTTPResponse) -> float | None:
        """Seconds to wait when ``response`` is a rate limit, else None; ``RateLimited`` past the cap."""
        if response.status not in (403, 429):
            return None
        headers, now = response.headers, time.time()
        retry_after, reset = headers.get("Retry-After"), headers.get("X-RateLimit-Reset")
        if retry_after:
            until = now + self._retry.parse_retry_after(retry_after)
        elif headers.get("X-RateLimit-Remaining") == "0" and reset and reset.isdigit():
            until = float(reset)
        elif response.status == 429:
            until = now + SECONDARY_LIMIT_WAIT
        else:
            return None  # a 403 that is no rate limit: no access
        if until - now > self.max_wait_seconds:
            reset_at = dt.datetime.fromtimestamp(until, dt.UTC)
            raise RateLimited(url, reset_at, until - now, self.max_wait_seconds)
        return max(0.0, until - now) + 1.0  # the reset is a whole second, and clocks differ


def _parse(model: type[_Model], response: urllib3.BaseHTTPResponse) -> _Model:
    try:
        return model.model_validate_json(response.data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise GitHubError(f"unexpected answer from GitHub ({where}: {problem['msg']})") from exc


def _reason(response: urllib3.BaseHTTPResponse) -> str:
    """The ``message`` of GitHub's error body, when it has one."""
    try:
        message = _ErrorBody.model_validate_json(response.data).message
    except ValidationError:
        return ""
    return message[:200]


class _ErrorBody(BaseModel):
    message: str = ""
