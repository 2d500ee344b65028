"""HTTP: the FastAPI chat app, the small functions' Powertools handler, errors mapped to statuses."""
