"""The study studio of a page: what the notebook's AI made from the page's own material — a
summary, a study guide or a quiz — and the flashcards it drafted, waiting for the student.

Each keeps a copy of the passages it cites (`PassageCopy`), not a link to them: a source deleted
or a note rewritten later leaves the citation readable, saying what it quoted when it was made.
"""

import uuid

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.notebook.models.pages import NotebookPage
from app.shared.models import Owned

OUTPUT_KINDS = ("summary", "guide", "quiz")
OUTPUT_TITLE_MAX = 200
FOCUS_MAX = 200


class StudioOutput(Owned, db.Model):
    """A summary, a study guide or a quiz made from a page's passages only.

    `content` holds the kind's parts (a summary's text; a guide's sections and terms; a quiz's
    questions with their choices, answer and explanation), every text citing passages as [n];
    `passages` the copies of the passages cited, by their number."""

    __tablename__ = "study_outputs"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(String(OUTPUT_TITLE_MAX))
    focus: Mapped[str | None] = mapped_column(String(FOCUS_MAX))  # what the student asked it to centre on
    content: Mapped[dict] = mapped_column(JSON)
    passages: Mapped[list] = mapped_column(JSON, default=list)

    page: Mapped[NotebookPage] = relationship()


class CardDraft(Owned, db.Model):
    """A flashcard the AI drafted from one passage of the page, until the student accepts it
    (it becomes a card of the page, in the spaced review) or discards it."""

    __tablename__ = "study_card_drafts"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    front: Mapped[str] = mapped_column(Text)
    back: Mapped[str] = mapped_column(Text)
    passage: Mapped[dict] = mapped_column(JSON)  # the copy of the passage it comes from
    position: Mapped[int] = mapped_column(Integer, default=0)  # its place in the batch it was drafted in

    page: Mapped[NotebookPage] = relationship()

    @property
    def passages(self):
        """The passage it comes from, as the one-item list an output's `passages` is."""
        return [self.passage]
