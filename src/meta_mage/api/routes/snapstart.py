"""The Lambda Web Adapter's SnapStart hooks (``AWS_LWA_SNAPSTART_*_PATH`` in template.yaml)."""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter, Request

from meta_mage.snapstart import AFTER_RESTORE_PATH, BEFORE_CHECKPOINT_PATH, RestoreHooks

router = APIRouter(include_in_schema=False)


def _hooks(request: Request) -> RestoreHooks:
    return cast(RestoreHooks, request.app.state.snapstart)


@router.post(BEFORE_CHECKPOINT_PATH)
def before_checkpoint(request: Request) -> dict[str, bool]:
    """Called once before Lambda snapshots the initialised process."""
    _hooks(request).before_checkpoint()
    return {"ready": True}


@router.post(AFTER_RESTORE_PATH)
def after_restore(request: Request) -> dict[str, bool]:
    """Called in each restored environment before its first request: fresh clients, reseeded randomness."""
    return {"restored": _hooks(request).after_restore()}
