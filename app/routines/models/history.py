"""What happened on each day: outcomes for streaks, and XP deltas for the charts.

Both tables name their owner by type and bare id, with no foreign key, so history outlives
routine edits; rows go with their user (cascade) and with a deleted habit, task or category.
"""

import enum
import uuid
from datetime import date

from sqlalchemy import Date, Enum, Float, ForeignKey, Index, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db


class OwnerType(enum.StrEnum):
    USER = "USER"
    HABIT = "HABIT"
    TASK = "TASK"
    ROUTINE = "ROUTINE"
    CATEGORY = "CATEGORY"


class Outcome(enum.StrEnum):
    DONE = "DONE"  # checked: the only outcome that advances a streak
    SKIPPED = "SKIPPED"  # deliberately skipped: neutral, never a failure
    MISSED = "MISSED"  # scheduled and left untouched once the day ended: breaks the streak
    NOT_SCHEDULED = "NOT_SCHEDULED"  # in a routine that does not run that weekday: neutral
    NOT_IN_ROUTINE = "NOT_IN_ROUTINE"  # in no routine at all: neutral


class DayOutcome(db.Model):
    """One outcome per owner per local day. No row means unknown, which is neutral."""

    __tablename__ = "day_outcomes"
    __table_args__ = (
        UniqueConstraint("owner_type", "owner_id", "day", name="one_outcome_per_day"),
        # The streak figures are counted over an owner's days by outcome (app.routines.streaks
        # `day_summaries`): with the outcome in the index, the database never reads the table.
        Index("ix_day_outcomes_owner_day_outcome", "owner_type", "owner_id", "day", "outcome"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    owner_type: Mapped[OwnerType] = mapped_column(Enum(OwnerType, native_enum=False, length=16))
    owner_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    day: Mapped[date] = mapped_column(Date)
    outcome: Mapped[Outcome] = mapped_column(Enum(Outcome, native_enum=False, length=16))


class XpDay(db.Model):
    """The net XP an owner gained (or lost) on one local day; summing them gives its total."""

    __tablename__ = "xp_days"
    __table_args__ = (
        UniqueConstraint("owner_type", "owner_id", "day", name="one_xp_row_per_day"),
        Index("ix_xp_days_user_day", "user_id", "day"),  # the dashboard's "this week" charts
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    owner_type: Mapped[OwnerType] = mapped_column(Enum(OwnerType, native_enum=False, length=16))
    owner_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    day: Mapped[date] = mapped_column(Date)
    xp: Mapped[float] = mapped_column(Float, default=0.0)
