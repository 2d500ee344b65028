#!/bin/bash
# The MCP function's handler: the Lambda Web Adapter runs this script, waits for uvicorn on $PORT and
# forwards each function-URL request to the MCP server (stateless streamable HTTP, JSON responses).
export PYTHONPATH="/opt/python:${PYTHONPATH:-}"
exec python -m uvicorn meta_mage.mcp.function:app --host 127.0.0.1 --port "${PORT:-8080}" --no-access-log
