"""The notebook AI's tool: draft flashcards for a page from its own notes and sources, through the
study door and its hourly bucket (app/notebook/ai/studio.py). The drafts wait on the page for
the student to accept or discard; the tool never accepts them."""

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import tool
from app.notebook import services as notebook
from app.notebook.ai import studio
from app.notebook.ai.models.studio import FOCUS_MAX
from app.notebook.ai.studio import CARDS_MAX
from app.notebook.tools.pages import PAGE_REF


class StudyCardsToDraft(BaseModel):
    page: str = Field(description=PAGE_REF)
    count: int | None = Field(
        None, description=f"How many cards to draft, 1–{CARDS_MAX} (default {studio.LIMITS['cards']})."
    )
    focus: str | None = Field(
        None, description=f"Optional: the part of the page to draft from (≤ {FOCUS_MAX} characters)."
    )


@tool(domain="study_ai", kind="write", label=_l("Drafted flashcards on a notebook page"), page="/notebook",
      args=StudyCardsToDraft)  # fmt: skip
def generateStudyCards(ctx, args):
    """Draft flashcards for a notebook page from its own notes and sources only (each card from one
    passage). The drafts wait on the page until the person accepts or discards them there; you
    cannot accept them. Returns the new drafts and how many await the person on the page."""
    page = notebook.resolve_page(ctx.user, args.page)
    made = studio.draft_cards(ctx.user, page.id, args.count, args.focus)
    return {
        "page": notebook.page_data(page),
        "drafted": [{"front": draft.front, "back": draft.back} for draft in made],
        "awaiting": len(studio.drafts(ctx.user, page.id)),
        "where": f"/notebook/pages/{page.id}#studio-cards-title",
    }
