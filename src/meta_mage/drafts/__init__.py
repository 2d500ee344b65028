"""Cube-draft questions: list_drafts and get_draft_pool."""
