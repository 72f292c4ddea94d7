"""Schedules: which routine runs on which weekday (0 = Monday … 6 = Sunday).

One routine per weekday: giving a routine a day another routine holds MOVES the day, and the
result says which days moved from which routine, so the page (or the assistant) can tell the user.
"""

from dataclasses import dataclass, field
from datetime import UTC

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.events import announce
from app.extensions import db
from app.routines import services as routines
from app.routines.models.routines import Routine, RoutineKind, ScheduleDay
from app.shared.days import user_zone
from app.shared.errors import Invalid

WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY_NUMBERS = ("0", "1", "2", "3", "4", "5", "6")


@dataclass
class MovedDay:
    weekday: int
    from_routine_id: str
    from_routine_name: str


@dataclass
class ScheduleChange:
    routine: Routine
    weekdays: list
    moved: list = field(default_factory=list)  # [MovedDay]

    def to_dict(self):
        return {
            "routine_id": str(self.routine.id),
            "weekdays": self.weekdays,
            "moved": [vars(day) for day in self.moved],
        }


def set_days(user, routine_ref, weekdays):
    """Run the routine on exactly these weekdays (numbers 0–6 or English day names); an empty
    list unschedules it. Days held by another routine move to this one."""
    routine = routines.resolve(user, routine_ref)
    wanted = parse_weekdays(weekdays)
    taken = db.session.scalars(
        db.select(ScheduleDay).where(ScheduleDay.user_id == user.id, ScheduleDay.weekday.in_(wanted or [-1]))
    ).all()
    moved = []
    for day in taken:
        if day.routine_id != routine.id:
            moved.append(MovedDay(day.weekday, str(day.routine_id), day.routine.name))
            db.session.delete(day)
    for day in list(routine.schedule_days):
        if day.weekday not in wanted:
            routine.schedule_days.remove(day)
    db.session.flush()  # the freed weekdays are gone before the unique (user, weekday) rows arrive
    held = {day.weekday for day in routine.schedule_days}
    for weekday in wanted:
        if weekday not in held:
            routine.schedule_days.append(ScheduleDay(user_id=user.id, weekday=weekday))
    db.session.commit()
    announce(user, "routines")
    return ScheduleChange(routine, sorted(wanted), sorted(moved, key=lambda day: day.weekday))


def create_scheduled(user, kind, name, icon=None, parts=(), weekdays=()):
    """A new routine that runs at once on `weekdays`, so a day chosen while creating it is on
    Today without a second dialog: TIMED with `parts` as its sections (routines.create_timed),
    LIST with `parts` as its entries (routines.create_list). A day another routine holds moves
    to it, as in `set_days`. The days are read before anything is written: a bad day creates
    nothing."""
    wanted = parse_weekdays(weekdays)
    create = routines.create_list if kind == RoutineKind.LIST else routines.create_timed
    routine = create(user, name, icon, parts)
    return set_days(user, routine.id, wanted) if wanted else ScheduleChange(routine, [])


def clear(user, routine_ref):
    """Unschedule a routine: it exists but never runs."""
    return set_days(user, routine_ref, [])


def week(user):
    """{weekday: Routine} for the days that have a routine."""
    rows = db.session.scalars(db.select(ScheduleDay).where(ScheduleDay.user_id == user.id)).all()
    return {row.weekday: row.routine for row in rows}


def routine_on(user, day):
    """The routine scheduled on `day`'s weekday, if it already existed that day.

    A page asks this several times (today's card, the day's items, the constance); the answer is
    kept until the session's next commit or rollback, so it is loaded once per request and never
    outlives a write.
    """
    remembered = db.session.info.setdefault(_REMEMBERED, {})
    key = (user.id, day)
    if key not in remembered:
        routine = db.session.scalar(
            db.select(Routine)
            .join(ScheduleDay, ScheduleDay.routine_id == Routine.id)
            .where(ScheduleDay.user_id == user.id, ScheduleDay.weekday == day.weekday())
            .options(*routines.WHOLE_TREE)
        )
        if routine is not None:
            routines.with_sections_filled(routine)
        remembered[key] = None if routine is None or local_date(user, routine.created_at) > day else routine
    return remembered[key]


_REMEMBERED = "routine_on"


@event.listens_for(Session, "after_commit")
@event.listens_for(Session, "after_rollback")
def _forget(session):
    session.info.pop(_REMEMBERED, None)


def local_date(user, moment):
    """The user's local date of a stored timestamp (SQLite hands them back without a zone)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(user_zone(user)).date()


def parse_weekdays(values):
    """A set of weekday numbers from numbers or day names; anything else is WEEKDAY_INVALID."""
    if isinstance(values, str | int):
        values = [values]
    found = set()
    for value in values or ():
        text = str(value).strip().lower()
        if text in WEEKDAY_NUMBERS:  # "0".."6" only: "²" or a 5,000-digit number is no weekday
            found.add(int(text))
        elif text in WEEKDAY_NAMES:
            found.add(WEEKDAY_NAMES.index(text))
        elif len(text) >= 3 and any(name.startswith(text) for name in WEEKDAY_NAMES):
            found.add(next(i for i, name in enumerate(WEEKDAY_NAMES) if name.startswith(text)))
        else:
            raise Invalid("WEEKDAY_INVALID", details={"weekdays": "WEEKDAY_INVALID"})
    return found
