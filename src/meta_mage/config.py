"""Typed settings, read once from the environment (prefix ``META_MAGE_``)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEMO_DATA_DIR = Path(__file__).parent / "demo_data"
DEFAULT_DAYS = 30  # the one default window: the page's Days box starts at it, `ask` and `demo` use and say it
REPOSITORY_PATTERN = r"^[\w.-]+/[\w.-]+$"  # a GitHub repository to sync: OWNER/NAME


class Settings(BaseSettings):
    """Deployment settings. Table names match the logical ids of ``template.yaml``."""

    model_config = SettingsConfigDict(env_prefix="META_MAGE_", extra="ignore")

    meta_table: str = "meta-mage-meta"
    cards_table: str = "meta-mage-cards"
    drafts_table: str = "meta-mage-drafts"
    checkpoint_table: str = "meta-mage-checkpoints"
    locks_table: str = "meta-mage-locks"
    # None: the SDK's own choice (AWS_DEFAULT_REGION, the profile), else us-east-1 (see storage.dynamo.aws_region)
    aws_region: str | None = Field(
        default=None, validation_alias=AliasChoices("META_MAGE_AWS_REGION", "AWS_REGION", "AWS_DEFAULT_REGION")
    )
    archetype_rules_dir: Path = DEMO_DATA_DIR / "archetypes"
    min_sample: int = Field(default=20, ge=1, description="Matches below which a win rate is noise")

    # The agent. ``model`` empty (or "offline") runs the offline mode; a bare id is a Bedrock model
    # id for ChatBedrockConverse; "provider:model" goes to LangChain's init_chat_model.
    model: str = ""
    llm_max_tokens: int = Field(default=2048, ge=64, le=32_000)
    llm_temperature: float = Field(default=0.2, ge=0, le=1)
    router_confidence_threshold: float = Field(default=0.6, ge=0, le=1)
    rules_route_at: float = Field(
        default=0.7,
        ge=0,
        le=1.01,
        description="With a model: the rules route a message themselves at this confidence or above (no model "
        "request); below it the model routes",
    )
    conversation_ttl_seconds: int = Field(
        default=3 * 3600, ge=60, description="Idle time before a conversation expires"
    )
    message_window: int = Field(default=10, ge=2, le=100, description="Past messages sent to the LLM")
    history_limit: int = Field(default=40, ge=10, le=400, description="Messages kept in a conversation's checkpoint")
    tool_timeout_seconds: float = Field(default=60, gt=0, le=900)
    tool_cpu_slots: int = Field(
        default=0, ge=0, le=64, description="CPU-heavy tool calls (deck matching) run at once; 0: one per core"
    )
    max_tool_rounds: int = Field(default=4, ge=1, le=10, description="Planned tool-call rounds per turn")
    max_message_chars: int = Field(default=8000, ge=100)
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    # The MCP endpoint's body cap: a coaching call carries a deck's card details (a few tens of KB)
    mcp_max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    body_timeout_seconds: float = Field(
        default=30, gt=0, description="Time a request's whole body has to arrive once its headers have"
    )
    # The local servers (`meta-mage serve`, `meta-mage mcp`): uvicorn's limits, plus a deadline for headers
    header_timeout_seconds: float = Field(
        default=10, gt=0, description="Time a connection has to send a whole request line and headers"
    )
    keep_alive_seconds: int = Field(default=5, ge=1, description="Idle time before a kept-alive connection closes")
    max_connections: int = Field(default=200, ge=1, description="Open connections and tasks before 503s")
    max_header_bytes: int = Field(default=16 * 1024, ge=1024, description="Largest request line and headers")
    # A /chat turn holds its conversation's lock as a lease of chat_lock_seconds, renewed while it runs, so a
    # crashed turn frees the conversation within that time; turn_deadline_seconds bounds the whole turn.
    chat_lock_seconds: int = Field(default=30, ge=2, le=300, description="Lease of a /chat turn's lock, renewed")
    turn_deadline_seconds: float = Field(default=240, gt=0, le=870, description="Longest one /chat turn may run")
    cors_origin: str = "*"
    # The local server answers requests whose Host is its own address, localhost or 127.0.0.1 at its port, or the
    # host of cors_origin; these comma-separated names ("name" at any port, or "name:port") are answered too
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = ()

    # MCP: when set, the agent gets its tools from this MCP server (streamable HTTP) instead of in process.
    mcp_url: str = ""
    # Ingestion drop zone: files put under tournaments/, cards/ or drafts/ here are ingested by IngestFunction.
    ingest_bucket: str = ""  # the stack's bucket name is per account and region (output IngestBucketName)
    # Where IngestFunction reports each file it could not ingest (key and reason); empty: log only.
    ingest_failure_queue_url: str = ""

    # The daily sync (SyncFunction, `meta-mage sync`) of a GitHub repository in the MTGODecklistCache layout.
    sync_repository: str = Field(default="fbettega/MTG_decklistcache", pattern=REPOSITORY_PATTERN)
    sync_branch: str = "main"
    # comma-separated: source folders (Tournaments/<Source>/) or kinds (models.sources) and formats; empty: all
    sync_sources: Annotated[tuple[str, ...], NoDecode] = ()
    sync_formats: Annotated[tuple[str, ...], NoDecode] = ()
    sync_start_date: dt.date | None = Field(default=None, description="Where the first sync starts (commit date)")
    # An SSM SecureString parameter name or a Secrets Manager secret ARN holding a GitHub token; empty: no token
    sync_token_parameter: str = ""
    sync_api_url: str = "https://api.github.com"
    sync_raw_url: str = "https://raw.githubusercontent.com"
    sync_max_wait_seconds: float = Field(
        default=120, ge=0, le=3600, description="Longest wait for GitHub's rate limit to reset before giving up"
    )
    # Bounds of each file a sync downloads (and of each GitHub answer): a larger or slower one is reported, not read
    sync_max_file_bytes: int = Field(
        default=20 * 1024 * 1024, ge=1024, le=512 * 1024 * 1024, description="Largest file, once decompressed"
    )
    sync_max_compression_ratio: int = Field(
        default=100, ge=2, description="Largest decompressed/compressed ratio of a file (past 1 MB): a bomb above"
    )
    sync_read_timeout_seconds: float = Field(default=30, gt=0, le=900, description="Longest silence of one read")
    sync_file_seconds: float = Field(
        default=120, gt=0, le=900, description="Longest time one download may take, retries and waits included"
    )

    @field_validator("sync_sources", "sync_formats", "allowed_hosts", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    def table_names(self) -> dict[str, str]:
        """Map each ``template.yaml`` table logical id to its physical name."""
        return {logical_id: str(getattr(self, setting)) for logical_id, setting in TABLE_SETTINGS.items()}


TABLE_SETTINGS = {  # each ``template.yaml`` table's logical id -> the setting that names the table
    "MetaTable": "meta_table",
    "CardsTable": "cards_table",
    "DraftsTable": "drafts_table",
    "CheckpointTable": "checkpoint_table",
    "LocksTable": "locks_table",
}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings for this process, read once."""
    return Settings()
