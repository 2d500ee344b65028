"""Typed tools: pydantic input and output, a description written for an LLM, one function each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from meta_mage.deadline import check_deadline
from meta_mage.errors import InvalidArgument
from meta_mage.models.decks import (
    ClassifyDeckInput,
    ClassifyDeckOutput,
    EnrichDeckInput,
    EnrichedDeck,
    OptimizeInput,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    StrategyFacts,
    StrategyInput,
)
from meta_mage.models.drafts import (
    DraftPoolInput,
    DraftPoolResult,
    ListDraftsInput,
    ListDraftsOutput,
)
from meta_mage.models.meta import (
    ArchetypesInput,
    ArchetypesOutput,
    DeckMatchupStatsInput,
    DeckMatchupStatsOutput,
    ListFormatsInput,
    ListFormatsOutput,
    MatchupStatsInput,
    MatchupStatsOutput,
    MetaRankingsInput,
    MetaRankingsOutput,
)
from meta_mage.tools.context import ToolContext


@dataclass(frozen=True)
class Tool:
    """One tool of the catalog."""

    name: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    run: Callable[[ToolContext, Any], BaseModel]
    cpu_heavy: bool = False  # its cost grows with the request (card matching): runs under the CPU limit

    def output(self, result: BaseModel | dict[str, Any]) -> BaseModel:
        """``result`` as this tool's output model (a transport's JSON is validated back into it)."""
        return result if isinstance(result, self.output_model) else self.output_model.model_validate(result)

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def catalog_entry(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema(),
        }


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


def _enrich(context: ToolContext, params: Any) -> Any:
    from meta_mage.decks.enrich import enrich_deck  # deck tools' code loads when a deck tool runs

    return enrich_deck(params.deck, context.cards)


class ToolRegistry:
    """The catalog plus validated calls."""

    def __init__(self, tools: list[Tool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def names(self) -> list[str]:
        return list(self.tools)

    def get(self, name: str) -> Tool:
        if name not in self.tools:
            raise InvalidArgument(
                f"unknown tool {name!r}; tools: {', '.join(self.tools)}", field="tool", allowed=list(self.tools)
            )
        return self.tools[name]

    def catalog(self) -> list[dict[str, Any]]:
        return [tool.catalog_entry() for tool in self.tools.values()]

    def call(self, name: str, arguments: dict[str, Any] | None, context: ToolContext) -> dict[str, Any]:
        """Validate ``arguments`` like user input, run the tool, return its JSON-able output."""
        return self.run(name, arguments, context).model_dump(mode="json")

    def run(self, name: str, arguments: dict[str, Any] | None, context: ToolContext) -> BaseModel:
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
        return tool.run(context, params)


def build_registry() -> ToolRegistry:
    """The project's tool catalog."""
    return ToolRegistry(
        [
            Tool(
                "list_formats",
                "List the constructed formats that have tournament data, with their date range and "
                "tournament, deck and match counts. Call this when the user has not said which format.",
                ListFormatsInput,
                ListFormatsOutput,
                lambda c, p: c.meta.list_formats(),
            ),
            Tool(
                "get_format_meta_rankings",
                "Get format-wide meta rankings: each archetype's meta share and match win rate (with "
                "match counts, 95% Wilson interval, a shrunk estimate to rank on, a verdict in words and a low-sample "
                "flag) for the current window and "
                "the window before it, and the trend between them. Windows end at the format's newest "
                "tournament. Optional filters: color_identity (WUBRG letters or C), strategy; "
                "group_by color_identity or strategy to aggregate.",
                MetaRankingsInput,
                MetaRankingsOutput,
                lambda c, p: c.meta.rankings(p),
            ),
            Tool(
                "get_format_matchup_stats",
                "Get format-wide head-to-head matchup statistics: for every archetype its overall "
                "record and its win rate against each other archetype with match counts, 95% "
                "intervals, a shrunk estimate and a verdict in words. Mirror matches are excluded from win "
                "rates and reported separately.",
                MatchupStatsInput,
                MatchupStatsOutput,
                lambda c, p: c.meta.matchups(p),
            ),
            Tool(
                "get_format_archetypes",
                "Get all archetypes competing in a format with their ids, names, meta shares, colour "
                "identity and strategy, sorted by meta share (default window 30 days).",
                ArchetypesInput,
                ArchetypesOutput,
                lambda c, p: c.meta.archetypes(p),
            ),
            Tool(
                "get_enriched_deck",
                "Parse a pasted decklist (MTGO .txt, Arena export, 'Sideboard' / '// Sideboard' / "
                "'SB:' markers) and enrich every card with mana cost, mana value, type line, colours, "
                "colour identity and rules text. Reports misspelled names it corrected and names it "
                "could not resolve, with suggestions.",
                EnrichDeckInput,
                EnrichedDeck,
                _enrich,
                cpu_heavy=True,
            ),
            Tool(
                "classify_deck",
                "Classify a pasted decklist into the format's archetype with the same rules used for "
                "tournament decks. Suggest the result to the user and ask them to confirm.",
                ClassifyDeckInput,
                ClassifyDeckOutput,
                lambda c, p: c.coach.classify(p),
                cpu_heavy=True,
            ),
            Tool(
                "get_deck_matchup_stats",
                "Get matchup statistics for a specific archetype against the field: overall record, "
                "and win rate against each opposing archetype with match counts, 95% intervals, a shrunk "
                "estimate to rank on (the record plus 10 matches at 50%) and a verdict in words (favoured, "
                "unfavoured, leans favoured, leans unfavoured, too close to call, too few matches to call).",
                DeckMatchupStatsInput,
                DeckMatchupStatsOutput,
                lambda c, p: c.meta.deck_matchups(p),
            ),
            Tool(
                "generate_deck_matchup_strategy",
                "Gather the facts for coaching a specific matchup given the user's deck: the record "
                "against the opponent, the opponent's key cards by inclusion rate (with rules text), "
                "and which of the user's sideboard cards answer them. Needs card_details from "
                "get_enriched_deck and matchup_stats from get_deck_matchup_stats.",
                StrategyInput,
                StrategyFacts,
                lambda c, p: c.coach.matchup_facts(p),
                cpu_heavy=True,
            ),
            Tool(
                "optimize_mainboard",
                "Optimize a deck's mainboard against the archetype's recent tournament lists: core "
                "cards, flex spots (cards few lists play), popular cards the deck lacks, and suggested "
                "swaps with reasons (inclusion rates, copies, win rate with vs without where the "
                "sample allows). Needs card_details from get_enriched_deck.",
                OptimizeInput,
                OptimizeMainboardOutput,
                lambda c, p: c.coach.optimize_mainboard(p),
                cpu_heavy=True,
            ),
            Tool(
                "optimize_sideboard",
                "Optimize a deck's sideboard to answer the top N archetypes of the meta: a final "
                "sideboard of exactly 15 cards with reasons, what to add and what to cut. Needs "
                "card_details from get_enriched_deck.",
                OptimizeInput,
                OptimizeSideboardOutput,
                lambda c, p: c.coach.optimize_sideboard(p),
                cpu_heavy=True,
            ),
            Tool(
                "list_drafts",
                "List the cube drafts that have been imported, with their ids, names and dates.",
                ListDraftsInput,
                ListDraftsOutput,
                lambda c, p: c.drafts.list_drafts(),
            ),
            Tool(
                "get_draft_pool",
                "Get the complete card pool of a cube draft, drafted or not. Filters (color: W/U/B/R/G "
                "includes multicolour cards of that colour, C colourless; type_contains; name_contains) "
                "apply before grouping (group_by color_identity or type); total_cards counts the "
                "filtered cards. include_draft_results adds who took each card and at which pick; "
                "include_card_details adds mana cost, type line and colours.",
                DraftPoolInput,
                DraftPoolResult,
                lambda c, p: c.drafts.get_pool(p),
            ),
        ]
    )
