"""The tool registry as an MCP server (``server``), its Lambda entry (``function``), and the agent's
MCP client (``client``). Holds only shared names, so each part pulls in only what it needs."""

MCP_PATH = "/mcp"
