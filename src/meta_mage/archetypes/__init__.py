"""Archetype rules (the MTGOFormatData layout) and the classifier that names a deck with them: used by the ingest
and by deck coaching."""
