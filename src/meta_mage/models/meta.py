"""Inputs and outputs of the meta-research tools."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from meta_mage.models.tournaments import FORMATS

Strategy = Literal["aggro", "midrange", "control", "combo", "tempo", "ramp", "unknown"]


def _not_a_bool(value: object) -> object:
    if isinstance(value, bool):  # pydantic's lax mode would read true as 1
        raise ValueError("expected a whole number, not true/false")
    return value


WholeNumber = Annotated[int, BeforeValidator(_not_a_bool)]
"""An int input (days, counts) that refuses booleans; numeric strings still parse (query strings)."""


def normalise_format(value: object) -> str:
    """Canonical format name ("modern" → "Modern"), or a ValueError listing the formats."""
    text = str(value).strip()
    for fmt in FORMATS:
        if text.lower() == fmt.lower():
            return fmt
    raise ValueError(f"unknown format {text!r}; allowed: {', '.join(FORMATS)}")


MAX_DAYS = 365  # the longest window any tool reads, in days


class ToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FormatInput(ToolInput):
    format: str = Field(description=f"One of {', '.join(FORMATS)}")
    as_of: dt.date | None = Field(
        default=None,
        ge=dt.date(1993, 8, 5),  # Magic's first set; earlier dates also overflow the window arithmetic
        description="End of the window; default: the format's newest tournament",
    )

    @field_validator("format", mode="before")
    @classmethod
    def _format(cls, value: object) -> str:
        return normalise_format(value)


class Window(BaseModel):
    """``days`` days from ``start`` to ``end`` (ISO dates, inclusive)."""

    start: str
    end: str
    days: int


class WinRate(BaseModel):
    """A match record with its win rate and 95 % Wilson interval (percent)."""

    wins: int
    losses: int
    draws: int
    matches: int
    win_rate: float | None
    ci_low: float | None
    ci_high: float | None
    low_sample: bool = Field(description="Fewer decided matches than the minimum sample (a flag only)")
    estimate: float | None = Field(
        default=None,
        description="The win rate (%) to rank and judge on: for a matchup, the matchup model's estimate "
        "(strengths plus the pair's shrunk deviation); for a card or deck record, the record plus 10 imaginary "
        "decided matches at 50%",
    )
    estimate_low: float | None = Field(default=None, description="95% interval of the estimate, low end (%)")
    estimate_high: float | None = Field(default=None, description="95% interval of the estimate, high end (%)")
    basis: str = Field(
        default="record",
        description="what the estimate rests on: 'model' (a matchup with matches), 'model: strengths only' (a "
        "pair without matches: the two archetypes' overall strengths), 'record' (a shrunk record)",
    )
    players: int | None = Field(
        default=None,
        description="Distinct players behind the record (a matchup: the side with fewer); None when unknown",
    )
    effective_matches: float | None = Field(
        default=None,
        description="What the decided matches are worth as independent ones, given how many each player played "
        "(the interval ci_low..ci_high uses it)",
    )
    verdict: str = Field(
        default="no decided matches",
        description="favoured / unfavoured (the estimate's 95% interval clear of 50% by 3+ points, the record "
        "not against it), too close to call, 'anecdote: N matches by "
        "K players' (fewer than 3 distinct players: no verdict), too few matches to call (under 5 decided), or no "
        "decided matches",
    )


class ListFormatsInput(ToolInput):
    pass


class FormatSummary(BaseModel):
    """A format's registry entry: its first and last tournament date and totals."""

    format: str
    first_date: str
    last_date: str
    tournaments: int
    decks: int
    matches: int


class DataSpan(BaseModel):
    """The metadata every meta read carries: the format's stored date range and the low-sample threshold."""

    data_first_date: str
    data_last_date: str
    min_sample: int = Field(description="Win rates over fewer matches (draws excluded) are flagged low_sample")
    matches_from: str = Field(
        default="",
        description="Where the window's matches come from (MTGO Challenge files hold only top-8 playoff matches)",
    )


class PeriodMetadata(DataSpan):
    period: Window


class RankingsMetadata(DataSpan):
    current_period: Window
    previous_period: Window
    current_decks: int
    previous_decks: int
    current_tournaments: int
    previous_tournaments: int
    ranked_by: str


class MatchupStatsMetadata(PeriodMetadata):
    note: str


class ArchetypesMetadata(PeriodMetadata):
    decks: int = Field(description="Decks in the window")


class ListFormatsOutput(BaseModel):
    formats: list[FormatSummary]


class MetaRankingsInput(FormatInput):
    current_days: WholeNumber = Field(default=14, ge=1, le=MAX_DAYS, description="Length of the current window")
    previous_days: WholeNumber = Field(default=14, ge=1, le=MAX_DAYS, description="Length of the window before it")
    color_identity: str | None = Field(default=None, description="WUBRG letters, e.g. 'RW' or 'C'")
    strategy: Strategy | None = None
    group_by: Literal["color_identity", "strategy"] | None = None

    @field_validator("color_identity", mode="before")
    @classmethod
    def _colors(cls, value: object) -> str | None:
        if value is None or value == "":
            return None
        text = str(value).upper().strip()
        if text == "C" or text.lower() == "colorless":
            return ""
        if not text or any(ch not in "WUBRG" for ch in text) or len(set(text)) != len(text):
            raise ValueError(f"unknown colour identity {value!r}; use letters from W, U, B, R, G, or C")
        return "".join(c for c in "WUBRG" if c in text)


class RankingRow(BaseModel):
    rank: int
    name: str
    color_identity: str
    strategy: str
    decks: int
    meta_share: float
    previous_decks: int
    previous_meta_share: float | None = Field(description="None when the previous window has no decks")
    meta_share_trend: float | None = Field(description="None when the previous window has no decks")
    current: WinRate
    previous: WinRate
    win_rate_trend: float | None
    mirror_matches: int


class Lookalike(BaseModel):
    """Two archetypes that are possibly one deck: their usual main decks differ only by these cards."""

    archetypes: list[str]
    differ_by: list[str]


class MetaRankingsOutput(BaseModel):
    format: str
    group_by: str | None
    rows: list[RankingRow]
    metadata: RankingsMetadata
    lookalikes: list[Lookalike] = Field(
        default_factory=list, description="Archetypes that are possibly one deck, split by one or two cards"
    )


class MatchupStatsInput(FormatInput):
    days: WholeNumber = Field(default=14, ge=1, le=MAX_DAYS, description="Window length in days (1-365)")
    top_n: WholeNumber = Field(
        default=8, ge=2, le=20, description="Archetypes (most played first) in the grid's rows and columns"
    )


class MatchupCell(WinRate):
    opponent: str


class MatchupRow(BaseModel):
    archetype: str
    meta_share: float
    overall: WinRate
    mirror_matches: int
    matchups: list[MatchupCell]


class MatchupGrid(BaseModel):
    """The top archetypes against each other: ``cells[i][j]`` is row ``i``'s record against column ``j``
    (None on the diagonal: mirrors are counted apart, in ``mirrors[i]``)."""

    archetypes: list[str]
    cells: list[list[WinRate | None]]
    mirrors: list[int]


class FieldDriver(BaseModel):
    """One matchup's pull on an archetype's expectation against the field."""

    opponent: str
    meta_share: float
    estimate: float  # the model's P(win) against it, percent
    basis: str  # model | model: strengths only
    wins: int
    losses: int
    pull: float  # points of expected win rate this matchup adds above (or takes below) 50 %


class FieldExpectation(BaseModel):
    """An archetype's expected match win rate against the field as played, by the matchup model."""

    archetype: str
    meta_share: float
    decks: int
    players: int  # distinct pilots in the window
    expected: float  # percent
    ci_low: float
    ci_high: float
    decided: int  # its decided matches in the window
    measured: float  # percent of the field (by share, the mirror included) it has decided matches against
    drivers: list[FieldDriver]
    catch_all: bool = False  # "Unknown" or a fallback ("Combo"): lists no archetype rule names, not one deck


class MatchupStatsOutput(BaseModel):
    format: str
    archetypes: list[MatchupRow]
    grid: MatchupGrid | None = None
    field: list[FieldExpectation] = Field(
        default_factory=list,
        description="What to play: every archetype with a decided match, ranked on the low end of its expected "
        "win rate against the field as played (the matchup model)",
    )
    lookalikes: list[Lookalike] = Field(
        default_factory=list, description="Archetypes that are possibly one deck, split by one or two cards"
    )
    metadata: MatchupStatsMetadata


class ArchetypesInput(FormatInput):
    days: WholeNumber = Field(default=30, ge=1, le=MAX_DAYS, description="Window length in days (1-365)")


class ArchetypeSummary(BaseModel):
    id: str
    name: str
    meta_share: float
    decks: int
    color_identity: str
    strategy: str


class ArchetypesOutput(BaseModel):
    format: str
    archetypes: list[ArchetypeSummary]
    metadata: ArchetypesMetadata


class DeckMatchupStatsInput(FormatInput):
    archetype: str = Field(min_length=1, max_length=100)
    days: WholeNumber = Field(default=14, ge=1, le=MAX_DAYS, description="Window length in days (1-365)")


class WiderSpread(BaseModel):
    """The same spread over a longer window, given when the asked one is thin."""

    period: Window
    overall: WinRate
    matchups: list[MatchupCell]


class DeckMatchupStatsOutput(BaseModel):
    format: str
    archetype: str
    meta_share: float
    overall: WinRate
    mirror_matches: int
    matchups: list[MatchupCell]
    wider: WiderSpread | None = Field(
        default=None,
        description="When the window has fewer than min_sample decided matches: the spread over a window four "
        "times as long (60 to 365 days), named by its period",
    )
    metadata: PeriodMetadata


@dataclass(frozen=True)
class PairFit:
    """One pair's fitted deviation from the two strengths, its variance and the decided matches it rests on."""

    a: str
    b: str
    deviation: float
    variance: float
    matches: int


@dataclass(frozen=True)
class FittedModel:
    """A matchup model as stored: its pair prior, each archetype's strength with its variance, and the pairs."""

    tau: float
    strengths: Mapping[str, tuple[float, float]]
    pairs: tuple[PairFit, ...]


@dataclass(frozen=True)
class WindowFit:
    """The model fitted on a window of ``days`` days, keyed by the ``fingerprint`` of the figures it read."""

    days: int
    fingerprint: str
    model: FittedModel
