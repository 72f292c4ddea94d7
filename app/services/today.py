"""Today: the routine scheduled on the user's local weekday, and checking or skipping its entries.

Checks and skips name an ENTRY (its own id), never the habit or task behind it: one habit can
sit in several routines. A habit or task id sent by mistake is refused with ENTRY_ID_REQUIRED,
naming the entry ids to use — the assistant's most common slip.

A check on today pays the full XP with the habit's streak bonus; a check on a past day (a late
check) pays the streak-less base reduced by the user's decay setting, and corrects that day's
outcome. Skips pay nothing and never break a streak. Every answer carries what the page needs to
repaint (`CheckResult`).
"""

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from functools import wraps

from sqlalchemy.exc import IntegrityError

from app.events import announce
from app.extensions import db
from app.models import EntryCheck, Habit, OwnerType, Routine, RoutineKind, Task
from app.services import routines, schedules, streaks
from app.services.errors import Invalid, NotFound
from app.services.progress import grant, user_zone
from app.services.values import day_from

# Views ---------------------------------------------------------------------------------------


@dataclass
class EntryView:
    """One entry on one day: what it is and what happened to it."""

    entry_id: str
    item_type: str
    item_id: str
    name: str
    icon: str
    starts_at: time | None
    ends_at: time | None
    checked: bool
    skipped: bool
    xp: float  # paid by the check (0 when not checked)
    offered_xp: float  # what checking it now would pay (late checks: after decay)
    missed: bool = False  # a closed day left untouched

    def to_dict(self):
        data = vars(self).copy()
        data["starts_at"], data["ends_at"] = routines.clock(self.starts_at), routines.clock(self.ends_at)
        return data


@dataclass
class SectionView:
    name: str | None
    icon: str | None
    starts_at: time | None
    ends_at: time | None
    entries: list = field(default_factory=list)

    @property
    def xp(self):
        return sum(entry.xp for entry in self.entries)

    @property
    def done(self):
        return sum(1 for entry in self.entries if entry.checked)


@dataclass
class RoutineDay:
    """A routine as it was (or is) on one day."""

    routine_id: str
    name: str
    icon: str
    kind: str
    day: date
    is_today: bool
    sections: list = field(default_factory=list)
    routine: Routine | None = None  # the live routine, when it still exists

    @property
    def entries(self):
        return [entry for section in self.sections for entry in section.entries]

    @property
    def total(self):
        return len(self.entries)

    @property
    def done(self):
        return sum(1 for entry in self.entries if entry.checked)

    @property
    def skipped(self):
        return sum(1 for entry in self.entries if entry.skipped)

    @property
    def xp(self):
        return sum(entry.xp for entry in self.entries)

    @property
    def complete(self):
        return self.total > 0 and self.done == self.total

    def to_dict(self):
        return {
            "routine_id": self.routine_id,
            "name": self.name,
            "day": self.day.isoformat(),
            "done": self.done,
            "skipped": self.skipped,
            "total": self.total,
            "xp": self.xp,
            "sections": [
                {
                    "name": section.name,
                    "starts_at": routines.clock(section.starts_at),
                    "ends_at": routines.clock(section.ends_at),
                    "entries": [entry.to_dict() for entry in section.entries],
                }
                for section in self.sections
            ],
        }


def local_today(user, now=None):
    """(the UTC instant, the user's local date) for `now` (default: the current time)."""
    now = now or datetime.now(UTC)
    return now, now.astimezone(user_zone(user)).date()


def today_routine(user, today=None):
    """The routine scheduled on the user's local weekday, with each entry's state; None when
    nothing is scheduled today."""
    today = today or local_today(user)[1]
    routine = schedules.routine_on(user, today)
    if routine is None:
        return None
    rows = {row.entry_id: row for row in streaks.day_items(user, today, closed=False)}
    view = RoutineDay(str(routine.id), routine.name, routine.icon, routine.kind.value, today, True, routine=routine)
    groups = routine.sections if routine.kind == RoutineKind.TIMED else [None]
    for section in groups:
        entries = section.entries if section else [e for e in routine.entries if e.section_id is None]
        view.sections.append(
            SectionView(
                section.name if section else None,
                section.icon if section else None,
                section.starts_at if section else None,
                section.ends_at if section else None,
                [_live_view(user, entry, rows.get(entry.id), today) for entry in _by_time(entries)],
            )
        )
    return view


def day_routines(user, day, today=None):
    """What `day` looked like, routine by routine: today's live routine, or a past day's frozen
    entries (plus, until the day is closed, the routine scheduled that day)."""
    today = today or local_today(user)[1]
    if day > today:
        raise Invalid("INVALID_INPUT", details={"day": "DAY_IN_FUTURE"})
    if day == today:
        view = today_routine(user, today)
        return [view] if view else []
    live = {r.id: r for r in routines.listing(user)}
    views, sections = {}, {}
    closed = streaks.is_closed(user, day)
    for row in streaks.day_items(user, day, closed):
        view = views.get(row.routine_id)
        if view is None:
            routine = live.get(row.routine_id)
            kind = routine.kind.value if routine else RoutineKind.TIMED.value
            view = RoutineDay(
                str(row.routine_id), row.routine_name, row.routine_icon, kind, day, False, routine=routine
            )
            views[row.routine_id] = view
        key = (row.routine_id, row.section_position, row.section_id)
        if key not in sections:
            sections[key] = SectionView(row.section_name, row.section_icon, row.section_starts_at, row.section_ends_at)
            view.sections.append(sections[key])
        sections[key].entries.append(_frozen_view(user, row, today, closed))
    return list(views.values())


def _by_time(entries):
    """Entries in their order, timed ones sorted by start time (untimed keep their place at the end)."""
    return sorted(entries, key=lambda e: (e.starts_at is None, e.starts_at or time(0), e.position))


def _live_view(user, entry, row, today):
    item = entry.item
    checked, skipped = bool(row and row.checked), bool(row and row.skipped)
    offered = 0.0 if checked else _offered_xp(entry)
    return EntryView(
        str(entry.id),
        "HABIT" if entry.habit_id else "TASK",
        str(item.id),
        item.name,
        item.icon,
        entry.starts_at,
        entry.ends_at,
        checked,
        skipped,
        row.xp if checked else 0.0,
        offered,
    )


def _frozen_view(user, row, today, closed=False):
    offered = 0.0 if row.checked else streaks.late_xp(user, row.difficulty, row.importance, row.day, today)
    return EntryView(
        str(row.entry_id),
        row.item_type.value,
        str(row.item_id),
        row.item_name,
        row.item_icon,
        row.starts_at,
        row.ends_at,
        row.checked,
        row.skipped,
        row.xp if row.checked else 0.0,
        offered,
        missed=closed and not row.touched,
    )


def _offered_xp(entry):
    """What checking an unchecked entry today would pay, as the page shows it: from the item's
    stored streak (kept current by every check and by the day close), so showing a routine costs
    no query per entry. The check itself computes the streak from the outcomes."""
    item = entry.item
    streak = 0 if getattr(item, "one_time", False) else item.current_streak or 0
    return streaks.check_xp(item.difficulty, item.importance, streak)


# Check and skip --------------------------------------------------------------------------------


@dataclass
class CheckResult:
    """Everything a page needs to repaint after a check or skip, and what the assistant reports."""

    entry: EntryView
    day: date
    late: bool
    user: dict
    item: dict | None
    routine: dict | None
    categories: list
    celebration: dict | None = None

    def to_dict(self):
        return {
            "entry": self.entry.to_dict(),
            "day": self.day.isoformat(),
            "late": self.late,
            "user": self.user,
            "item": self.item,
            "routine": self.routine,
            "categories": self.categories,
            "celebration": self.celebration,
        }


def _once_more_on_conflict(action):
    """Run a check or skip again when a simultaneous write to the same entry and day won the
    race (the unique check row): the second attempt sees the first one's row."""

    @wraps(action)
    def attempt(*args, **kwargs):
        try:
            return action(*args, **kwargs)
        except IntegrityError:
            db.session.rollback()
            return action(*args, **kwargs)

    return attempt


@_once_more_on_conflict
def check(user, entry_id, day=None, now=None):
    """Toggle an entry's check on `day` (default today): checking pays XP to the user, the
    routine, the habit and every category of the habit or task; checking again takes back
    exactly what was paid. A past day is a late check (decayed XP, no celebration)."""
    now, today = local_today(user, now)
    day = _the_day(day, today)
    entry, row, closed = _locate(user, entry_id, day, today)
    before = _marks(user, row, today)
    if row.checked:
        grant(user, -row.xp, _xp_owners(user, row), today)
        row.checked, row.checked_at, row.xp = False, None, 0.0
        _set_done_on(user, row, None)
    else:
        xp = _xp_for(user, row, day, today)
        grant(user, xp, _xp_owners(user, row), today)
        row.checked, row.skipped, row.checked_at, row.xp = True, False, now, xp
        if day == today:
            _set_done_on(user, row, today)
    return _settled(user, row, entry, day, today, closed, before)


@_once_more_on_conflict
def skip(user, entry_id, skip=True, day=None, now=None):
    """Skip (or, with skip=False, unskip) an entry on `day` (default today; never a future day).

    A skip pays nothing and never breaks a streak. Skipping a checked entry changes nothing."""
    now, today = local_today(user, now)
    day = _the_day(day, today, refuse="SKIP_IN_FUTURE")
    entry, row, closed = _locate(user, entry_id, day, today)
    before = _marks(user, row, today)
    if not row.checked:
        row.skipped = bool(skip)
    return _settled(user, row, entry, day, today, closed, before)


def _the_day(day, today, refuse="CHECK_IN_FUTURE"):
    if day in (None, ""):
        return today
    parsed = day_from(day)
    if parsed is None:
        raise Invalid("INVALID_INPUT", details={"day": "DATE_INVALID"})
    day = parsed
    if day > today:
        raise Invalid(refuse, details={"day": refuse})
    return day


def _locate(user, entry_id, day, today):
    """(live entry or None, the day's check row, whether the day is closed) for an entry id.

    Today needs the live entry of the routine scheduled today. A past day needs the entry to
    have been part of that day: a frozen row for a closed day, or the routine scheduled that day
    while it is still open. Either way an entry of a routine not scheduled that day is
    ENTRY_NOT_ON_DAY (a row already written keeps working, so a check can still be undone).
    """
    entry_uuid = routines.as_uuid(entry_id)
    try:
        entry = routines.get_entry(user, entry_id)
    except NotFound:
        entry = None
    row = None
    if entry_uuid is not None:
        row = db.session.scalar(
            db.select(EntryCheck).where(
                EntryCheck.user_id == user.id, EntryCheck.entry_id == entry_uuid, EntryCheck.day == day
            )
        )
    if entry is None and row is None:
        _refuse_item_id(user, entry_id, today)
        raise NotFound("ENTRY_NOT_FOUND")
    closed = streaks.is_closed(user, day)
    if row is None:
        scheduled = schedules.routine_on(user, day)
        if (day != today and closed) or scheduled is None or scheduled.id != entry.routine_id:
            raise Invalid("ENTRY_NOT_ON_DAY", details={"day": "ENTRY_NOT_ON_DAY"})
        row = EntryCheck.frozen_from(entry, day)
        db.session.add(row)
    elif day == today and entry is None:
        raise NotFound("ENTRY_NOT_FOUND")
    return entry, row, closed


def _refuse_item_id(user, ref, today):
    """When `ref` is one of the user's habits or tasks, say which entry ids to use instead."""
    item_uuid = routines.as_uuid(ref)
    if item_uuid is None:
        return
    item = db.session.scalar(
        db.select(Habit).where(Habit.id == item_uuid, Habit.user_id == user.id)
    ) or db.session.scalar(db.select(Task).where(Task.id == item_uuid, Task.user_id == user.id))
    if item is None:
        return
    entries = routines.entries_for_item(user, item_uuid)
    if not entries:
        raise Invalid("ITEM_NOT_IN_ROUTINE", name=item.name)
    scheduled = schedules.routine_on(user, today)
    entries.sort(key=lambda e: (scheduled is None or e.routine_id != scheduled.id,))
    listed = "; ".join(f"{entry.id} ({entry.routine.name})" for entry in entries)
    raise Invalid("ENTRY_ID_REQUIRED", name=item.name, entries=listed)


def _xp_for(user, row, day, today):
    if day < today:
        return streaks.late_xp(user, row.difficulty, row.importance, day, today)
    streak = 0 if row.one_time else streaks.streak_before(user, row.item_type, row.item_id, today)
    return streaks.check_xp(row.difficulty, row.importance, streak)


def _item(user, row):
    model = Habit if row.item_type == OwnerType.HABIT else Task
    return db.session.scalar(db.select(model).where(model.id == row.item_id, model.user_id == user.id))


def _xp_owners(user, row):
    """Who shares a check's XP besides the user: the routine, the habit (tasks have no XP of
    their own) and each of the item's categories — whichever of them still exist."""
    owners = []
    routine = db.session.scalar(db.select(Routine).where(Routine.id == row.routine_id, Routine.user_id == user.id))
    if routine is not None:
        owners.append(routine)
    item = _item(user, row)
    if item is not None:
        if isinstance(item, Habit):
            owners.append(item)
        owners.extend(item.categories)
    return owners


def _set_done_on(user, row, day):
    """A one-time task checked today is removed once the day ends (app.services.day_close)."""
    if row.one_time and row.item_type == OwnerType.TASK:
        task = _item(user, row)
        if task is not None:
            task.done_on = day


def _marks(user, row, today):
    """What a celebration compares against: level and streaks before the change."""
    item = _item(user, row)
    return {
        "level": user.level,
        "item_streak": item.current_streak if item is not None else 0,
        "constance": streaks.constance(user, today).days,
    }


def _settled(user, row, entry, day, today, closed, before):
    """Write the day's outcomes and streaks after a change, commit, and describe the result."""
    if not row.touched and not closed:
        db.session.delete(row)  # an open day's untouched entry has no row (the close will freeze it)
    db.session.flush()
    item = _item(user, row)
    if item is not None and not row.one_time:
        streaks.settle_item(user, row.item_type, row.item_id, day, closed)
        db.session.flush()
        streaks.refresh(user, item, row.item_type, today)
    streaks.settle_account(user, day, closed)
    db.session.flush()
    streaks.refresh_account(user, today)
    db.session.commit()
    domains = {"routines", "habits" if row.item_type == OwnerType.HABIT else "tasks"}
    if item is not None and item.categories and row.xp:
        domains.add("categories")
    announce(user, *sorted(domains))
    constance = streaks.constance(user, today)
    late = day < today
    view = _row_view(user, row, entry, today, late)
    return CheckResult(
        entry=view,
        day=day,
        late=late,
        user=_user_figures(user, constance),
        item=_item_figures(item),
        routine=_routine_figures(user, row),
        categories=[_xp_figures(category) for category in (item.categories if item is not None else [])],
        celebration=None if late else _celebration(user, item, constance, before),
    )


def _row_view(user, row, entry, today, late):
    if entry is not None and not late:
        return _live_view(user, entry, row if row.touched else None, today)
    return _frozen_view(user, row, today, streaks.is_closed(user, row.day))


def _celebration(user, item, constance, before):
    if user.level > before["level"]:
        return {"kind": "level", "value": user.level}
    if item is not None and item.current_streak in streaks.MILESTONES and item.current_streak > before["item_streak"]:
        return {"kind": "streak", "value": item.current_streak, "name": item.name}
    if constance.days in streaks.MILESTONES and constance.days > before["constance"]:
        return {"kind": "constance", "value": constance.days}
    return None


def _xp_figures(owner):
    return {
        "id": str(owner.id),
        "name": owner.name,
        "xp": owner.xp,
        "level": owner.level,
        "level_xp": owner.level_xp,
        "next_level_xp": owner.next_level_xp,
    }


def _user_figures(user, constance):
    figures = _xp_figures(user)
    figures.update(constance=constance.days, best_constance=constance.best, constance_today=constance.counted_today)
    return figures


def _item_figures(item):
    if item is None:
        return None
    figures = {
        "id": str(item.id),
        "type": "HABIT" if isinstance(item, Habit) else "TASK",
        "name": item.name,
        "current_streak": item.current_streak,
        "best_streak": item.best_streak,
        "total_check_ins": item.total_check_ins,
    }
    if isinstance(item, Habit):
        figures.update({key: value for key, value in _xp_figures(item).items() if key not in figures})
    return figures


def _routine_figures(user, row):
    routine = db.session.scalar(db.select(Routine).where(Routine.id == row.routine_id, Routine.user_id == user.id))
    return _xp_figures(routine) if routine is not None else None
