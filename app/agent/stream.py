"""Watching a turn over Server-Sent Events.

The first watcher claims a pending turn and starts it; every watcher then replays the turn's
log from `Last-Event-ID` and follows it, with a comment every 15 s in silent stretches. That
heartbeat is also how a dead client is noticed: the write fails, the generator is closed and the
user's stream slot is freed — while the turn itself goes on and is saved.
"""

import logging

from flask import current_app, render_template
from flask_babel import force_locale

from app.agent import markdown, runner
from app.extensions import db
from app.models import User
from app.models.agent import ChatMessage, Turn, TurnStatus
from app.services import assistant

log = logging.getLogger("beyou.agent")


def sse(event_id, name, data):
    lines = [f"id: {event_id}", f"event: {name}"] if event_id else [f"event: {name}"]
    lines += [f"data: {line}" for line in (data.splitlines() or [""])]
    return "\n".join(lines) + "\n\n"


def watch(user, turn, last_event_id=0):
    """The SSE body for one watcher of `turn` (a generator of text frames)."""
    slots = current_app.extensions["stream_slots"]
    slot = slots.acquire(user.id)
    if slot is None:
        return _refused(turn)
    if turn.status == TurnStatus.PENDING and assistant.claim(turn):
        runner.start_in_background(turn.id)
    return _follow(current_app._get_current_object(), user.id, turn.id, last_event_id, slot)


def _refused(turn):
    """A third simultaneous stream: one error event, and no model call."""
    if turn.status == TurnStatus.PENDING:
        assistant.withdraw_turn(turn, "TOO_MANY_STREAMS")
    html = runner.render_error(turn.id, turn.text, "TOO_MANY_STREAMS", [], None, keep_bubble=False)
    return [sse(None, "error", html)]


def _follow(app, user_id, turn_id, after, slot):
    """Runs while the response streams, after the request has ended: it holds only ids."""
    log = app.extensions["turn_log"]
    slots = app.extensions["stream_slots"]
    heartbeat = app.config["AGENT_HEARTBEAT_SECONDS"]
    try:
        yield ": connected\n\n"
        while True:
            events = log.read(turn_id, after, wait=heartbeat)
            if not events:
                with app.app_context():
                    replay = _replay_if_finished(turn_id)
                if replay:
                    yield replay
                    return
                yield ": ping\n\n"
                slots.renew(user_id, slot)
                continue
            for event in events:
                yield sse(event.id, event.name, event.data)
                after = event.id
                if event.terminal:
                    return
    finally:
        slots.release(user_id, slot)


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
        html = render_template("agent/_assistant.html", turn_id=turn.id, segments=answer.segments, link=answer.link,
                               ending=answer.ending, render=markdown.render)  # fmt: skip
        return sse(None, "done", html)
    segments, link = (answer.segments, answer.link) if answer is not None else ([], None)
    in_the_chat = answer is not None or turn.question_id is not None  # else its text goes back to the composer
    with force_locale(db.session.scalar(db.select(User.language).where(User.id == turn.user_id))):
        html = runner.render_error(turn.id, turn.text, turn.error_key or "TURN_FAILED", segments, link,
                                   in_the_chat)  # fmt: skip
    return sse(None, "error", html)
