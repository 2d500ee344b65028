"""Look-ups: the names the router matches the player's words against (formats, archetypes, drafts, a draft's
pool), read through the agent's tools and cached."""

from __future__ import annotations

import logging
import re
from typing import Any, TypeVar, cast

from cachetools import TTLCache
from pydantic import BaseModel

from meta_mage.agent.events import thinking
from meta_mage.agent.tools import AgentTools
from meta_mage.agent.words import PoolEntry
from meta_mage.models.drafts import DraftPoolResult, DraftSummary, ListDraftsOutput
from meta_mage.models.json import JsonObject
from meta_mage.models.meta import ArchetypesOutput, ListFormatsOutput
from meta_mage.models.tournaments import FORMATS
from meta_mage.tools.catalog.drafts import DRAFT_POOL, LIST_DRAFTS
from meta_mage.tools.catalog.meta import ARCHETYPES, LIST_FORMATS

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
NAMES_DAYS = 30  # the window of archetype names routing reads when the turn names none (the coach's default)
MAX_LOOKUPS = 64  # cached lookups: one per (format, window) asked, the drafts and each draft's pool


class Lookups:
    """Names the router matches against (formats, archetypes, drafts), read through the tools and cached.

    A lookup is a tool call through the graph's own runner (``AgentTools.run``: its timeout, its errors). A failed one
    (a timeout, an unreachable table or MCP server) is logged and told to the user in a ``thinking``
    note; routing then goes on without those names (the built-in format list for formats)."""

    def __init__(self, tools: AgentTools, max_age_seconds: float = 300) -> None:
        self.tools = tools
        # bounded: every window a player names is a key, so an unbounded map grew with the windows asked
        self._cache: TTLCache[str, Any] = TTLCache(maxsize=MAX_LOOKUPS, ttl=max_age_seconds)

    async def _cached(
        self, key: str, name: str, arguments: JsonObject, output: type[M], what: str, instead: str
    ) -> M | None:
        hit = self._cache.get(key)
        if hit is not None:
            return cast(M, hit)
        outcome = await self.tools.run(name, arguments)  # the graph's tool runner: its timeout, its errors
        if outcome.not_found:  # e.g. a format without data: an answer, not a failure
            return None
        if not outcome.ok or not isinstance(outcome.result, output):
            # routing goes on without these names; the tools report their own errors
            logger.warning("routing lookup %s failed (%s), %s: %s", name, what, instead, outcome.error)
            thinking(f"Could not read {what} to understand your message; {instead}.")
            return None
        self._cache[key] = outcome.result
        return outcome.result

    async def formats(self) -> list[str]:
        result = await self._cached(
            "formats", LIST_FORMATS.name, {}, ListFormatsOutput, "the formats with data", "using the built-in list"
        )
        return [f.format for f in result.formats] if result and result.formats else list(FORMATS)

    async def archetypes(self, fmt: str, days: int = NAMES_DAYS) -> list[str]:
        """The archetypes played in ``fmt`` over the last ``days`` days, most played first (so an ambiguous
        word picks the popular deck): the window's day aggregates, not a year's."""
        result = await self._cached(
            f"arch:{fmt}:{days}",
            ARCHETYPES.name,
            {"format": fmt, "days": days},
            ArchetypesOutput,
            f"the {fmt} archetype names",
            "going on without them",
        )
        return [a.name for a in result.archetypes] if result else []

    async def drafts(self) -> list[DraftSummary]:
        result = await self._cached(
            "drafts", LIST_DRAFTS.name, {}, ListDraftsOutput, "the imported drafts", "going on without them"
        )
        return result.drafts if result else []

    async def pool(self, draft_id: str) -> list[PoolEntry]:
        """A draft's whole pool with who took what (redacted names stay redacted)."""
        result = await self._cached(
            f"pool:{draft_id}",
            DRAFT_POOL.name,
            {"draft_id": draft_id, "include_draft_results": True},
            DraftPoolResult,
            "the draft's pool",
            "going on without its card names",
        )
        return [_entry(card) for card in result.cards or []] if result else []

    async def resolve_draft(self, text: str | None) -> str | None:
        """The id of the draft whose id or name ``text`` names (or contains), else None."""
        if not text:
            return None
        lower = text.lower()
        for draft in await self.drafts():
            words = [draft.draft_id.lower(), draft.draft_name.lower()]
            words += [w for w in re.findall(r"[a-z0-9]{4,}", draft.draft_name.lower()) if w not in {"cube", "draft"}]
            if any(re.search(rf"\b{re.escape(w)}\b", lower) for w in words):
                return draft.draft_id
        return None


def _entry(card: dict[str, object]) -> PoolEntry:
    """A pool card's name and the drafters who took its copies (redacted names stay redacted)."""
    picks = card.get("additional_picks")
    others = [pick.get("drafted_by") for pick in picks if isinstance(pick, dict)] if isinstance(picks, list) else []
    drafters = tuple(str(who) for who in (card.get("drafted_by"), *others) if who)
    return PoolEntry(str(card["card_name"]), drafters)
