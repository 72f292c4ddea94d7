"""The account: who signs in, and the settings every page reads."""

import uuid
from datetime import UTC, datetime

from flask_login import UserMixin
from sqlalchemy import Boolean, DateTime, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db


def utcnow():
    return datetime.now(UTC)


class User(UserMixin, db.Model):
    __tablename__ = "users"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(256))
    email: Mapped[str] = mapped_column(String(256), unique=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    language: Mapped[str] = mapped_column(String(8), default="en")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    theme: Mapped[str] = mapped_column(String(16), default="system")
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    # Bumped when the password changes: every session signed with the old value ends.
    session_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    def get_id(self):
        """Flask-Login's session key: the id plus the session version (see session_version)."""
        return f"{self.id}:{self.session_version}"

    def __repr__(self):
        return f"<User {self.email}>"
