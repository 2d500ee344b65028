"""The tool registry: one catalog of typed tools, used in process, from the CLI and over MCP."""

from meta_mage.tools.registry import Tool, ToolRegistry, build_registry

__all__ = ["Tool", "ToolRegistry", "build_registry"]
