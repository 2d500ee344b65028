"""Data-driven deck coaching: compare a player's list with the archetype's recent lists."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from pydantic import ValidationError

from meta_mage.analytics.aggregate import merge
from meta_mage.analytics.meta import MetaService, record, window
from meta_mage.decks.parse import parse_deck_text
from meta_mage.errors import InvalidArgument, NotFound
from meta_mage.ingest.archetypes import ArchetypeClassifier
from meta_mage.models.cards import card_key
from meta_mage.models.decks import (
    CardDetail,
    CardUsage,
    ClassifyDeckInput,
    ClassifyDeckOutput,
    KeyCard,
    MainboardMetadata,
    OptimizeInput,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    SideboardAnswer,
    SideboardMetadata,
    SideboardSlot,
    StrategyFacts,
    StrategyInput,
    StrategyMetadata,
    Swap,
)
from meta_mage.models.meta import Window, WinRate
from meta_mage.storage.cards import CardsRepository

SIDEBOARD_SIZE = 15

CORE_INCLUSION = 80.0
FLEX_INCLUSION = 50.0
CANDIDATE_INCLUSION = 30.0

_COLOUR_WORDS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}


def _answered_by(answer_text: str, label: str, target: str, key: Any) -> bool:
    """Whether a sideboard card whose rules text matched ``label`` answers the opponent's ``key`` card:
    a type answer needs the type on the key card's type line (not in its rules text), a graveyard answer
    an opponent whose card uses the graveyard, and a colour hoser ("if it's blue") a card of that colour."""
    if label == "graveyards":
        if not re.search(target, key.oracle_text or "", re.I):
            return False
    elif not re.search(target, key.type_line or "", re.I):
        return False
    colours = {_COLOUR_WORDS[w.lower()] for pair in _COLOUR_HOSER.findall(answer_text) for w in pair if w}
    return not colours or bool(colours & set(re.findall(r"[WUBRG]", key.mana_cost or "")))


# "if it's blue", "target red permanent", "blue spells": not "exile a blue card from your hand rather than pay"
_COLOUR_HOSER = re.compile(
    r"\bif (?:it'?s|that (?:spell|permanent) is) (white|blue|black|red|green)\b"
    r"|\b(white|blue|black|red|green) (?:spells?|permanents?|creatures?|instants?|sorcer(?:y|ies)|sources?)\b",
    re.I,
)


# What a sideboard card's rules text says it answers, matched against an opponent's key cards.
_ANSWERS = {
    "artifacts": (
        re.compile(r"(?:destroy|exile) (?:target|each|all)[^.]*artifact|artifacts? (?:can't|your opponents)", re.I),
        "Artifact",
    ),
    "enchantments": (re.compile(r"destroy target[^.]*enchantment|exile target[^.]*enchantment", re.I), "Enchantment"),
    "creatures": (
        re.compile(
            r"(?:destroy|exile) (?:target|each|all)[^.]*(?<!non)creature"
            r"|deals? \d+ damage to (?:each|any|target) creature|-\d+/-\d+",
            re.I,
        ),
        "Creature",
    ),
    "graveyards": (
        re.compile(
            r"exile (?:target|each|all)[^.]*graveyard|exile [^.]*from (?:a|target|each|all)[^.]*graveyards?"
            r"|graveyards?[^.]*can't|cards in graveyards|if a card (?:or token )?would be put into [^.]*graveyard",
            re.I,
        ),
        "graveyard",
    ),
    "spells": (re.compile(r"counter target|can't cast|noncreature spells? cost", re.I), "Instant|Sorcery"),
    "planeswalkers": (re.compile(r"planeswalker", re.I), "Planeswalker"),
    "lands": (re.compile(r"destroy target (?:nonbasic )?land|nonbasic lands? (?:are|don't)", re.I), "Land"),
}


def _pct(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def _stats_period(stats: dict[str, Any]) -> Window | None:
    """The window of a get_deck_matchup_stats output (``metadata.period``), or None when it has none."""
    metadata = stats.get("metadata")
    try:
        return Window.model_validate(metadata.get("period") if isinstance(metadata, dict) else None)
    except ValidationError:
        return None


class DeckCoach:
    """Deck tools over the archetype card statistics and the card data."""

    def __init__(self, meta: MetaService, cards: CardsRepository, classifier: ArchetypeClassifier) -> None:
        self.meta = meta
        self.cards = cards
        self.classifier = classifier

    # --- classify -------------------------------------------------------------------------

    def classify(self, params: ClassifyDeckInput) -> ClassifyDeckOutput:
        """The archetype the ingest classifier gives a pasted list (no DynamoDB request)."""
        deck = parse_deck_text(params.deck)
        verdict = self.classifier.classify(params.format, deck.mainboard, deck.sideboard)
        return ClassifyDeckOutput(
            format=params.format,
            archetype=verdict.archetype,
            color_identity=verdict.colors or "C",
            strategy=verdict.strategy,
            matched_by=verdict.kind,  # type: ignore[arg-type]
            candidates=list(verdict.candidates),
            mainboard_cards=sum(deck.mainboard.values()),
            sideboard_cards=sum(deck.sideboard.values()),
        )

    # --- shared loading -------------------------------------------------------------------

    def _archetype_stats(self, fmt: str, archetype: str, start: str, end: str) -> dict[str, Any]:
        stats: dict[str, Any] = {}
        for day in self.meta.repository.archetype_days(fmt, archetype, start, end):
            merge(stats, day.data)
        return stats

    def _context(self, params: OptimizeInput) -> tuple[str, Any, dict[str, Any], dict[str, Any]]:
        info = self.meta.format_info(params.format)
        win = window(params.as_of or dt.date.fromisoformat(info.last_date), params.days)
        total: dict[str, Any] = {}
        for day in self.meta.repository.format_days(params.format, win.start, win.end):
            merge(total, day.data)
        name = self.meta.resolve_archetype(params.archetype, total.get("archetypes", {}))
        stats = self._archetype_stats(params.format, name, win.start, win.end)
        if not stats.get("decks"):
            raise NotFound(f"no {name} lists in {params.format} between {win.start} and {win.end}", field="archetype")
        return name, win, total, stats

    def _usage(self, name: str, row: list[int] | None, lists: int, yours: int, record_total: list[int]) -> CardUsage:
        decks, copies, wins, losses = row or [0, 0, 0, 0]
        with_card = without = None
        if row:
            with_card = record(wins, losses, 0, self.meta.min_sample)
            without = record(record_total[0] - wins, record_total[1] - losses, 0, self.meta.min_sample)
        return CardUsage(
            name=name,
            inclusion_rate=_pct(decks, lists),
            average_copies=round(copies / decks, 2) if decks else 0.0,
            your_copies=yours,
            with_card=with_card,
            without_card=without,
        )

    def _top(self, total: dict[str, Any], own: str, top_n: int) -> list[dict[str, Any]]:
        archetypes = total.get("archetypes", {})
        ranked = sorted(
            (a for a in archetypes if a not in (own, "Unknown")), key=lambda a: (-archetypes[a]["decks"], a)
        )[:top_n]
        results = total.get("results", {}).get(own, {})
        out = []
        for opp in ranked:
            w, l, d = results.get(opp, [0, 0, 0])
            out.append(
                {
                    "archetype": opp,
                    "meta_share": _pct(archetypes[opp]["decks"], total.get("decks", 0)),
                    "your_archetype_vs_it": record(w, l, d, self.meta.min_sample).model_dump(),
                }
            )
        return out

    @staticmethod
    def _section(cards: list[CardDetail], section: str) -> dict[str, CardDetail]:
        out: dict[str, CardDetail] = {}
        for card in cards:
            if card.section == section:
                key = card_key(card.name)
                if key in out:
                    out[key] = out[key].model_copy(update={"quantity": out[key].quantity + card.quantity})
                else:
                    out[key] = card
        return out

    # --- mainboard ------------------------------------------------------------------------

    def optimize_mainboard(self, params: OptimizeInput) -> OptimizeMainboardOutput:
        """Core cards, flex spots, popular cards the deck lacks, and swaps with reasons."""
        name, win, total, stats = self._context(params)
        lists, rec = stats["decks"], stats["record"]
        lands = {card_key(c) for c in stats.get("lands", [])}
        rows = {card_key(c): (c, r) for c, r in stats["main"].items()}
        mine = self._section(params.card_details, "mainboard")
        if not mine:
            raise InvalidArgument("card_details has no mainboard cards", field="card_details")

        yours = [self._usage(c.name, rows.get(k, (None, None))[1], lists, c.quantity, rec) for k, c in mine.items()]
        core = sorted((u for u in yours if u.inclusion_rate >= CORE_INCLUSION), key=lambda u: -u.inclusion_rate)
        flex = sorted((u for u in yours if u.inclusion_rate < FLEX_INCLUSION), key=lambda u: (u.inclusion_rate, u.name))
        candidates = []
        for key, (card, row) in rows.items():
            usage = self._usage(card, row, lists, mine[key].quantity if key in mine else 0, rec)
            if usage.inclusion_rate >= CANDIDATE_INCLUSION and usage.your_copies < round(usage.average_copies):
                candidates.append(usage)
        candidates.sort(key=lambda u: (-u.inclusion_rate, u.name))

        def is_land(usage: CardUsage) -> bool:
            detail = mine.get(card_key(usage.name))
            if detail and detail.type_line:
                return "Land" in detail.type_line
            return card_key(usage.name) in lands

        swaps: list[Swap] = []
        used: set[str] = set()
        for cut in flex:
            add = next((c for c in candidates if c.name not in used and is_land(c) == is_land(cut)), None)
            if add is None:
                continue
            used.add(add.name)
            wanted = max(1, round(add.average_copies) - add.your_copies)
            quantity = min(cut.your_copies, wanted)
            reason = (
                f"{cut.name} is in {cut.inclusion_rate}% of {lists} recent {name} lists; "
                f"{add.name} is in {add.inclusion_rate}% (average {add.average_copies} copies)"
            )
            if add.with_card and add.without_card and not add.with_card.low_sample and not add.without_card.low_sample:
                reason += (
                    f"; lists with it won {add.with_card.win_rate}% of {add.with_card.wins + add.with_card.losses} "
                    f"matches vs {add.without_card.win_rate}% without"
                )
            swaps.append(Swap(cut=cut.name, cut_quantity=quantity, add=add.name, add_quantity=quantity, reason=reason))
            if len(swaps) >= params.top_n:
                break
        return OptimizeMainboardOutput(
            format=params.format,
            archetype=name,
            lists_compared=lists,
            core_cards=core,
            flex_spots=flex[: max(params.top_n, 5)],
            candidates=candidates[: max(params.top_n * 2, 10)],
            swaps=swaps,
            top_matchups=self._top(total, name, params.top_n),
            metadata=MainboardMetadata(
                period=win,
                min_sample=self.meta.min_sample,
                core_threshold=CORE_INCLUSION,
                flex_threshold=FLEX_INCLUSION,
            ),
        )

    # --- sideboard ------------------------------------------------------------------------

    def optimize_sideboard(self, params: OptimizeInput) -> OptimizeSideboardOutput:
        """A 15-card sideboard aimed at the top N archetypes, from what the archetype's lists play."""
        name, win, total, stats = self._context(params)
        lists = stats["decks"]
        top = self._top(total, name, params.top_n)
        top_names = [t["archetype"] for t in top]
        base = {t["archetype"]: t["your_archetype_vs_it"] for t in top}
        mine = self._section(params.card_details, "sideboard")
        main_keys = set(self._section(params.card_details, "mainboard"))

        scored: list[tuple[float, str, int, str, list[str]]] = []
        side_rows = {card_key(c): (c, r) for c, r in stats["side"].items()}
        for key in set(side_rows) | set(mine):
            card, row = side_rows.get(key, (mine[key].name if key in mine else key, None))
            decks, copies = (row[0], row[1]) if row else (0, 0)
            inclusion = _pct(decks, lists)
            targets: list[str] = []
            bonus = 0.0
            for opp, (w, l) in (stats.get("side_vs", {}).get(card) or {}).items():
                if opp in top_names and w + l >= 3:
                    rate, base_rate = 100 * w / (w + l), base[opp]["win_rate"]
                    if base_rate is not None and rate > base_rate:
                        targets.append(opp)
                        bonus += min(rate - base_rate, 20) / 2
            average = copies / decks if decks else float(mine[key].quantity if key in mine else 1)
            quantity = max(1, min(4, round(average)))
            reason = f"in {inclusion}% of {lists} {name} sideboards (average {round(average, 1)})"
            if targets:
                reason += "; its lists did better than the archetype's average against " + ", ".join(targets)
            if key in mine:
                reason += "; already in your sideboard"
                bonus += 5
            if key in main_keys:
                continue
            scored.append((inclusion + bonus, card, quantity, reason, targets))
        scored.sort(key=lambda s: (-s[0], s[1]))

        final: list[SideboardSlot] = []
        remaining = SIDEBOARD_SIZE
        for _, card, quantity, reason, targets in scored:
            if remaining == 0:
                break
            take = min(quantity, remaining)
            final.append(SideboardSlot(name=card, quantity=take, reason=reason, targets=targets))
            remaining -= take
        if remaining and final:  # too few distinct candidates: add copies of the best, up to 4 each
            for slot in final:
                extra = min(4 - slot.quantity, remaining)
                slot.quantity += extra
                remaining -= extra
        current = {card_key(c.name) for c in mine.values()}
        chosen = {card_key(s.name) for s in final}
        return OptimizeSideboardOutput(
            format=params.format,
            archetype=name,
            lists_compared=lists,
            top_archetypes=top,
            final_sideboard=final,
            total_cards=sum(s.quantity for s in final),
            adds=[s.name for s in final if card_key(s.name) not in current],
            cuts=[c.name for k, c in mine.items() if k not in chosen],
            metadata=SideboardMetadata(period=win, min_sample=self.meta.min_sample),
        )

    # --- matchup strategy facts -------------------------------------------------------------

    def matchup_facts(self, params: StrategyInput) -> StrategyFacts:
        """Record, the opponent's key cards and the user's sideboard answers to them."""
        stats_in = params.matchup_stats
        fmt = params.format or stats_in.get("format")
        period = _stats_period(stats_in)
        if not fmt or period is None or not period.start or not period.end:
            raise InvalidArgument(
                "matchup_stats must be the output of get_deck_matchup_stats (format and metadata.period)",
                field="matchup_stats",
            )
        cell = next(
            (
                m
                for m in stats_in.get("matchups", [])
                if str(m.get("opponent", "")).lower() == params.opponent_archetype.lower()
            ),
            None,
        )
        record_vs = WinRate.model_validate(cell) if cell else None
        opponent = cell["opponent"] if cell else params.opponent_archetype
        archetype = stats_in.get("archetype") or params.archetype
        opp_stats = self._archetype_stats(fmt, opponent, period.start, period.end)
        if not opp_stats.get("decks"):
            raise NotFound(
                f"no {opponent} lists in {fmt} between {period.start} and {period.end}",
                field="opponent_archetype",
            )
        own_stats = self._archetype_stats(fmt, archetype, period.start, period.end)
        lists = opp_stats["decks"]
        key_rows = [(c, r, "mainboard") for c, r in opp_stats["main"].items()]
        key_rows += [(c, r, "sideboard") for c, r in opp_stats["side"].items()]
        lands = set(opp_stats.get("lands", []))
        key_rows = [k for k in key_rows if k[0] not in lands and _pct(k[1][0], lists) >= 40]
        key_rows.sort(key=lambda k: (k[2] != "mainboard", -k[1][0], k[0]))
        key_rows = key_rows[:12]
        details = self.cards.get_many([card_key(c) for c, _, _ in key_rows])
        key_cards = []
        for card, row, section in key_rows:
            detail = details.get(card_key(card))
            key_cards.append(
                KeyCard(
                    name=card,
                    inclusion_rate=_pct(row[0], lists),
                    average_copies=round(row[1] / row[0], 2),
                    section=section,
                    type_line=detail.type_line if detail else None,
                    mana_cost=detail.mana_cost if detail else None,
                    oracle_text=detail.oracle_text if detail else None,
                )
            )

        answers = []
        opposing = [k for k in key_cards if k.section == "mainboard"]
        for card in self._section(params.card_details, "sideboard").values():
            answered: list[str] = []
            for label, (pattern, target) in _ANSWERS.items():
                if not card.oracle_text or not pattern.search(card.oracle_text):
                    continue
                hit = [k.name for k in opposing if _answered_by(card.oracle_text, label, target, k)]
                if hit:
                    answered += [*hit, f"({label})"]
            vs = (own_stats.get("side_vs", {}).get(card.name) or {}).get(opponent)
            with_vs = record(vs[0], vs[1], 0, self.meta.min_sample) if vs else None
            if answered or (
                with_vs
                and record_vs
                and with_vs.win_rate
                and record_vs.win_rate
                and with_vs.win_rate > record_vs.win_rate
            ):
                reason = (
                    "its text answers " + ", ".join(dict.fromkeys(a for a in answered if a.startswith("(")))
                    if answered
                    else ""
                )
                if with_vs:
                    reason += ("; " if reason else "") + (
                        f"{archetype} lists with it went {with_vs.wins}-{with_vs.losses} against {opponent}"
                    )
                answers.append(
                    SideboardAnswer(
                        name=card.name,
                        quantity=card.quantity,
                        answers=list(dict.fromkeys(a for a in answered if not a.startswith("(")))[:6],
                        reason=reason,
                        with_card_vs_opponent=with_vs,
                    )
                )
        main = self._section(params.card_details, "mainboard").values()
        profile = {
            "mainboard_cards": sum(c.quantity for c in main),
            "lands": sum(c.quantity for c in main if "Land" in (c.type_line or "")),
            "creatures": sum(c.quantity for c in main if "Creature" in (c.type_line or "")),
            "average_mana_value": round(
                sum((c.cmc or 0) * c.quantity for c in main if "Land" not in (c.type_line or ""))
                / max(1, sum(c.quantity for c in main if "Land" not in (c.type_line or ""))),
                2,
            ),
        }
        return StrategyFacts(
            format=fmt,
            archetype=archetype,
            opponent_archetype=opponent,
            record=record_vs,
            opponent_lists=lists,
            opponent_key_cards=key_cards,
            sideboard_answers=answers,
            your_deck_profile=profile,
            metadata=StrategyMetadata(period=period),
        )
