"""What keeps other sites off the local server (see docs/security.md): ``OwnOriginOnly`` answers only requests
sent to one of the server's own host names and, from a browser, only those its own page (or the configured
CORS origin) made; ``SecurityHeaders`` puts nosniff on every response and the page's frame and CSP headers on
the pages that run script. Both are ASGI middleware, so a refusal comes before any route runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from meta_mage.api.middleware import HttpMiddleware
from meta_mage.config import Settings
from meta_mage.errors import MetaMageError, clip

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
ANY_PORT = -1


class ForeignOrigin(MetaMageError):
    code = "forbidden_origin"


class ForeignHost(MetaMageError):
    code = "misdirected_request"


@dataclass(frozen=True)
class HostPort:
    """A host name (lower case, an IPv6 address in brackets) and a port."""

    name: str
    port: int

    def __str__(self) -> str:
        return self.name if self.port == ANY_PORT else f"{self.name}:{self.port}"


def parse_host(value: str, default_port: int) -> HostPort | None:
    """``name[:port]`` as a Host header or an ``allowed_hosts`` entry writes it; None when it is not one."""
    value = value.strip().lower()
    name, colon, port = value.rpartition(":") if not value.endswith("]") else (value, "", "")
    if not colon:
        name, port = value, ""
    if not name or (port and not port.isdigit()) or any(c in name for c in "/@?#\\ "):
        return None
    return HostPort(name, int(port) if port else default_port)


def parse_origin(value: str) -> tuple[str, HostPort] | None:
    """The scheme, host and port an ``Origin`` (``scheme://host[:port]``) names; None for ``null`` or a
    malformed one."""
    try:
        parts = urlsplit(value.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in {"", "/"}:
        return None
    name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return parts.scheme, HostPort(name, port if port is not None else DEFAULT_PORTS[parts.scheme])


def _own_address(scope: Scope) -> HostPort:
    """The address this request's connection reached (uvicorn: the socket's local address)."""
    host, port = scope.get("server") or ("127.0.0.1", None)
    name = f"[{host}]" if ":" in host else host
    return HostPort(name.lower(), port if port is not None else DEFAULT_PORTS.get(scope.get("scheme", "http"), 80))


def _refusal(status: int, error: MetaMageError) -> JSONResponse:
    return JSONResponse(error.to_dict(), status_code=status, headers={"x-content-type-options": "nosniff"})


class OwnOriginOnly(HttpMiddleware):
    """Refuse, before the app runs, a request whose ``Host`` is not one of the server's own (421: DNS
    rebinding) and one whose ``Origin`` is neither the host it was sent to nor ``settings.cors_origin`` (403: a
    page on another site). A request without ``Origin`` (curl, the terminal client) is not a browser's
    cross-site request and passes."""

    def __init__(self, app: ASGIApp, *, settings: Settings) -> None:
        super().__init__(app)
        configured = [parse_host(entry, ANY_PORT) for entry in settings.allowed_hosts]
        self.configured_origin = parse_origin(settings.cors_origin) if settings.cors_origin != "*" else None
        self.extra_hosts = [host for host in configured if host is not None]
        if self.configured_origin is not None:
            self.extra_hosts.append(self.configured_origin[1])

    def own_hosts(self, scope: Scope) -> list[HostPort]:
        own = _own_address(scope)
        names = dict.fromkeys([*LOOPBACK_NAMES, own.name])
        return [HostPort(name, own.port) for name in names] + self.extra_hosts

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> JSONResponse | None:
        headers = Headers(scope=scope)
        host_header = headers.get("host", "")
        scheme = scope.get("scheme", "http")
        host = parse_host(host_header, DEFAULT_PORTS.get(scheme, 80))  # no port: the scheme's, as in a URL
        if host is None or not any(_matches(host, allowed) for allowed in self.own_hosts(scope)):
            own = _own_address(scope)
            return _refusal(
                421,
                ForeignHost(
                    f"Host {clip(host_header) or '(none)'} is not one this server answers to (such as "
                    f"127.0.0.1:{own.port} or localhost:{own.port}); add it to META_MAGE_ALLOWED_HOSTS to serve it",
                    field="host",
                ),
            )
        origin_header = headers.get("origin")
        if origin_header is None:
            return None
        origin = parse_origin(origin_header)
        if origin is not None and origin in {(scheme, host), self.configured_origin}:
            return None
        return _refusal(
            403,
            ForeignOrigin(
                f"Origin {clip(origin_header)} is not this server's page ({scheme}://{host}); a page on another "
                "site cannot use this server",
                field="origin",
            ),
        )


def _matches(host: HostPort, allowed: HostPort) -> bool:
    return host.name == allowed.name and allowed.port in {ANY_PORT, host.port}


def frame_and_script_headers(csp: str) -> dict[str, str]:
    """The headers of a page that runs script: its CSP, no framing by any site, no sniffing, no referrer."""
    return {
        "content-security-policy": csp,
        "x-frame-options": "DENY",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
    }


class SecurityHeaders(HttpMiddleware):
    """Add ``X-Content-Type-Options: nosniff`` to every response, and ``by_path``'s headers to the responses
    of those paths; a header the route set itself is kept."""

    def __init__(self, app: ASGIApp, *, by_path: Mapping[str, Mapping[str, str]]) -> None:
        super().__init__(app)
        self.by_path = by_path

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        extra = {"x-content-type-options": "nosniff", **self.by_path.get(scope["path"], {})}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
