"""melee.gg: paper events (Regional Championships, RCQs, the Pro Tour, local events) run on melee.gg.

A file lists its Swiss rounds and its playoffs; a drawn match is listed once for each player (the parse reads
it as one match), a bye is a match against ``-`` (``2-0-0``, or ``0-2-0`` for an assigned loss), and dates
carry a time and an offset. The event id is the number of ``melee.gg/Tournament/View/<id>``.
"""

import re

from meta_mage.models.sources.reader import Quirk, SourceReader

MELEE = SourceReader(
    kind="melee",
    host="melee.gg",
    folders=("MTGmelee", "melee.gg"),
    key_prefix="melee",
    event_id=re.compile(r"melee\.gg/Tournament/View/(\d+)", re.IGNORECASE),
    matches_of="Swiss and playoff matches of",
    event="melee.gg event",
    events="melee.gg events",
    quirks=frozenset({Quirk.SWISS_AND_PLAYOFFS, Quirk.DRAW_LISTED_TWICE, Quirk.BYE_AGAINST_DASH, Quirk.TIMES_IN_DATES}),
)
