"""Watching a turn over Server-Sent Events.

The first watcher claims a pending turn, spends one message of the user's hourly budget and
starts it; every watcher then replays the turn's log from `Last-Event-ID` and follows it, with a
comment every 15 s in silent stretches. That heartbeat is also how a dead client is noticed: the
connection is found closed, the generator ends and the turn's stream slot is freed — while the
turn itself goes on and is saved.
"""

import logging
import re
import select
import socket
import time
import uuid

from flask import current_app, render_template, request
from flask_babel import force_locale

from app.assistant import runner, turn_budget
from app.assistant import services as assistant
from app.assistant.models.chats import ChatMessage, Turn, TurnStatus
from app.extensions import db
from app.llm import current_chain
from app.profile.models import User
from app.web import markdown

log = logging.getLogger("beyou.agent")

_SSE_LINE_END = re.compile(r"\r\n|\r|\n")


def sse(event_id, name, data):
    """One event, its data a `data:` line per line of it. Only CR, LF and CRLF end an SSE line, and
    the browser joins the lines with LF: a token ending in a newline (the text before a tool call
    the model wrote) keeps it, and a U+2028 stays a character."""
    lines = [f"id: {event_id}", f"event: {name}"] if event_id else [f"event: {name}"]
    lines += [f"data: {line}" for line in _SSE_LINE_END.split(data)]
    return "\n".join(lines) + "\n\n"


def watch(user, turn, last_event_id=0):
    """The SSE body for one watcher of `turn` (a generator of text frames)."""
    user_id, turn_id = user.id, turn.id  # read before the claim's commit expires both rows
    slots = current_app.extensions["stream_slots"]
    slot = slots.acquire(user_id, turn_id)
    if slot is None:  # tried again even when another request freed them first: two streams may open at once
        _free_slots_of_ended_turns(slots, user_id)
        slot = slots.acquire(user_id, turn_id)
    if slot is None:
        return _refused(turn, "TOO_MANY_STREAMS")
    if turn.status == TurnStatus.PENDING and assistant.claim(turn):
        if not _spend_budget(user):
            slots.release(user_id, slot)
            assistant.withdraw_turn(turn, "AGENT_BUDGET_SPENT")
            return _refused(turn, "AGENT_BUDGET_SPENT")
        runner.start_in_background(turn_id)
    client = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    return _follow(current_app._get_current_object(), user_id, turn_id, last_event_id, slot, client)


def _free_slots_of_ended_turns(slots, user_id):
    """Free the slots held for turns that have ended: their watchers died with their machine (a
    killed process releases nothing), so they would stay taken until their lease ran out."""
    held = [uuid.UUID(turn) for turn in slots.turns(user_id)]
    ended = db.session.scalars(
        db.select(Turn.id).where(Turn.id.in_(held), Turn.status.not_in((TurnStatus.PENDING, TurnStatus.RUNNING)))
    ).all()
    if ended:
        slots.forget(user_id, {str(turn) for turn in ended})


def _spend_budget(user):
    """A claimed turn is about to reach a model: it spends one message of the hour (a chain with
    no link reaches none, and says so instead)."""
    return not current_chain().configured or turn_budget.spend(user)


def _refused(turn, key):
    """A turn that may not stream now (a third simultaneous stream, or the hour's budget spent by
    other turns since it was posted): one `failed` event, no model call, the text back in the box."""
    if turn.status == TurnStatus.PENDING:
        assistant.withdraw_turn(turn, key)
    html = runner.render_error(turn.id, turn.text, key, [], None, keep_bubble=False)
    return [sse(None, "failed", html)]


def _follow(app, user_id, turn_id, after, slot, client):
    """Runs while the response streams, after the request has ended: it holds only ids.

    A silent beat costs no database read while this process runs the turn: its runner ends it
    with a `done` or `failed` in the log, whatever happens. Otherwise (run by another worker, or
    by none any more) the database is asked before the first wait — a turn that has ended answers
    at once, not a heartbeat later — then at most every third of a lease at a silent beat: the
    time it takes a dead runner's lease to lapse is what it waits for. A Redis that is
    away makes beats silent (the log's `read` waits it out), never ends the stream.
    """
    turn_log = app.extensions["turn_log"]
    log_id = str(turn_id)  # its key in the log and among the running turns, made once
    slots = app.extensions["stream_slots"]
    heartbeat = app.config["AGENT_HEARTBEAT_SECONDS"]
    look_every = app.config["AGENT_LEASE_SECONDS"] / 3
    renew_every = slots.lease_seconds / 3
    next_look = next_renewal = time.monotonic()
    # Not run here, the turn may have ended already: its backlog is read without waiting, and
    # the database asked, before the first wait.
    wait = heartbeat if runner.RUNNING.runs(log_id) else 0
    try:
        yield ": connected\n\n"
        while True:
            events = turn_log.read(log_id, after, wait=wait)
            if not events:
                now = time.monotonic()
                if now >= next_look and not runner.RUNNING.runs(log_id):
                    next_look = now + look_every
                    with app.app_context():
                        replay = _replay_if_finished(turn_id)
                    if replay:
                        # The record says it ended; a relay a moment behind it still brings the
                        # log's own events, with their ids (a reconnect must resume from them).
                        events = turn_log.read(log_id, after, wait=turn_log.relay_lag)
                        if not events:
                            yield replay
                            return
            if not events:
                if not wait:
                    wait = heartbeat
                    continue
                if _client_gone(client):
                    return
                yield ": ping\n\n"
                if now >= next_renewal:
                    next_renewal = now + renew_every
                    slots.renew(user_id, slot)
                continue
            # What the log held leaves in one write: a watcher that fell behind catches up at once.
            after = events[-1].id
            yield "".join(sse(event.id, event.name, event.data) for event in events)
            if events[-1].terminal:
                return
    finally:
        slots.release(user_id, slot)


def _client_gone(client):
    """Whether the client closed its end of the connection (False when the server gives no socket).

    A write into a connection the client has closed still succeeds once: the bytes sit in the
    kernel's buffer until the peer answers them with a reset, so a heartbeat alone would notice a
    dead client only at its second beat (~30 s). A closed connection reads as end-of-file at once:
    peeking for it lets the first heartbeat free the slot.
    """
    if client is None:
        return False
    try:
        if client.fileno() < 0:
            return True
        readable, _writable, _failed = select.select([client], [], [], 0)
        return bool(readable) and client.recv(1, socket.MSG_PEEK) == b""
    except ValueError:  # a TLS socket refuses to peek: leave it to the write to fail
        return False
    except OSError:  # reset by the peer
        return True


def _replay_if_finished(turn_id):
    """A finished turn whose live log is gone (expired, or run by another process without Redis):
    answer from the database. A turn still RUNNING whose lease lapsed lost its runner (a worker
    was killed): it is ended here as INTERRUPTED with what its journal holds, then replayed."""
    turn = db.session.get(Turn, turn_id)
    if turn is not None and assistant.lease_lapsed(turn) and not runner.RUNNING.runs(turn.id):
        try:
            assistant.interrupt_turn(turn.id)
        except Exception:  # a locked database: the next heartbeat, or the sweep, tries again
            db.session.rollback()
            log.warning("turn %s: could not end it as interrupted this time", turn_id, exc_info=True)
        db.session.refresh(turn)
    if turn is None or turn.status in (TurnStatus.PENDING, TurnStatus.RUNNING):
        return None
    answer = db.session.get(ChatMessage, turn.answer_id) if turn.answer_id else None
    if turn.status == TurnStatus.DONE and answer is not None:
        html = render_template("assistant/_assistant.html", turn_id=turn.id, segments=answer.segments, link=answer.link,
                               ending=answer.ending, render=markdown.render)  # fmt: skip
        return sse(None, "done", html)
    segments, link = (answer.segments, answer.link) if answer is not None else ([], None)
    in_the_chat = answer is not None or turn.question_id is not None  # else its text goes back to the composer
    with force_locale(db.session.scalar(db.select(User.language).where(User.id == turn.user_id))):
        html = runner.render_error(turn.id, turn.text, turn.error_key or "TURN_FAILED", segments, link,
                                   in_the_chat)  # fmt: skip
    return sse(None, "failed", html)
