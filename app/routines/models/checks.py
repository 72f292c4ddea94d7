"""What happened to each routine entry on each local day, and how far the days are closed.

A check row is written the first time an entry is checked or skipped on a day, and the day
close writes one (untouched) for every entry of the routine that ran that day. Each row
freezes the facts the day needs later — the routine, section and item names, the difficulty
and importance, the times — so editing or deleting a routine never rewrites a past day. Ids
are bare (no foreign keys) for the same reason; the rows go with their user.
"""

import uuid
from datetime import date, datetime, time

from sqlalchemy import (
    Boolean,
    Date,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Time,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.routines.models.history import OwnerType


class EntryCheck(db.Model):
    """One entry on one day: checked, skipped or untouched, and the XP the check paid."""

    __tablename__ = "entry_checks"
    __table_args__ = (
        UniqueConstraint("entry_id", "day", name="one_check_per_entry_per_day"),
        Index("ix_entry_checks_user_day", "user_id", "day"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    day: Mapped[date] = mapped_column(Date)
    entry_id: Mapped[uuid.UUID] = mapped_column(Uuid)

    # Frozen when the row is written: what the entry looked like that day.
    routine_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    routine_name: Mapped[str] = mapped_column(String(256))
    routine_icon: Mapped[str] = mapped_column(String(64))
    section_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    section_name: Mapped[str | None] = mapped_column(String(256))
    section_icon: Mapped[str | None] = mapped_column(String(64))
    section_starts_at: Mapped[time | None] = mapped_column(Time)
    section_ends_at: Mapped[time | None] = mapped_column(Time)
    section_position: Mapped[int] = mapped_column(Integer, default=0)
    position: Mapped[int] = mapped_column(Integer, default=0)
    item_type: Mapped[OwnerType] = mapped_column(Enum(OwnerType, native_enum=False, length=16))  # HABIT or TASK
    item_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    item_name: Mapped[str] = mapped_column(String(256))
    item_icon: Mapped[str] = mapped_column(String(64))
    difficulty: Mapped[int] = mapped_column(Integer)
    importance: Mapped[int] = mapped_column(Integer)
    one_time: Mapped[bool] = mapped_column(Boolean, default=False)
    starts_at: Mapped[time | None] = mapped_column(Time)
    ends_at: Mapped[time | None] = mapped_column(Time)

    # What happened.
    checked: Mapped[bool] = mapped_column(Boolean, default=False)
    skipped: Mapped[bool] = mapped_column(Boolean, default=False)
    checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    xp: Mapped[float] = mapped_column(Float, default=0.0)  # paid by the check; an uncheck takes back exactly this

    @classmethod
    def frozen_from(cls, entry, day):
        """A new (unsaved, untouched) row holding what `entry` looks like now, for `day`."""
        item, section, routine = entry.item, entry.section, entry.routine
        return cls(
            user_id=routine.user_id,
            day=day,
            entry_id=entry.id,
            routine_id=routine.id,
            routine_name=routine.name,
            routine_icon=routine.icon,
            section_id=section.id if section else None,
            section_name=section.name if section else None,
            section_icon=section.icon if section else None,
            section_starts_at=section.starts_at if section else None,
            section_ends_at=section.ends_at if section else None,
            section_position=section.position if section else 0,
            position=entry.position,
            item_type=OwnerType.HABIT if entry.habit_id else OwnerType.TASK,
            item_id=item.id,
            item_name=item.name,
            item_icon=item.icon,
            difficulty=item.difficulty,
            importance=item.importance,
            one_time=bool(getattr(item, "one_time", False)),
            starts_at=entry.starts_at,
            ends_at=entry.ends_at,
            checked=False,
            skipped=False,
            xp=0.0,
        )

    @property
    def touched(self):
        return self.checked or self.skipped


class DayCloseMark(db.Model):
    """The last local day the day close has finished for a user, so a run only looks at new days."""

    __tablename__ = "day_close_marks"

    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    closed_through: Mapped[date] = mapped_column(Date)
