"""How to play a matchup, composed from the data: who is faster, their cards that decide games and yours that
answer each, what an opening hand should hold."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

from meta_mage.models.meta import WinRate


class Speed(BaseModel):
    their_curve: float = Field(description="Average mana value of their key nonland spells")
    your_curve: float = Field(description="Average mana value of your nonland spells")
    their_first_turn: int | None = Field(description="The earliest turn one of their key spells comes down")
    your_first_turn: int | None = Field(description="The earliest turn one of your spells comes down")
    role: Literal["beatdown", "control", "even", "combo", "against combo", "ramp"] = Field(
        description="combo: yours is the combo deck and races whatever it meets; against combo: theirs is, and "
        "you disrupt it; ramp: yours goes over the top, so survive until your big spells land; beatdown: you "
        "must end it before their plan takes over; control: they are the beatdown and you win the long game; "
        "even: neither deck is clearly faster"
    )
    rests_on: list[str] = Field(
        default_factory=list,
        description="What the roles rest on: each deck's playbook (and whether it is stale) or a computed profile",
    )


class Decider(BaseModel):
    """One of their cards that decides games, and what of yours answers it."""

    name: str
    inclusion_rate: float = Field(description="Percent of their lists that play it")
    turn: int = Field(
        description="The turn it comes down: its mana value (at least 1), or sooner when ``sooner_by`` says how "
        "(cast for free, put in by another card, a cost reduction, their fast mana)"
    )
    sooner_by: str = Field(
        default="",
        description="What brings it down sooner than its mana value: a cost reduction (improvise...), an alternative "
        "cost, or another of their cards putting it onto the battlefield",
    )
    record_with: WinRate | None = Field(default=None, description="Their lists with it against your archetype")
    your_answers: list[str] = Field(description="Your main-deck cards that answer it by the rules, with how")
    _answering: tuple[str, ...] = PrivateAttr(default=())  # the names in your_answers, kept apart from the how

    @classmethod
    def answered_by(cls, ways: list[tuple[str, str]], **fields: object) -> Decider:
        """The decider with your cards that answer it, each ``(name, how)``."""
        decider = cls.model_validate({**fields, "your_answers": [f"{name} ({how})" for name, how in ways]})
        decider._answering = tuple(name for name, _ in ways)
        return decider

    @property
    def answering(self) -> tuple[str, ...]:
        """The names of your cards that answer it."""
        return self._answering


class KeepRule(BaseModel):
    """What an opening seven should hold, with the chance a random seven of your 60 holds it."""

    advice: str
    cards: list[str] = Field(default_factory=list)
    copies: int = 0
    chance: float | None = Field(default=None, description="Percent of opening sevens holding at least one")


class PlayPlan(BaseModel):
    speed: Speed
    deciders: list[Decider]
    keep: list[KeepRule]
