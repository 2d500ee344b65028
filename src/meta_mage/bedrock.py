"""One-shot text from Amazon Bedrock's Converse API through boto3 alone, for the small functions
(the welcome message) that must not load LangChain, nor the agent. ``agent/llm.py`` reads model ids with the
same ``PROVIDERS``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

BEDROCK_ERRORS: tuple[type[Exception], ...] = (ClientError, BotoCoreError)  # what a Bedrock call raises


def bedrock_error_reason(exc: Exception) -> str:
    """One line for a Bedrock error ("AccessDeniedException: ..."), the code and message when the service sent them."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        return f"{error.get('Code', 'error')}: {error.get('Message', str(exc))}"
    return str(exc)


# Providers LangChain's init_chat_model accepts as "provider:model". Anything else with a colon is a
# Bedrock model or inference profile id ("us.anthropic.claude-haiku-4-5-20251001-v1:0").
PROVIDERS = {
    "openai", "anthropic", "azure_openai", "azure_ai", "google_vertexai", "google_genai", "bedrock",
    "bedrock_converse", "cohere", "fireworks", "together", "mistralai", "huggingface", "groq", "ollama",
    "google_anthropic_vertex", "deepseek", "ibm", "nvidia", "xai", "perplexity",
}  # fmt: skip


def bedrock_model_id(spec: str) -> str | None:
    """The Bedrock model id named by a ``META_MAGE_MODEL`` value, or None (offline or another provider)."""
    spec = spec.strip()
    if not spec or spec.lower() == "offline":
        return None
    provider, _, name = spec.partition(":")
    if provider in PROVIDERS and name:
        return name if provider.startswith("bedrock") else None
    return spec


@dataclass(frozen=True)
class TextReply:
    """The model's reply, shaped like a LangChain message where callers read it (``.content``)."""

    content: str


class BedrockText:
    """Just enough of a chat model for a single prompt: ``invoke(prompt)`` through Bedrock Converse."""

    def __init__(self, model_id: str, *, max_tokens: int, temperature: float, client: Any | None = None) -> None:
        self.model_id = model_id
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.client = client or boto3.client("bedrock-runtime")

    def invoke(self, prompt: str) -> TextReply:
        """Send one user message and return the text of the answer."""
        response = self.client.converse(
            modelId=self.model_id,
            messages=[{"role": "user", "content": [{"text": prompt}]}],
            inferenceConfig={"maxTokens": self.max_tokens, "temperature": self.temperature},
        )
        blocks = response["output"]["message"]["content"]
        return TextReply("".join(block.get("text", "") for block in blocks))


GEO_PREFIXES = ("us.", "eu.", "apac.", "us-gov.", "global.", "jp.", "au.", "ca.")  # cross-region inference profiles


def model_access(bedrock: Any, model_id: str) -> str:
    """One line on the model or inference profile ``model_id`` as Bedrock's control plane sees it; raises
    one of ``BEDROCK_ERRORS`` (AccessDenied, ResourceNotFound, ValidationException) when it is not usable."""
    if model_id.startswith(GEO_PREFIXES):
        profile = bedrock.get_inference_profile(inferenceProfileIdentifier=model_id)
        regions = sorted(
            {arn.split(":")[3] for arn in (m.get("modelArn", "") for m in profile.get("models", [])) if arn}
        )
        return (
            f"inference profile {model_id}: {profile.get('status', 'unknown status')}, routes to "
            f"{', '.join(regions) or 'no region listed'}"
        )
    details = bedrock.get_foundation_model(modelIdentifier=model_id).get("modelDetails", {})
    lifecycle = details.get("modelLifecycle", {}).get("status", "unknown status")
    streaming = "streams" if details.get("responseStreamingSupported") else "does not stream"
    return f"foundation model {model_id}: {lifecycle}, {streaming}"
