"""Where a sync reads from: a GitHub repository (:class:`GitHubUpstream`) or a local clone (``sync/git.py``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from meta_mage.sync.bounds import BadFile, Deadline, FetchLimits, TimedOut
from meta_mage.sync.github import ChangedFile, Commit, GitHubClient, GitHubError, SyncError

TOURNAMENTS = "Tournaments"  # the folder of tournament files in the MTGODecklistCache layout
KEPT_STATUSES = frozenset({"added", "modified", "renamed", "copied"})  # a file whose contents are at the head


@dataclass(frozen=True)
class Listing:
    """What changed between a sync's base and head: the number of commits and the paths still present."""

    commits: int
    paths: tuple[str, ...]


class FetchFailed(Exception):
    """A file could not be read; ``retryable`` unless it is certainly absent (a retry would fail again)."""

    def __init__(self, path: str, reason: str, *, retryable: bool) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.retryable = retryable


class CursorLost(SyncError):
    """The cursor's commit is no longer in the branch's history (a force-push): only a reset can go on."""

    code = "sync_cursor_lost"


def reset_hint(where: str) -> str:
    """The command that clears the cursor and syncs again from a date."""
    return (
        f"run 'meta-mage sync {where} --reset --since YYYY-MM-DD' to sync again from that date "
        "(files already stored report unchanged)"
    )


class Upstream(Protocol):
    """A repository of tournament files, read at a pinned commit."""

    @property
    def name(self) -> str:
        """The cursor's repository key (``owner/name`` for GitHub)."""

    @property
    def branch(self) -> str: ...

    @property
    def requests(self) -> int:
        """Requests (or commands) made so far."""

    @property
    def limits(self) -> FetchLimits:
        """The bounds of each file read."""

    @property
    def where(self) -> str:
        """The ``meta-mage sync`` option naming this upstream (``--github OWNER/REPO``, ``--git-dir PATH``)."""

    def head(self) -> str:
        """The newest commit of the branch."""

    def changes(self, base: str | None, head: str, since: dt.date | None) -> Listing:
        """Files added or modified after ``base`` up to ``head``; with no base, by the commits since ``since``."""

    def read(self, path: str, head: str, deadline: Deadline) -> bytes:
        """``path``'s contents at ``head`` (at most ``limits.max_bytes``) read by ``deadline``, or ``FetchFailed``."""


def present_paths(files: Iterable[ChangedFile]) -> tuple[str, ...]:
    """Paths added or modified by ``files`` (in commit order) that no later change removed or renamed away."""
    present: dict[str, None] = {}
    for file in files:
        if file.status == "removed":
            present.pop(file.filename, None)
        elif file.status == "renamed" and file.previous_filename:
            present.pop(file.previous_filename, None)
        if file.status in KEPT_STATUSES:
            present[file.filename] = None
    return tuple(present)


class GitHubUpstream:
    """A branch of a GitHub repository, through :class:`GitHubClient`."""

    def __init__(self, client: GitHubClient, branch: str = "main") -> None:
        self.client = client
        self.branch = branch
        self.name = client.repository
        self.limits: FetchLimits = client.limits

    @property
    def requests(self) -> int:
        return self.client.requests

    @property
    def where(self) -> str:
        return f"--github {self.name}" + (f" --branch {self.branch}" if self.branch != "main" else "")

    def head(self) -> str:
        return self.client.head(self.branch).sha

    def changes(self, base: str | None, head: str, since: dt.date | None) -> Listing:
        if base is not None:
            try:
                return self._compared(base, head)
            except GitHubError as exc:
                if exc.status != 404:
                    raise
                # the head was just read, so the base is what GitHub cannot find: the history was rewritten
                raise CursorLost(
                    f"the sync cursor {base[:12]} is not in the history of {self.name} {self.branch} "
                    f"(a force-push?): {reset_hint(self.where)}"
                ) from exc
        if since is None:
            raise SyncError(f"{self.name} has no sync cursor yet: give the date the first sync starts from")
        commits = self.client.commits_since(head, dt.datetime.combine(since, dt.time(), dt.UTC))
        if not commits:
            return Listing(0, ())
        oldest = commits[-1].parent
        if oldest is None:  # the repository's first commit is among them
            return self._per_commit(list(reversed(commits)))
        listing = self._compared(oldest, head)
        return Listing(len(commits), listing.paths)

    def read(self, path: str, head: str, deadline: Deadline) -> bytes:
        try:
            return self.client.raw(head, path, deadline)
        except BadFile as exc:
            raise FetchFailed(path, exc.reason, retryable=False) from exc
        except TimedOut as exc:
            raise FetchFailed(path, exc.reason, retryable=True) from exc
        except GitHubError as exc:
            raise FetchFailed(path, exc.message, retryable=exc.status != 404) from exc

    def _compared(self, base: str, head: str) -> Listing:
        comparison = self.client.compare(base, head)
        if comparison.truncated:
            return self._per_commit(list(comparison.commits))
        return Listing(comparison.total_commits, present_paths(comparison.files))

    def _per_commit(self, commits: list[Commit]) -> Listing:
        """Each commit's own file list (oldest first): a comparison lists at most 300 files."""
        files = [file for commit in commits for file in self.client.commit_files(commit.sha)]
        return Listing(len(commits), present_paths(files))
