"""MTG Meta Mage: a Magic: The Gathering coach over real tournament data."""

__version__ = "0.1.0"
