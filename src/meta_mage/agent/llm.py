"""The chat model from settings: Bedrock by default, any LangChain provider by "provider:model",
or None for the offline mode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from meta_mage.bedrock import PROVIDERS
from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_client as make_aws_client
from meta_mage.storage.dynamo import aws_region, default_session


@dataclass
class ModelChoice:
    """The model to use (None: offline mode) and a sentence saying which and why."""

    model: BaseChatModel | None
    description: str

    @property
    def offline(self) -> bool:
        return self.model is None


def _has_aws_credentials() -> bool:
    return default_session().get_credentials() is not None


def build_chat_model(settings: Settings, aws_client: Callable[[str], Any] | None = None) -> ModelChoice:
    """Build the configured chat model, or explain why the agent runs offline.

    ``aws_client(service)`` gives the Bedrock clients (``Wiring.aws_client``); by default they are made here.
    """
    spec = settings.model.strip()
    if not spec or spec.lower() == "offline":
        return ModelChoice(None, "offline mode: no model configured (set META_MAGE_MODEL to use an LLM)")
    provider, _, name = spec.partition(":")
    if provider in PROVIDERS and name:
        if provider.startswith("bedrock") and not _has_aws_credentials():
            return ModelChoice(None, f"offline mode: {spec} needs AWS credentials and none were found")
        try:
            from langchain.chat_models import init_chat_model

            model = init_chat_model(
                name,
                model_provider=provider,
                max_tokens=settings.llm_max_tokens,
                temperature=settings.llm_temperature,
            )
        except (ImportError, ValueError) as exc:
            return ModelChoice(None, f"offline mode: cannot load {spec}: {exc}")
        return ModelChoice(model, f"LLM: {spec}")
    if not _has_aws_credentials():
        return ModelChoice(None, f"offline mode: Bedrock model {spec} needs AWS credentials and none were found")
    from langchain_aws import ChatBedrockConverse

    clients = aws_client or (lambda service: make_aws_client(settings, service))
    bedrock = ChatBedrockConverse(
        model=spec,
        region_name=aws_region(settings),
        client=clients("bedrock-runtime"),
        bedrock_client=clients("bedrock"),
        max_tokens=settings.llm_max_tokens,
        temperature=settings.llm_temperature,
    )
    return ModelChoice(bedrock, f"LLM: Amazon Bedrock {spec} in {aws_region(settings)}")
