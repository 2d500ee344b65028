"""Deck tools: parsing pasted lists, enrichment, classification, optimisation, matchup facts."""
