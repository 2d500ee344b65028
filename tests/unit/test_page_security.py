"""The chat page loads only its own files: no inline script or style, a Content-Security-Policy that allows
nothing else, and only its own two files served beside it."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from meta_mage.api.chat_app import domain_error
from meta_mage.api.routes.page import PAGE, STATIC, router
from meta_mage.errors import MetaMageError


def client() -> TestClient:
    app = FastAPI()
    app.include_router(router)
    app.exception_handler(MetaMageError)(domain_error)
    return TestClient(app)


def test_the_page_has_no_inline_script_or_style_and_a_policy_that_allows_only_itself() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)", page) and "<style" not in page and " style=" not in page
    assert not re.search(r"\son[a-z]+=", page)  # no inline event handlers either

    response = client().get("/")

    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "object-src 'none'" in policy and "media-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"


def test_only_the_pages_own_files_are_served_beside_it() -> None:
    web = client()
    own_files = (("chat.js", "text/javascript"), ("charts.js", "text/javascript"), ("chat.css", "text/css"))
    for name, media_type in own_files:
        response = web.get(f"/static/{name}")
        assert response.status_code == 200 and response.headers["content-type"].startswith(media_type)
        assert response.content == (STATIC / name).read_bytes()
    for name in ("index.html", "..%2Fconfig.py", "vendor"):
        assert web.get(f"/static/{name}").status_code == 404, name
