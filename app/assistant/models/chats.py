"""The assistant's chats: their messages, the turns that produce them, and the chat's memory note.

A TURN is one user message being answered: recorded when the message is posted, claimed and run
by the first watcher of its event stream, and ended with a stable status. Its user MESSAGE is
written when the message is accepted; its assistant MESSAGE when the turn is claimed, then kept up
to date as the answer streams (every tool outcome, about every second of text), so a worker that
dies mid-answer never hides what was said or done. The runner renews a lease on its turn; a
RUNNING turn whose lease lapsed has lost its runner and is ended as INTERRUPTED by whoever notices
(a watcher, the clock's sweep, a worker's shutdown).
"""

import enum
import uuid
from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Enum,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    literal,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.shared.models import Owned, utcnow

CHAT_NOTE_MAX = 1000
GLOBAL_NOTE_MAX = 2000
MESSAGE_MAX = 4000
PAGE_MAX = 200
TITLE_MAX = 120


class Chat(Owned, db.Model):
    __tablename__ = "chats"

    title: Mapped[str] = mapped_column(String(TITLE_MAX))
    note: Mapped[str | None] = mapped_column(String(CHAT_NOTE_MAX))  # written whole by updateChatContext
    last_activity_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)

    messages: Mapped[list["ChatMessage"]] = relationship(
        back_populates="chat", order_by="ChatMessage.seq", cascade="all, delete-orphan", passive_deletes=True
    )


class Role(enum.StrEnum):
    USER = "USER"
    ASSISTANT = "ASSISTANT"


class Ending(enum.StrEnum):
    """How an assistant message ended; anything but COMPLETE is shown as such."""

    COMPLETE = "COMPLETE"
    INTERRUPTED = "INTERRUPTED"  # the provider failed after text had reached the user, or the server stopped
    CANCELLED = "CANCELLED"  # the user stopped it, sent again, or signed out
    TIMEOUT = "TIMEOUT"  # ran past the turn's time limit
    FAILED = "FAILED"  # every link failed after the turn had already done something


class ChatMessage(db.Model):
    __tablename__ = "chat_messages"
    __table_args__ = (UniqueConstraint("chat_id", "seq", name="one_message_per_position"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    chat_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("chats.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    role: Mapped[Role] = mapped_column(Enum(Role, native_enum=False, length=16))
    # What the user sees: [{"type": "text", "text": …}, {"type": "tool", "tool": …, …}]
    segments: Mapped[list] = mapped_column(JSON, default=list)
    # What the model sees next time: the portable messages of this turn (tool calls and results).
    transcript: Mapped[list] = mapped_column(JSON, default=list)
    link: Mapped[str | None] = mapped_column(String(32))  # which chain link answered
    # None on an answer still being written (its turn is RUNNING) and on the user's messages.
    ending: Mapped[Ending | None] = mapped_column(Enum(Ending, native_enum=False, length=16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    chat: Mapped[Chat] = relationship(back_populates="messages")


class TurnStatus(enum.StrEnum):
    PENDING = "PENDING"  # posted, nobody watching yet
    RUNNING = "RUNNING"  # claimed by the first watcher
    DONE = "DONE"  # persisted and `done` sent
    ENDED = "ENDED"  # ended otherwise; error_key says how


class Turn(db.Model):
    __tablename__ = "turns"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    chat_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("chats.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    text: Mapped[str] = mapped_column(Text)
    page: Mapped[str | None] = mapped_column(String(PAGE_MAX))
    focus_entry_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    status: Mapped[TurnStatus] = mapped_column(
        Enum(TurnStatus, native_enum=False, length=16), default=TurnStatus.PENDING
    )
    error_key: Mapped[str | None] = mapped_column(String(64))
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    question_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)  # the user's message, stored on accept
    answer_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)  # the assistant message it left, if any
    # Until when the runner is known to be alive; it renews this while it runs.
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


# The running turns asked to stop, and only those: every process asks for them a few times a second
# (assistant.cancelled_running), and a turn leaves the index as soon as its runner ends it. The
# status is written out, not a parameter, so the query's condition matches the index's.
CANCELLED_RUNNING = (
    Turn.status == literal(TurnStatus.RUNNING, Turn.status.type, literal_execute=True)
) & Turn.cancel_requested
Index("ix_turns_cancelled_running", Turn.id, postgresql_where=CANCELLED_RUNNING, sqlite_where=CANCELLED_RUNNING)
