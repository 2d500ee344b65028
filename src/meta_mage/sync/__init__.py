"""The daily sync of tournament files from a GitHub repository (or a local clone) in the MTGODecklistCache
layout: ``github`` (the REST client), ``upstream`` and ``git`` (where files come from), ``run`` (one sync and
its cursor), ``lambda_handler`` (SyncFunction)."""
