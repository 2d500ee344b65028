"""Input and output of ``get_archetype_page``: one archetype's page (its aggregate list, its best-finishing list,
its playbook, its record and matchups, and the lists as import text)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from meta_mage.models.meta import MAX_DAYS, DeckMatchupStatsOutput, FormatInput, MatchupCell, WholeNumber


class ArchetypePageInput(FormatInput):
    archetype: str = Field(min_length=1, max_length=100, description="An archetype of the window (name or id)")
    days: WholeNumber = Field(default=30, ge=1, le=MAX_DAYS, description="Window length in days (1-365)")


class PageCard(BaseModel):
    """One card of the aggregate list in one section."""

    name: str
    copies: int = Field(description="Copies in the aggregate list")
    inclusion: float = Field(description="Share of the lists (%) that play it in this section")
    average_copies: float = Field(description="Average copies among the lists that play it")
    copy_shares: list[float] = Field(description="Share of the lists (%) playing at least k copies, k = 1..copies")
    flex_copies: int = Field(description="Of its copies, those played by fewer than flex_below % of the lists")
    land: bool = False


class AggregateList(BaseModel):
    """The archetype's lists aggregated by Frank Karsten's method."""

    lists: int = Field(description="Lists of the archetype in the window")
    main_size: int = Field(description="The lists' most common main-deck size (a tie: the smaller)")
    side_size: int = Field(description="The lists' most common sideboard size (a tie: the smaller)")
    mainboard: list[PageCard]
    sideboard: list[PageCard]
    flex_below: float = Field(description="A card-copy played by fewer lists than this share (%) is a flex slot")
    method: str
    text: str = Field(description="The aggregate 75 as MTGO / Arena import text")


class BestFinish(BaseModel):
    """The archetype's best-finishing list of the window, by the rule in ``rule``."""

    player: str
    event: str
    date: str
    placing: str = Field(description="The final placing as the event published it")
    place: int
    event_lists: int = Field(description="Lists the event published (all archetypes)")
    large_event: bool = Field(description="The event published at least large_event_lists lists")
    rule: str
    record: str | None = Field(
        default=None, description="Its match record, when the data holds it (the stored lists keep the placing only)"
    )
    mainboard: dict[str, int]
    sideboard: dict[str, int]
    text: str = Field(description="The list as MTGO / Arena import text")


class StaleCard(BaseModel):
    """An engine card of the playbook that fewer of the window's lists play than the playbook expects."""

    name: str
    share: float = Field(description="Share of the window's lists (%) that play it in the main deck")


class PlaybookNotes(BaseModel):
    """How the archetype plays, from its playbook (``Formats/<Format>/playbook.toml`` beside the rules)."""

    role: str
    plan: str
    engine: list[str]
    win_conditions: list[str]
    fast_mana: list[str]
    graveyard: list[str] = Field(description="Cards of its graveyard plan; empty: it has none")
    fears: list[str]
    fears_why: str
    interaction: list[str]
    engine_share: float = Field(description="The share of the lists (%) an engine card should reach")
    stale_engine: list[StaleCard] = Field(
        default_factory=list,
        description="Engine cards the window's lists play below engine_share: the plan may be dated",
    )


class ArchetypePageOutput(BaseModel):
    format: str
    archetype: str
    catch_all: bool = Field(
        default=False,
        description="'Unknown' or a rules' fallback ('Combo', 'Midrange'): lists no archetype rule names, so its "
        "stock list mixes different decks",
    )
    aggregate: AggregateList
    best_finish: BestFinish | None
    playbook: PlaybookNotes | None = Field(description="None: no playbook is written for this archetype yet")
    favoured: list[MatchupCell] = Field(description="Matchups the model's verdict calls favoured, best first")
    unfavoured: list[MatchupCell] = Field(description="Matchups the model's verdict calls unfavoured, worst first")
    spread: DeckMatchupStatsOutput = Field(
        description="get_deck_matchup_stats over the same window: the record with its 95% interval, every matchup "
        "with the model's estimate and verdict"
    )
