"""The rows behind the assistant's confirmation cards: proposed by a tool call, decided once by
the person's click.

Every decision is a conditional UPDATE on a PENDING row, so whatever arrives twice — a double
click, a replayed POST, two tabs, two workers — exactly one caller moves it on; the others find
it decided. Expiry is part of the same condition: a card past its time can no longer be claimed.
"""

import uuid
from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import update

from app.assistant.models.pending_actions import ActionState, PendingAction
from app.extensions import db
from app.shared.ownership import owned

RUN_SECONDS = timedelta(minutes=2)
"""Longer than any click's request may run (gunicorn's timeout is 30 s): a confirmed action still
without an outcome after this was interrupted."""


def now():
    return datetime.now(UTC)


def propose(user, chat, tool, arguments, summary, facts):
    """Store a change awaiting the person's click; it expires after AGENT_CONFIRMATION_MINUTES."""
    action = PendingAction(
        user_id=user.id,
        chat_id=chat.id,
        tool=tool,
        arguments=arguments,
        summary=summary,
        facts=facts,
        state=ActionState.PENDING,
        expires_at=now() + timedelta(minutes=current_app.config["AGENT_CONFIRMATION_MINUTES"]),
    )
    db.session.add(action)
    db.session.commit()
    return action


def get(user, action_id):
    """The user's proposed change; an unknown, malformed or another user's id is ACTION_NOT_FOUND."""
    return owned(PendingAction, action_id, user, key="ACTION_NOT_FOUND")


def find(action_id):
    """The action a chat's card names (an id the server wrote into the answer), or None."""
    found = _uuid(action_id)
    return db.session.get(PendingAction, found) if found is not None else None


def claim(action):
    """Move a PENDING, unexpired action to CONFIRMED and commit: True for the one caller that
    wins. The winner then performs it and records the outcome."""
    return _decide(action, ActionState.CONFIRMED, PendingAction.expires_at > now())


def cancel(action):
    """The person said no: True when this call cancelled it (it was still pending, in time)."""
    return _decide(action, ActionState.CANCELLED, PendingAction.expires_at > now())


def expire(action):
    """A pending action whose time ran out is marked so (True when this call marked it)."""
    return _decide(action, ActionState.EXPIRED, PendingAction.expires_at <= now())


def settle(action, state, outcome):
    """Record what performing the claimed action came to: CONFIRMED with the tool's answer, or
    FAILED with its refusal."""
    db.session.rollback()
    db.session.execute(
        update(PendingAction)
        .where(PendingAction.id == action.id, PendingAction.state == ActionState.CONFIRMED)
        .values(state=state, outcome=outcome)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    db.session.refresh(action)


def effective_state(action):
    """Its state as the card shows it: a pending action past its time is expired, written or not;
    a confirmed one still without an outcome well after the click was cut off while it ran (the
    worker died or was restarted), so whether it was done is not known."""
    if action.state == ActionState.PENDING and _aware(action.expires_at) <= now():
        return ActionState.EXPIRED
    if (
        action.state == ActionState.CONFIRMED
        and action.outcome is None
        and action.decided_at is not None
        and _aware(action.decided_at) <= now() - RUN_SECONDS
    ):
        return ActionState.INTERRUPTED
    return action.state


def of_ids(user_id, action_ids):
    """The user's actions among these ids, by id (for the transcript the next turn sends)."""
    ids = [found for found in (_uuid(action_id) for action_id in action_ids) if found is not None]
    if not ids:
        return {}
    rows = db.session.scalars(
        db.select(PendingAction).where(PendingAction.user_id == user_id, PendingAction.id.in_(ids))
    )
    return {str(row.id): row for row in rows}


def _decide(action, state, *condition):
    decided = db.session.execute(
        update(PendingAction)
        .where(PendingAction.id == action.id, PendingAction.state == ActionState.PENDING, *condition)
        .values(state=state, decided_at=now())
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.commit()
    db.session.refresh(action)
    return decided == 1


def _uuid(value):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _aware(moment):
    """SQLite hands timestamps back without their zone; they are stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
