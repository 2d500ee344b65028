"""The registry: the catalog's tools (``tools/catalog``) by name, and validated calls."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from meta_mage.deadline import check_deadline
from meta_mage.errors import InvalidArgument
from meta_mage.models.json import JsonObject
from meta_mage.tools.context import ToolContext
from meta_mage.tools.tool import Tool

__all__ = ["FamilyRegistry", "Tool", "ToolRegistry", "build_registry", "invalid_argument"]


def invalid_argument(exc: ValidationError) -> InvalidArgument:
    """The first validation problem as an error that names the field."""
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or None
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unexpected argument"
    elif first["type"] == "missing":
        message = "required argument is missing"
    return InvalidArgument(f"{field}: {message}" if field else message, field=field)


class ToolRegistry:
    """The catalog plus validated calls."""

    def __init__(self, tools: list[Tool[Any]]) -> None:
        self.tools: dict[str, Tool[Any]] = {tool.name: tool for tool in tools}

    def names(self) -> list[str]:
        return list(self.tools)

    def get(self, name: str) -> Tool[Any]:
        if name not in self.tools:
            raise InvalidArgument(
                f"unknown tool {name!r}; tools: {', '.join(self.tools)}", field="tool", allowed=list(self.tools)
            )
        return self.tools[name]

    def catalog(self) -> list[JsonObject]:
        return [tool.catalog_entry() for tool in self.tools.values()]

    def call(self, name: str, arguments: JsonObject | None, context: ToolContext) -> JsonObject:
        """Validate ``arguments`` like user input, run the tool, return its JSON-able output."""
        return self.run(name, arguments, context).model_dump(mode="json")

    def run(self, name: str, arguments: JsonObject | None, context: ToolContext) -> BaseModel:
        """Validate ``arguments`` like user input, run the tool, return its output model (in process; JSON
        only at the MCP and HTTP boundaries)."""
        tool = self.get(name)
        check_deadline()  # a call that waited past its deadline for a worker does not start
        if arguments is not None and not isinstance(arguments, dict):
            raise InvalidArgument("arguments must be a JSON object", field="arguments")
        try:
            params = tool.input_model.model_validate(arguments or {})
        except ValidationError as exc:
            raise invalid_argument(exc) from None
        output: BaseModel = tool.run(context, params)
        return output


def build_registry() -> ToolRegistry:
    """The project's tool catalog: every record of ``tools/catalog``."""
    from meta_mage.tools.catalog import TOOLS

    return ToolRegistry(list(TOOLS.values()))


class FamilyRegistry(ToolRegistry):
    """The catalog with each family (``tools/catalog/<family>.py``) imported when one of its tools is first
    asked for: a read function that lists formats never imports deck coaching."""

    def __init__(self) -> None:
        super().__init__([])
        self._loaded: set[str] = set()

    def _load(self, family: str) -> None:
        from meta_mage.tools.catalog import family_tools

        if family not in self._loaded:
            self._loaded.add(family)
            self.tools.update((tool.name, tool) for tool in family_tools(family))

    def _load_all(self) -> None:
        from meta_mage.tools.catalog import FAMILIES, family_tools

        for family in FAMILIES:
            self._load(family)
        catalog_order = [tool.name for family in FAMILIES for tool in family_tools(family)]
        self.tools = {name: self.tools[name] for name in catalog_order}

    def get(self, name: str) -> Tool[Any]:
        from meta_mage.tools.catalog import FAMILY_OF

        if name in FAMILY_OF:
            self._load(FAMILY_OF[name])
        else:
            self._load_all()  # an unknown name: the error lists every tool
        return super().get(name)

    def names(self) -> list[str]:
        self._load_all()
        return super().names()

    def catalog(self) -> list[JsonObject]:
        self._load_all()
        return super().catalog()
