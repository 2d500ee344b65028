"""The composition root: from settings, the DynamoDB resource and the AWS clients (S3, SQS, Bedrock), the
repositories, the tool registry and context, the tool executor (MCP or in process) and the coach, each built
once per ``Wiring``.

Every entry point (the CLI, the FastAPI app, the Powertools handlers, the MCP server) builds its pieces
here. Only storage is imported at module level: the ingest function needs nothing more. The tools (the read
side, which the small functions use) are imported when first asked, and the LLM stack (LangChain,
LangGraph) only by ``executor`` and ``coach``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.dynamo import aws_client, dynamodb_resource
from meta_mage.storage.locks import IssuedConversations, LocksRepository, WelcomeMessages
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.objects import DropZoneBucket, FailureQueue

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from meta_mage.agent.conversation import Conversations
    from meta_mage.agent.tools import ToolExecutor
    from meta_mage.decks.coach import DeckCoach
    from meta_mage.ingest.drop_zone import Targets
    from meta_mage.mcp.client import McpToolExecutor
    from meta_mage.tools.context import ToolContext
    from meta_mage.tools.registry import ToolRegistry


T = TypeVar("T")


def _over_table(repository: Callable[[Any], T], setting: str) -> cached_property[T]:
    """A collaborator made on first use: ``repository`` over the table the setting ``setting`` names."""
    return cached_property(lambda wiring: repository(wiring.dynamodb.Table(getattr(wiring.settings, setting))))


def _client(service: str) -> cached_property[Any]:
    """This wiring's boto3 client for ``service``, made on first use."""
    return cached_property(lambda wiring: wiring.aws_client(service))


class Wiring:
    """One process's collaborators over ``settings``; ``dynamodb`` and ``registry`` override (tests)."""

    meta = _over_table(MetaRepository, "meta_table")
    cards = _over_table(CardsRepository, "cards_table")
    drafts = _over_table(DraftsRepository, "drafts_table")
    locks = _over_table(LocksRepository, "locks_table")
    welcome_messages = _over_table(WelcomeMessages, "locks_table")  # the LLM's welcomes, per model, day and catalog
    issued = _over_table(IssuedConversations, "locks_table")  # the conversation ids ``/welcome`` handed out
    s3 = _client("s3")  # the drop zone's uploads and reads
    sqs = _client("sqs")  # the ingest drop zone's failure queue

    def __init__(self, settings: Settings, dynamodb: Any | None = None, registry: ToolRegistry | None = None) -> None:
        self.settings = settings
        self._dynamodb = dynamodb
        self._registry = registry
        self._clients: dict[str, object] = {}

    @cached_property
    def dynamodb(self) -> Any:
        """The DynamoDB service resource every table below is read through."""
        return self._dynamodb or dynamodb_resource(self.settings)

    def aws_client(self, service: str) -> Any:
        """This process's boto3 client for ``service`` in the configured region, made on first use."""
        if service not in self._clients:
            self._clients[service] = aws_client(self.settings, service)
        return self._clients[service]

    @cached_property
    def drop_zone_bucket(self) -> DropZoneBucket:
        return DropZoneBucket(self.s3)

    @cached_property
    def failure_queue(self) -> FailureQueue | None:
        """The ingest failure queue, or None when none is configured."""
        url = self.settings.ingest_failure_queue_url
        return FailureQueue(self.sqs, url) if url else None

    @cached_property
    def registry(self) -> ToolRegistry:
        from meta_mage.tools.registry import build_registry

        return self._registry or build_registry()

    def ingest_targets(self) -> Targets:
        """Fresh repositories for one ingest (the cards repository caches the name index another run may change)."""
        from meta_mage.ingest.drop_zone import Targets

        return Targets.over(self.settings, self.dynamodb)

    @cached_property
    def tool_context(self) -> ToolContext:
        """The services a tool call needs, over the repositories above."""
        from meta_mage.analytics.meta import MetaService
        from meta_mage.drafts.pool import DraftPoolService
        from meta_mage.tools.context import ToolContext

        settings = self.settings

        def catch_alls(fmt: str, names: set[str]) -> set[str]:  # the rules load on the first what-to-play answer
            from meta_mage.archetypes.catch_alls import unnamed_names

            return unnamed_names(get_classifier(settings.archetype_rules_dir).rules_for(fmt), names)

        meta = MetaService(self.meta, settings.min_sample, catch_alls)

        def make_coach() -> DeckCoach:  # on the first deck tool call: the read functions never load it
            from meta_mage.decks.coach import DeckCoach

            return DeckCoach(meta, self.cards, get_classifier(settings.archetype_rules_dir))

        return ToolContext(
            meta=meta,
            make_coach=make_coach,
            cards=self.cards,
            drafts=DraftPoolService(self.drafts),
            timeout_seconds=settings.tool_timeout_seconds,
            cpu_slots=settings.tool_cpu_slots,
        )

    @cached_property
    def remote_tools(self) -> McpToolExecutor | None:
        """The MCP server's tools when ``settings.mcp_url`` is set, else None (the tools run in process)."""
        if not self.settings.mcp_url:
            return None
        from meta_mage.mcp.client import McpToolExecutor

        return McpToolExecutor(self.settings.mcp_url, timeout_seconds=self.settings.tool_timeout_seconds)

    @cached_property
    def executor(self) -> ToolExecutor:
        """Where the agent's tools run: the MCP server's when one is configured, else the registry in process."""
        if self.remote_tools is not None:
            return self.remote_tools
        from meta_mage.agent.tools import in_process_executor

        return in_process_executor(self.registry, self.tool_context)

    def coach(
        self, *, model: Any | None = None, executor: ToolExecutor | None = None, checkpointer: Any | None = None
    ) -> Conversations:
        """The coach over this wiring's tools; ``model``/``executor``/``checkpointer`` override (tests)."""
        from meta_mage.agent.checkpointer import make_checkpointer
        from meta_mage.agent.conversation import Conversations
        from meta_mage.agent.graph import AgentDeps
        from meta_mage.agent.llm import ModelChoice, build_chat_model
        from meta_mage.agent.lookups import Lookups
        from meta_mage.agent.tools import AgentTools

        settings = self.settings
        tools = AgentTools(self.registry, executor or self.executor, settings.tool_timeout_seconds)
        choice = (
            ModelChoice(model, f"LLM: {type(model).__name__}") if model else build_chat_model(settings, self.aws_client)
        )
        deps = AgentDeps(
            settings=settings,
            tools=tools,
            lookups=Lookups(tools),
            model=choice.model,
        )
        return Conversations(deps, checkpointer or make_checkpointer(settings), choice)


def coach_from_settings(
    settings: Settings,
    *,
    dynamodb: Any | None = None,
    model: BaseChatModel | None = None,
    executor: ToolExecutor | None = None,
    registry: ToolRegistry | None = None,
    checkpointer: Any | None = None,
) -> Conversations:
    """The coach wired from settings; ``model``/``executor``/``checkpointer`` override for tests. With
    ``settings.mcp_url`` the tools run on that MCP server; otherwise in process."""
    return Wiring(settings, dynamodb, registry).coach(model=model, executor=executor, checkpointer=checkpointer)
