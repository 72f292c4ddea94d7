"""The assistant in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.assistant.models.chats import Chat
from app.extensions import db
from app.shared.export import as_text, iso


def export_assistant(user):
    """What the assistant remembers: its note about the person and every conversation."""
    chats = db.session.scalars(db.select(Chat).where(Chat.user_id == user.id).order_by(Chat.created_at)).all()
    return {
        "notes_about_you": user.assistant_note,
        "chats": [
            {
                "id": str(chat.id),
                "title": chat.title,
                "created_at": iso(chat.created_at),
                "last_activity_at": iso(chat.last_activity_at),
                "notes_about_this_chat": chat.note,
                "messages": [
                    {
                        "role": str(message.role),
                        "segments": message.segments,
                        "ending": as_text(message.ending),
                        "answered_by": message.link,
                        "created_at": iso(message.created_at),
                    }
                    for message in chat.messages
                ],
            }
            for chat in chats
        ],
    }
