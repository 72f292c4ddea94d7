"""The assistant's records: chats, the memory notes, turns and the messages they leave.

Pages and the turn runner both come through here, so ownership, limits and the order of a
chat's messages are kept in one place.
"""

import uuid
from datetime import UTC, datetime, timedelta
from functools import cache

from flask import current_app
from sqlalchemy import bindparam, case, delete, func, insert, or_, update
from sqlalchemy.exc import IntegrityError

from app.assistant.models.chats import (
    CANCELLED_RUNNING,
    CHAT_NOTE_MAX,
    GLOBAL_NOTE_MAX,
    MESSAGE_MAX,
    PAGE_MAX,
    TITLE_MAX,
    Chat,
    ChatMessage,
    Ending,
    Role,
    Turn,
    TurnStatus,
)
from app.events import announce
from app.extensions import db
from app.llm import Message
from app.routines import services as routines
from app.shared.errors import Invalid, NotFound
from app.shared.ownership import owned, parsed_id

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
    announce(user, "profile")
    return user.assistant_note


def set_chat_note(user, chat_id, note):
    """Overwrite the note about this conversation (≤ 1000 characters); an empty note clears it."""
    chat = get_chat(user, chat_id)
    chat.note = _checked_note(note, CHAT_NOTE_MAX)
    db.session.commit()
    announce(user, "assistant")
    return chat.note


def _checked_note(note, limit):
    note = (note or "").strip()
    if len(note) > limit:
        raise Invalid("NOTE_TOO_LONG", limit=limit, length=len(note))
    return note or None


# Turns ---------------------------------------------------------------------------------
#
# A turn leaves its record as it goes, never all at the end: the user's message is stored when
# it is accepted, the answer row when the turn is claimed, and the runner rewrites that row as
# the answer grows (its journal). Ending the turn and storing the final answer are one
# transaction. So whatever stops a turn — a crash, a kill, a locked database — the chat shows
# what was typed, said and done.


class TurnAlreadyEnded(Exception):
    """The turn was no longer RUNNING when its runner tried to end it (its chat was deleted, or
    it was ended as INTERRUPTED while its runner seemed gone): nothing was written."""


def start_turn(user, chat_id, text, page=None, focus_entry_id=None):
    """Accept a message to be answered and store it in the chat at once, before any model call.
    Any turn still running in the chat is cancelled. A focus entry must be one of the user's
    routine entries (another user's id is ENTRY_NOT_FOUND, like an unknown one). The chat is
    checked to be the user's as it is locked (another user's is CHAT_NOT_FOUND, like an unknown
    one), not loaded first."""
    chat_id = parsed_id(chat_id, "CHAT_NOT_FOUND")
    text = (text or "").strip()
    if not text:
        raise Invalid("INVALID_INPUT", details={"message": "MESSAGE_EMPTY"})
    if len(text) > MESSAGE_MAX:
        raise Invalid("INVALID_INPUT", details={"message": "MESSAGE_TOO_LONG"})
    if focus_entry_id is not None:
        focus_entry_id = routines.get_entry(user, focus_entry_id).id

    turn = Turn(
        id=uuid.uuid4(),
        chat_id=chat_id,
        user_id=user.id,
        text=text,
        page=_clean_page(page),
        focus_entry_id=focus_entry_id,
        status=TurnStatus.PENDING,
        cancel_requested=False,
        question_id=uuid.uuid4(),
        created_at=now(),
    )

    def place():
        cancel_turns(user, chat_id=chat_id, commit=False)
        _execute(_NEW_MESSAGE, {
            "id": turn.question_id, "chat": chat_id, "role": Role.USER,
            "segments": [{"type": "text", "text": text}],
            "transcript": [Message.user(text).model_dump(exclude_defaults=True)], "at": now(),
        })  # fmt: skip
        _execute(_NEW_TURN, {column.key: getattr(turn, column.key) for column in Turn.__table__.columns})
        return turn

    # The POST's answer is rendered from this turn and the signed-in user as they are here: the
    # turn was never loaded, and the commit leaves the user loaded, so nothing is read back.
    title = _clean_title(text)[:TITLE_FROM_MESSAGE]
    try:
        return _append_to_chat(chat_id, place, owner=user, title=title, keep=(user,))
    except LookupError:
        raise NotFound("CHAT_NOT_FOUND") from None


def get_turn(user, turn_id):
    return owned(Turn, turn_id, user, key="TURN_NOT_FOUND")


def unfinished_turns(user, chat_id):
    """The chat's turns still waiting for their answer or answering, oldest first: a chat opened
    while one runs shows it as it is, answering (its stream replays what it has said so far)."""
    return db.session.scalars(
        db.select(Turn)
        .where(Turn.user_id == user.id, Turn.chat_id == chat_id,
               Turn.status.in_([TurnStatus.PENDING, TurnStatus.RUNNING]))
        .order_by(Turn.created_at)
    ).all()  # fmt: skip


def claim(turn):
    """Atomically move a PENDING turn to RUNNING, leased to its runner (AGENT_LEASE_SECONDS), with
    an empty answer row placed after the chat's last message (the journal the runner keeps up to
    date). True for the one caller that wins."""

    turn_id, chat_id = turn.id, turn.chat_id

    def place():
        answer_id = uuid.uuid4()
        claimed = _execute(_CLAIM, {"turn": turn_id, "answer": answer_id, "lease": _lease()}).rowcount
        if claimed == 1:
            _execute(_NEW_MESSAGE, {"id": answer_id, "chat": chat_id, "role": Role.ASSISTANT, "segments": [],
                                    "transcript": [], "at": now()})  # fmt: skip
        return claimed == 1

    try:
        return _append_to_chat(chat_id, place)
    except LookupError:  # the chat was deleted before anyone watched
        db.session.rollback()
        return False


def renew_leases(turn_ids):
    """The runners of these turns are alive: push their leases on."""
    if turn_ids:
        db.session.execute(
            update(Turn).where(Turn.id.in_(turn_ids), Turn.status == TurnStatus.RUNNING).values(lease_until=_lease())
        )
    db.session.commit()


def cancel_turns(user, chat_id=None, turn_id=None, commit=True):
    """Stop the user's unfinished turns (in one chat, or one turn, or all): a running one is asked
    to stop (its runner ends it, keeping what it had); a pending one has no runner, so it ends
    here (the message the user sent stays in the chat, unanswered)."""
    scope = {"owner": user.id, "at": now()}
    if chat_id is not None:
        scope["chat"] = chat_id
    if turn_id is not None:
        scope["turn"] = turn_id
    _execute(_cancelling(chat_id is not None, turn_id is not None), scope)
    if commit:
        db.session.commit()


@cache
def _cancelling(in_chat, one_turn):
    """The statement of `cancel_turns` for one scope, built once: every message sent runs it. One
    UPDATE for both kinds of turn: every SET reads the row as it was, so a pending turn ends and
    a running one is asked to stop. It runs as plain SQL (`_execute`), so the session is not
    searched for the turns it changes: every caller commits next, which expires what it holds."""
    scope = [Turn.user_id == bindparam("owner")]
    if in_chat:
        scope.append(Turn.chat_id == bindparam("chat"))
    if one_turn:
        scope.append(Turn.id == bindparam("turn"))
    pending = Turn.status == TurnStatus.PENDING
    return (
        update(Turn)
        .where(*scope, Turn.status.in_([TurnStatus.PENDING, TurnStatus.RUNNING]))
        .values(
            status=case((pending, TurnStatus.ENDED), else_=Turn.status),
            error_key=case((pending, "TURN_CANCELLED"), else_=Turn.error_key),
            finished_at=case((pending, bindparam("at")), else_=Turn.finished_at),
            cancel_requested=case((pending, Turn.cancel_requested), else_=True),
        )
    )


def cancelled_running():
    """The ids of every running turn asked to stop, whichever process runs it: each process's turn
    keeper asks a few times a second and picks its own. One short statement read from the index
    of those turns alone, however many turns run; asking for a process's own ids instead sent
    thousands of them, whose placeholders psycopg converted anew every time. On a short
    connection of its own, so no runner's session holds a transaction while its model is silent."""
    with db.engine.connect() as connection:
        return set(connection.scalars(_CANCELLED_RUNNING))


def record_progress(entries):
    """Write what running turns have said and done so far on their answer rows (each entry: its
    `answer` id, `segments`, `transcript`, `link`), so a worker that dies mid-turn leaves it
    behind. An answer that was already ended is left alone.

    app/assistant/answer_journal.py writes every streaming turn's entry at once, four times a second:
    one statement built once, as plain SQL, run for all of them, and one commit."""
    _execute(_JOURNAL_ANSWER, entries)
    db.session.commit()


def end_turn_with_answer(turn, *, segments, transcript, link, ending, status=TurnStatus.ENDED, error_key=None):
    """Store the answer as it ended and end the turn, in ONE transaction: both or neither.

    Only a RUNNING turn ends here, so a turn is ended exactly once whoever gets there first (its
    runner, a worker shutting down, the sweep); anyone later gets TurnAlreadyEnded and writes
    nothing.
    """
    ended = _execute(_END_TURN, {"turn": turn.id, "status": status, "error": error_key, "at": now()}).rowcount
    if ended != 1:
        db.session.rollback()
        raise TurnAlreadyEnded(turn.id)
    _execute(_END_ANSWER, {"answer": turn.answer_id, "segments": segments, "transcript": transcript,
                           "link": link, "ending": ending})  # fmt: skip
    _execute(_TOUCH_CHAT, {"chat": turn.chat_id, "at": now()})
    db.session.commit()


def withdraw_turn(turn, error_key):
    """End a turn that did nothing — no provider configured, every link failed before any
    output, a stream refused — and delete its user message and empty answer in the same
    transaction. The client takes the typed text back into the composer, so keeping it in the
    chat as well would show it twice once sent again."""
    db.session.rollback()
    its_messages = [turn.question_id, turn.answer_id]
    ended = db.session.execute(
        update(Turn)
        .where(Turn.id == turn.id, Turn.status.in_([TurnStatus.PENDING, TurnStatus.RUNNING]))
        .values(status=TurnStatus.ENDED, error_key=error_key, finished_at=now(), lease_until=None,
                question_id=None, answer_id=None)
    ).rowcount  # fmt: skip
    if ended == 1:
        db.session.execute(delete(ChatMessage).where(ChatMessage.id.in_(its_messages)))
    db.session.commit()
    return ended == 1


def interrupt_turn(turn_id, error_key="TURN_INTERRUPTED"):
    """End a RUNNING turn whose runner is gone with what its journal holds, marked INTERRUPTED.
    False when the turn had already ended."""
    ended = db.session.execute(
        update(Turn)
        .where(Turn.id == turn_id, Turn.status == TurnStatus.RUNNING)
        .values(status=TurnStatus.ENDED, error_key=error_key, finished_at=now(), lease_until=None)
    ).rowcount
    if ended == 1:
        answer_id = db.session.scalar(db.select(Turn.answer_id).where(Turn.id == turn_id))
        db.session.execute(
            update(ChatMessage)
            .where(ChatMessage.id == answer_id, ChatMessage.ending.is_(None))
            .values(ending=Ending.INTERRUPTED)
        )
    db.session.commit()
    return ended == 1


def lease_lapsed(turn):
    """A RUNNING turn whose runner stopped renewing its lease: the worker running it is gone."""
    return turn.status == TurnStatus.RUNNING and (turn.lease_until is None or _aware(turn.lease_until) < now())


def end_abandoned_turns(sparing=()):
    """The sweep: end every RUNNING turn whose lease lapsed as INTERRUPTED (each in its own
    transaction), except those in `sparing` (run by the caller's own process, alive though a
    locked database kept their leases from being renewed). Returns how many it ended."""
    stale = db.session.scalars(
        db.select(Turn.id).where(
            Turn.status == TurnStatus.RUNNING, or_(Turn.lease_until.is_(None), Turn.lease_until < now())
        )
    ).all()
    return sum(interrupt_turn(turn_id) for turn_id in stale if turn_id not in set(sparing))


def _append_to_chat(chat_id, place, *, owner=None, title=None, keep=()):
    """Commit `place()`, which writes rows after the chat's last message (`_NEW_MESSAGE`), with
    the chat's new activity time (and `title`, if the chat has none yet). With `keep`, the commit
    leaves those ORM rows loaded (see `_commit_keeping`). LookupError when there is no such chat
    (or, with `owner`, none of theirs).

    Concurrent writers in one chat are serialised by the chat row's lock (PostgreSQL), which the
    UPDATE of its activity takes first, and, as a backstop, by the unique (chat, position)
    constraint: a collision is retried.
    """
    for attempt in range(3):
        try:
            touch = {"chat": chat_id, "at": now(), "title": title}
            if owner is None:
                touched = _execute(_TOUCH_CHAT_LOCKING, touch).first()
            else:
                touched = _execute(_TOUCH_OWNED_CHAT_LOCKING, {**touch, "owner": owner.id}).first()
            if touched is None:
                raise LookupError("no such chat")
            placed = place()
            if keep:
                _commit_keeping(*keep)
            else:
                db.session.commit()
            return placed
        except IntegrityError:
            db.session.rollback()
            if attempt == 2:
                raise


def _execute(statement, parameters):
    """Run one of the statements below on the session's connection, in its transaction, as plain
    SQL. A message, a claim and an answer's end each write a few rows that no caller holds as
    objects; the ORM's unit of work (and its search of the session for rows an update changed)
    cost several times the SQL for them."""
    return db.session.connection().execute(statement, parameters)


# Built once (bound parameters): every message, claim and answer runs them, and building a
# statement and its cache key costs more than running it.
_TOUCH_CHAT = (  # the new activity, and `title` if the chat has none yet
    update(Chat)
    .where(Chat.id == bindparam("chat"))
    .values(
        last_activity_at=bindparam("at"),
        title=case((Chat.title == "", func.coalesce(bindparam("title", None), Chat.title)), else_=Chat.title),
    )
)
_TOUCH_CHAT_LOCKING = _TOUCH_CHAT.returning(Chat.id)  # no row: no such chat
_TOUCH_OWNED_CHAT_LOCKING = _TOUCH_CHAT_LOCKING.where(Chat.user_id == bindparam("owner"))  # nor one of theirs
_NEW_MESSAGE = insert(ChatMessage).from_select(  # placed after the chat's last message, found as it is written
    ["id", "chat_id", "seq", "role", "segments", "transcript", "created_at"],
    db.select(
        bindparam("id", type_=ChatMessage.id.type),
        bindparam("chat", type_=ChatMessage.chat_id.type),
        func.coalesce(func.max(ChatMessage.seq), 0) + 1,
        bindparam("role", type_=ChatMessage.role.type),
        bindparam("segments", type_=ChatMessage.segments.type),
        bindparam("transcript", type_=ChatMessage.transcript.type),
        bindparam("at", type_=ChatMessage.created_at.type),
    ).where(ChatMessage.chat_id == bindparam("chat")),
)
_NEW_TURN = insert(Turn)
_CANCELLED_RUNNING = db.select(Turn.id).where(CANCELLED_RUNNING)  # its index's own condition
_CLAIM = (
    update(Turn)
    .where(Turn.id == bindparam("turn"), Turn.status == TurnStatus.PENDING)
    .values(status=TurnStatus.RUNNING, answer_id=bindparam("answer"), lease_until=bindparam("lease"))
)
_END_TURN = (
    update(Turn)
    .where(Turn.id == bindparam("turn"), Turn.status == TurnStatus.RUNNING)
    .values(status=bindparam("status"), error_key=bindparam("error"), finished_at=bindparam("at"), lease_until=None)
)
_JOURNAL_ANSWER = (
    update(ChatMessage)
    .where(ChatMessage.id == bindparam("answer"), ChatMessage.ending.is_(None))
    .values(segments=bindparam("segments"), transcript=bindparam("transcript"), link=bindparam("link"))
)
_END_ANSWER = (
    update(ChatMessage)
    .where(ChatMessage.id == bindparam("answer"))
    .values(segments=bindparam("segments"), transcript=bindparam("transcript"), link=bindparam("link"),
            ending=bindparam("ending"))
)  # fmt: skip


def _commit_keeping(*rows):
    """Commit, leaving `rows` loaded with what was just written; every other row of the session
    expires, as a commit does. A row a commit expires is read back whole at its next attribute."""
    session = db.session()
    expiring = session.expire_on_commit
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = expiring
    if expiring:
        for row in list(session.identity_map.values()):
            if not any(row is kept for kept in rows):
                session.expire(row)


def _lease():
    return now() + timedelta(seconds=current_app.config["AGENT_LEASE_SECONDS"])


def _aware(moment):
    """SQLite hands timestamps back without their zone; they are stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def transcripts_before(turn, size=20):
    """The transcripts of the last `size` messages before the turn's own, oldest first (the
    model's short-term memory: the turn brings its own message). One statement built once, and
    only the column the prompt reads, run as plain SQL: every model call of every turn runs it."""
    rows = _execute(_TRANSCRIPTS_BEFORE, {"chat": turn.chat_id, "question": turn.question_id, "size": size})
    return list(reversed(rows.scalars().all()))


_TRANSCRIPTS_BEFORE = (
    db.select(ChatMessage.transcript)
    .where(
        ChatMessage.chat_id == bindparam("chat"),
        ChatMessage.seq < db.select(ChatMessage.seq).where(ChatMessage.id == bindparam("question")).scalar_subquery(),
    )
    .order_by(ChatMessage.seq.desc())
    .limit(bindparam("size"))
)


def _clean_page(page):
    """The page path the message was sent from: printable, one line, ≤ 200 characters."""
    page = "".join(ch for ch in (page or "") if ch.isprintable()).strip()
    return page[:PAGE_MAX] or None
