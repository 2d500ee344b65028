"""``GET /``: the local server's chat page, its vendored browser libraries and its icon (none of them in
the OpenAPI document)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from meta_mage.errors import NotFound

STATIC = Path(__file__).parents[1] / "static"
PAGE = STATIC / "index.html"
VENDOR = STATIC / "vendor"
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" '
    'fill="#3b2a6b"/><path d="M32 8 40 28 56 32 40 36 32 56 24 36 8 32 24 28Z" fill="#f2c14e"/></svg>'
)

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


@router.get("/static/vendor/{name}", include_in_schema=False)
def vendored(name: str) -> FileResponse:
    """One of the pinned libraries in ``static/vendor`` (JavaScript only; nothing outside the folder)."""
    path = VENDOR / name
    if not name.endswith(".js") or "/" in name or not path.is_file():
        raise NotFound(f"no vendored file {name!r}", field="name")
    return FileResponse(path, media_type="text/javascript", headers={"cache-control": "public, max-age=86400"})


@router.get("/favicon.ico", include_in_schema=False)
@router.get("/favicon.svg", include_in_schema=False)
def favicon() -> Response:
    return Response(ICON, media_type="image/svg+xml", headers={"cache-control": "public, max-age=86400"})
