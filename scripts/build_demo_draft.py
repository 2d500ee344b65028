#!/usr/bin/env python3
"""Build the "tarkir" demo cube draft from real Magic card names.

What it does:
1. Loads the MTGJSON-derived oracle corpus. Each card gets one cube name: the
   full "A // B" name for split/aftermath cards, otherwise the front face.
   Basic lands, back faces, Alchemy ("A-") cards and non-game or joke layouts
   and types (planes, schemes, vanguards, hosts/augments, stickers, ...) are
   dropped.
2. Scans the MTGODecklistCache tournament files. A card's popularity is the
   highest share of decks, in any one format, that play it (main or side).
   This lets Pauper and Vintage staples rank next to Modern ones.
3. Fills colour buckets (W/U/B/R/G by colour identity, multicolour, colourless
   artifacts, non-basic lands) to fixed sizes, with caps on each type so the
   cube has a real mix of creatures, spells and permanents. Candidates are
   tournament cards, plus a hand-checked list of Khans-of-Tarkir-block
   favourites that get a bonus. Since every candidate is tournament-legal or
   hand-checked, no Un-set cards get in.
4. Simulates a 9-player booster draft: 3 packs of 15 per player, passed
   left/right/left. Each drafter leans to a two-colour pair, with seeded noise.
   The drafter who opted out is written as the import format's unnamed
   marker, "[REDACTED]", in `drafters` and in their picks: the file never
   names them, so `opt_outs` is empty.

The script is deterministic: it uses one fixed seed, sorts everything before
sampling, and has no other sources of randomness, so re-running it gives a
byte-identical file. It uses only the standard library.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from collections import Counter, defaultdict
from pathlib import Path

SEED = 20251201
MAIN_TYPES = {
    "Creature",
    "Planeswalker",
    "Artifact",
    "Enchantment",
    "Instant",
    "Sorcery",
    "Land",
    "Battle",
    "Kindred",
    "Tribal",
}
BAD_LAYOUTS = {
    "planar",
    "scheme",
    "vanguard",
    "host",
    "augment",
    "token",
    "double_faced_token",
    "emblem",
    "art_series",
    "reversible_card",
}
KEEP_FULL = {"split", "aftermath"}
# bucket -> (size, {type class: cap}); type classes: cre, spell (instant/sorcery), perm.
PLAN = {
    "W": (69, {"cre": 34, "spell": 24, "perm": 16}),
    "U": (70, {"cre": 30, "spell": 30, "perm": 16}),
    "B": (69, {"cre": 32, "spell": 26, "perm": 16}),
    "R": (70, {"cre": 32, "spell": 28, "perm": 14}),
    "G": (72, {"cre": 40, "spell": 22, "perm": 14}),
    "M": (100, {"cre": 46, "spell": 38, "perm": 26}),
    "A": (45, {"cre": 16, "spell": 0, "perm": 35}),
    "L": (45, {"cre": 0, "spell": 0, "perm": 45}),
}
REQUIRED = ["Abrupt Decay", "Acidic Slime", "Llanowar Elves"]
DOUBLES = ["Lightning Bolt", "Counterspell", "Llanowar Elves", "Duress", "Thraben Inspector"]
KHANS = """Siege Rhino; Treasure Cruise; Mantis Rider; Dig Through Time; Anafenza, the Foremost;
Sorin, Solemn Visitor; Sarkhan, the Dragonspeaker; Wingmate Roc; Butcher of the Horde;
Savage Knuckleblade; Sagu Mauler; Sidisi, Brood Tyrant; Abzan Charm; Jeskai Charm; Sultai Charm;
Mardu Charm; Temur Charm; Murderous Cut; Utter End; Crackling Doom; Ashcloud Phoenix;
Villainous Wealth; Ankle Shanker; Zurgo Helmsmasher; Narset, Enlightened Master; Surrak Dragonclaw;
Hooded Hydra; Rattleclaw Mystic; Hooting Mandrills; Monastery Swiftspear; Jeskai Ascendancy;
Seeker of the Way; Mardu Hordechief; Rakshasa Deathdealer; Polluted Delta; Wooded Foothills;
Windswept Heath; Bloodstained Mire; Flooded Strand; Sandsteppe Citadel; Mystic Monastery;
Opulent Palace; Nomad Outpost; Frontier Bivouac; Icefeather Aven; Kheru Spellsnatcher;
Master of Pearls; Thousand Winds; Clever Impersonator; Gurmag Angler; Tasigur, the Golden Fang;
Kolaghan's Command; Atarka's Command; Dromoka's Command; Ojutai's Command; Silumgar's Command;
Dragonlord Ojutai; Dragonlord Atarka; Dragonlord Silumgar; Dragonlord Kolaghan; Dragonlord Dromoka;
Thunderbreak Regent; Den Protector; Deathmist Raptor; Monastery Mentor; Soulfire Grand Master;
Warden of the First Tree; Whisperwood Elemental; Sarkhan Unbroken;
Ghostfire Blade; Shaman of the Great Hunt; Fierce Invocation;
Hardened Scales; High Sentinels of Arashin; Herald of Anafenza; Suspension Field; End Hostilities;
Secure the Wastes; Valorous Stance; Collected Company; Crater's Claws; Become Immense;
Debilitating Injury; Throttle; Ainok Bond-Kin; Disdainful Stroke; Savage Punch; Armament Corps;
Highspire Mantis; Kheru Lich Lord; Arc Lightning; Goblin Heelcutter; Hordeling Outburst; Wild Slash;
Hidden Dragonslayer; Stratus Dancer; Silumgar Assassin; Stormscale Scion; Ureni of the Unwritten;
Marang River Regent; Scavenger Regent; Bloomvine Regent; Eshki Dragonclaw; Cori-Steel Cutter;
Monument to Endurance; Mistrise Village; Cori Mountain Monastery; Great Arashin City;
Naga Vitalist; Elvish Mystic; Frost Walker; Sultai Soothsayer; Citadel Siege; Goblin Rabblemaster;
Crux of Fate; Duneblast; Noxious Dragon"""
# How the import format writes a drafter who opted out without being named (meta_mage.models.drafts.REDACTED).
ANONYMOUS = "[REDACTED]"
# Seat order with each drafter's favourite colour pair (nine of the ten pairs). One drafter opted out and
# has no name here at all: ingest stores their picks as it stores those of a named opt-out.
LEANS = {
    "arborist77": "RG",
    "kheru_lich": "UB",
    "jeskai_way": "UR",
    "mardu_warcry": "BR",
    "temur_frostpaw": "UG",
    "sultai_delver": "BG",
    "abzan_houses": "WG",
    ANONYMOUS: "WU",  # opted out: the file carries no name for this seat
    "dragonstorm_sam": "WR",
}
DRAFTERS = list(LEANS)


def cube_name(card: dict) -> str:
    name = card["name"]
    return name if card["layout"] in KEEP_FULL else name.split(" // ")[0]


def load_corpus(path: Path) -> dict[str, dict]:
    cards = json.loads(gzip.decompress(path.read_bytes()))
    backs = {part for c in cards for part in c["name"].split(" // ")[1:]}
    out: dict[str, dict] = {}
    for c in sorted(cards, key=lambda c: (c["layout"] != "normal", c["name"])):
        name = cube_name(c)
        if (
            c["layout"] in BAD_LAYOUTS
            or name.startswith("A-")
            or "Basic" in c["supertypes"]
            or not c["types"]
            or not set(c["types"]) <= MAIN_TYPES
            or "½" in (c["manaCost"] or "")
            or "∞" in (c["manaCost"] or "")
            or (c["layout"] != "normal" and " // " not in c["name"] and c["name"] in backs)
        ):
            continue
        out.setdefault(name, c)
    return out


def popularity(tour_dir: Path, corpus: dict[str, dict]) -> dict[str, float]:
    """Max over formats of the share of decks that play the card."""
    decks, hits = Counter(), defaultdict(Counter)
    for f in sorted(tour_dir.rglob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        fmt = data["Tournament"].get("Formats") or "?"
        for deck in data["Decks"]:
            decks[fmt] += 1
            names = {e["CardName"] for sec in ("Mainboard", "Sideboard") for e in deck.get(sec) or []}
            for n in names:
                n = n if n in corpus else n.split(" // ")[0]
                if n in corpus:
                    hits[fmt][n] += 1
    pop: dict[str, float] = {}
    for fmt, cnt in hits.items():
        for n, k in cnt.items():
            pop[n] = max(pop.get(n, 0.0), k / decks[fmt])
    return pop


def bucket(card: dict) -> str:
    if "Land" in card["types"]:
        return "L"
    ci = card["colorIdentity"]
    if len(ci) > 1:
        return "M"
    return ci[0] if ci else ("A" if "Artifact" in card["types"] else "X")


def tclass(card: dict) -> str:
    if "Creature" in card["types"]:
        return "cre"
    return "spell" if {"Instant", "Sorcery"} & set(card["types"]) else "perm"


def build_cube(corpus: dict[str, dict], pop: dict[str, float]) -> dict[str, float]:
    """Return {cube name: rating}, filling each bucket by rating under type caps."""
    khans = {n.strip() for n in KHANS.replace("\n", " ").split(";")}
    forced = set(REQUIRED) | set(DOUBLES)
    rating = {n: min(1.0, pop.get(n, 0.0) ** 0.5 + (0.45 if n in khans else 0.0)) for n in set(pop) | khans | forced}
    order = sorted(rating, key=lambda n: (n not in forced, -rating[n], n))
    chosen: dict[str, float] = {}
    filled, caps = Counter(), Counter()
    for n in order:
        card = corpus[n]
        b, t = bucket(card), tclass(card)
        if b not in PLAN:  # "X": colourless non-artifact spells (e.g. Eldrazi) are skipped
            continue
        size, cap = PLAN[b]
        if n in forced or (filled[b] < size and caps[b, t] < cap[t]):
            chosen[n] = rating[n]
            filled[b] += 1
            caps[b, t] += 1
    assert all(filled[b] == PLAN[b][0] for b in PLAN), filled
    return chosen


def simulate(cube: dict[str, float], corpus: dict[str, dict], rng: random.Random) -> list[dict]:
    copies = sorted(n for n in cube for _ in range(2 if n in DOUBLES else 1))
    rng.shuffle(copies)
    seats = len(DRAFTERS)
    lean = {d: set(pair) for d, pair in LEANS.items()}

    def score(drafter: str, name: str, pick_n: int) -> float:
        ci, pair = set(corpus[name]["colorIdentity"]), lean[drafter]
        if not ci:
            fit = 0.55  # colourless artifacts and utility lands suit everyone
        elif ci <= pair:
            fit = 1.0
        else:  # a wedge card sharing both colours still tempts a little
            fit = 0.25 if len(ci) == 3 and len(ci - pair) == 1 else 0.0
        return cube[name] + fit * (0.25 + min(pick_n, 12) / 12) + rng.uniform(0, 0.4)

    picks = []
    for rnd in range(3):
        hands = [copies[(rnd * seats + s) * 15 : (rnd * seats + s + 1) * 15] for s in range(seats)]
        for k in range(15):
            pick_n = rnd * 15 + k + 1
            for s, d in enumerate(DRAFTERS):
                card = max(hands[s], key=lambda n: (score(d, n, pick_n), n))
                hands[s].remove(card)
                picks.append({"pick_n": pick_n, "drafter": d, "card": card})
            step = -1 if rnd == 1 else 1  # pass left, right, left
            hands = [hands[(s - step) % seats] for s in range(seats)]
    return picks


def dump(draft: dict) -> str:
    """JSON with one cube entry / pick per line, for readable diffs."""
    lines = ["{"]
    for i, (k, v) in enumerate(draft.items()):
        end = "," if i < len(draft) - 1 else ""
        if isinstance(v, list) and v and isinstance(v[0], dict):
            body = ",\n".join("    " + json.dumps(x, ensure_ascii=False) for x in v)
            lines.append(f'  "{k}": [\n{body}\n  ]{end}')
        else:
            lines.append(f'  "{k}": {json.dumps(v, ensure_ascii=False)}{end}')
    return "\n".join(lines) + "\n}\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=Path("/work/shared/data/cards/oracle_corpus.json.gz"))
    ap.add_argument("--tournaments", type=Path, default=Path("/work/shared/data/tournaments"))
    ap.add_argument("--out", type=Path, default=Path("/work/main/src/meta_mage/demo_data/drafts/tarkir.json"))
    args = ap.parse_args()

    rng = random.Random(SEED)
    corpus = load_corpus(args.corpus)
    cube = build_cube(corpus, popularity(args.tournaments, corpus))
    picks = simulate(cube, corpus, rng)
    draft = {
        "draft_id": "tarkir",
        "draft_name": "Tarkir",
        "draft_date": "2025-12-01",
        "cube": [{"name": n, "quantity": 2 if n in DOUBLES else 1} for n in sorted(cube)],
        "drafters": DRAFTERS,
        "picks": picks,
        "opt_outs": [],  # no named opt-outs: the one drafter who opted out is ANONYMOUS
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(draft), encoding="utf-8")
    print(f"wrote {args.out}: {len(draft['cube'])} cube entries, {len(picks)} picks")


if __name__ == "__main__":
    main()
