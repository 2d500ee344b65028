"""The sideboard tool: a 15-card sideboard aimed at the top decks, the player's cards that answer one kept
first, the rest from what the archetype's lists play most, every cut with its reason and a guide per top deck."""

from __future__ import annotations

from dataclasses import dataclass

from meta_mage.decks.cards import answer_kinds, facts_of_detail, section_of, wished_by
from meta_mage.decks.context import CoachContext, Scope
from meta_mage.decks.decision import decide
from meta_mage.decks.enrich import card_detail
from meta_mage.decks.evidence import ArchetypeEvidence, did_better
from meta_mage.decks.matchup import Matchup, matchup_for, read_opponents
from meta_mage.models.cards import card_key
from meta_mage.models.decks import (
    CardDetail,
    OptimizeInput,
    OptimizeSideboardOutput,
    SideboardCut,
    SideboardGuide,
    SideboardMetadata,
    SideboardSlot,
    TopArchetype,
)
from meta_mage.models.meta import WinRate

SIDEBOARD_SIZE = 15
MAX_COPIES = 4
NO_ROOM = "no room: the 15 slots went to cards that answer more of the top decks"


@dataclass
class Sideboard:
    """The sideboard as it is filled: one tool call's deck, top decks and the slots taken so far."""

    own: ArchetypeEvidence
    opponents: list[tuple[str, WinRate]]  # the top decks, each with the archetype's record against it
    mine: dict[str, CardDetail]  # the player's sideboard by card key
    main: dict[str, CardDetail]  # the player's main deck by card key
    matchups: dict[str, Matchup]
    final: list[SideboardSlot]
    cut_reasons: dict[str, str]

    @property
    def remaining(self) -> int:
        return SIDEBOARD_SIZE - sum(s.quantity for s in self.final)

    def better_against(self, card: str) -> list[str]:
        """The top decks the archetype's lists with ``card`` in the sideboard beat its own record against."""
        return [opp for opp, base in self.opponents if did_better(self.own.with_card(card, opp), base)]


def _keeper_reason(hits: dict[str, list[str]], better: list[str]) -> str:
    parts = [f"answers {opp}'s {', '.join(names[:2])}" for opp, names in list(hits.items())[:2]]
    if len(hits) > 2:
        parts.append(f"and cards of {len(hits) - 2} more top decks")
    if better:
        parts.append(f"its lists beat the archetype's record against {', '.join(better)}")
    return "; ".join(parts)


def _keep_wish_targets(board: Sideboard) -> None:
    """The player's sideboard cards a main-deck wish fetches that answer nothing (Past in Flames and Empty the
    Warrens beside Ruby Storm's Wish) are the deck's plan, not a matchup's answer: kept first, every copy."""
    main = [facts_of_detail(c) for c in board.main.values() if not c.unknown]
    for card in board.mine.values():
        facts = facts_of_detail(card)
        wish = wished_by(facts, main) if not card.unknown and not answer_kinds(facts) else ""
        if wish and board.remaining:
            reason = f"a {wish} target: {wish} fetches it from the sideboard, so it is part of the deck's plan; kept"
            take = min(card.quantity, board.remaining)
            board.final.append(SideboardSlot(name=card.name, quantity=take, reason=reason, targets=[]))


def guide_for(
    ctx: CoachContext, scope: Scope, board: Sideboard, opponent: str, base: WinRate, side: list[CardDetail]
) -> SideboardGuide:
    """The sideboard guide against one top deck with ``side`` as the sideboard: the one decision per card and
    matchup (``decide``) that the tool's keeps, the matchup plan and the card question all read."""
    cards = [*board.main.values(), *side]
    matchup = board.matchups[opponent]
    return decide(ctx.classifier, scope.format, scope.own, base, cards, matchup, opponent).guide


def _front_key(name: str) -> str:
    """A card's key by its front face: the statistics name a split card (Wear // Tear) by it."""
    return card_key(name.split(" // ")[0])


def _brought_against(guides: list[SideboardGuide]) -> dict[str, list[str]]:
    """Each sideboard card (by its front face's key) with the top decks whose guide brings it in."""
    found: dict[str, list[str]] = {}
    for guide in guides:
        for card in guide.bring_in:
            found.setdefault(_front_key(card.name), []).append(guide.opponent)
    return found


def _keep_answers(ctx: CoachContext, scope: Scope, board: Sideboard) -> None:
    """The player's own cards that a top deck's guide brings in (it answers their cards, or its lists did better
    against them, and it is worth more there than the main deck's least card) are kept next, those brought in
    against the most top decks first: a card is kept "for" a deck only when that deck's guide brings it in."""
    side = list(board.mine.values())
    guides = [guide_for(ctx, scope, board, opp, base, side) for opp, base in board.opponents]
    brought = _brought_against(guides)
    kept = {card_key(slot.name) for slot in board.final}
    keepers = [
        (-len(brought[_front_key(card.name)]), card.name, key, card, brought[_front_key(card.name)])
        for key, card in board.mine.items()
        if _front_key(card.name) in brought and key not in kept
    ]
    for _, _, key, card, against in sorted(keepers, key=lambda k: (k[0], k[1])):
        take = min(card.quantity, board.remaining)
        if take < card.quantity:
            board.cut_reasons[key] = NO_ROOM
        if take:
            reason = f"comes in against {', '.join(against)}; kept"
            board.final.append(SideboardSlot(name=card.name, quantity=take, reason=reason, targets=against))
    for key, card in board.mine.items():
        if _front_key(card.name) not in brought and key not in kept:
            board.cut_reasons.setdefault(key, _not_brought(card.name, guides))


def _not_brought(name: str, guides: list[SideboardGuide]) -> str:
    """Why no top deck's guide brings a card in, from the guides' own words."""
    held = [g.opponent for g in guides if name in g.held_back]
    if held:
        return f"worth bringing in against {', '.join(held)}, but the main deck's cards do as much there"
    whys = {c.why for g in guides for c in g.left_out if c.name == name}
    return "no top deck's guide brings it in" + (f" ({'; '.join(sorted(whys)[:2])})" if whys else "")


def _agree_with_guides(final: list[SideboardSlot], guides: list[SideboardGuide]) -> None:
    """Every slot names the top decks whose final guide brings it in, so the tool and the guides agree."""
    brought = _brought_against(guides)
    for slot in final:
        against = brought.get(_front_key(slot.name), [])
        if slot.targets and set(slot.targets) != set(against):
            slot.targets = against
            slot.reason = f"comes in against {', '.join(against)}; kept" if against else slot.reason


def _fill_popular(board: Sideboard) -> None:
    """The other slots go to what the archetype's lists play most in the sideboard (10 points more per top deck
    their lists beat), at their average copies."""
    own = board.own
    chosen = {card_key(slot.name) for slot in board.final}
    scored: list[tuple[float, str, int, str, list[str]]] = []
    for key, (name, row) in own.keyed("sideboard").items():
        if key in chosen or key in board.main:
            continue
        inclusion = own.inclusion(row)
        better = board.better_against(name)
        average = row.copies / row.decks if row.decks else 1.0
        reason = f"in {inclusion}% of {own.lists} {own.name} sideboards (average {round(average, 1)})"
        if better:
            reason += "; its lists beat the archetype's record against " + ", ".join(better)
        scored.append((inclusion + 10 * len(better), name, max(1, min(MAX_COPIES, round(average))), reason, better))
    for _, name, quantity, reason, better in sorted(scored, key=lambda s: (-s[0], s[1])):
        if board.remaining == 0:
            break
        take = min(quantity, board.remaining)
        board.final.append(SideboardSlot(name=name, quantity=take, reason=reason, targets=better))


def _top_up(board: Sideboard) -> None:
    """Too few distinct candidates: more copies of the first slots, up to four each."""
    remaining = board.remaining
    if not remaining or not board.final:
        return
    for slot in board.final:
        extra = min(MAX_COPIES - slot.quantity, remaining)
        slot.quantity += extra
        remaining -= extra


def _cuts(board: Sideboard) -> list[SideboardCut]:
    """The player's cards (or copies) the final sideboard leaves out, each with why."""
    own = board.own
    kept = {card_key(s.name): s.quantity for s in board.final}
    cuts = []
    for key, card in board.mine.items():
        if kept.get(key, 0) >= card.quantity:
            continue
        row = own.row("sideboard", card.name)
        share = own.inclusion(row) if row is not None else 0.0
        why = board.cut_reasons.get(key) or (
            f"answers none of the top decks' key cards by its rules text, its lists did not beat the "
            f"archetype's record against them, and {share:g}% of {own.name} sideboards play it"
        )
        cuts.append(SideboardCut(name=card.name, quantity=card.quantity - kept.get(key, 0), why=why))
    return cuts


def _final_cards(ctx: CoachContext, final: list[SideboardSlot]) -> list[CardDetail]:
    details = ctx.cards.get_many([card_key(s.name) for s in final])
    return [
        card_detail(found, slot.quantity, "sideboard")
        if (found := details.get(card_key(slot.name)))
        else CardDetail(name=slot.name, quantity=slot.quantity, section="sideboard")
        for slot in final
    ]


def _new_sideboard(ctx: CoachContext, scope: Scope, top: list[TopArchetype], params: OptimizeInput) -> Sideboard:
    opponents = [(t.archetype, t.your_archetype_vs_it) for t in top]
    win = scope.window
    profiles = read_opponents(ctx, scope.format, [opp for opp, _ in opponents], win.start, win.end)
    mine = section_of(params.card_details, "sideboard")
    main = section_of(params.card_details, "mainboard")
    main_list = list(main.values())
    matchups = {
        opp: matchup_for(ctx.classifier, scope.format, profile, main_list, scope.own.name, scope.own)
        for opp, profile in profiles.items()
    }
    return Sideboard(scope.own, opponents, mine, main, matchups, [], {})


def optimize_sideboard(ctx: CoachContext, params: OptimizeInput) -> OptimizeSideboardOutput:
    """A 15-card sideboard aimed at the top N archetypes, from what the archetype's lists play.

    The cards a main-deck wish fetches are kept first (the deck's plan); then the user's own sideboard cards that
    answer a top deck (by the rules against its key cards, or by
    lists with the card beating the archetype's record against it: ``did_better``) are kept first, so
    this never cuts a card the matchup plan calls an answer; the other slots go to what the archetype's
    lists play most. Every cut says why, and a guide per top deck says what comes in and goes out."""
    scope = ctx.scope(params)
    top = scope.top(params.top_n)
    board = _new_sideboard(ctx, scope, top, params)
    _keep_wish_targets(board)
    _keep_answers(ctx, scope, board)
    _fill_popular(board)
    _top_up(board)
    cuts = _cuts(board)
    final_cards = _final_cards(ctx, board.final)
    guides = [guide_for(ctx, scope, board, opp, base, final_cards) for opp, base in board.opponents]
    _agree_with_guides(board.final, guides)
    current = {card_key(c.name) for c in board.mine.values()}
    return OptimizeSideboardOutput(
        format=params.format,
        archetype=scope.own.name,
        lists_compared=scope.own.lists,
        top_archetypes=top,
        final_sideboard=board.final,
        total_cards=sum(s.quantity for s in board.final),
        adds=[s.name for s in board.final if card_key(s.name) not in current],
        cuts=[c.name for c in cuts],
        cut_reasons=cuts,
        guides=guides,
        metadata=SideboardMetadata(period=scope.window, min_sample=ctx.min_sample),
    )
