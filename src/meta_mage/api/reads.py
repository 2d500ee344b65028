"""The read endpoints' logic (formats, archetypes, drafts, a draft's pool, welcome), shared by the
FastAPI app and the small Powertools functions. Imports no LLM library."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from meta_mage.api.bodies import FormatsBody, WelcomeBody
from meta_mage.errors import InvalidArgument, NotFound, clip, echo
from meta_mage.models.json import JsonObject
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import ToolRegistry
from meta_mage.tools.tool import R, Tool

if TYPE_CHECKING:  # the models load with the tool family that answers
    from meta_mage.api.welcome import MessageStore
    from meta_mage.models.archetype_page import ArchetypePageOutput
    from meta_mage.models.drafts import DraftPoolResult, ListDraftsOutput
    from meta_mage.models.meta import ArchetypesOutput


def single_values(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Query parameters by name; InvalidArgument naming one given more than once (``?format=A&format=B``:
    which one was meant is a guess, so neither is taken)."""
    pairs = list(pairs)
    repeated = sorted(name for name, count in Counter(name for name, _ in pairs).items() if count > 1)
    if repeated:
        name = repeated[0]
        raise InvalidArgument(f"{clip(name)}: given more than once; give it once", field=name)
    return dict(pairs)


def reject_query(query: Mapping[str, str] | None) -> None:
    """An endpoint without parameters refuses any, like the tools refuse unexpected arguments."""
    if query:
        name = sorted(query)[0]
        raise InvalidArgument(f"{clip(name)}: unexpected argument (this endpoint takes no parameters)", field=name)


class ReadApi:
    """Each method is one GET endpoint: validated like tool input, answered from the tools."""

    def __init__(
        self,
        registry: ToolRegistry,
        context: ToolContext,
        catalog: Callable[[], list[JsonObject]] | None = None,
        welcome_messages: MessageStore | None = None,
    ) -> None:
        self.registry = registry
        self.context = context
        self.catalog = catalog or registry.catalog
        self.welcome_messages = welcome_messages  # where a model's welcome is kept (storage.locks.WelcomeMessages)

    def _run(self, tool: Tool[R, Any], arguments: Mapping[str, str]) -> R:
        """``tool`` run through the registry (the query validated like tool input), as its output model."""
        return tool.output(self.registry.run(tool.name, dict(arguments), self.context))

    def _check_names(self, tool: str, query: Mapping[str, str], path: frozenset[str] = frozenset()) -> None:
        """Refuse a query parameter the tool does not take, naming it (cut short: it is the client's text)."""
        allowed = [name for name in self.registry.get(tool).input_model.model_fields if name not in path]
        unknown = sorted(set(query) - set(allowed) - path)
        if unknown:
            name = unknown[0]
            raise InvalidArgument(
                f"{clip(name)}: unexpected argument; allowed: {', '.join(allowed)}", field=name, allowed=allowed
            )

    def formats(self, query: Mapping[str, str] | None = None) -> FormatsBody:
        """``GET /formats``: the formats with data, and their date ranges and counts."""
        from meta_mage.tools.catalog.meta import LIST_FORMATS  # the family the call loads

        reject_query(query)
        listed = self._run(LIST_FORMATS, {}).formats
        return FormatsBody(formats=[f.format for f in listed], details=listed)

    def archetypes(self, query: Mapping[str, str]) -> ArchetypesOutput:
        """``GET /archetypes?format=X[&days=N]``."""
        if not query.get("format"):
            raise InvalidArgument("format: required query parameter is missing", field="format")
        from meta_mage.tools.catalog.meta import ARCHETYPES  # the family the call loads

        self._check_names(ARCHETYPES.name, query)
        return self._run(ARCHETYPES, query)

    def archetype_page(self, archetype: str, query: Mapping[str, str]) -> ArchetypePageOutput:
        """``GET /archetypes/{archetype}/page?format=X[&days=N]``: ``get_archetype_page`` (the archetype by name or
        id, e.g. ``boros-energy``)."""
        if "archetype" in query:
            raise InvalidArgument("archetype: give it in the path, not the query", field="archetype")
        if not query.get("format"):
            raise InvalidArgument("format: required query parameter is missing", field="format")
        from meta_mage.tools.catalog.decks import ARCHETYPE_PAGE  # the family the call loads

        self._check_names(ARCHETYPE_PAGE.name, query, frozenset({"archetype"}))
        return self._run(ARCHETYPE_PAGE, {**query, "archetype": archetype})

    def drafts(self, query: Mapping[str, str] | None = None) -> ListDraftsOutput:
        """``GET /drafts``."""
        from meta_mage.tools.catalog.drafts import LIST_DRAFTS  # the family the call loads

        reject_query(query)
        return self._run(LIST_DRAFTS, {})

    def draft_pool(self, draft_id: str, query: Mapping[str, str]) -> DraftPoolResult:
        """``GET /drafts/{draft_id}/pool`` with ``get_draft_pool``'s parameters as query strings."""
        if "draft_id" in query:
            raise InvalidArgument("draft_id: give it in the path, not the query", field="draft_id")
        from meta_mage.tools.catalog.drafts import DRAFT_POOL  # the family the call loads

        self._check_names(DRAFT_POOL.name, query, frozenset({"draft_id"}))
        return self._run(DRAFT_POOL, {**query, "draft_id": draft_id})

    def check_draft(self, draft_id: str, field: str = "draft_id") -> None:
        """NotFound (listing the known ids) unless ``draft_id`` is an imported draft."""
        known = sorted(d.draft_id for d in self.drafts().drafts)
        if draft_id not in known:
            raise NotFound(
                f"{field}: unknown draft {echo(draft_id)}; known drafts: {', '.join(known) or 'none'}",
                field=field,
                allowed=known,
            )

    def welcome(self, model: Any | None = None, max_tokens: int = 300) -> WelcomeBody:
        """The /welcome body (without a conversation id); its tool catalog from ``catalog`` (default: the
        registry's; the chat app passes the MCP server's when one is configured)."""
        formats = self.formats().formats
        from meta_mage.api.welcome import build_welcome  # the welcome function's only: the others skip it

        return build_welcome(self.catalog(), formats, model, max_tokens=max_tokens, store=self.welcome_messages)
