"""The local server serves its own page only (docs/security.md): the app ``meta-mage serve`` runs, on real
uvicorn on loopback, refuses another site's form (wrong content type, foreign Origin) and a foreign Host (DNS
rebinding) before any turn runs or anything is stored, and still answers its page, curl and the terminal client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from meta_mage.api.factory import build_app
from meta_mage.config import Settings
from meta_mage.local.chat_client import sse_events
from tests.servers import free_port, serving

MESSAGE = {"message": "What are the top decks?", "context": {"format": "Modern", "days": 30}}
# what a browser sends for <form enctype="text/plain"> with one field named '{"message":"Top decks? ' valued '"}':
# valid JSON of a turn, the "=" inside its message
FORM_BODY = b'{"message":"What are the top decks? ="}'
FOREIGN_ORIGIN = "http://evil.example"


@pytest.fixture(scope="module")
def url(modern_world: dict[str, Any]) -> Iterator[str]:
    with serving(build_app(modern_world["settings"], modern_world["db"], serve_page=True)) as base:
        yield base


@pytest.fixture()
def stored(modern_world: dict[str, Any]) -> Any:
    """How many checkpoint items (stored turns) and lock items there are now."""
    db, settings = modern_world["db"], modern_world["settings"]

    def count() -> tuple[int, int]:
        tables = (settings.checkpoint_table, settings.locks_table)
        return tuple(db.Table(name).scan(Select="COUNT")["Count"] for name in tables)  # type: ignore[return-value]

    return count


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def post_chat(url: str, content: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{url}/chat", content=content, headers=headers, timeout=60)


def test_another_sites_text_plain_form_is_refused_and_stores_nothing(url: str, stored: Any) -> None:
    # Given the checkpoint and lock tables as they are
    before = stored()
    # When another site's page auto-submits a text/plain form to /chat (the browser adds its Origin)
    response = post_chat(url, FORM_BODY, {"content-type": "text/plain", "origin": FOREIGN_ORIGIN})
    # Then it is refused, naming the origin, and no turn ran: nothing stored, no lock taken
    assert response.status_code == 403, response.text
    assert response.json()["error"] == "forbidden_origin" and FOREIGN_ORIGIN in response.json()["message"]
    assert stored() == before


def test_a_form_without_origin_is_refused_by_its_content_type(url: str, stored: Any) -> None:
    """An older browser's form (no Origin) or a script posting text: 415 naming the content type, nothing stored."""
    before = stored()
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        response = post_chat(url, FORM_BODY, {"content-type": content_type})
        assert response.status_code == 415, response.text
        body = response.json()
        assert body["error"] == "unsupported_media_type" and body["field"] == "content-type"
        assert f"Content-Type {content_type} is not accepted; send application/json" in body["message"]
    no_type = httpx.post(f"{url}/chat", content=FORM_BODY, timeout=60)
    assert no_type.status_code == 415 and "Content-Type none" in no_type.json()["message"]
    assert stored() == before


def test_json_from_another_origin_is_refused_before_any_work(url: str, stored: Any) -> None:
    before = stored()
    for origin in (FOREIGN_ORIGIN, "null", f"http://127.0.0.1:{port_of(url) + 1}", f"https://127.0.0.1:{port_of(url)}"):
        response = post_chat(url, json.dumps(MESSAGE).encode(), {"content-type": "application/json", "origin": origin})
        assert response.status_code == 403, (origin, response.text)
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "access-control-allow-origin" not in response.headers
    assert stored() == before


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_json_from_the_pages_own_origin_works_under_each_of_its_names(url: str, host: str) -> None:
    port = port_of(url)
    headers = {"content-type": "application/json", "origin": f"http://{host}:{port}", "host": f"{host}:{port}"}
    response = post_chat(url, json.dumps(MESSAGE).encode(), headers)
    assert response.status_code == 200, response.text
    assert sse_events(response.text)[-1][0] == "done"


def test_json_without_origin_works_as_curl_and_the_terminal_client_send_it(url: str) -> None:
    response = post_chat(url, json.dumps(MESSAGE).encode(), {"content-type": "application/json; charset=utf-8"})
    assert response.status_code == 200 and sse_events(response.text)[-1][0] == "done"
    conversation = sse_events(response.text)[0][1]["conversation_id"]
    assert httpx.get(f"{url}/conversations/{conversation}").status_code == 200


def test_a_foreign_host_is_refused_on_chat_and_on_the_conversation_reads(url: str, stored: Any) -> None:
    # Given a conversation the user had
    first = post_chat(url, json.dumps(MESSAGE).encode(), {"content-type": "application/json"})
    conversation = sse_events(first.text)[0][1]["conversation_id"]
    before = stored()
    # When a page on a rebound name (evil.example resolving to 127.0.0.1) reads or posts, same-origin to itself
    rebound = f"evil.example:{port_of(url)}"
    origin = {"origin": f"http://{rebound}", "host": rebound}
    read = httpx.get(f"{url}/conversations/{conversation}", headers=origin)
    post = post_chat(url, json.dumps(MESSAGE).encode(), {"content-type": "application/json", **origin})
    plain_read = httpx.get(f"{url}/conversations/{conversation}", headers={"host": rebound})
    # Then each is refused, naming the host, and nothing is read or stored
    for response in (read, post, plain_read):
        assert response.status_code == 421, response.text
        body = response.json()
        assert body["error"] == "misdirected_request" and body["field"] == "host" and rebound in body["message"]
        assert conversation not in response.text
    assert stored() == before


def directives(csp: str) -> dict[str, str]:
    return {name: sources for name, _, sources in (d.strip().partition(" ") for d in csp.split(";"))}


def test_the_docs_get_the_pages_frame_and_csp_headers(url: str) -> None:
    page = httpx.get(f"{url}/")
    assert page.headers["x-frame-options"] == "DENY"
    assert directives(page.headers["content-security-policy"])["frame-ancestors"] == "'none'"
    for path in ("/docs", "/docs.js", "/openapi.json"):
        response = httpx.get(f"{url}{path}")
        assert response.status_code == 200, path
        for header in ("x-frame-options", "x-content-type-options", "referrer-policy"):
            assert response.headers[header] == page.headers[header], (path, header)
        policy = directives(response.headers["content-security-policy"])
        # the page's policy; only Swagger UI's icons (data: SVG images) are allowed on top of it
        assert policy == directives(page.headers["content-security-policy"]) | {"img-src": policy["img-src"]}
        assert policy["img-src"] in {"'self'", "'self' data:"}
    assert "<script>" not in httpx.get(f"{url}/docs").text  # no inline script: the CSP allows none


@pytest.mark.parametrize("path", ["/healthz", "/formats", "/drafts", "/welcome", "/openapi.json", "/nowhere"])
def test_json_endpoints_are_nosniff(url: str, path: str) -> None:
    response = httpx.get(f"{url}{path}")
    assert response.headers["content-type"].startswith("application/json"), path
    assert response.headers["x-content-type-options"] == "nosniff", path


def test_allowed_hosts_are_read_once_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("META_MAGE_ALLOWED_HOSTS", " coach.lan, Coach.Example:8443 ,")
    assert Settings().allowed_hosts == ("coach.lan", "Coach.Example:8443")


def test_the_configured_host_and_allowed_hosts_are_answered(modern_world: dict[str, Any]) -> None:
    """``serve --host 0.0.0.0`` makes its page's origin http://0.0.0.0:PORT (the CORS origin); a name in
    META_MAGE_ALLOWED_HOSTS is answered at any port, one with a port at that port only."""
    port = free_port()
    settings = modern_world["settings"].model_copy(
        update={"cors_origin": f"http://0.0.0.0:{port}", "allowed_hosts": ("coach.lan", "coach.example:8443")}
    )
    body = json.dumps(MESSAGE).encode()
    with serving(build_app(settings, modern_world["db"], serve_page=True), port) as url:
        for host, status in [
            (f"0.0.0.0:{port}", 200),
            (f"coach.lan:{port}", 200),
            ("coach.lan", 200),
            ("coach.example:8443", 200),
            (f"coach.example:{port}", 421),
            (f"0.0.0.0:{port + 1}", 421),
        ]:
            headers = {"content-type": "application/json", "host": host, "origin": f"http://{host}"}
            assert post_chat(url, body, headers).status_code == status, host
        # the configured origin may call from any of the server's names (a page served at 0.0.0.0 calling 127.0.0.1)
        configured = {"content-type": "application/json", "origin": f"http://0.0.0.0:{port}"}
        assert post_chat(url, body, configured).status_code == 200
