"""``GET /``: the local server's chat page, its vendored browser libraries and its icon (none of them in
the OpenAPI document)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from meta_mage.api.guards import frame_and_script_headers
from meta_mage.errors import NotFound

STATIC = Path(__file__).parents[1] / "static"
PAGE = STATIC / "index.html"
VENDOR = STATIC / "vendor"
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" '
    'fill="#3b2a6b"/><path d="M32 8 40 28 56 32 40 36 32 56 24 36 8 32 24 28Z" fill="#f2c14e"/></svg>'
)

router = APIRouter()


# The page loads nothing but its own files: no inline script or style, no other origin, no plugins, no framing.
PAGE_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "media-src": "'none'",
    "frame-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
# /docs: the same, except that Swagger UI's stylesheet draws its icons as data: SVG images (an image runs no script)
DOCS_POLICY = PAGE_POLICY | {"img-src": "'self' data:"}


def content_security_policy(policy: dict[str, str]) -> str:
    return "; ".join(f"{directive} {sources}" for directive, sources in policy.items())


CONTENT_SECURITY_POLICY = content_security_policy(PAGE_POLICY)
PAGE_HEADERS = frame_and_script_headers(CONTENT_SECURITY_POLICY)
DOCS_HEADERS = frame_and_script_headers(content_security_policy(DOCS_POLICY))
PAGE_FILES = ("chat.js", "charts.js", "chat.css")  # the page's own scripts and styles, beside it in static/


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page() -> HTMLResponse:
    return HTMLResponse(PAGE.read_text(encoding="utf-8"), headers=PAGE_HEADERS)


MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}


@router.get("/static/{name}", include_in_schema=False)
def page_file(name: str) -> FileResponse:
    """The page's own script or styles."""
    if name not in PAGE_FILES:
        raise NotFound(f"no page file {name!r}", field="name")
    path = STATIC / name
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers={"x-content-type-options": "nosniff"})


@router.get("/static/vendor/{name}", include_in_schema=False)
def vendored(name: str) -> FileResponse:
    """One of the pinned libraries in ``static/vendor`` (scripts and styles only; nothing outside the folder)."""
    path = VENDOR / name
    if "/" in name or path.suffix not in MEDIA_TYPES or not path.is_file():
        raise NotFound(f"no vendored file {name!r}", field="name")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers={"cache-control": "public, max-age=86400"})


# Swagger UI started by a script of its own (/docs.js), not an inline one: the page's CSP then holds for /docs too
DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MTG Meta Mage API</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/vendor/swagger-ui-5.35.0.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/static/vendor/swagger-ui-bundle-5.35.0.js"></script>
<script src="/docs.js"></script>
</body>
</html>
"""
DOCS_SCRIPT = """SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
"""
# the responses SecurityHeaders gives a page's headers: every page that runs script, and the document /docs reads
PAGE_HEADERS_BY_PATH = {
    "/": PAGE_HEADERS,
    "/docs": DOCS_HEADERS,
    "/docs.js": DOCS_HEADERS,
    "/openapi.json": PAGE_HEADERS,
}


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
def docs() -> HTMLResponse:
    """Swagger UI for ``/openapi.json`` from the packaged copy (``static/vendor``), under the page's CSP."""
    return HTMLResponse(DOCS_PAGE, headers=DOCS_HEADERS)


@router.get("/docs.js", include_in_schema=False)
def docs_script() -> Response:
    return Response(DOCS_SCRIPT, media_type="text/javascript", headers=DOCS_HEADERS)


@router.get("/favicon.ico", include_in_schema=False)
@router.get("/favicon.svg", include_in_schema=False)
def favicon() -> Response:
    return Response(ICON, media_type="image/svg+xml", headers={"cache-control": "public, max-age=86400"})
