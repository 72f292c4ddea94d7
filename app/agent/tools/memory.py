"""The two memory writers: a note about the person, and a note about this conversation."""

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.tools.registry import tool
from app.models.agent import CHAT_NOTE_MAX, GLOBAL_NOTE_MAX
from app.services import assistant


class GlobalNote(BaseModel):
    note: str = Field(
        description=f"The COMPLETE new note about the person (≤ {GLOBAL_NOTE_MAX} characters): what you "
        "already knew merged with what is new. It replaces the old note entirely; empty clears it."
    )


class ChatNote(BaseModel):
    note: str = Field(
        description=f"The COMPLETE new note about this conversation (≤ {CHAT_NOTE_MAX} characters), "
        "merged and compact. It replaces the old note entirely; empty clears it."
    )


@tool(domain="profile", kind="write", label=_l("Remembered something about you"), page="/configuration",
      args=GlobalNote, core=True)  # fmt: skip
def updateGlobalContext(ctx, args):
    """Overwrite your durable note about the person (preferences, routines, goals they care about),
    shared by every chat. Send the whole merged note, never secrets."""
    return {"saved": True, "note": assistant.set_global_note(ctx.user, args.note)}


@tool(domain="assistant", kind="write", label=_l("Noted this conversation"), args=ChatNote, core=True)
def updateChatContext(ctx, args):
    """Overwrite your note about the current conversation (what is being planned, decisions made).
    Send the whole merged note."""
    return {"saved": True, "note": assistant.set_chat_note(ctx.user, ctx.chat.id, args.note)}
