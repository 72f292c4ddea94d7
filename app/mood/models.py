"""Mood: one entry per user per local day, a level from 1 to 5 and an optional private journal.

The journal is the person's own writing for themselves. Only the mood page shows it to its owner
(and their own data export carries it); the assistant and anything built for a model read the
level and whether text exists, never the words (app/mood/services.py).
"""

from datetime import date

from sqlalchemy import CheckConstraint, Date, SmallInteger, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned

LEVEL_MIN, LEVEL_MAX = 1, 5
JOURNAL_MAX = 10_000


class MoodEntry(Owned, db.Model):
    __tablename__ = "mood_entries"
    __table_args__ = (
        UniqueConstraint("user_id", "day", name="one_mood_per_day"),
        CheckConstraint(f"level BETWEEN {LEVEL_MIN} AND {LEVEL_MAX}", name="level_in_range"),
    )
    owner_indexed = False  # one_mood_per_day starts with the owner

    day: Mapped[date] = mapped_column(Date)  # the user's local day
    level: Mapped[int] = mapped_column(SmallInteger)
    journal: Mapped[str | None] = mapped_column(Text)
