"""A local clone as a sync's upstream: ``git`` run as a subprocess, files read at the pinned commit."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import threading
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from meta_mage.sync.bounds import Deadline, FetchLimits
from meta_mage.sync.github import SyncError
from meta_mage.sync.upstream import TOURNAMENTS, CursorLost, FetchFailed, Listing, reset_hint

_PATHSPEC = f"{TOURNAMENTS}/"  # what git lists: the files under Tournaments/
_GITHUB_REMOTE = re.compile(
    r"^(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)([^/]+/[^/]+?)(?:\.git)?/?$"
)


class GitError(SyncError):
    """A ``git`` command failed (not a repository, a cursor commit the clone does not have...)."""


def cursor_name(origin: str | None, path: Path) -> str:
    """The cursor key of a clone: ``owner/name`` for a GitHub remote (shared with ``sync --github``), else the
    remote URL without credentials, else the clone's absolute path."""
    if not origin:
        return str(path.resolve())
    if match := _GITHUB_REMOTE.match(origin):
        return match.group(1)
    parts = urlsplit(origin)
    if parts.scheme and "@" in parts.netloc:
        return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return origin


class LocalClone:
    """The checked-out branch of a clone at ``path``; ``requests`` counts the git commands run."""

    def __init__(self, path: Path, limits: FetchLimits | None = None) -> None:
        self.path = path
        self.limits = limits or FetchLimits()
        self.requests = 0
        self._lock = threading.Lock()  # files are read from several threads
        self._git("rev-parse", "--git-dir")
        origin = self._git("remote", "get-url", "origin", check=False).strip()
        self.name = cursor_name(origin, path)
        self.branch = self._git("rev-parse", "--abbrev-ref", "HEAD").strip()

    @property
    def where(self) -> str:
        return f"--git-dir {self.path}"

    def head(self) -> str:
        return self._git("rev-parse", "HEAD").strip()

    def changes(self, base: str | None, head: str, since: dt.date | None) -> Listing:
        if base is not None:
            if not self._succeeds("cat-file", "-e", f"{base}^{{commit}}"):
                raise CursorLost(
                    f"the sync cursor {base[:12]} is not in the clone at {self.path}: if the clone is behind, "
                    f"'git pull' first; if the history was rewritten (a force-push), {reset_hint(self.where)}"
                )
            # a cursor that is no ancestor of HEAD (a rewritten history) still works: the trees are compared
            return Listing(self._count(f"{base}..{head}"), self._diff(base, head))
        if since is None:
            return Listing(self._count(head), self._tree(head))
        commits = self._git("rev-list", f"--since={since.isoformat()}T00:00:00Z", head).split()
        if not commits:
            return Listing(0, ())
        oldest = commits[-1]
        has_parent = self._succeeds("rev-parse", "--verify", "--quiet", f"{oldest}^")
        return Listing(len(commits), self._diff(f"{oldest}^", head) if has_parent else self._tree(head))

    def read(self, path: str, head: str, deadline: Deadline) -> bytes:
        """The blob at ``head``, refused when larger than ``limits.max_bytes`` (its size is asked first). The
        deadline is not needed: a local read is bounded by its size."""
        size = self._run("cat-file", "-s", f"{head}:{path}")
        if size.returncode:
            raise FetchFailed(path, f"not in commit {head[:12]}", retryable=False)
        if int(size.stdout.strip() or 0) > self.limits.max_bytes:
            raise FetchFailed(path, self.limits.too_large().reason, retryable=False)
        result = self._run("cat-file", "blob", f"{head}:{path}")
        if result.returncode:
            raise FetchFailed(path, f"not in commit {head[:12]}", retryable=False)
        return result.stdout

    def _count(self, revisions: str) -> int:
        return int(self._git("rev-list", "--count", revisions).strip() or 0)

    def _diff(self, base: str, head: str) -> tuple[str, ...]:
        out = self._git("diff", "-z", "--name-only", "--no-renames", "--diff-filter=AM", base, head, "--", _PATHSPEC)
        return tuple(name for name in out.split("\0") if name)

    def _tree(self, head: str) -> tuple[str, ...]:
        out = self._git("ls-tree", "-r", "-z", "--name-only", head, "--", _PATHSPEC)
        return tuple(name for name in out.split("\0") if name)

    def _run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        with self._lock:
            self.requests += 1
        try:
            return subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, check=False)
        except OSError as exc:
            raise GitError(f"cannot run git: {exc.strerror}") from exc

    def _succeeds(self, *args: str) -> bool:
        return self._run(*args).returncode == 0

    def _git(self, *args: str, check: bool = True) -> str:
        result = self._run(*args)
        if check and result.returncode:
            problem = result.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed in {self.path}: {problem[-1] if problem else result.returncode}")
        return result.stdout.decode(errors="surrogateescape")
