"""Loading rows through their owner, so ids leak nothing."""

import uuid
from functools import cache

from sqlalchemy import bindparam

from app.extensions import db
from app.shared.errors import NotFound


def owned(model, row_id, user, *, key="NOT_FOUND"):
    """The `model` row with `row_id` that belongs to `user`.

    An unknown id, a malformed id and another user's id all raise the same NotFound:
    the answer never tells whether the row exists for someone else.
    """
    row = db.session.scalar(_owned_row(model), {"row_id": parsed_id(row_id, key), "user_id": user.id})
    if row is None:
        raise NotFound(key)
    return row


def parsed_id(row_id, key="NOT_FOUND"):
    """`row_id` as a UUID; a malformed one is NotFound, as an unknown one is."""
    try:
        return row_id if isinstance(row_id, uuid.UUID) else uuid.UUID(str(row_id))
    except (TypeError, ValueError):
        raise NotFound(key) from None


@cache
def _owned_row(model):
    """The statement for one model, built once: building a statement and its cache key costs
    more than running it, and nearly every write and edit asks this first."""
    return db.select(model).where(model.id == bindparam("row_id"), model.user_id == bindparam("user_id"))
