"""Routines: what a day looks like, and which routine runs on which weekday.

A TIMED routine has ordered sections (a name, an icon, an HH:mm window), each holding ENTRIES:
"this habit or task, in this routine, at this time". A LIST routine is a flat ordered list of
entries with no sections and no times. Checks and skips always name an entry (its own id),
never the habit or task behind it, because one habit can sit in several routines.
"""

import enum
import uuid
from datetime import time

from sqlalchemy import CheckConstraint, Enum, ForeignKey, Integer, SmallInteger, String, Time, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.habits.models import Habit
from app.shared.models import Owned
from app.shared.progress import HasXp
from app.tasks.models import Task


class RoutineKind(enum.StrEnum):
    TIMED = "TIMED"
    LIST = "LIST"


class Routine(Owned, HasXp, db.Model):
    __tablename__ = "routines"

    kind: Mapped[RoutineKind] = mapped_column(Enum(RoutineKind, native_enum=False, length=8))
    name: Mapped[str] = mapped_column(String(256))
    icon: Mapped[str] = mapped_column(String(64))

    sections: Mapped[list["RoutineSection"]] = relationship(
        back_populates="routine", order_by="RoutineSection.position", cascade="all, delete-orphan"
    )
    entries: Mapped[list["RoutineEntry"]] = relationship(
        back_populates="routine", order_by="RoutineEntry.position", cascade="all, delete-orphan"
    )
    schedule_days: Mapped[list["ScheduleDay"]] = relationship(
        back_populates="routine", order_by="ScheduleDay.weekday", cascade="all, delete-orphan"
    )


class RoutineSection(db.Model):
    __tablename__ = "routine_sections"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    routine_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("routines.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(256))
    icon: Mapped[str] = mapped_column(String(64))
    starts_at: Mapped[time] = mapped_column(Time)
    ends_at: Mapped[time | None] = mapped_column(Time)  # before starts_at: the window runs past midnight

    routine: Mapped[Routine] = relationship(back_populates="sections")
    entries: Mapped[list["RoutineEntry"]] = relationship(
        back_populates="section", order_by="RoutineEntry.position", cascade="all, delete-orphan"
    )


class RoutineEntry(db.Model):
    """One habit or task placed in a routine (in a section for a TIMED routine)."""

    __tablename__ = "routine_entries"
    __table_args__ = (CheckConstraint("(habit_id IS NULL) <> (task_id IS NULL)", name="habit_xor_task"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    routine_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("routines.id", ondelete="CASCADE"), index=True)
    section_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("routine_sections.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    habit_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, ForeignKey("habits.id", ondelete="RESTRICT"), index=True)
    task_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, ForeignKey("tasks.id", ondelete="RESTRICT"), index=True)
    starts_at: Mapped[time | None] = mapped_column(Time)
    ends_at: Mapped[time | None] = mapped_column(Time)

    routine: Mapped[Routine] = relationship(back_populates="entries")
    section: Mapped[RoutineSection | None] = relationship(back_populates="entries")
    habit: Mapped[Habit | None] = relationship()
    task: Mapped[Task | None] = relationship()

    @property
    def item(self):
        return self.habit or self.task


class ScheduleDay(db.Model):
    """A weekday (0 = Monday … 6 = Sunday) on which a routine runs: at most one routine per day."""

    __tablename__ = "schedule_days"
    __table_args__ = (UniqueConstraint("user_id", "weekday", name="one_routine_per_weekday"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    routine_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("routines.id", ondelete="CASCADE"), index=True)
    weekday: Mapped[int] = mapped_column(SmallInteger)

    routine: Mapped[Routine] = relationship(back_populates="schedule_days")
