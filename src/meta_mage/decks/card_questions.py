"""Questions about one card ("is Fatal Push good against Boros Energy?"): what it answers among an opponent's key
cards (or the top decks'), and how the most played archetypes' lists with it did against their lists without it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, replace

from meta_mage.analytics.stats import FEW_MATCHES
from meta_mage.card_rules.answers import role_labels
from meta_mage.card_rules.facts import CardFacts
from meta_mage.decks.cards import deck_colours, facts_of_detail, is_land
from meta_mage.decks.context import CoachContext
from meta_mage.decks.decision import decide
from meta_mage.decks.enrich import card_detail
from meta_mage.decks.evidence import (
    ArchetypeEvidence,
    Section,
    evidence_gap,
    gap_words,
    most_played,
    pct,
    win_rate,
    without_card,
)
from meta_mage.decks.matchup import Opponent, answers, matchup_for, read_opponent, read_opponents, weights
from meta_mage.decks.names import closest_names
from meta_mage.decks.splash import splash_for
from meta_mage.errors import NotFound
from meta_mage.models.cards import Card, card_key
from meta_mage.models.decks import (
    AnsweredCard,
    CardDetail,
    CardEvidenceInput,
    CardEvidenceOutput,
    CardRecord,
    OptimizeInput,
    StrategyMetadata,
)
from meta_mage.models.evidence import FormatStats, Record
from meta_mage.models.meta import Window, WinRate

CARD_ARCHETYPES = 15  # the most played archetypes whose lists with and without a card are compared (a Query each)
TOP_DECKS = 5  # the top decks a card is checked against when no opponent is named
SECTIONS: tuple[Section, ...] = ("mainboard", "sideboard")


def card_named(ctx: CoachContext, name: str) -> tuple[Card, str | None]:
    """The stored card ``name`` names (its short name or a misspelling too), and what was typed when corrected."""
    card = ctx.cards.get_many([card_key(name)]).get(card_key(name))
    if card is not None:
        return card, None
    names = ctx.cards.all_names()
    if not names:
        raise NotFound(
            f"no card named {name!r}: no card data is loaded yet; load it with 'meta-mage ingest cards FILE' "
            "(or 'meta-mage seed' for the demo's)",
            field="card",
        )
    best, suggestions = closest_names(name, names)
    card = ctx.cards.get_many([card_key(best)]).get(card_key(best)) if best else None
    if card is None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        raise NotFound(f"no card named {name!r} in the card data{hint}", field="card", allowed=suggestions)
    return card, name


def _front(name: str) -> str:
    """A split card's front face: the statistics name a split card by it."""
    return name.split(" // ")[0]


def _land_shares(them: Opponent, how: dict[str, str]) -> dict[str, float]:
    """The share of their lists playing each of their key lands the card answers."""
    if not any(t.is_land and t.name in how for t in them.targets):
        return {}
    front = {_front(name): name for name in how}
    rows = them.evidence.rows("mainboard").items()
    return {front[_front(c)]: pct(r.decks, them.lists) for c, r in rows if _front(c) in front}


@dataclass(frozen=True)
class WhatItAnswers:
    """What a card answers, among one opponent's key cards or the top decks' (the output's fields of these names)."""

    answers: list[AnsweredCard]
    opponent_lists: int = 0
    opponent_key_cards: int = 0
    answered_share: float = 0.0
    top_decks_answered: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    decision: str = ""


def _against_opponent(
    ctx: CoachContext, fmt: str, detail: CardDetail, opponent: str, win: Window, deck: list[CardDetail]
) -> WhatItAnswers:
    """What the card answers among ``opponent``'s key cards, with each one's share of their lists, and the
    answered share of their key spells weighted by those shares; read with the player's main deck when it is
    known, as the guide reads it (a sweeper that kills half the deck's own creatures answers nothing)."""
    them = read_opponent(ctx, fmt, opponent, win.start, win.end)
    main = [c for c in deck if c.section == "mainboard"]
    how = answers(detail, matchup_for(ctx.classifier, fmt, them, main), main)
    weight = weights(them.key_cards)
    spells = {t.name for t in them.targets if not t.is_land}
    shares = {k.name: k.inclusion_rate for k in them.key_cards} | _land_shares(them, how)
    return WhatItAnswers(
        opponent_lists=them.lists,
        opponent_key_cards=len(them.key_cards),
        answers=[
            AnsweredCard(name=name, inclusion_rate=shares.get(name, 0.0), how=way, is_land=name not in spells)
            for name, way in how.items()
        ],
        answered_share=pct(
            round(100 * sum(weight.get(n, 0) for n in how if n in spells)),
            round(100 * sum(weight.get(n, 0) for n in spells)),
        ),
    )


def _against_top(ctx: CoachContext, fmt: str, detail: CardDetail, stats: FormatStats, win: Window) -> WhatItAnswers:
    """The top decks whose key cards the card answers, with the ones it answers."""
    top = read_opponents(ctx, fmt, most_played(stats, (), TOP_DECKS), win.start, win.end)
    answered = {name: answers(detail, matchup_for(ctx.classifier, fmt, them, [])) for name, them in top.items()}
    return WhatItAnswers(answers=[], top_decks_answered={name: list(how) for name, how in answered.items() if how})


def _card_record(own: ArchetypeEvidence, section: Section, card: str, opponent: str | None) -> CardRecord | None:
    """The archetype's lists with the card in ``section`` against its lists without it: against ``opponent`` when
    given, else overall; None when none of its lists play it there."""
    row = own.row(section, card)
    if row is None:
        return None
    counts = own.versus(opponent) if opponent else own.record
    base = win_rate(Record(counts.wins, counts.losses), own.min_sample)
    if opponent:
        with_card = own.with_card(card, opponent, section) or win_rate(Record(), own.min_sample)
    else:
        with_card = win_rate(row.record, own.min_sample)
    gap = evidence_gap(with_card, base)
    return CardRecord(
        archetype=own.name,
        section=section,
        lists_with=row.decks,
        lists=own.lists,
        with_card=with_card,
        without_card=without_card(with_card, base),
        gap=None if gap is None else round(gap, 1),
        verdict=gap_words(gap),
    )


def _subjects(ctx: CoachContext, params: CardEvidenceInput, field: FormatStats, opponent: str | None) -> list[str]:
    """The archetypes whose lists are compared: the player's, else the ``CARD_ARCHETYPES`` most played."""
    if params.archetype:
        return [ctx.meta.resolve_archetype(params.archetype, field.archetype_decks)]
    return most_played(field, (opponent,), CARD_ARCHETYPES)


def _decided(rate: WinRate | None) -> bool:
    return rate is not None and rate.wins + rate.losses > 0


def _summed(rates: Iterable[WinRate | None]) -> Record:
    return sum((Record(r.wins, r.losses) for r in rates if r is not None), Record())


def _pooled_row(rows: list[CardRecord]) -> CardRecord:
    with_counts = _summed(r.with_card for r in rows)
    without_counts = _summed(r.without_card for r in rows)
    with_card, without = win_rate(with_counts, FEW_MATCHES), win_rate(without_counts, FEW_MATCHES)
    gap = evidence_gap(with_card, win_rate(with_counts + without_counts, FEW_MATCHES))
    return CardRecord(
        archetype="all of these",
        section=rows[0].section,
        lists_with=sum(r.lists_with for r in rows),
        lists=sum(r.lists for r in rows),
        with_card=with_card,
        without_card=without,
        gap=None if gap is None else round(gap, 1),
        verdict=gap_words(gap),
    )


def pooled(records: list[CardRecord]) -> list[CardRecord]:
    """Per section, over the archetypes with decided matches both with and without the card (two or more): their
    lists with it against their lists without it (sections apart, so a list with it in both is not counted
    twice; an archetype that always plays it has nothing to compare)."""
    found = []
    for section in SECTIONS:
        rows = [r for r in records if r.section == section and _decided(r.with_card) and _decided(r.without_card)]
        if len(rows) >= 2:
            found.append(_pooled_row(rows))
    return found


def _matches_against(field: FormatStats, opponent: str | None) -> int:
    """The decided matches against ``opponent`` in the window (mirrors excluded)."""
    if not opponent:
        return 0
    played = [a for a in field.archetype_decks if a != opponent]
    return sum(field.versus(a).get(opponent, Record()).decided for a in played)


def _off_colours(card: Card, deck: list[CardDetail]) -> str:
    """The words when ``card`` is off the colours the player's main deck spends (with what a splash costs)."""
    main = [c for c in deck if c.section == "mainboard" and not c.unknown]
    if not main:
        return ""
    lands = [(facts_of_detail(c), c.quantity) for c in main if is_land(c)]
    splash = splash_for(CardFacts.of(card), deck_colours(main), lands)
    return splash.words() if splash else ""


def _decision(ctx: CoachContext, params: CardEvidenceInput, opponent: str, card: str) -> str:
    """With the player's list and archetype: what the matchup's one decision (the sideboard guide) does with the
    card, so the card question and the guide say the same; "" without them."""
    if not params.card_details or not params.archetype:
        return ""
    scope = ctx.scope(
        OptimizeInput(
            format=params.format,
            card_details=params.card_details,
            archetype=params.archetype,
            days=params.days,
            as_of=params.as_of,
        )
    )
    main = [c for c in params.card_details if c.section == "mainboard"]
    win = scope.window
    them = read_opponent(ctx, scope.format, opponent, win.start, win.end)
    matchup = matchup_for(ctx.classifier, scope.format, them, main, scope.own.name, scope.own)
    base = scope.matchups.get(opponent)
    found = decide(ctx.classifier, scope.format, scope.own, base, params.card_details, matchup, opponent)
    return found.of_card(card)


def card_evidence(ctx: CoachContext, params: CardEvidenceInput) -> CardEvidenceOutput:
    """What a card answers among an opponent's key cards (or the top decks'), how each of the most played
    archetypes' lists with it did against its lists without it (against the opponent, or overall), and how
    many of the matches against the opponent lists with it played."""
    fmt = params.format
    win = ctx.window(fmt, params.days, params.as_of)
    field = ctx.field(fmt, win)
    card, read_as = card_named(ctx, params.card)
    detail = card_detail(card, 1, "mainboard")
    resolve = ctx.meta.resolve_archetype
    opponent = resolve(params.opponent_archetype, field.archetype_decks) if params.opponent_archetype else None
    deck = params.card_details or []
    if opponent:
        found = _against_opponent(ctx, fmt, detail, opponent, win, deck)
        found = replace(found, decision=_decision(ctx, params, opponent, card.name))
    else:
        found = _against_top(ctx, fmt, detail, field, win)
    subjects = _subjects(ctx, params, field, opponent)
    owns = [ctx.evidence(fmt, name, win.start, win.end, field) for name in subjects]
    records = [r for own in owns for s in SECTIONS if (r := _card_record(own, s, card.name, opponent))]
    records.sort(key=lambda r: (-(r.with_card.wins + r.with_card.losses), r.archetype, r.section))
    return CardEvidenceOutput(
        off_colours=_off_colours(card, params.card_details or []),
        format=fmt,
        card=card.name,
        read_as=read_as,
        type_line=card.type_line,
        mana_cost=card.mana_cost,
        roles=role_labels(CardFacts.of(card)),
        opponent=opponent,
        records=records,
        pooled=pooled(records),
        matches_with=sum(r.with_card.wins + r.with_card.losses for r in records),
        matches_total=_matches_against(field, opponent),
        archetypes_checked=len(subjects),
        metadata=StrategyMetadata(period=win),
        **vars(found),
    )
