"""The study notebook: topics hold pages, a page may sit inside another page of its topic, and a
page holds blocks in order — notes, diagrams and flashcards.

A page's title is exact and may repeat across topics (and under different parents), so whoever
names a page by title must be ready for more than one match.
"""

import uuid
from datetime import date

from sqlalchemy import Date, ForeignKey, Integer, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.shared.models import Owned

TOPIC_NAME_MAX = 120
PAGE_TITLE_MAX = 200
NOTE_MAX = 20_000
DIAGRAM_MAX = 10_000
CARD_SIDE_MAX = 1_000
BLOCK_KINDS = ("note", "diagram", "card")
EASE_START = 250  # a card's ease in hundredths: each "good" multiplies its interval by 2.5


class NotebookTopic(Owned, db.Model):
    """A subject area (say "Biology"), holding pages in the order the student chose."""

    __tablename__ = "study_topics"

    name: Mapped[str] = mapped_column(String(TOPIC_NAME_MAX))
    position: Mapped[int] = mapped_column(Integer, default=0)

    pages: Mapped[list["NotebookPage"]] = relationship(
        back_populates="topic", cascade="all, delete-orphan", passive_deletes=True, order_by="NotebookPage.position"
    )


class NotebookPage(Owned, db.Model):
    """A page of study in a topic; `parent_id` nests it inside another page of the same topic
    (a study cycle's concept may be a page inside its subject)."""

    __tablename__ = "study_pages"

    topic_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_topics.id", ondelete="CASCADE"), index=True)
    parent_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(PAGE_TITLE_MAX))
    position: Mapped[int] = mapped_column(Integer, default=0)

    topic: Mapped[NotebookTopic] = relationship(back_populates="pages")
    blocks: Mapped[list["PageBlock"]] = relationship(
        back_populates="page", cascade="all, delete-orphan", passive_deletes=True, order_by="PageBlock.position"
    )


class PageBlock(Owned, db.Model):
    """One block of a page, in the page's order: a note (`text` is Markdown), a diagram (`text` is
    Mermaid source) or a flashcard (`text` its front, `back` its back, and its review schedule).

    A card is due on `due_on` (new cards at once); `interval_days`, `ease` and `streak` are the
    spaced review's memory (app/notebook/services.py: `next_review`)."""

    __tablename__ = "study_page_blocks"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    position: Mapped[int] = mapped_column(Integer, default=0)
    text: Mapped[str] = mapped_column(Text)
    back: Mapped[str | None] = mapped_column(Text)
    due_on: Mapped[date | None] = mapped_column(Date)
    interval_days: Mapped[int] = mapped_column(Integer, default=0)
    ease: Mapped[int] = mapped_column(Integer, default=EASE_START)
    streak: Mapped[int] = mapped_column(Integer, default=0)

    page: Mapped[NotebookPage] = relationship(back_populates="blocks")
