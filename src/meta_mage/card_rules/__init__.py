"""Card rules: what a card does to what, read from its rules text, and whether one card answers another.

``facts.py``: what the rules look at on a card. ``filters.py``: the clauses of "what it can reach".
``roles.py``: a role (counter, removal, sweeper, edict, discard, locks, hate...) and how it meets a card.
``phrases.py``: a target phrase read into a filter, and the cast conditions. ``effects.py``: the table of effect
patterns and the roles they make. ``reader.py``: the rules text read into roles. ``answers.py``: what the coach asks.
``profile.py``: a card's kind, the abilities it stops and what sets its X, read once from the same roles.
"""
