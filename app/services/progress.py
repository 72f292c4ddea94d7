"""XP flowing to its owners, recorded per day in the same transaction.

Every XP change goes through `grant` (negative amounts take XP back), so totals and the
per-day history can never disagree: summing an owner's XpDay rows gives its XP.
"""

from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.extensions import db
from app.models import Category, Habit, Routine, User
from app.models.history import OwnerType, XpDay

OWNER_TYPES = {User: OwnerType.USER, Habit: OwnerType.HABIT, Routine: OwnerType.ROUTINE, Category: OwnerType.CATEGORY}


def today_for(user) -> date:
    """The user's local date: "today" everywhere (checks, streaks, the agent prompt)."""
    return datetime.now(user_zone(user)).date()


def user_zone(user):
    try:
        return ZoneInfo(user.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def grant(user, amount, owners, day=None):
    """Add `amount` XP (negative: take it back) to the user and each of `owners`.

    XP never goes below zero. Does not commit: the caller's transaction holds the change.
    """
    if not amount:
        return
    day = day or today_for(user)
    for owner in (user, *owners):
        before = owner.xp or 0.0
        owner.xp = max(before + amount, 0.0)
        _record(user, owner, owner.xp - before, day)


def _record(user, owner, delta, day):
    if not delta:
        return
    owner_type = OWNER_TYPES[type(owner)]
    row = db.session.scalar(
        db.select(XpDay).where(XpDay.owner_type == owner_type, XpDay.owner_id == owner.id, XpDay.day == day)
    )
    if row is None:
        db.session.add(XpDay(user_id=user.id, owner_type=owner_type, owner_id=owner.id, day=day, xp=delta))
    else:
        row.xp += delta
