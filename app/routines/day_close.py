"""The day close: when a user's local day has ended, settle how it went.

For every finished day not yet closed it freezes the entries of the routine that ran that day
(a check row for each, untouched where nothing happened), writes the absence outcomes of every
habit and recurring task without one (MISSED only for what was scheduled that day and left
untouched), writes the account's own outcome, and removes one-time tasks checked that day.

It only ever inserts outcomes, so a real check always wins whatever the order; it remembers the
last closed day per user (DayCloseMark), so running it twice changes nothing and a run after
downtime closes every missed day — but never a day before the account or the routine existed.
"""

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.habits.models import Habit
from app.profile.models import User
from app.routines import schedules, streaks
from app.routines import services as routines
from app.routines.models.checks import DayCloseMark, EntryCheck
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.routines.models.routines import RoutineEntry
from app.shared.days import user_zone
from app.tasks.models import Task

log = logging.getLogger("beyou.day_close")


@dataclass
class CloseReport:
    users: int = 0
    days: int = 0
    failed: list = field(default_factory=list)  # user ids whose close failed (logged, retried next run)


def close_days(now=None):
    """Close every finished, not yet closed local day of every user. Safe to run at any time."""
    now = now or datetime.now(UTC)
    report = CloseReport()
    for user_id in _users_with_open_days(now):
        user = db.session.get(User, user_id)
        try:
            closed = close_user(user, now)
        except IntegrityError:  # a live check landed meanwhile: start this user again
            db.session.rollback()
            closed = _retry(user_id, now, report)
        except Exception:
            db.session.rollback()
            log.exception("day close failed for user %s", user_id)
            report.failed.append(str(user_id))
            continue
        if closed:
            report.users += 1
            report.days += closed
    return report


def _retry(user_id, now, report):
    try:
        return close_user(db.session.get(User, user_id), now)
    except Exception:
        db.session.rollback()
        log.exception("day close failed twice for user %s", user_id)
        report.failed.append(str(user_id))
        return 0


def _users_with_open_days(now):
    """Ids of users whose last finished local day is after their last closed day, found per time zone."""
    found = []
    zones = db.session.scalars(db.select(User.timezone).distinct()).all()
    for zone_name in zones:
        yesterday = now.astimezone(_zone(zone_name)).date() - timedelta(days=1)
        found += db.session.scalars(
            db.select(User.id)
            .outerjoin(DayCloseMark, DayCloseMark.user_id == User.id)
            .where(
                User.timezone == zone_name,
                db.or_(DayCloseMark.closed_through.is_(None), DayCloseMark.closed_through < yesterday),
            )
        ).all()
    return found


def _zone(name):
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def close_user(user, now=None):
    """Close a user's finished days (one transaction); returns how many days were closed."""
    now = now or datetime.now(UTC)
    today = now.astimezone(user_zone(user)).date()
    mark = db.session.get(DayCloseMark, user.id)
    first = schedules.local_date(user, user.created_at)
    if mark is not None:
        first = max(first, mark.closed_through + timedelta(days=1))
    last = today - timedelta(days=1)
    if first > last:
        return 0
    day = first
    while day <= last:
        _close_day(user, day)
        day += timedelta(days=1)
    if mark is None:
        db.session.add(DayCloseMark(user_id=user.id, closed_through=last))
    else:
        mark.closed_through = last
    db.session.flush()
    for item in (*_habits(user), *_recurring_tasks(user)):
        streaks.refresh(user, item, OwnerType.HABIT if isinstance(item, Habit) else OwnerType.TASK, today)
    streaks.refresh_account(user, today)
    db.session.commit()
    return (last - first).days + 1


def _close_day(user, day):
    """Freeze `day`'s routine and insert every missing outcome of that day."""
    routine = schedules.routine_on(user, day)
    rows = db.session.scalars(db.select(EntryCheck).where(EntryCheck.user_id == user.id, EntryCheck.day == day)).all()
    have = {row.entry_id for row in rows}
    frozen = [
        EntryCheck.frozen_from(entry, day) for entry in (routine.entries if routine else []) if entry.id not in have
    ]
    db.session.add_all(frozen)
    items = [*rows, *frozen]
    scheduled = {row.item_id for row in items if routine is not None and row.routine_id == routine.id}
    stored = set(
        db.session.execute(
            db.select(DayOutcome.owner_type, DayOutcome.owner_id).where(
                DayOutcome.user_id == user.id, DayOutcome.day == day
            )
        ).all()
    )
    for item in (*_habits(user), *_recurring_tasks(user)):
        kind = OwnerType.HABIT if isinstance(item, Habit) else OwnerType.TASK
        if (kind, item.id) in stored or schedules.local_date(user, item.created_at) > day:
            continue
        outcome = _absence(user, kind, item, [row for row in items if row.item_id == item.id], scheduled)
        db.session.add(DayOutcome(user_id=user.id, owner_type=kind, owner_id=item.id, day=day, outcome=outcome))
    if (OwnerType.USER, user.id) not in stored:
        outcome = streaks.account_outcome(user, day, items)
        db.session.add(
            DayOutcome(user_id=user.id, owner_type=OwnerType.USER, owner_id=user.id, day=day, outcome=outcome)
        )
    _remove_finished_one_time_tasks(user, day)


def _absence(user, kind, item, rows, scheduled):
    """An item's outcome for a closed day that has none yet (presence first, should a row exist)."""
    if any(row.checked for row in rows):
        return Outcome.DONE
    if any(row.skipped for row in rows):
        return Outcome.SKIPPED
    if item.id in scheduled:
        return Outcome.MISSED
    if routines.is_in_any_routine(user, kind, item.id):
        return Outcome.NOT_SCHEDULED
    return Outcome.NOT_IN_ROUTINE


def _habits(user):
    return db.session.scalars(db.select(Habit).where(Habit.user_id == user.id)).all()


def _recurring_tasks(user):
    return db.session.scalars(db.select(Task).where(Task.user_id == user.id, Task.one_time.is_(False))).all()


def _remove_finished_one_time_tasks(user, day):
    """A one-time task checked on `day` is done for good: it leaves its routines and the list.
    The frozen check rows keep its name for the history view."""
    finished = db.session.scalars(
        db.select(Task).where(Task.user_id == user.id, Task.one_time.is_(True), Task.done_on <= day)
    ).all()
    for task in finished:
        for entry in db.session.scalars(db.select(RoutineEntry).where(RoutineEntry.task_id == task.id)).all():
            db.session.delete(entry)
        db.session.flush()
        db.session.delete(task)
