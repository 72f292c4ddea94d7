"""The assistant's core tools, sent on every round: the two memory writers (a note about the person,
a note about this conversation) and `openToolsets`, which opens the tools of other domains."""

from typing import Literal

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import REGISTRY, tool
from app.agent.toolsets import OFFERED
from app.assistant import services as assistant
from app.assistant.models.chats import CHAT_NOTE_MAX, GLOBAL_NOTE_MAX


class GlobalNote(BaseModel):
    note: str = Field(
        description=f"The COMPLETE new note (≤ {GLOBAL_NOTE_MAX} characters), old and new merged; empty clears it."
    )


class ChatNote(BaseModel):
    note: str = Field(description=f"The COMPLETE new note (≤ {CHAT_NOTE_MAX} characters), merged; empty clears it.")


@tool(domain="profile", kind="write", label=_l("Remembered something about you"), page="/configuration",
      args=GlobalNote, core=True)  # fmt: skip
def updateGlobalContext(ctx, args):
    """Overwrite your durable note about the person, shared by every chat."""
    return {"saved": True, "note": assistant.set_global_note(ctx.user, args.note)}


@tool(domain="assistant", kind="write", label=_l("Noted this conversation"), args=ChatNote, core=True)
def updateChatContext(ctx, args):
    """Overwrite your note about this conversation (what is being planned, decisions made)."""
    return {"saved": True, "note": assistant.set_chat_note(ctx.user, ctx.chat.id, args.note)}


# The discovery tool --------------------------------------------------------------------------

ToolsetName = Literal[tuple(toolset.domain for toolset in OFFERED)]


class ToolsetsToOpen(BaseModel):
    toolsets: list[ToolsetName] = Field(min_length=1)


DESCRIPTION = (
    "Open more tools, usable from your next step on. Toolsets: "
    + "; ".join(f"{toolset.domain} ({toolset.summary})" for toolset in OFFERED)
    + "."
)


@tool(domain="assistant", kind="read", label=_l("Looked for more tools"), args=ToolsetsToOpen, core=True,
      description=DESCRIPTION)  # fmt: skip
def openToolsets(ctx, args):
    opening = set(args.toolsets)
    return {
        "opened": sorted(opening),
        "tools": [name for name, found in REGISTRY.items() if found.domain in opening and not found.core],
    }
