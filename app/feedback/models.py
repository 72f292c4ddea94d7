"""Feedback: what users tell us (a bug, an idea, anything else), and where triage has got to."""

import enum

from sqlalchemy import Enum, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.profile.models import User
from app.shared.models import Owned


class FeedbackKind(enum.StrEnum):
    BUG = "BUG"
    FEATURE_REQUEST = "FEATURE_REQUEST"
    OTHER = "OTHER"


class FeedbackStatus(enum.StrEnum):
    """Triage state, seen only by admins: a user never reads "won't do" about their idea."""

    NEW = "NEW"
    TRIAGED = "TRIAGED"
    DONE = "DONE"
    WONT_DO = "WONT_DO"


class Feedback(Owned, db.Model):
    __tablename__ = "feedback"

    kind: Mapped[FeedbackKind] = mapped_column(Enum(FeedbackKind, native_enum=False, length=16))
    text: Mapped[str] = mapped_column(Text)
    # The page the user was on when they wrote (a path), to reproduce what they saw.
    page: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[FeedbackStatus] = mapped_column(
        Enum(FeedbackStatus, native_enum=False, length=16), default=FeedbackStatus.NEW, index=True
    )

    author: Mapped[User] = relationship()
