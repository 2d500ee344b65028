"""Summing stored aggregates: plain JSON whose numbers and number lists add up, so per-event aggregates
sum into per-day items (storage) and days into a window (analytics) without knowing their shape."""

from __future__ import annotations

from typing import Any


def add_counts(target: list[int], values: list[int]) -> None:
    """Add ``values`` into ``target`` position by position."""
    for i, v in enumerate(values):
        target[i] += v


def merge(into: dict[str, Any], other: dict[str, Any], *, owned: bool = False) -> dict[str, Any]:
    """Add ``other`` into ``into``: numbers and number lists add up, dicts merge recursively. ``owned``: nothing
    else holds ``other`` (freshly unpacked, dropped after), so its values are taken over instead of copied."""
    for key, value in other.items():
        if key not in into:
            into[key] = value if owned else _copy(value)
        elif isinstance(value, dict):
            merge(into[key], value, owned=owned)
        elif isinstance(value, list) and value and isinstance(value[0], (int, float)):
            add_counts(into[key], value)
        elif isinstance(value, list):
            into[key] = sorted(set(into[key]) | set(value))
        elif isinstance(value, (int, float)):
            into[key] += value
        elif into[key] in (None, "unknown"):
            into[key] = value
    return into


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value
