"""Import cube drafts: the JSON format or a pool.csv + picks.csv pair with a small header."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Generic, TypedDict, TypeVar

from pydantic import ValidationError

from meta_mage.decks.enrich import closest_names
from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import MAX_DRAFT_BYTES, SourceFile, read_source
from meta_mage.ingest.report import IngestReport
from meta_mage.models.cards import Card, card_key
from meta_mage.models.drafts import REDACTED, DraftImport
from meta_mage.models.json import JsonObject
from meta_mage.models.stored_drafts import DraftHeader, StoredPick, StoredPoolCard
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository


def _validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    message = first["msg"].removeprefix("Value error, ")
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {message}" if where else message  # checks across fields name theirs in the message


def _read_csv(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise InputFileError(str(path), f"not UTF-8 text ({exc.reason})") from exc
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        raise InputFileError(str(path), f"missing column(s) {', '.join(missing)}; expected {','.join(columns)}")
    rows = list(reader)
    for line, row in enumerate(rows, start=2):  # line 1 is the header
        empty = [c for c in columns if c != "quantity" and not (row.get(c) or "").strip()]  # quantity: 1
        if empty:
            raise InputFileError(str(path), f"line {line}: no value for {', '.join(empty)}")
    return rows


def _draft_document(source: SourceFile) -> JsonObject:
    data = source.json(MAX_DRAFT_BYTES)
    if not isinstance(data, dict):
        raise InputFileError(source.name, "a draft file must be a JSON object")
    return data


def load_draft_source(source: SourceFile) -> DraftImport:
    """Read a draft from one self-contained JSON document already in memory (an S3 object).

    Only the single-file JSON form: a header naming ``pool_csv``/``picks_csv`` needs sibling
    files, so it is rejected with a message saying so.
    """
    document = _draft_document(source)
    linked = [k for k in ("pool_csv", "picks_csv") if k in document]
    if linked:
        raise InputFileError(
            source.name,
            f"names {' and '.join(linked)}; only the single-file JSON draft form (cube and picks inside) "
            "can be ingested from here: for the CSV form run 'meta-mage ingest draft' locally, or "
            "'meta-mage upload', which sends it as one JSON file",
        )
    try:
        return DraftImport.model_validate(document)
    except ValidationError as exc:
        raise InputFileError(source.name, _validation_message(exc)) from None


Row = TypeVar("Row")


class _CubeRow(TypedDict):
    name: str
    quantity: int


class _PickRow(TypedDict):
    pick_n: int
    drafter: str
    card: str


def _cube_row(row: dict[str, str]) -> _CubeRow:
    return {"name": row["name"].strip(), "quantity": int(row["quantity"] or 1)}


def _pick_row(row: dict[str, str]) -> _PickRow:
    return {"pick_n": int(row["pick_n"]), "drafter": row["drafter"].strip(), "card": row["card"].strip()}


@dataclass(frozen=True)
class _CsvPart(Generic[Row]):
    """A draft field read from a CSV file: its columns, how a row becomes an item, what a bad number says."""

    columns: tuple[str, ...]
    item: Callable[[dict[str, str]], Row]
    bad_number: str


_CUBE_CSV = _CsvPart[_CubeRow](("name", "quantity"), _cube_row, "quantity must be a whole number")
_PICKS_CSV = _CsvPart[_PickRow](("pick_n", "drafter", "card"), _pick_row, "pick_n must be a whole number")


def _csv_items(path: Path, part: _CsvPart[Row]) -> list[Row]:
    rows = _read_csv(path, part.columns)
    try:
        return [part.item(row) for row in rows]
    except ValueError:
        raise InputFileError(str(path), part.bad_number) from None


def _linked_csv(document: JsonObject, key: str, base: Path) -> Path | None:
    """The CSV file a header names under ``key`` (taken out of the document), relative to the header."""
    return base / document.pop(key) if key in document else None


def _header_document(path: Path | None, overrides: Mapping[str, str | None] | None) -> JsonObject:
    """The draft file's JSON object (empty without a file), with the ``overrides`` that are set put over it."""
    document = _draft_document(read_source(path, MAX_DRAFT_BYTES)) if path is not None else {}
    document.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return document


def load_draft(
    path: Path | None,
    overrides: Mapping[str, str | None] | None = None,
    pool_csv: Path | None = None,
    picks_csv: Path | None = None,
) -> DraftImport:
    """Read a draft: a full JSON file, a header JSON naming ``pool_csv``/``picks_csv``, or CSVs
    given directly with the header fields in ``overrides``."""
    source = str(path or pool_csv or "draft")
    document = _header_document(path, overrides)
    base = path.parent if path else Path(".")
    pool_csv = pool_csv or _linked_csv(document, "pool_csv", base)
    picks_csv = picks_csv or _linked_csv(document, "picks_csv", base)
    if pool_csv:
        document["cube"] = _csv_items(pool_csv, _CUBE_CSV)
    if picks_csv:
        picks = _csv_items(picks_csv, _PICKS_CSV)
        document["picks"] = picks
        document.setdefault("drafters", list(dict.fromkeys(p["drafter"] for p in picks)))
    try:
        return DraftImport.model_validate(document)
    except ValidationError as exc:
        raise InputFileError(source, _validation_message(exc)) from None


def _missing_cards(draft: DraftImport, details: Mapping[str, Card], cards: CardsRepository, source: str) -> None:
    """Refuse a draft whose cube names cards the card data lacks, suggesting the closest names."""
    missing = [e.name for e in draft.cube if card_key(e.name) not in details]
    if not missing:
        return
    names = cards.all_names()
    hints = []
    for name in missing[:10]:
        _, suggestions = closest_names(name, names)
        hints.append(f"{name!r}" + (f" (did you mean {' or '.join(suggestions)}?)" if suggestions else ""))
    raise InputFileError(
        source,
        f"{len(missing)} cube card(s) not in the card data: {', '.join(hints)}; "
        "ingest the card corpus first or fix the names",
    )


def draft_items(draft: DraftImport, cards: CardsRepository, source: str) -> tuple[DraftHeader, list[StoredPoolCard]]:
    """Header and pool cards with card details and pick results denormalised; opted-out drafters,
    named in ``opt_outs`` or left unnamed as ``[REDACTED]``, are stored as ``[REDACTED]`` alike."""
    details = cards.get_many([card_key(e.name) for e in draft.cube])
    _missing_cards(draft, details, cards, source)
    # Named opt-outs become REDACTED here; picks the file already marks REDACTED are stored as they are.
    hidden = set(draft.opt_outs)
    stored = [
        (card_key(p.card), StoredPick(REDACTED if p.drafter in hidden else p.drafter, p.pick_n)) for p in draft.picks
    ]
    picks: dict[str, list[StoredPick]] = {}
    # Ordered after redaction, so the stored order of tied picks cannot hint at a hidden name.
    for key, pick in sorted(stored, key=lambda kp: (kp[1].pick_n, kp[1].drafter)):
        picks.setdefault(key, []).append(pick)
    items = []
    for entry in draft.cube:
        card = details[card_key(entry.name)]
        items.append(
            StoredPoolCard(
                card_name=entry.name,
                quantity=entry.quantity,
                picks=tuple(picks.get(card_key(entry.name), ())),
                mana_cost=card.mana_cost,
                type_line=card.type_line,
                colors=tuple(card.colors),
                color_identity="".join(card.color_identity) or "C",
            )
        )
    header = DraftHeader(
        draft_id=draft.draft_id,
        draft_name=draft.draft_name,
        draft_date=draft.draft_date.isoformat(),
        drafters=tuple(REDACTED if d in hidden else d for d in draft.drafters),
        total_cards=len(items),
        picks=len(draft.picks),
    )
    return header, items


def draft_version(header: DraftHeader, items: list[StoredPoolCard]) -> str:
    """A digest of what a draft stores: re-importing identical content finds the version stored."""
    document = [asdict(header), [asdict(item) for item in items]]
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()[:16]


def ingest_draft(draft: DraftImport, source: str, drafts: DraftsRepository, cards: CardsRepository) -> IngestReport:
    """Store one validated draft; re-importing identical content changes nothing."""
    report = IngestReport("draft")
    try:
        header, items = draft_items(draft, cards, source)
        version = draft_version(header, items)
        if drafts.get_version(draft.draft_id) == version:
            report.outcomes["unchanged"] += 1
            return report
        drafts.put_draft(header, items, version)
    except InputFileError as exc:
        report.fail(exc.source, exc.reason)
        return report
    except StorageUnavailable as exc:
        report.fail(source, f"DynamoDB error: {exc}", storage=True)
        return report
    report.outcomes["stored"] += 1
    report.totals["pool cards"] += len(items)
    report.totals["picks"] += len(draft.picks)
    report.totals["drafters"] += len(draft.drafters)
    return report
