"""Split a day's aggregate into items that cannot pass a size bound, whatever the day holds.

A day's aggregate is the sum of its events' aggregates, so it grows with the events of the day, which no
file can bound. Its keyed sections (a format day's ``archetypes`` and ``results``, keyed by archetype; an
archetype day's ``main``, ``side``, ``main_vs``, ``side_vs``, keyed by card) are split between parts by key,
so every part is itself an aggregate and the parts of a day sum back into it with
:func:`meta_mage.models.aggregates.merge`. Everything else (totals, records) stays in the first part.
"""

from __future__ import annotations

from meta_mage.storage.dynamo import Item, pack

# A part's packed data stays under this; with its key and attributes the item stays well under 400 KB.
MAX_PART_BYTES = 300 * 1024

FORMAT_SECTIONS = ("archetypes", "results")
CARD_SECTIONS = ("main", "side", "main_vs", "side_vs")
CARD_LISTS = ("lands",)  # lists of card names, each kept in the part that holds the name's ``main`` entry


def split_aggregate(
    data: Item,
    sections: tuple[str, ...],
    key_lists: tuple[str, ...] = (),
    max_bytes: int = MAX_PART_BYTES,
    first_max_bytes: int | None = None,
) -> list[bytes]:
    """``data`` packed into one or more parts of at most ``max_bytes`` each (the first holds what is not keyed,
    in at most ``first_max_bytes`` when given: the day item shares its item with the day's event list).

    Raises ``ValueError`` only when a single key's entry cannot fit a part alone, which the validated
    inputs cannot produce (an entry is one card's or one archetype's counts)."""
    first = max_bytes if first_max_bytes is None else min(max_bytes, first_max_bytes)
    whole = pack(data)
    if len(whole) <= first:
        return [whole]
    keys = sorted({key for section in sections for key in data.get(section, {})})
    limits = (first, max_bytes)
    return [pack(part) for part in _fit(data, sections, key_lists, keys, limits, with_rest=True)]


def _fit(
    data: Item,
    sections: tuple[str, ...],
    key_lists: tuple[str, ...],
    keys: list[str],
    limits: tuple[int, int],
    with_rest: bool,
) -> list[Item]:
    """Parts holding the entries of ``keys`` (and, when ``with_rest``, the unkeyed data), halving until each fits
    (the part with the unkeyed data in ``limits[0]`` bytes, the others in ``limits[1]``)."""
    part = _part(data, sections, key_lists, set(keys), with_rest)
    limit = limits[0] if with_rest else limits[1]
    if len(pack(part)) <= limit:
        return [part]
    if not keys or (len(keys) == 1 and not with_rest):
        raise ValueError(f"one entry ({keys[0] if keys else 'the unkeyed totals'}) packs to over {limit:,} bytes")
    middle = len(keys) // 2  # 0 for one key beside the unkeyed data: that part then holds the unkeyed data alone
    return _fit(data, sections, key_lists, keys[:middle], limits, with_rest) + _fit(
        data, sections, key_lists, keys[middle:], limits, False
    )


def _part(data: Item, sections: tuple[str, ...], key_lists: tuple[str, ...], keys: set[str], with_rest: bool) -> Item:
    part: Item = {}
    if with_rest:
        part = {name: value for name, value in data.items() if name not in sections and name not in key_lists}
    for section in sections:
        if section in data:
            part[section] = {key: value for key, value in data[section].items() if key in keys}
    for name in key_lists:
        if name in data:
            part[name] = [value for value in data[name] if value in keys]
    return part
