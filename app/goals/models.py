"""Goals: a target value to reach by a date, arranged in a tree."""

import enum
import uuid
from datetime import date, datetime

from sqlalchemy import Date, DateTime, Enum, Float, ForeignKey, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.categories.models import Category, category_link_table
from app.extensions import db
from app.shared.models import Owned

goal_categories = category_link_table("goal_categories", "goal_id", "goals")


class GoalStatus(enum.StrEnum):
    NOT_STARTED = "NOT_STARTED"
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETED = "COMPLETED"


class GoalTerm(enum.StrEnum):
    SHORT_TERM = "SHORT_TERM"
    MEDIUM_TERM = "MEDIUM_TERM"
    LONG_TERM = "LONG_TERM"


class Goal(Owned, db.Model):
    __tablename__ = "goals"

    parent_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, ForeignKey("goals.id", ondelete="SET NULL"), index=True)
    name: Mapped[str] = mapped_column(String(256))
    description: Mapped[str | None] = mapped_column(String(256))
    motivation: Mapped[str | None] = mapped_column(String(256))
    icon: Mapped[str] = mapped_column(String(64))
    target_value: Mapped[float] = mapped_column(Float)
    current_value: Mapped[float] = mapped_column(Float, default=0.0)
    unit: Mapped[str] = mapped_column(String(64))
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    term: Mapped[GoalTerm] = mapped_column(Enum(GoalTerm, native_enum=False, length=16))
    status: Mapped[GoalStatus] = mapped_column(
        Enum(GoalStatus, native_enum=False, length=16), default=GoalStatus.NOT_STARTED
    )
    completed_on: Mapped[date | None] = mapped_column(Date)
    # The XP granted at completion; undoing takes back exactly this amount.
    xp_reward: Mapped[float] = mapped_column(Float, default=0.0)
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    categories: Mapped[list[Category]] = relationship(secondary=goal_categories, order_by=Category.name)
    parent: Mapped["Goal | None"] = relationship(remote_side="Goal.id", back_populates="children")
    children: Mapped[list["Goal"]] = relationship(back_populates="parent", order_by="Goal.end_date")
