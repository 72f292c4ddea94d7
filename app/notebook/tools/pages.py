"""The notebook's page tools: read the topics and their pages, append notes or a diagram to a page,
and draw a diagram in the chat without saving it. Pages are named by id or exact title; a title two
pages share is refused with each candidate and its topic, never guessed. Topics, pages, flashcards
and the review are edited on the notebook itself (/notebook)."""

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import tool
from app.agent.views import capped
from app.notebook import services as notebook
from app.notebook.models.pages import DIAGRAM_MAX, NOTE_MAX

PAGE_REF = "The page's id, or its exact title (as listStudyTopics shows it)."


class StudyNotes(BaseModel):
    page: str = Field(description=PAGE_REF)
    text: str = Field(description=f"The notes, in Markdown (1–{NOTE_MAX} characters).")


class StudyDiagram(BaseModel):
    page: str = Field(description=PAGE_REF)
    source: str = Field(
        description=f"Mermaid source starting with its diagram type, e.g. “flowchart TD” (≤ {DIAGRAM_MAX})."
    )


class DiagramToShow(BaseModel):
    source: str = Field(description="Mermaid source starting with its diagram type, e.g. “flowchart TD” or “mindmap”.")


def _topic_seen(topic):
    return {
        "id": str(topic.id),
        "name": topic.name,
        "pages": [{**notebook.page_data(page), "depth": depth} for page, depth in notebook.page_tree(topic)],
    }


def _block_seen(block):
    return {"id": str(block.id), "page": block.page.title, "pageId": str(block.page_id), "kind": block.kind}


@tool(domain="notebook", kind="read", label=_l("Read your notebook's topics"))
def listStudyTopics(ctx, args):
    """The person's study topics in order, each with its pages as a tree (id, exact title, parentId,
    depth: a page nested in another is one deeper). Titles may repeat across topics."""
    return capped(notebook.topics(ctx.user), _topic_seen)


@tool(domain="notebook", kind="write", label=_l("Added notes to a notebook page"), page="/notebook", args=StudyNotes)
def addStudyNotes(ctx, args):
    """Append a Markdown note block at the end of a notebook page. Returns the new block's id."""
    page = notebook.resolve_page(ctx.user, args.page)
    return _block_seen(notebook.add_note(ctx.user, page.id, args.text))


@tool(domain="notebook", kind="write", label=_l("Added a diagram to a notebook page"), page="/notebook",
      args=StudyDiagram)  # fmt: skip
def addStudyDiagram(ctx, args):
    """Append a Mermaid diagram block at the end of a notebook page — only when the person asks to
    keep the diagram; to just show one, use showDiagram. Returns the new block's id."""
    page = notebook.resolve_page(ctx.user, args.page)
    return _block_seen(notebook.add_diagram(ctx.user, page.id, args.source))


@tool(domain="notebook", kind="read", label=_l("Drew a diagram"), args=DiagramToShow)
def showDiagram(ctx, args):
    """Draw a Mermaid diagram inside your answer, saving nothing. The default way to show a diagram;
    addStudyDiagram keeps one on a page when the person asks."""
    return {"shown": True, "diagram": notebook.check_diagram(args.source)}
