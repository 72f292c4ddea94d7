"""The tutor's conversation on a study page: each question asked there and the answer given.

The model remembers nothing between questions; these rows exist so the page shows its history
after a reload. An answer keeps the passages it cites as they were when it was written (their
text, and where they came from), so a citation still reads right after a note is edited.
"""

import uuid

from sqlalchemy import JSON, Boolean, ForeignKey, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned

QUESTION_MAX = 2_000


class TutorExchange(Owned, db.Model):
    """One question on a page and its answer, whose `[n]` citations name `passages[*].number`."""

    __tablename__ = "study_tutor_exchanges"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    question: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text)
    beyond_passages: Mapped[bool] = mapped_column(Boolean, default=False)  # it said it went beyond the material
    passages: Mapped[list] = mapped_column(JSON, default=list)  # the cited passages (study_ai.Passage.as_dict)
