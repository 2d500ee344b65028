"""The Lambda Web Adapter's SnapStart hooks (``AWS_LWA_SNAPSTART_*_PATH`` in template.yaml), for the chat app
and the MCP app alike: each keeps its ``RestoreHooks`` on ``app.state.snapstart``."""

from __future__ import annotations

from typing import cast

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from meta_mage.snapstart import AFTER_RESTORE_PATH, BEFORE_CHECKPOINT_PATH, RestoreHooks


def _hooks(request: Request) -> RestoreHooks:
    return cast(RestoreHooks, request.app.state.snapstart)


async def before_checkpoint(request: Request) -> JSONResponse:
    """Called once before Lambda snapshots the initialised process."""
    _hooks(request).before_checkpoint()
    return JSONResponse({"ready": True})


async def after_restore(request: Request) -> JSONResponse:
    """Called in each restored environment before its first request: fresh clients, reseeded randomness."""
    return JSONResponse({"restored": _hooks(request).after_restore()})


ROUTES = [
    Route(BEFORE_CHECKPOINT_PATH, before_checkpoint, methods=["POST"], include_in_schema=False),
    Route(AFTER_RESTORE_PATH, after_restore, methods=["POST"], include_in_schema=False),
]
