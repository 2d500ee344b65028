"""The MCP function's ASGI app: uvicorn serves it behind the Lambda Web Adapter
(``uvicorn meta_mage.mcp.function:app``); the MCP endpoint is ``/mcp``, health ``/healthz``."""

from __future__ import annotations

from meta_mage.startup import starting_up

with starting_up():
    from meta_mage.config import get_settings
    from meta_mage.mcp.server import build_mcp_app

    app = build_mcp_app(get_settings())
