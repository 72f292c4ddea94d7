"""The daily briefing: one row per account and local day, holding the facts computed in Python
and the model's few lines about them once they arrive.

The row is also the claim: the request that moves it from PENDING to GENERATING (one conditional
UPDATE) is the only one that calls the model, so two devices or two worker processes opening the
dialog together buy one paragraph.
"""

import enum
from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, Enum, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned


class BriefingStatus(enum.StrEnum):
    PENDING = "PENDING"  # facts stored, no generation claimed yet
    GENERATING = "GENERATING"  # one request holds the claim and is asking the model
    READY = "READY"  # the picks are stored
    FAILED = "FAILED"  # the chain gave nothing: the facts stand alone (no retry)
    UNUSABLE = "UNUSABLE"  # a model answered, but nothing of it could be read: the facts stand alone


class DailyBriefing(Owned, db.Model):
    __tablename__ = "daily_briefings"
    __table_args__ = (UniqueConstraint("user_id", "day", name="one_briefing_per_day"),)
    owner_indexed = False  # one_briefing_per_day starts with the owner

    day: Mapped[date] = mapped_column(Date)
    facts: Mapped[dict] = mapped_column(JSON)
    status: Mapped[BriefingStatus] = mapped_column(
        Enum(BriefingStatus, native_enum=False, length=16), default=BriefingStatus.PENDING
    )
    # [{"signal", "meaning"}]: the two or three signals the model picked and what they mean today.
    picks: Mapped[list | None] = mapped_column(JSON)
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
