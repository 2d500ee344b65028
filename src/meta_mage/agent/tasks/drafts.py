"""The cube-draft tasks (a draft's pool, the imported drafts): each one's record beside its offline answer."""

from __future__ import annotations

import re
from dataclasses import dataclass

from meta_mage.agent.render import Answer, Item, Line, compose
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks.phrasing import plain
from meta_mage.agent.tasks.task import Calls, Cue, TaskSpec, answered_from
from meta_mage.agent.tools import ToolCall
from meta_mage.models.drafts import REDACTED, DraftPoolResult, ListDraftsOutput
from meta_mage.tools.catalog.drafts import DRAFT_POOL, LIST_DRAFTS
from meta_mage.tools.rules import DRAFT_ID
from meta_mage.tools.tool import CUBE_DRAFT


def draft_pool(pool: DraftPoolResult, route: Route, known: ConversationState) -> Answer:
    cards = [PoolCard.of(card) for card in pool.cards or []]
    filters = route.card_filter or {}
    kind = (filters.get("type_contains") or "card").lower()
    described = _described(filters, pool.total_cards)
    if filters.get("drafter") == REDACTED or _OPT_OUT.search(route.question):  # one sentence, never their picks
        return Answer.of(_opted_out(plain(pool.draft_name), _private_picks(cards)))
    heading = f"**{plain(pool.draft_name)}** ({pool.draft_date})"
    if filters.get("drafter"):  # the tool has no drafter filter: the answer keeps that drafter's picks
        return _drafters_picks(heading, filters["drafter"], kind, described, cards)
    asked_pick = _ASKS_PICK.search(route.question)
    if asked_pick:
        return _pick_of_each(heading, int(asked_pick.group(1) or 1), kind, described, cards)
    return _whole_pool(pool, route.question, kind, described, cards)


@dataclass(frozen=True)
class PoolCard:
    """A card of the pool as the answers read it: its name, mana cost, and who took its copies (pick order)."""

    name: str
    mana_cost: str
    drafted: bool
    takers: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, card: dict[str, object]) -> PoolCard:
        """The card of one row of the tool's pool (its first taker, then the others)."""
        drafted = bool(card.get("drafted"))
        picks = [card] if drafted and card.get("drafted_by") else []
        more = card.get("additional_picks")
        picks += [pick for pick in more if isinstance(pick, dict)] if picks and isinstance(more, list) else []
        takers = tuple((str(pick["drafted_by"]), int(str(pick["drafted_pick_n"]))) for pick in picks)
        return cls(str(card["card_name"]), str(card.get("mana_cost") or ""), drafted, takers)


_COLOUR_NAMES = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green", "C": "no colour"}
_ANONYMOUS_NOTE = f"{REDACTED} is a drafter who asked not to be named; I can't tell who it is."


def _described(filters: dict[str, str], total: int) -> str:
    """The colour and name filters asked for, as words to follow the kind of card ("creatures")."""
    described = ""
    color = _COLOUR_NAMES.get(filters.get("color", ""))
    if color:
        described += f" with {color} in {'its' if total == 1 else 'their'} colour identity"
    if filters.get("name_contains"):
        described += f" named like “{plain(filters['name_contains'])}”"
    return described


def _opted_out(draft_name: str, private: int) -> str:
    """The one sentence about the drafter who asked not to be named: never their picks."""
    if not private:
        return f"Every drafter in **{draft_name}** is named; nobody asked to stay anonymous."
    return (
        f"One drafter in **{draft_name}** asked not to be named: their {private} picks show as {REDACTED}, "
        "and I don't list them or say who it might be."
    )


@dataclass(frozen=True)
class _Subset:
    """Part of the pool a question asks for: its drafted or its undrafted cards."""

    asks: re.Pattern[str]
    drafted: bool
    left_out: str  # the others, formatted with their count ``n`` and ``were`` ("was" for one)


def _whole_pool(pool: DraftPoolResult, question: str, kind: str, described: str, cards: list[PoolCard]) -> Answer:
    """The pool's cards (or the drafted or undrafted ones asked for), each with who took it."""
    total = pool.total_cards
    drafted = [c for c in cards if c.drafted]
    lines: list[Line] = [
        f"**{plain(pool.draft_name)}** ({pool.draft_date}): "
        f"{total} {kind}{'' if total == 1 else 's'}{described} in the pool, " + _drafted_count(total, len(drafted)),
        "",
    ]
    asked = [] if _ASKS_WHOLE.search(question) else [s for s in _SUBSETS if s.asks.search(question)]
    subset = asked[0] if asked else None
    shown = cards if subset is None else [c for c in cards if c.drafted == subset.drafted]
    lines += _card_lines(shown)
    if subset is not None and len(shown) < total:
        others = total - len(shown)
        lines += ["", subset.left_out.format(n=others, were="was" if others == 1 else "were")]
    if _private_picks(cards):
        lines += ["", _ANONYMOUS_NOTE]
    return compose(lines)


def _drafted_count(total: int, drafted: int) -> str:
    if total != 1:
        return f"{drafted} of them drafted."
    return "drafted." if drafted else "not drafted."


def _card_lines(shown: list[PoolCard]) -> list[Line]:
    """One line per card, with who took it; a long list is cut (but never to "… and 5 more")."""
    limit = len(shown) if len(shown) <= MAX_LISTED + 10 else MAX_LISTED
    lines: list[Line] = []
    for card in shown[:limit]:
        takers = ", ".join(f"{_drafter(who)} (pick {n})" for who, n in card.takers)
        taken = "taken by " + takers if takers else "not drafted"
        lines.append(Item(f"{plain(card.name)}{_cost(card.mana_cost)}: {taken}"))
    if len(shown) > limit:
        lines.append(
            Item(f"… and {len(shown) - limit} more (ask for a colour, a type or a card name to narrow it down)")
        )
    return lines


def _cost(mana_cost: str) -> str:
    """A mana cost as players write it: "{3}{G}{G}" is " (3GG)", a hybrid or Phyrexian symbol kept whole."""
    if not mana_cost:
        return ""
    symbols = re.findall(r"\{([^}]+)\}", mana_cost)
    return " (" + plain("".join(s if len(s) <= 2 and "/" not in s else f"{{{s}}}" for s in symbols)) + ")"


def _drafters_picks(heading: str, drafter: str, kind: str, described: str, cards: list[PoolCard]) -> Answer:
    """One drafter's picks (of the kind and colour asked), in the order they were taken."""
    picks = sorted(
        ((n, card.name, card.mana_cost) for card in cards for who, n in card.takers if who == drafter),
        key=lambda pick: pick[:2],
    )
    plural = "" if len(picks) == 1 else "s"
    lines: list[Line] = [
        f"{heading}: {_drafter(drafter)} took {len(picks)} {kind}{plural}{described}, in pick order:",
        "",
    ]
    lines += [Item(f"Pick {n}: {plain(name)}{_cost(cost)}") for n, name, cost in picks]
    return compose(lines)


def _pick_of_each(heading: str, number: int, kind: str, described: str, cards: list[PoolCard]) -> Answer:
    """What each drafter took with one pick number ("the first picks": pick 1), of the kind and colour asked."""
    taken = sorted(
        ((who, card.name, card.mana_cost) for card in cards for who, n in card.takers if n == number),
        key=lambda pick: pick[:2],
    )
    narrowed = _narrowed(kind, described)
    if not taken:
        return Answer.of(f"{heading}: no drafter took pick {number}{narrowed}.")
    lines: list[Line] = [f"{heading}: pick {number} of each drafter{narrowed} ({len(taken)}):", ""]
    lines += [Item(f"{_drafter(who)}: {plain(name)}{_cost(cost)}") for who, name, cost in taken]
    if any(who == REDACTED for who, _, _ in taken):
        lines += ["", _ANONYMOUS_NOTE]
    return compose(lines)


def _narrowed(kind: str, described: str) -> str:
    return f" among the {kind}s{described}" if kind != "card" or described else ""


MAX_LISTED = 60  # cards listed in one answer; a list at most 10 longer is listed whole
_ASKS_UNDRAFTED = re.compile(
    r"\b(not|never|nobody|no one|un)[- ]?(drafted|picked|taken|took)\b|\bundrafted\b|\bwent late\b", re.I
)
_ASKS_DRAFTED = re.compile(r"\b(were|was|got|been|get)\s+(drafted|picked|taken)\b|\bwho (took|drafted|picked)\b", re.I)
_ASKS_PICK = re.compile(r"\bfirst[- ]picks?\b|\bp1p1\b|\bpick (?:number |no\.? ?|#)?(\d{1,2})\b", re.I)
_OPT_OUT = re.compile(r"\bopt(s|ed)?[- ]?out\b|\bnot (to )?be named\b|\banonymous\b|\bredacted\b", re.I)
# "what green creatures were in the draft, and who took them?" asks for the pool (each card with its taker)
_ASKS_WHOLE = re.compile(r"\b(?:were|are|was|is) in\b|\bin the (?:pool|cube)\b|\bwhole pool\b", re.I)
_SUBSETS = (
    _Subset(_ASKS_UNDRAFTED, False, "The other {n} {were} drafted; ask who took them to see the picks."),
    # "which green creatures were drafted, and who took them?"
    _Subset(_ASKS_DRAFTED, True, "The other {n} {were} not drafted; ask for the whole pool to see them."),
)


def _drafter(name: str) -> str:
    """A drafter's name as plain text; the marker of the one who asked not to be named is the coach's own word."""
    return name if name == REDACTED else plain(name)


def _private_picks(cards: list[PoolCard]) -> int:
    """How many picks the pool credits to the drafter who asked not to be named."""
    return sum(who == REDACTED for card in cards for who, _ in card.takers)


def list_drafts(result: ListDraftsOutput, route: Route, known: ConversationState) -> Answer:
    if not result.drafts:
        return Answer.of("No cube drafts have been imported yet.")
    listed = [
        Item(
            f"**{plain(d.draft_name)}** (`{d.draft_id}`, {d.draft_date}): {d.total_cards} cards, "
            f"{d.drafters} drafters, {d.picks} picks"
        )
        for d in result.drafts
    ]
    return compose(["Cube drafts I know:", "", *listed])


def _plan_pool(route: Route, known: ConversationState) -> Calls:
    filters = {k: v for k, v in (route.card_filter or {}).items() if k in {"color", "type_contains", "name_contains"}}
    return [ToolCall(DRAFT_POOL.name, {"include_draft_results": True, "include_card_details": True, **filters})]


# The first task is the workflow's default.
TASKS = (
    TaskSpec("draft_pool", CUBE_DRAFT, answered_from(DraftPoolResult, draft_pool), (DRAFT_ID,), planner=_plan_pool),
    TaskSpec(
        LIST_DRAFTS.name,
        CUBE_DRAFT,
        answered_from(ListDraftsOutput, list_drafts),
        (),
        ((LIST_DRAFTS, {}),),
        cues=(Cue(1, r"\b(which|what|list)\b.{0,20}\bdrafts\b"),),
    ),
)
