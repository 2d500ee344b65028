"""Typed settings, read once from the environment (prefix ``META_MAGE_``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEMO_DATA_DIR = Path(__file__).parent / "demo_data"


class Settings(BaseSettings):
    """Deployment settings. Table names match the logical ids of ``template.yaml``."""

    model_config = SettingsConfigDict(env_prefix="META_MAGE_", extra="ignore")

    meta_table: str = "meta-mage-meta"
    cards_table: str = "meta-mage-cards"
    drafts_table: str = "meta-mage-drafts"
    aws_region: str = Field(default="us-east-1", validation_alias="AWS_DEFAULT_REGION")
    archetype_rules_dir: Path = DEMO_DATA_DIR / "archetypes"
    min_sample: int = Field(default=20, ge=1, description="Matches below which a win rate is noise")

    def table_names(self) -> dict[str, str]:
        """Map each ``template.yaml`` table logical id to its physical name."""
        return {
            "MetaTable": self.meta_table,
            "CardsTable": self.cards_table,
            "DraftsTable": self.drafts_table,
        }


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings for this process, read once."""
    return Settings()
