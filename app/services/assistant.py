"""The assistant's records: chats, the memory notes, turns and the messages they leave.

Pages and the turn runner both come through here, so ownership, limits and the order of a
chat's messages are kept in one place.
"""

import uuid
from datetime import UTC, datetime

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.agent import (
    CHAT_NOTE_MAX,
    GLOBAL_NOTE_MAX,
    MESSAGE_MAX,
    PAGE_MAX,
    TITLE_MAX,
    Chat,
    ChatMessage,
    Role,
    Turn,
    TurnStatus,
)
from app.services.errors import Invalid
from app.services.ownership import owned

TITLE_FROM_MESSAGE = 40


def now():
    return datetime.now(UTC)


# Chats ---------------------------------------------------------------------------------


def list_chats(user):
    """The user's chats, most recent activity first."""
    return db.session.scalars(
        db.select(Chat).where(Chat.user_id == user.id).order_by(Chat.last_activity_at.desc(), Chat.created_at.desc())
    ).all()


def get_chat(user, chat_id):
    return owned(Chat, chat_id, user, key="CHAT_NOT_FOUND")


def create_chat(user, title=None):
    title = _clean_title(title) or None
    chat = Chat(user_id=user.id, title=title or "", last_activity_at=now())
    db.session.add(chat)
    db.session.commit()
    return chat


def rename_chat(user, chat_id, title):
    chat = get_chat(user, chat_id)
    title = _clean_title(title)
    if not title:
        raise Invalid("INVALID_INPUT", details={"title": "CHAT_TITLE_INVALID"})
    chat.title = title
    db.session.commit()
    return chat


def delete_chat(user, chat_id):
    chat = get_chat(user, chat_id)
    cancel_turns(user, chat_id=chat.id)
    db.session.delete(chat)
    db.session.commit()


def reset(user):
    """ "Reset the assistant": every chat goes and the global note is cleared."""
    cancel_turns(user)
    for chat in db.session.scalars(db.select(Chat).where(Chat.user_id == user.id)):
        db.session.delete(chat)
    user.assistant_note = None
    db.session.commit()


def messages(user, chat_id):
    return get_chat(user, chat_id).messages


def _clean_title(title):
    return " ".join((title or "").split())[:TITLE_MAX]


# Memory notes --------------------------------------------------------------------------


def set_global_note(user, note):
    """Overwrite the note about the person (≤ 2000 characters); an empty note clears it."""
    user.assistant_note = _checked_note(note, GLOBAL_NOTE_MAX)
    db.session.commit()
    return user.assistant_note


def set_chat_note(user, chat_id, note):
    """Overwrite the note about this conversation (≤ 1000 characters); an empty note clears it."""
    chat = get_chat(user, chat_id)
    chat.note = _checked_note(note, CHAT_NOTE_MAX)
    db.session.commit()
    return chat.note


def _checked_note(note, limit):
    note = (note or "").strip()
    if len(note) > limit:
        raise Invalid("NOTE_TOO_LONG", limit=limit, length=len(note))
    return note or None


# Turns ---------------------------------------------------------------------------------


def start_turn(user, chat_id, text, page=None, focus_entry_id=None):
    """Record a message to be answered. Any turn still running in the chat is cancelled."""
    chat = get_chat(user, chat_id)
    text = (text or "").strip()
    if not text:
        raise Invalid("INVALID_INPUT", details={"message": "MESSAGE_EMPTY"})
    if len(text) > MESSAGE_MAX:
        raise Invalid("INVALID_INPUT", details={"message": "MESSAGE_TOO_LONG"})
    cancel_turns(user, chat_id=chat.id, commit=False)
    if not chat.title:
        chat.title = _clean_title(text)[:TITLE_FROM_MESSAGE]
    turn = Turn(
        chat_id=chat.id,
        user_id=user.id,
        text=text,
        page=_clean_page(page),
        focus_entry_id=focus_entry_id,
    )
    chat.last_activity_at = now()
    db.session.add(turn)
    db.session.commit()
    return turn


def get_turn(user, turn_id):
    return owned(Turn, turn_id, user, key="TURN_NOT_FOUND")


def claim(turn):
    """Atomically move a PENDING turn to RUNNING; True for the one caller that wins."""
    claimed = db.session.execute(
        update(Turn).where(Turn.id == turn.id, Turn.status == TurnStatus.PENDING).values(status=TurnStatus.RUNNING)
    ).rowcount
    db.session.commit()
    return claimed == 1


def cancel_turns(user, chat_id=None, turn_id=None, commit=True):
    """Ask the user's running turns (in one chat, or one turn, or all) to stop."""
    query = update(Turn).where(Turn.user_id == user.id, Turn.status.in_([TurnStatus.PENDING, TurnStatus.RUNNING]))
    if chat_id is not None:
        query = query.where(Turn.chat_id == chat_id)
    if turn_id is not None:
        query = query.where(Turn.id == turn_id)
    db.session.execute(query.values(cancel_requested=True))
    if commit:
        db.session.commit()


def cancel_requested(turn_id):
    """Asked often while a turn streams: a short connection of its own, so the turn's session
    holds no transaction (and no SQLite lock) between its writes."""
    with db.engine.connect() as connection:
        return bool(connection.scalar(db.select(Turn.cancel_requested).where(Turn.id == turn_id)))


def end_turn(turn, status, error_key=None):
    turn.status = status
    turn.error_key = error_key
    turn.finished_at = now()
    db.session.commit()


def record_exchange(turn, segments, transcript, link, ending):
    """Write the user's message and the answer together, in order, after the chat's last message.

    Concurrent turns in one chat are serialised by locking the chat row (PostgreSQL) and, as a
    backstop, by the unique (chat, position) constraint: a collision is retried.
    """
    for attempt in range(3):
        try:
            chat = db.session.scalar(db.select(Chat).where(Chat.id == turn.chat_id).with_for_update())
            if chat is None:
                raise LookupError("the chat was deleted while the turn ran")
            last = db.session.scalar(db.select(func.max(ChatMessage.seq)).where(ChatMessage.chat_id == chat.id))
            position = (last or 0) + 1
            answer = ChatMessage(
                id=uuid.uuid4(),
                chat_id=chat.id,
                seq=position + 1,
                role=Role.ASSISTANT,
                segments=segments,
                transcript=transcript[1:],  # the user's message is its own row
                link=link,
                ending=ending,
            )
            db.session.add_all(
                [
                    ChatMessage(
                        chat_id=chat.id,
                        seq=position,
                        role=Role.USER,
                        segments=[{"type": "text", "text": turn.text}],
                        transcript=transcript[:1],
                    ),
                    answer,
                ]
            )
            turn.answer_id = answer.id
            chat.last_activity_at = now()
            db.session.commit()
            return
        except IntegrityError:
            db.session.rollback()
            if attempt == 2:
                raise


def window(chat, size=20):
    """The chat's last `size` messages, oldest first (the model's short-term memory)."""
    rows = db.session.scalars(
        db.select(ChatMessage).where(ChatMessage.chat_id == chat.id).order_by(ChatMessage.seq.desc()).limit(size)
    ).all()
    return list(reversed(rows))


def _clean_page(page):
    """The page path the message was sent from: printable, one line, ≤ 200 characters."""
    page = "".join(ch for ch in (page or "") if ch.isprintable()).strip()
    return page[:PAGE_MAX] or None
