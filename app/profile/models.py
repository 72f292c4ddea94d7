"""The account: who signs in, and the settings every page reads."""

import enum
import hashlib
import uuid
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import JSON, Boolean, DateTime, Enum, ForeignKey, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import utcnow
from app.shared.progress import HasStreak, HasXp


class ConstanceMode(enum.StrEnum):
    """What makes a day count for the account's streak."""

    ANY = "ANY"  # at least one entry of the day's routine checked
    COMPLETE = "COMPLETE"  # every entry checked or skipped


class XpDecay(enum.StrEnum):
    """How much XP a late check on a past day still pays."""

    GRADUAL = "GRADUAL"  # 1 day late 80 %, 2 days 60 %, 3 days 40 %, then 20 %
    FLAT = "FLAT"  # always 50 %
    TIME_WINDOW = "TIME_WINDOW"  # 100 % up to 2 days late, then nothing


class User(UserMixin, HasXp, HasStreak, db.Model):
    __tablename__ = "users"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(256))
    email: Mapped[str] = mapped_column(String(256), unique=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    language: Mapped[str] = mapped_column(String(8), default="en")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    theme: Mapped[str] = mapped_column(String(16), default="system")
    phrase: Mapped[str | None] = mapped_column(String(256))
    phrase_author: Mapped[str | None] = mapped_column(String(256))
    constance_mode: Mapped[ConstanceMode] = mapped_column(
        Enum(ConstanceMode, native_enum=False, length=16), default=ConstanceMode.ANY
    )
    xp_decay: Mapped[XpDecay] = mapped_column(Enum(XpDecay, native_enum=False, length=16), default=XpDecay.GRADUAL)
    widgets: Mapped[list] = mapped_column(JSON, default=list)  # dashboard widget ids, in order
    # Focus mode's timer: the lengths of a work period and of the break after it.
    focus_work_minutes: Mapped[int] = mapped_column(Integer, default=25, server_default="25")
    focus_break_minutes: Mapped[int] = mapped_column(Integer, default=5, server_default="5")
    tutorial_done: Mapped[bool] = mapped_column(Boolean, default=False)
    max_constance: Mapped[int] = mapped_column(Integer, default=0)
    # The assistant's global memory note about this person (≤ 2000), written whole by its tool.
    assistant_note: Mapped[str | None] = mapped_column(String(2000))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    # Bumped when the password changes, so a reset link works once.
    session_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    # The key of the sign-in this request runs under (see UserSession); not a column.
    session_key = None

    @property
    def sign_in(self):
        """How this request's sign-in is named outside the cookie: the digest its row is stored
        under, which the live channel tags the page's socket with. None outside a sign-in."""
        return hashlib.sha256(self.session_key.encode()).hexdigest() if self.session_key else None

    def get_id(self):
        """What Flask-Login keeps in the session and the remember-me cookie: the id plus the
        key of this sign-in, so ending the sign-in on the server ends both."""
        return f"{self.id}:{self.session_key}"

    def __repr__(self):
        return f"<User {self.email}>"


class UserSession(db.Model):
    """One sign-in (a browser session, with its remember-me cookie when asked for).

    The cookie carries a random key; only its SHA-256 is stored, so a copy of this table opens
    no account. Signing out deletes the row, and with it every copy of that cookie.
    """

    __tablename__ = "user_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 hex of the key
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
