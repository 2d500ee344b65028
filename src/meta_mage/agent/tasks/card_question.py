"""The card question ("Is Fatal Push good against Boros Energy?"): what the card answers by its rules text there,
and lists with it against lists without it; its offline answer, its plan and its follow-ups."""

from __future__ import annotations

from meta_mage.agent.render import Answer, Table, compose
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks.phrasing import (
    PRIOR,
    dates,
    plain,
    rate,
)
from meta_mage.agent.tasks.task import Calls, FollowUp
from meta_mage.agent.tools import ToolCall
from meta_mage.analytics.stats import FEW_MATCHES
from meta_mage.decks.coach import BETTER_BY
from meta_mage.models.decks import CardEvidenceOutput, CardRecord
from meta_mage.models.json import JsonObject
from meta_mage.tools.catalog.decks import CARD_EVIDENCE

CARD_COLUMNS = ("Archetype", "Section", "Lists with it", "With it", "Without it", "Estimates (gap)", "Verdict")


def _card_row(r: CardRecord) -> tuple[str, ...]:
    gap = f"{r.gap:+.1f}" if r.gap is not None else "n/a"
    shrunk = [w.estimate if w is not None else None for w in (r.with_card, r.without_card)]
    estimates = " vs ".join(f"{e:.1f}%" if e is not None else "n/a" for e in shrunk)
    lists = f"{r.lists_with} of {r.lists}"
    return (
        plain(r.archetype),
        r.section,
        lists,
        rate(r.with_card),
        rate(r.without_card),
        f"{estimates} ({gap})",
        r.verdict,
    )


def card_question(result: CardEvidenceOutput, route: Route, known: ConversationState) -> Answer:
    """ "Is Fatal Push good against Boros Energy?": what the card answers there, and lists with it against lists
    without it."""
    against = f" against {plain(result.opponent)}" if result.opponent else ""
    read = f" (I read “{result.read_as}” as {plain(result.card)}.)" if result.read_as else ""
    roles = "; ".join(result.roles) or "no answer role its rules text gives (a threat or an engine card)"
    lines: list[str | Table] = [
        f"**{plain(result.card)}{against}**, {result.format}, {dates(result.metadata.period)}.{read}",
        "",
        f"What it does by its rules text: {roles}.",
    ]
    if result.off_colours:
        lines.append(f"**Off your colours:** {result.off_colours}.")
    lines.append(_card_answers(result))
    if result.decision:
        lines.append(f"**In your sideboard guide:** it {result.decision}.")
    lines += _card_records(result, against)
    lines += ["", _card_bottom_line(result)]
    if result.opponent and result.matches_total:
        share = 100 * result.matches_with / result.matches_total
        lines.append(
            f"Lists with it played {result.matches_with} of the {result.matches_total} decided matches against "
            f"{plain(result.opponent)} ({share:.0f}%; a list with it in both main and sideboard counts twice)."
        )
    return compose(lines)


def _card_answers(result: CardEvidenceOutput) -> str:
    """What the card answers by its rules text: the opponent's cards (by way of answering), or the top decks'."""
    if result.opponent and result.answers:
        by_way: dict[str, list[str]] = {}
        for a in result.answers:
            by_way.setdefault(a.how, []).append(f"{plain(a.name)} ({a.inclusion_rate:.0f}%)")
        named = "; ".join(f"{how}: {' / '.join(names)}" for how, names in by_way.items())
        return (
            f"Against {plain(result.opponent)} ({result.opponent_lists} lists) it answers {_answered(result)}; "
            f"each card's share of their lists in brackets: {named}."
        )
    if result.opponent:
        return (
            f"Against {plain(result.opponent)} it answers none of their {result.opponent_key_cards} key cards by its "
            "rules text."
        )
    if result.top_decks_answered:
        return (
            "Among the top decks' key cards it answers: "
            + "; ".join(
                f"{plain(deck)}: {' / '.join(map(plain, cards[:3]))}"
                for deck, cards in result.top_decks_answered.items()
            )
            + "."
        )
    return "It answers none of the top 5 decks' key cards by its rules text."


def _card_records(result: CardEvidenceOutput, vs: str) -> list[str | Table]:
    """Lists with the card beside the same archetype's lists without it (``vs``: " against" the opponent, or "")."""
    decided = [r for r in result.records if r.with_card.wins + r.with_card.losses]
    idle = len(result.records) - len(decided)
    if not decided and idle:
        return ["", f"{idle} archetypes' lists play it, but none has a decided match{vs} with it in this window."]
    if not decided:
        checked = result.archetypes_checked
        whose = (
            "The most played archetype's lists do not"
            if checked == 1
            else f"None of the {checked} most played archetypes' lists"
        )
        return ["", f"{whose} play it in this window."]
    where = (
        "in your archetype"
        if result.archetypes_checked == 1
        else f"among the {result.archetypes_checked} most played archetypes"
    )
    return [
        "",
        f"How lists with it did{vs}, beside the same archetype's lists without it (mirrors excluded), {where}"
        + (f"; {idle} more play it without a decided match{vs}" if idle else "")
        + ":",
        "",
        Table(CARD_COLUMNS, (*[_card_row(r) for r in decided[:8]], *[_card_row(pooled) for pooled in result.pooled])),
        "",
        f"Estimates are shrunk ({PRIOR}); a verdict needs {FEW_MATCHES} decided matches on each side and a gap "
        f"of {BETTER_BY:g} points. Lists with a card differ in more than that card, so a gap is evidence about "
        "the lists, not proof.",
    ]


def _answered(result: CardEvidenceOutput) -> str:
    """How much of the opponent's plan the card answers: their key spells weighted by how often each is played, and
    their key lands apart (a land hoser answers lands, not spells)."""
    spells = sum(not a.is_land for a in result.answers)
    lands = len(result.answers) - spells
    parts = []
    if spells or not lands:
        parts.append(
            f"{spells} of their {result.opponent_key_cards} key spells ({result.answered_share:.0f}% weighted by how "
            "often each is played)"
        )
    if lands:
        parts.append(f"{lands} of their key lands")
    return " and ".join(parts)


def _card_bottom_line(result: CardEvidenceOutput) -> str:
    """One sentence a player can act on: what it answers there and what the records say, pooled where they can be."""
    if result.opponent:
        does = (
            f"it answers {_answered(result)}"
            if result.answers
            else f"it answers nothing {plain(result.opponent)} relies on"
        )
    else:
        does = f"it answers key cards of {len(result.top_decks_answered)} of the top 5 decks"
    called = [r for r in (result.pooled or result.records) if r.gap is not None]
    if called:
        best = max(called, key=lambda r: r.with_card.wins + r.with_card.losses)
        who = "the compared archetypes'" if best.archetype == "all of these" else f"{plain(best.archetype)}'s"
        said = f"{who} {best.section} lists with it: {best.verdict} ({best.gap:+.1f} points)"
    else:
        said = "the records are too few to compare lists with and without it"
    return f"**In short:** {does}; {said}."


def plan_card(route: Route, known: ConversationState) -> Calls:
    arguments: JsonObject = {"card": route.card or ""}
    if route.opponent:
        arguments["opponent_archetype"] = route.opponent
    in_format = known.deck_format in (None, known.format)
    mine = known.archetype if in_format else None
    if mine and mine != route.opponent:
        arguments["archetype"] = mine
    if in_format and known.deck_read:  # a card off the deck's colours is said to be
        arguments["card_details"] = [c.model_dump() for c in known.card_details]
    return [ToolCall(CARD_EVIDENCE.name, arguments)]


def card_follow_up(changed: str, kept: str, follow_up: str = "and against Domain Zoo?") -> FollowUp:
    """ "and …?" after a card question naming only a new ``changed`` (the card, or the opponent): ``kept`` stays."""
    said = {"card": "another card against the same opponent", "opponent": "the same card against another opponent"}
    return FollowUp(
        said[changed],
        holds=lambda r, last, named: bool(r.slots.get(changed)) and not r.slots.get(kept),
        task="card_question",
        keeps=(kept,),
        example=("Is Fatal Push good against Boros Energy?", follow_up),
    )


CARD_RANKED = (
    "What a card answers comes from its rules text against the opponent's key cards; the records "
    "compare lists with it against the same archetype's lists without it (5+ decided matches each side)."
)
