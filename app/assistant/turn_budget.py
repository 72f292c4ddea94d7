"""The hourly budget of messages that reach a model (BEYOU_AGENT_RATE_LIMIT): one per user, every
chat together.

A message is checked against the budget when it is posted, so a user who has spent it hears so
at once, with when the next one can go; it is spent only when its turn is claimed to run, so a
refused message (empty, too long, a third live stream) costs nothing. The count lives in the
storage of the app's rate limits (memory in one process, Redis shared by every worker), counted
by the same strategy. A turn no model answered (every link failed before any output, or
the turn's time ran out before the first) gives its message back, as every door does.
"""

from datetime import UTC, datetime

from flask import current_app
from limits import parse
from sqlalchemy import inspect

from app.extensions import limiter
from app.llm.door import give_back

SCOPE = "agent-turns"


class BudgetSpent(Exception):
    """Every message this hour allows has been sent; `reset_at` (UTC) is when the next can go."""

    def __init__(self, reset_at):
        super().__init__(reset_at.isoformat())
        self.reset_at = reset_at


def check(user):
    """Raise BudgetSpent when the user may not start another turn now."""
    if limiter.enabled and not limiter.limiter.test(_limit(), *_key(user)):
        raise BudgetSpent(reset_at(user))


def spend(user):
    """Count one turn; False (nothing counted) when the budget was spent in the meantime."""
    return not limiter.enabled or limiter.limiter.hit(_limit(), *_key(user))


def refund(user_id):
    """Give back the turn's message: no model answered it (every link failed before any output)."""
    give_back(_limit(), SCOPE, f"user:{user_id}")


def reset_at(user):
    reset, _remaining = limiter.limiter.get_window_stats(_limit(), *_key(user))
    return datetime.fromtimestamp(reset, UTC)


def _limit():
    return parse(current_app.config["AGENT_RATE_LIMIT"])


def _key(user):
    """The user's id from the row's identity: a turn is claimed (and its budget spent) right after
    a commit, when reading `user.id` would reload the user's whole row."""
    (user_id,) = inspect(user).identity
    return SCOPE, f"user:{user_id}"
