"""The study notebook: topics hold pages, and a page may sit inside another page of its topic.

A page's title is exact and may repeat across topics (and under different parents), so whoever
names a page by title must be ready for more than one match.
"""

import uuid

from sqlalchemy import ForeignKey, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.base import Owned

TOPIC_NAME_MAX = 120
PAGE_TITLE_MAX = 200


class StudyTopic(Owned, db.Model):
    """A subject area (say "Biology"), holding pages in the order the student chose."""

    __tablename__ = "study_topics"

    name: Mapped[str] = mapped_column(String(TOPIC_NAME_MAX))
    position: Mapped[int] = mapped_column(Integer, default=0)

    pages: Mapped[list["StudyPage"]] = relationship(
        back_populates="topic", cascade="all, delete-orphan", passive_deletes=True, order_by="StudyPage.position"
    )


class StudyPage(Owned, db.Model):
    """A page of study in a topic; `parent_id` nests it inside another page of the same topic
    (a study cycle's concept may be a page inside its subject)."""

    __tablename__ = "study_pages"

    topic_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_topics.id", ondelete="CASCADE"), index=True)
    parent_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(PAGE_TITLE_MAX))
    position: Mapped[int] = mapped_column(Integer, default=0)

    topic: Mapped[StudyTopic] = relationship(back_populates="pages")
