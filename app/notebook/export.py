"""The notebook in the data export: topics and pages, their blocks, the boards and the sources.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.extensions import db
from app.notebook import boards, sources
from app.notebook import services as notebook
from app.notebook.models.sources import NotebookSource


def export_notebook(user):
    """The notebook's topics, each with its pages."""
    return [
        {"id": str(topic.id), "name": topic.name, "pages": [notebook.page_data(page) for page in topic.pages]}
        for topic in notebook.topics(user)
    ]


def export_notebook_blocks(user):
    """Every page's blocks in page order: notes, diagrams, and cards with their review schedule."""
    return [
        notebook.block_data(block) for topic in notebook.topics(user) for page in topic.pages for block in page.blocks
    ]


def export_study_board(user):
    """Each page's board that holds a concept: the concepts in order, each with what it leads to."""
    return [board.as_data() for board in boards.every_board(user)]


def export_notebook_sources(user):
    """Every page's sources with their whole text (the passages are cut from it)."""
    rows = db.session.scalars(
        db.select(NotebookSource)
        .where(NotebookSource.user_id == user.id)
        .order_by(NotebookSource.page_id, NotebookSource.created_at, NotebookSource.id)
    ).all()
    return [sources.source_data(source) for source in rows]
