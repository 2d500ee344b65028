"""Lambda SnapStart: what a process restored from a snapshot must redo before it serves.

A snapshot freezes the process after its init: the AWS clients made then (their connection pools and
credentials) and the random generators' state would be shared by every environment restored from it.
``RestoreHooks.after_restore`` replaces boto3's default session (keeping its parsed service models),
reseeds ``random`` from the OS and calls the app's ``rebuild`` (new clients, repositories and services).
The chat and MCP apps run behind the Lambda Web Adapter, which calls them over HTTP
(``/snapstart/before-checkpoint`` and ``/snapstart/after-restore``; behind the adapter the runtime's own
hooks do not fire); the Powertools functions register the same hooks with the runtime's
``snapshot_restore_py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import boto3
import botocore.session

BEFORE_CHECKPOINT_PATH = "/snapstart/before-checkpoint"
AFTER_RESTORE_PATH = "/snapstart/after-restore"


def reset_process() -> None:
    """Make the next AWS client come from a new boto3 session, and reseed ``random`` from ``os.urandom``.

    The new session keeps the old one's data loader (the parsed service models and endpoints: files, no
    credentials), so a restore does not parse them again; credentials, clients and connections are new."""
    old = boto3.DEFAULT_SESSION
    boto3.DEFAULT_SESSION = None
    if old is not None:
        loader = old._session.get_component("data_loader")
        core = botocore.session.get_session()
        core.register_component("data_loader", loader)
        boto3.setup_default_session(botocore_session=core)
        loader.search_paths[:] = list(dict.fromkeys(loader.search_paths))  # boto3 adds its data path again
    random.seed()


@dataclass
class RestoreHooks:
    """One process's SnapStart hooks. ``after_restore`` acts once per ``before_checkpoint`` (a stray call,
    e.g. a request to the hook's path through the function URL, changes nothing)."""

    rebuild: Callable[[], None]
    snapshot_taken: bool = False
    restores: int = 0

    def before_checkpoint(self) -> None:
        self.snapshot_taken = True

    def after_restore(self) -> bool:
        """Reset the process and rebuild the app's collaborators; False when no snapshot was taken."""
        if not self.snapshot_taken:
            return False
        reset_process()
        self.rebuild()
        self.snapshot_taken = False
        self.restores += 1
        return True


def register_with_runtime(hooks: RestoreHooks) -> bool:
    """Register ``hooks`` with the Lambda Python runtime's ``snapshot_restore_py`` (present on Lambda from
    python3.12, not installed elsewhere); False when it is not there."""
    try:
        from snapshot_restore_py import register_after_restore, register_before_snapshot  # type: ignore[import-not-found]
    except ImportError:
        return False
    register_before_snapshot(hooks.before_checkpoint)
    register_after_restore(hooks.after_restore)
    return True
