"""Pydantic models shared by tools, ingest and storage."""
