"""Which stored archetype names are catch-alls: "Unknown" or a rule file's fallbacks ("Aggro", "Boros Aggro")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from meta_mage.archetypes.classifier import COLOR_NAMES, UNKNOWN, ArchetypeRule, FormatRules


def colored_names(name: str) -> set[str]:
    """Every colour-prefixed display name a rule with ``IncludeColorInName`` can give ``name``."""
    return {f"{prefix} {name}" for prefix in (*COLOR_NAMES.values(), "4-Color")}


def all_rules(rules: FormatRules) -> Iterator[ArchetypeRule]:
    """Every archetype rule of ``rules`` and every variant of them (at any depth), in no particular order."""
    pending = list(rules.archetypes)
    while pending:
        rule = pending.pop()
        yield rule
        pending.extend(rule.variants)


def unnamed_names(rules: FormatRules, names: Iterable[str]) -> set[str]:
    """Those of the stored archetype ``names`` that are "Unknown" or one of ``rules``' fallbacks.

    Stored decks keep only their display name (a fallback with ``IncludeColorInName`` reads "Boros
    Aggro"). A name an archetype rule can also produce counts as named."""
    fallback: set[str] = set()
    for fallback_rule in rules.fallbacks:
        fallback |= colored_names(fallback_rule.name) if fallback_rule.include_color else {fallback_rule.name}
    named: set[str] = set()
    for rule in all_rules(rules):
        named |= colored_names(rule.name) if rule.include_color else {rule.name}
    return {name for name in names if name == UNKNOWN or (name in fallback and name not in named)}
