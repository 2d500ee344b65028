"""Ingestion of tournament files, card corpora and cube drafts."""
