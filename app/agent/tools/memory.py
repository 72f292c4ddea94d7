"""The two memory writers: a note about the person, and a note about this conversation."""

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.tools.registry import tool
from app.models.agent import CHAT_NOTE_MAX, GLOBAL_NOTE_MAX
from app.services import assistant


class GlobalNote(BaseModel):
    note: str = Field(
        description=f"The COMPLETE new note (≤ {GLOBAL_NOTE_MAX} characters), old and new merged; it replaces "
        "the old one, empty clears it."
    )


class ChatNote(BaseModel):
    note: str = Field(
        description=f"The COMPLETE new note (≤ {CHAT_NOTE_MAX} characters), merged and compact; it replaces "
        "the old one, empty clears it."
    )


@tool(domain="profile", kind="write", label=_l("Remembered something about you"), page="/configuration",
      args=GlobalNote, core=True)  # fmt: skip
def updateGlobalContext(ctx, args):
    """Overwrite your durable note about the person (preferences, what they care about), shared by
    every chat. Never secrets."""
    return {"saved": True, "note": assistant.set_global_note(ctx.user, args.note)}


@tool(domain="assistant", kind="write", label=_l("Noted this conversation"), args=ChatNote, core=True)
def updateChatContext(ctx, args):
    """Overwrite your note about this conversation (what is being planned, decisions made)."""
    return {"saved": True, "note": assistant.set_chat_note(ctx.user, ctx.chat.id, args.note)}
