"""Inputs and outputs of the deck-coaching tools."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, Field, ValidationInfo, field_validator

from meta_mage.models.json import JsonObject
from meta_mage.models.meta import MAX_DAYS, FormatInput, ToolInput, WholeNumber, Window, WinRate, normalise_format
from meta_mage.models.play_plan import PlayPlan


def _archetype_key(name: str) -> str:
    """How archetype names compare ("boros-energy" is "Boros Energy"), as the meta tools resolve them."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


FormatName = Annotated[str, BeforeValidator(normalise_format)]  # a format as players write it, read as its name
DeckText = Field(min_length=1, max_length=20_000, description="Decklist text (MTGO .txt or Arena export)")


class CardDetail(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    quantity: WholeNumber = Field(ge=1, le=100)
    section: Literal["mainboard", "sideboard"]
    mana_cost: str | None = None
    cmc: float | None = None
    type_line: str | None = None
    colors: list[str] = Field(default_factory=list)
    color_identity: list[str] = Field(default_factory=list)
    oracle_text: str | None = None
    power: str | None = None
    toughness: str | None = None
    unknown: bool = Field(default=False, description="Not in the card data: kept at its count, never judged")


class UnresolvedCard(BaseModel):
    name: str
    quantity: int
    section: str
    suggestions: list[str]


class EnrichDeckInput(ToolInput):
    deck: str = DeckText


class EnrichedDeck(BaseModel):
    card_details: list[CardDetail]
    counts: dict[str, int]
    unresolved: list[UnresolvedCard]
    corrected: dict[str, str] = Field(description="Names matched by spelling correction: typed → card")
    skipped_lines: list[str]


class ClassifyDeckInput(ToolInput):
    deck: str = DeckText
    format: FormatName


class ClassifyDeckOutput(BaseModel):
    format: str
    archetype: str
    color_identity: str
    strategy: str
    matched_by: Literal["archetype", "fallback", "unknown"]
    candidates: list[str]
    mainboard_cards: int
    sideboard_cards: int


class TopArchetype(BaseModel):
    """One of the most played other archetypes: its meta share and the player's archetype's record against it."""

    archetype: str
    meta_share: float
    your_archetype_vs_it: WinRate


class DeckProfile(BaseModel):
    """The player's main deck in numbers."""

    mainboard_cards: int
    lands: int
    creatures: int
    average_mana_value: float


class OptimizeInput(FormatInput):
    card_details: list[CardDetail] = Field(min_length=1, max_length=150)
    archetype: str = Field(min_length=1, max_length=100)
    top_n: WholeNumber = Field(default=5, ge=1, le=15)
    days: WholeNumber = Field(default=30, ge=1, le=MAX_DAYS, description="Window of lists to compare with")


class CardUsage(BaseModel):
    name: str
    inclusion_rate: float = Field(description="Percent of the archetype's lists that play it")
    average_copies: float
    your_copies: int
    with_card: WinRate | None = None
    without_card: WinRate | None = None
    better_against: list[str] = Field(
        default_factory=list, description="Top decks its lists beat the archetype's own record against (kept)"
    )
    answers_against: list[str] = Field(
        default_factory=list, description="Top decks whose key cards it answers by its rules text (kept)"
    )


class Swap(BaseModel):
    cut: str
    cut_quantity: int
    add: str
    add_quantity: int
    reason: str


class SideboardMetadata(BaseModel):
    period: Window
    min_sample: int


class MainboardMetadata(SideboardMetadata):
    core_threshold: float = Field(description="Inclusion rate (%) from which a card is core")
    flex_threshold: float = Field(description="Inclusion rate (%) from which a card is a flex spot")


class StrategyMetadata(BaseModel):
    period: Window = Field(description="The window of the matchup_stats the facts were built from")


class OptimizeMainboardOutput(BaseModel):
    format: str
    archetype: str
    lists_compared: int
    core_cards: list[CardUsage]
    flex_spots: list[CardUsage]
    candidates: list[CardUsage]
    swaps: list[Swap]
    top_matchups: list[TopArchetype]
    metadata: MainboardMetadata


class SideboardSlot(BaseModel):
    name: str
    quantity: int
    reason: str
    targets: list[str]


class GuideCard(BaseModel):
    name: str
    quantity: int
    why: str


class SideboardGuide(BaseModel):
    """How to sideboard against one opponent: what comes in, what goes out (as many cards each way)."""

    opponent: str
    record: WinRate | None = Field(description="The archetype's record against this opponent in the window")
    bring_in: list[GuideCard]
    take_out: list[GuideCard]
    held_back: list[str] = Field(
        default_factory=list,
        description="Sideboard cards that answer something of theirs but are worth no more here than the main "
        "deck's least card",
    )
    left_out: list[GuideCard] = Field(
        default_factory=list, description="The other sideboard cards, each with why it stays in the sideboard"
    )
    shared_record: str = Field(
        default="", description="A record shared by several cards brought in (the same lists played them all)"
    )
    mainboard_after: int
    sideboard_after: int
    post_board: str = Field(default="", description="The 75 after the guide, as text MTGO and Arena import")


class SideboardCut(BaseModel):
    name: str
    quantity: int
    why: str


class OptimizeSideboardOutput(BaseModel):
    format: str
    archetype: str
    lists_compared: int
    top_archetypes: list[TopArchetype]
    final_sideboard: list[SideboardSlot]
    total_cards: int
    adds: list[str]
    cuts: list[str]
    cut_reasons: list[SideboardCut] = Field(
        default_factory=list, description="Why each card of the user's sideboard left, with how many copies"
    )
    guides: list[SideboardGuide] = Field(
        default_factory=list, description="With the final sideboard: what to bring in and take out per top opponent"
    )
    metadata: SideboardMetadata


class StrategyInput(ToolInput):
    card_details: list[CardDetail] = Field(min_length=1, max_length=150)
    archetype: str = Field(min_length=1, max_length=100)
    opponent_archetype: str = Field(min_length=1, max_length=100)
    matchup_stats: JsonObject = Field(description="The output of get_deck_matchup_stats")  # as the model passes it
    format: str | None = None
    as_of: dt.date | None = None

    @field_validator("matchup_stats")
    @classmethod
    def _same_archetype(cls, stats: JsonObject, info: ValidationInfo) -> JsonObject:
        """The stats must be the archetype's own: the facts are built from ``matchup_stats.archetype``."""
        theirs, ours = stats.get("archetype"), info.data.get("archetype")
        if isinstance(theirs, str) and isinstance(ours, str) and _archetype_key(theirs) != _archetype_key(ours):
            raise ValueError(
                f"matchup_stats are for {theirs!r}, not archetype {ours!r}; "
                "pass get_deck_matchup_stats for the same archetype"
            )
        return stats

    @field_validator("format", mode="before")
    @classmethod
    def _format(cls, value: object) -> str | None:
        return None if value is None else normalise_format(value)


class KeyCard(BaseModel):
    name: str
    inclusion_rate: float
    average_copies: float
    section: str
    type_line: str | None = None
    mana_cost: str | None = None
    oracle_text: str | None = None
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    colors: list[str] | None = None


class SideboardAnswer(BaseModel):
    name: str
    quantity: int
    answers: list[str] = Field(description="The opponent's key cards it answers by the rules")
    reason: str = Field(
        description="How it answers each ('Ocelot Pride: counters its triggered ability'), and its lists' record "
        "against the opponent"
    )
    roles: list[str] = Field(default_factory=list, description="What the card does, read from its rules text")
    with_card_vs_opponent: WinRate | None = None


class StrategyFacts(BaseModel):
    format: str
    archetype: str
    opponent_archetype: str
    record: WinRate | None
    opponent_lists: int
    opponent_key_cards: list[KeyCard]
    sideboard_answers: list[SideboardAnswer]
    sideboard_guide: SideboardGuide | None = Field(
        default=None, description="What to bring in and take out against this opponent"
    )
    play_plan: PlayPlan | None = Field(
        default=None, description="Who is faster, their cards that decide games with your answers, what to keep"
    )
    your_deck_profile: DeckProfile
    metadata: StrategyMetadata


# --- one card's evidence ("is Fatal Push good against Boros Energy?") -------------------------------------------


class CardEvidenceInput(FormatInput):
    card: str = Field(min_length=1, max_length=150, description="A card name (misspellings and short names are read)")
    opponent_archetype: str | None = Field(default=None, max_length=100, description="The deck it is asked against")
    archetype: str | None = Field(default=None, max_length=100, description="The player's archetype, when known")
    card_details: list[CardDetail] | None = Field(
        default=None,
        max_length=150,
        description="The player's enriched deck, when one is known: a card off its colours is said to be, with "
        "what a splash would cost",
    )
    days: WholeNumber = Field(default=30, ge=1, le=MAX_DAYS)


class AnsweredCard(BaseModel):
    name: str
    inclusion_rate: float = Field(description="Percent of the opponent's lists that play it")
    how: str
    is_land: bool = False


class CardRecord(BaseModel):
    """An archetype's lists with the card in one section against its lists without it (mirrors excluded)."""

    archetype: str
    section: Literal["mainboard", "sideboard"]
    lists_with: int
    lists: int
    with_card: WinRate
    without_card: WinRate | None
    gap: float | None = Field(description="Shrunk win rate with the card minus without, when both have 5+ matches")
    verdict: str


class CardEvidenceOutput(BaseModel):
    format: str
    card: str
    read_as: str | None = Field(default=None, description="What the card name was read from, when corrected")
    type_line: str | None = None
    mana_cost: str | None = None
    roles: list[str]
    opponent: str | None = None
    opponent_lists: int = 0
    opponent_key_cards: int = 0
    answers: list[AnsweredCard] = Field(description="The opponent's key cards (or the top decks') it answers")
    answered_share: float = Field(default=0, description="Their key mainboard cards it answers, weighted by inclusion")
    top_decks_answered: dict[str, list[str]] = Field(default_factory=dict)
    records: list[CardRecord]
    pooled: list[CardRecord] = Field(
        default_factory=list, description="Per section, every compared archetype's lists with it against without it"
    )
    matches_with: int = Field(default=0, description="Decided matches against the opponent by lists with the card")
    matches_total: int = Field(default=0, description="Decided matches against the opponent (mirrors excluded)")
    archetypes_checked: int = 0
    off_colours: str = Field(default="", description="When the card is off the player's deck's colours: the splash")
    decision: str = Field(
        default="",
        description="With the player's list, archetype and an opponent: what the sideboard guide against them does "
        "with the card (in, out, stays, and why), the one decision every deck tool reads",
    )
    metadata: StrategyMetadata
