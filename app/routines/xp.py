"""XP flowing to its owners, recorded per day in the same transaction.

Every XP change goes through `grant` (negative amounts take XP back), so totals and the
per-day history can never disagree: summing an owner's XpDay rows gives its XP.
"""

import uuid

from app.categories.models import Category
from app.extensions import db
from app.habits.models import Habit
from app.profile.models import User
from app.routines.models.history import OwnerType, XpDay
from app.routines.models.routines import Routine
from app.shared.days import today_for
from app.shared.models import upsert

OWNER_TYPES = {User: OwnerType.USER, Habit: OwnerType.HABIT, Routine: OwnerType.ROUTINE, Category: OwnerType.CATEGORY}


def lock_account(user):
    """Hold the account's row until this transaction ends and read it afresh, so two requests
    paying or taking back the same user's XP run one after the other instead of both adding to
    the XP they read before. SQLite lets one writer in at a time anyway."""
    db.session.execute(
        db.select(User).where(User.id == user.id).with_for_update().execution_options(populate_existing=True)
    )


def grant(user, amount, owners, day=None):
    """Add `amount` XP (negative: take it back) to the user and each of `owners`.

    XP never goes below zero. The day's XP rows change in one upsert, whoever already has a row
    that day. Does not commit: the caller's transaction holds the change, and holds the account's
    row (`lock_account`, or the routine check's own lock) from before it read what it pays for.
    """
    if not amount:
        return
    day = day or today_for(user)
    rows = []
    for owner in (user, *owners):
        before = owner.xp or 0.0
        owner.xp = max(before + amount, 0.0)
        if owner.xp != before:
            rows.append(
                {
                    "id": uuid.uuid4(),
                    "user_id": user.id,
                    "owner_type": OWNER_TYPES[type(owner)],
                    "owner_id": owner.id,
                    "day": day,
                    "xp": owner.xp - before,
                }
            )
    if rows:
        table = XpDay.__table__
        upsert(table, rows, ("owner_type", "owner_id", "day"), lambda new: {"xp": table.c.xp + new.xp})
