"""Suggest archetype rule files from the decks the current rules leave unnamed.

A deck the rules cannot name gets a fallback ("Aggro", "Combo" …) or "Unknown"; when a new deck
appears, such decks pile up. This package measures that pile per format (:func:`fallback_shares`,
read from the per-day aggregates; ``shares``), clusters the unnamed decks of a window by their shared
mainboard cards (``clusters``), turns each cluster of ``min_cluster`` decks or more into a candidate
rule file in the MTGOFormatData shape (:func:`suggest_rules`; the conditions: the cluster's distinctive
cards, checked against the decks the current rules already name; ``suggest``) and writes the candidates,
with their evidence, for a person to review (:func:`write_suggestions`; ``output``); ``command`` is
``meta-mage rules suggest``. Nothing here changes the rules in use: a suggestion becomes a rule only
when someone renames it to ``<Name>.json`` and moves it into the rules directory.
"""

from __future__ import annotations

from meta_mage.archetypes.catch_alls import unnamed_names
from meta_mage.ingest.rule_suggestions.clusters import cluster_decks, jaccard
from meta_mage.ingest.rule_suggestions.command import OPTION_RANGES, cmd_rules_suggest
from meta_mage.ingest.rule_suggestions.output import README, README_MARK, OutputRefused, check_output, write_suggestions
from meta_mage.ingest.rule_suggestions.shares import MAX_DAYS, FallbackShare, fallback_share, fallback_shares
from meta_mage.ingest.rule_suggestions.suggest import (
    BASIC_LANDS,
    MAX_CLUSTERED_DECKS,
    MAX_CONDITION_CARDS,
    MAX_EXTRA_CARDS,
    SUGGESTED_SUFFIX,
    CardShare,
    DeckExample,
    RuleSuggestion,
    file_stem,
    short_card_name,
    suggest_rules,
)

__all__ = [
    "BASIC_LANDS",
    "MAX_CLUSTERED_DECKS",
    "MAX_CONDITION_CARDS",
    "MAX_DAYS",
    "MAX_EXTRA_CARDS",
    "OPTION_RANGES",
    "README",
    "README_MARK",
    "SUGGESTED_SUFFIX",
    "CardShare",
    "DeckExample",
    "FallbackShare",
    "OutputRefused",
    "RuleSuggestion",
    "check_output",
    "cluster_decks",
    "cmd_rules_suggest",
    "fallback_share",
    "fallback_shares",
    "file_stem",
    "jaccard",
    "short_card_name",
    "suggest_rules",
    "unnamed_names",
    "write_suggestions",
]
