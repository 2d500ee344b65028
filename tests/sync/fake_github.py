"""A fake of the GitHub endpoints the sync uses, served by werkzeug on loopback, over an in-memory repository.

Served: ``GET /repos/{o}/{r}/commits/{ref}`` (files paged), ``/repos/{o}/{r}/commits?sha=&since=`` (paged),
``/repos/{o}/{r}/compare/{base}...{head}`` (at most 300 files, like GitHub) and raw contents under ``/raw``.
Pages follow ``Link: rel="next"``. :class:`Fault` rules make chosen requests fail (rate limits, 5xx);
:class:`Override` rules answer chosen requests with any response (streams, drips, bombs, redirects).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlencode

from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

COMPARE_FILE_LIMIT = 300


@dataclass
class FakeCommit:
    sha: str
    parent: str | None
    date: dt.datetime
    changes: dict[str, bytes | None]  # path -> new contents, None: removed


@dataclass
class FakeRepository:
    """A linear history on one branch."""

    owner: str = "fbettega"
    name: str = "MTG_decklistcache"
    branch: str = "main"
    commits: list[FakeCommit] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def commit(self, changes: dict[str, bytes | None], date: dt.datetime) -> FakeCommit:
        """Add a commit on top of the branch."""
        parent = self.commits[-1].sha if self.commits else None
        sha = hashlib.sha1(f"{parent}{date.isoformat()}{sorted(changes)}".encode()).hexdigest()
        made = FakeCommit(sha, parent, date, dict(changes))
        self.commits.append(made)
        return made

    def index(self, ref: str) -> int | None:
        if ref == self.branch:
            return len(self.commits) - 1
        return next((i for i, c in enumerate(self.commits) if c.sha == ref), None)

    def tree(self, upto: int) -> dict[str, bytes]:
        """The files at the commit of index ``upto`` (-1: none)."""
        files: dict[str, bytes] = {}
        for commit in self.commits[: upto + 1]:
            for path, data in commit.changes.items():
                if data is None:
                    files.pop(path, None)
                else:
                    files[path] = data
        return files


@dataclass
class Fault:
    """Answer requests whose path contains ``path`` with ``status`` (``times`` times; None: always)."""

    path: str
    status: int
    headers: Callable[[], dict[str, str]] = dict
    times: int | None = 1
    body: dict[str, Any] = field(default_factory=lambda: {"message": "fault"})


@dataclass
class Override:
    """Answer requests whose path contains ``path`` with ``respond(request)`` (``times`` times; None: always)."""

    path: str
    respond: Callable[[Request], Response]
    times: int | None = None


@dataclass
class Logged:
    path: str
    status: int
    headers: dict[str, str]


class FakeGitHub:
    """The WSGI app; ``log`` holds every request, ``faults`` the failures still to play, ``latency`` (seconds)
    delays every answer as a distant server would."""

    def __init__(self, repository: FakeRepository, latency: float = 0.0) -> None:
        self.repository = repository
        self.latency = latency
        self.faults: list[Fault] = []
        self.overrides: list[Override] = []
        self.log: list[Logged] = []
        self.base_url = ""
        self._lock = threading.Lock()

    @property
    def api_url(self) -> str:
        return self.base_url

    @property
    def raw_url(self) -> str:
        return f"{self.base_url}/raw"

    def requests_to(self, fragment: str) -> list[Logged]:
        return [entry for entry in self.log if fragment in entry.path]

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        if self.latency:
            time.sleep(self.latency)
        response = self._override(request) or self._fault(request.path) or self._route(request)
        with self._lock:
            self.log.append(Logged(request.full_path, response.status_code, dict(request.headers)))
        return response(environ, start_response)

    def _override(self, request: Request) -> Response | None:
        with self._lock:
            chosen = next(
                (o for o in self.overrides if o.path in unquote(request.path) and (o.times is None or o.times > 0)),
                None,
            )
            if chosen is not None and chosen.times is not None:
                chosen.times -= 1
        return None if chosen is None else chosen.respond(request)

    def _fault(self, path: str) -> Response | None:
        with self._lock:
            for fault in self.faults:
                if fault.path in unquote(path) and (fault.times is None or fault.times > 0):
                    if fault.times is not None:
                        fault.times -= 1
                    return _json(fault.body, fault.status, fault.headers())
        return None

    def _route(self, request: Request) -> Response:
        repo = self.repository
        prefix = f"/repos/{repo.full_name}/"
        path = unquote(request.path)
        if path.startswith(f"/raw/{repo.full_name}/"):
            return self._raw(path.removeprefix(f"/raw/{repo.full_name}/"))
        if path == prefix + "commits":
            return self._commit_list(request)
        if path.startswith(prefix + "commits/"):
            return self._commit(request, path.removeprefix(prefix + "commits/"))
        if path.startswith(prefix + "compare/"):
            return self._compare(request, path.removeprefix(prefix + "compare/"))
        return _json({"message": "Not Found"}, 404)

    def _raw(self, rest: str) -> Response:
        sha, _, file_path = rest.partition("/")
        index = self.repository.index(sha)
        data = None if index is None else self.repository.tree(index).get(file_path)
        if data is None:
            return Response("404: Not Found", 404)
        return Response(data, 200, content_type="text/plain; charset=utf-8")

    def _commit(self, request: Request, ref: str) -> Response:
        index = self.repository.index(ref)
        if index is None:
            return _json({"message": "No commit found for SHA: " + ref}, 422)
        commit = self.repository.commits[index]
        before = self.repository.tree(index - 1)
        files = [
            _file(path, "removed" if data is None else "modified" if path in before else "added")
            for path, data in commit.changes.items()
        ]
        page, link = _page(request, files)
        return _json({**_commit_json(commit), "files": page}, headers=link)

    def _commit_list(self, request: Request) -> Response:
        index = self.repository.index(request.args.get("sha", self.repository.branch))
        if index is None:
            return _json({"message": "Not Found"}, 404)
        since = request.args.get("since")
        start = dt.datetime.fromisoformat(since.replace("Z", "+00:00")) if since else None
        commits = [c for c in reversed(self.repository.commits[: index + 1]) if start is None or c.date >= start]
        page, link = _page(request, [_commit_json(c) for c in commits])
        return _json(page, headers=link)

    def _compare(self, request: Request, spec: str) -> Response:
        base_ref, _, head_ref = spec.partition("...")
        base, head = self.repository.index(base_ref), self.repository.index(head_ref)
        if base is None or head is None:
            return _json({"message": "Not Found"}, 404)
        before, after = self.repository.tree(base), self.repository.tree(head)
        files = [_file(p, "added" if p not in before else "modified") for p in after if before.get(p) != after[p]]
        files += [_file(p, "removed") for p in before if p not in after]
        commits = [_commit_json(c) for c in self.repository.commits[base + 1 : head + 1]]
        body: dict[str, Any] = {
            "status": "ahead" if head >= base else "behind",
            "total_commits": len(commits),
            "files": files[:COMPARE_FILE_LIMIT],
        }
        if "page" in request.args or "per_page" in request.args:
            body["commits"], link = _page(request, commits)
            return _json(body, headers=link)
        body["commits"] = commits[-250:]
        return _json(body)


def _file(path: str, status: str) -> dict[str, Any]:
    return {"filename": path, "status": status, "additions": 1, "deletions": 0, "changes": 1}


def _commit_json(commit: FakeCommit) -> dict[str, Any]:
    when = commit.date.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "sha": commit.sha,
        "parents": [{"sha": commit.parent}] if commit.parent else [],
        "commit": {"message": "auto update", "committer": {"name": "bot", "date": when}},
    }


def _page(request: Request, items: list[Any]) -> tuple[list[Any], dict[str, str]]:
    """One page of ``items`` (``per_page``, ``page``) and its ``Link`` header when more follow."""
    per_page = min(int(request.args.get("per_page", 30)), 100)
    number = int(request.args.get("page", 1))
    page = items[(number - 1) * per_page : number * per_page]
    if number * per_page >= len(items):
        return page, {}
    query = urlencode({**request.args.to_dict(), "page": number + 1, "per_page": per_page})
    return page, {"Link": f'<{request.host_url.rstrip("/")}{request.path}?{query}>; rel="next"'}


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(body), status, headers=headers or {}, content_type="application/json")


@contextmanager
def serving(github: FakeGitHub) -> Iterator[FakeGitHub]:
    """Serve ``github`` on 127.0.0.1 (a free port, threaded) for the block."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, github, threaded=True)
    github.base_url = f"http://127.0.0.1:{server.server_port}"
    # A short poll so shutdown returns at once instead of after the default half second.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield github
    finally:
        server.shutdown()
        thread.join(5)


def laid_out(members: list[tuple[str, bytes]]) -> dict[str, bytes]:
    """Demo archive members at their ``Tournaments/<Source>/YYYY/MM/DD/<name>.json`` paths."""
    return {name: data for name, data in members if name.startswith("Tournaments/")}


def day(number: int) -> dt.datetime:
    """A commit date: 2025-11-<number> 06:00 UTC (the daily automatic commit)."""
    return dt.datetime(2025, 11, number, 6, tzinfo=dt.UTC)
