"""The admin audit log: what each admin viewed and did in the admin area (never what they saw)."""

from datetime import datetime

from sqlalchemy import DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned, utcnow


class AdminAuditEntry(Owned, db.Model):
    """One admin view or action. The owner is the admin who acted; a view repeated within a few
    minutes (a page refreshing itself) adds to `times` instead of writing a new row."""

    __tablename__ = "admin_audit"

    action: Mapped[str] = mapped_column(String(16))  # "view" or "change"
    endpoint: Mapped[str] = mapped_column(String(64))  # e.g. "admin.users"
    path: Mapped[str] = mapped_column(String(512))  # the URL asked for, with its query
    detail: Mapped[str | None] = mapped_column(String(256))  # what a change set, e.g. "status=DONE"
    times: Mapped[int] = mapped_column(Integer, default=1)
    last_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
