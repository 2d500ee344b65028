"""The cube-draft tools: the imported drafts, and one draft's card pool with who took what."""

from __future__ import annotations

from meta_mage.models.drafts import DraftPoolInput, DraftPoolResult, ListDraftsInput, ListDraftsOutput
from meta_mage.tools.catalog.charts import pool_chart
from meta_mage.tools.rules import DRAFT_ID
from meta_mage.tools.tool import CUBE_DRAFT, Tool

LIST_DRAFTS = Tool(
    "list_drafts",
    "List the cube drafts that have been imported, with their ids, names and dates.",
    ListDraftsInput,
    ListDraftsOutput,
    lambda c, p: c.drafts.list_drafts(),
    workflows=(CUBE_DRAFT,),
    summary=lambda r: f"{len(r.drafts)} drafts",
)

DRAFT_POOL = Tool(
    "get_draft_pool",
    "Get the complete card pool of a cube draft, drafted or not. Filters (color: W/U/B/R/G "
    "includes multicolour cards of that colour, C colourless; type_contains; name_contains) "
    "apply before grouping (group_by color_identity or type); total_cards counts the "
    "filtered cards. include_draft_results adds who took each card and at which pick; "
    "include_card_details adds mana cost, type line and colours.",
    DraftPoolInput,
    DraftPoolResult,
    lambda c, p: c.drafts.get_pool(p),
    workflows=(CUBE_DRAFT,),
    summary=lambda r: f"{r.total_cards} cards from {r.draft_name}",
    from_state={"draft_id": "draft_id"},
    requires=(DRAFT_ID,),
    writes=lambda r: {"draft_id": r.draft_id},
    chart=pool_chart,
)

TOOLS = (LIST_DRAFTS, DRAFT_POOL)
