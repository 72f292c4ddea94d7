"""Changes the assistant proposed and the person has to confirm: a delete, a rebuilt routine, a
check or a completion that moves XP. The model's call only writes one of these; the person's
click on the chat's card performs it (app/assistant/confirmations.py), once, before it expires.
"""

import enum
import uuid
from datetime import datetime

from sqlalchemy import JSON, DateTime, Enum, ForeignKey, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.shared.models import Owned


class ActionState(enum.StrEnum):
    PENDING = "PENDING"  # the card waits for a click
    CONFIRMED = "CONFIRMED"  # the person confirmed and it was done (`outcome`: what the tool answered)
    CANCELLED = "CANCELLED"  # the person cancelled: nothing was done
    EXPIRED = "EXPIRED"  # nobody confirmed in time: nothing was done
    FAILED = "FAILED"  # confirmed, but refused when it ran (`outcome`: the refusal)
    # Never stored: CONFIRMED with no outcome long after the click (pending_actions.effective_state).
    INTERRUPTED = "INTERRUPTED"  # the worker stopped between the click and recording what came of it


class PendingAction(Owned, db.Model):
    __tablename__ = "pending_actions"

    chat_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("chats.id", ondelete="CASCADE"), index=True)
    tool: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[dict] = mapped_column(JSON)  # validated, names pinned to the ids they meant
    summary: Mapped[str] = mapped_column(Text)  # what will change, in the person's words (names, not ids)
    facts: Mapped[dict] = mapped_column(JSON)  # what was true when proposed; read again at the click
    state: Mapped[ActionState] = mapped_column(
        Enum(ActionState, native_enum=False, length=16), default=ActionState.PENDING
    )
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    outcome: Mapped[dict | None] = mapped_column(JSON)  # the tool's answer or refusal, for the model's next turn

    chat = relationship("Chat")
