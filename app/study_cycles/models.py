"""Study cycles: a week of study minutes shared by notebook pages (the subjects), the queue of
blocks the planner made of it, the laps through that queue, and the study sessions that fill them.

A session is study someone did: logged by hand, or made from a completed Focus timer cycle on a
routine entry linked to a page. Its minutes are credited to the running lap of each active cycle
holding the page; a credit keeps its minutes in a finished lap even when the session is deleted
(the session's id is then emptied), so a finished lap's history never changes.
"""

import enum
import uuid
from datetime import date, datetime, time

from sqlalchemy import Date, DateTime, Enum, ForeignKey, Integer, String, Time, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.shared.models import Owned, utcnow

CYCLE_NAME_MAX = 120


class BlockMode(enum.StrEnum):
    TIME = "TIME"  # study N minutes
    GOAL = "GOAL"  # reach a concept: a page inside the subject, or the board's next step


class SessionSource(enum.StrEnum):
    MANUAL = "MANUAL"  # the "Log session" dialog or logStudySession
    TIMER = "TIMER"  # a completed Focus work cycle on an entry linked to a page


def _mode_column():
    return mapped_column(Enum(BlockMode, native_enum=False, length=8), default=BlockMode.TIME)


class StudyCycle(Owned, db.Model):
    """A weekly study plan. Archived, it keeps its laps as history and stops planning."""

    __tablename__ = "study_cycles"

    name: Mapped[str] = mapped_column(String(CYCLE_NAME_MAX))
    largest_block: Mapped[int | None] = mapped_column(Integer)  # minutes; None: the planner's default
    default_mode: Mapped[BlockMode] = _mode_column()
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    days: Mapped[list["StudyCycleDay"]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="StudyCycleDay.weekday"
    )
    subjects: Mapped[list["StudyCycleSubject"]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="StudyCycleSubject.position"
    )
    blocks: Mapped[list["StudyBlock"]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="StudyBlock.number"
    )
    laps: Mapped[list["StudyLap"]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="StudyLap.number"
    )

    @property
    def archived(self):
        return self.archived_at is not None


class StudyCycleDay(db.Model):
    """A weekday with study minutes (0 Monday … 6 Sunday); a day without a row is rest."""

    __tablename__ = "study_cycle_days"
    __table_args__ = (UniqueConstraint("cycle_id", "weekday", name="one_row_per_cycle_weekday"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    cycle_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_cycles.id", ondelete="CASCADE"))
    weekday: Mapped[int] = mapped_column(Integer)
    minutes: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[time | None] = mapped_column(Time)


class StudyCycleSubject(db.Model):
    """A notebook page studied in a cycle, with its weights and the weekly minutes set by hand."""

    __tablename__ = "study_cycle_subjects"
    __table_args__ = (UniqueConstraint("cycle_id", "page_id", name="one_row_per_cycle_page"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    cycle_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_cycles.id", ondelete="CASCADE"))
    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    importance: Mapped[int] = mapped_column(Integer)
    mastery: Mapped[int] = mapped_column(Integer)
    minutes: Mapped[int | None] = mapped_column(Integer)  # hand-set weekly minutes; None: by weight
    position: Mapped[int] = mapped_column(Integer, default=0)

    page = relationship("NotebookPage")


class StudyBlock(db.Model):
    """One numbered block of the queue: a subject, minutes, and TIME or GOAL (a concept page
    inside the subject; a GOAL block without one aims at the board's next step)."""

    __tablename__ = "study_blocks"
    __table_args__ = (UniqueConstraint("cycle_id", "number", name="one_block_per_number"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    cycle_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_cycles.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    subject_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("study_cycle_subjects.id", ondelete="CASCADE"), index=True
    )
    minutes: Mapped[int] = mapped_column(Integer)
    mode: Mapped[BlockMode] = _mode_column()
    concept_page_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("study_pages.id", ondelete="SET NULL"), index=True
    )

    subject = relationship("StudyCycleSubject")
    concept_page = relationship("NotebookPage")


class StudyLap(db.Model):
    """One pass through the queue; a cycle has one running lap (not finished) at a time."""

    __tablename__ = "study_laps"
    __table_args__ = (UniqueConstraint("cycle_id", "number", name="one_lap_per_number"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    cycle_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_cycles.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    credits: Mapped[list["StudyCredit"]] = relationship(cascade="all, delete-orphan", passive_deletes=True)


class StudySession(Owned, db.Model):
    """Study done on a page on a day: by hand, or one completed Focus work cycle."""

    __tablename__ = "study_sessions"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    day: Mapped[date] = mapped_column(Date)
    minutes: Mapped[int] = mapped_column(Integer)
    source: Mapped[SessionSource] = mapped_column(Enum(SessionSource, native_enum=False, length=8))
    timer_cycle_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("timer_cycles.id", ondelete="CASCADE"), unique=True
    )

    page = relationship("NotebookPage")


class StudyCredit(db.Model):
    """Minutes of one session counted for one subject in one lap."""

    __tablename__ = "study_credits"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    lap_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_laps.id", ondelete="CASCADE"), index=True)
    subject_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("study_cycle_subjects.id", ondelete="CASCADE"), index=True
    )
    session_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("study_sessions.id", ondelete="SET NULL"), index=True
    )
    day: Mapped[date] = mapped_column(Date)
    minutes: Mapped[int] = mapped_column(Integer)

    subject = relationship("StudyCycleSubject")


class StudyEntryLink(Owned, db.Model):
    """A routine entry studied for a page: its completed Focus work cycles become sessions."""

    __tablename__ = "study_entry_links"
    __table_args__ = (UniqueConstraint("entry_id", name="one_page_per_entry"),)

    entry_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("routine_entries.id", ondelete="CASCADE"))
    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)

    page = relationship("NotebookPage")
