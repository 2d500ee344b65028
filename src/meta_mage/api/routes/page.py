"""``GET /``: the local server's chat page (not in the OpenAPI document)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

PAGE = Path(__file__).parents[1] / "static" / "index.html"

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page() -> str:
    return PAGE.read_text(encoding="utf-8")
