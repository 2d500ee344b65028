"""MTGO (mtgo.com): Challenges, Showcase Challenges, RC Super Qualifiers and Leagues, as the cache scrapes them.

A Challenge file lists every deck but only its top-8 playoff matches, so "448 decks" may stand above 70
matches; a League lists decks and no rounds. Player names are MTGO user names; there are no byes. The event
id is the digits the cache appends to the date at the end of the Uri
(``.../modern-challenge-64-2025-11-0112822690``): a re-dated copy of a file keeps them.
"""

import re

from meta_mage.models.sources.reader import Quirk, SourceReader

MTGO = SourceReader(
    kind="MTGO",
    host="mtgo.com",
    folders=("MTGO", "mtgo.com", "mtgo.com_limited_data"),
    key_prefix="mtgo",
    event_id=re.compile(r"mtgo\.com.*\d{4}-\d{2}-\d{2}(\d+)/?$"),
    matches_of="top-8 playoff matches of",
    event="MTGO Challenge",
    events="MTGO Challenges",
    quirks=frozenset({Quirk.PLAYOFFS_ONLY}),
)
