"""Today: the routine scheduled on the user's local weekday, and checking or skipping its entries.

Checks and skips name an ENTRY (its own id), never the habit or task behind it: one habit can
sit in several routines. A habit or task id sent by mistake is refused with ENTRY_ID_REQUIRED,
naming the entry ids to use — the assistant's most common slip.

A check on today pays the full XP with the habit's streak bonus; a check on a past day (a late
check) pays the streak-less base reduced by the user's decay setting, and corrects that day's
outcome. Skips pay nothing and never break a streak. Every answer carries what the page needs to
repaint (`CheckResult`).
"""

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from functools import wraps
from types import SimpleNamespace

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload, selectinload

from app.events import announce
from app.extensions import db
from app.habits.models import Habit
from app.profile.models import ConstanceMode, User
from app.routines import schedules, streaks
from app.routines import services as routines
from app.routines.models.checks import DayCloseMark, EntryCheck
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.routines.models.routines import Routine, RoutineEntry, RoutineKind, RoutineSection, ScheduleDay
from app.routines.xp import grant
from app.shared.days import user_zone
from app.shared.errors import Invalid, NotFound
from app.shared.models import upsert
from app.shared.values import day_from
from app.tasks.models import Task

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
    nothing is scheduled today.

    Read as rows, not as the routine's objects: every page with today's card shows it (the
    dashboard, the routines page, their refreshes after each check), and loading ~50 entries
    with their habits and tasks as objects was a quarter of the dashboard's time."""
    today = today or local_today(user)[1]
    routine = db.session.execute(_TODAYS_ROUTINE, {"user_id": user.id, "weekday": today.weekday()}).first()
    if routine is None or schedules.local_date(user, routine.created_at) > today:
        return None  # the routine did not exist yet that day (`schedules.routine_on`)
    view = RoutineDay(str(routine.id), routine.name, routine.icon, routine.kind.value, today, True)
    by_section = {}
    for row in db.session.execute(_TODAYS_ENTRIES, {"routine_id": routine.id, "today": today}):
        by_section.setdefault(row.section_id, []).append(row)
    if routine.kind == RoutineKind.TIMED:
        sections = db.session.execute(_SECTIONS, {"routine_id": routine.id}).all()
    else:
        sections = [None]  # one unnamed group: the entries outside any section
    for section in sections:
        rows = _by_time(by_section.get(section.id if section else None, []))
        entries = [_listed_view(row) for row in rows]
        if section is None:
            view.sections.append(SectionView(None, None, None, None, entries))
        else:
            view.sections.append(SectionView(section.name, section.icon, section.starts_at, section.ends_at, entries))
    return view


# The statements of `today_routine`, built once (building one costs about as much as running it).
_TODAYS_ROUTINE = (
    db.select(Routine.id, Routine.name, Routine.icon, Routine.kind, Routine.created_at)
    .join(ScheduleDay, ScheduleDay.routine_id == Routine.id)
    .where(ScheduleDay.user_id == db.bindparam("user_id"), ScheduleDay.weekday == db.bindparam("weekday"))
)
_SECTIONS = (
    db.select(RoutineSection.id, RoutineSection.name, RoutineSection.icon, RoutineSection.starts_at,
              RoutineSection.ends_at)
    .where(RoutineSection.routine_id == db.bindparam("routine_id"))
    .order_by(RoutineSection.position)
)  # fmt: skip

# Today's entries of one routine, in order, each with its habit's or task's figures and today's
# check row (none: untouched).
_TODAYS_ENTRIES = (
    db.select(
        RoutineEntry.id.label("entry_id"),
        RoutineEntry.section_id,
        RoutineEntry.position,
        RoutineEntry.starts_at,
        RoutineEntry.ends_at,
        RoutineEntry.habit_id.is_not(None).label("is_habit"),
        db.func.coalesce(RoutineEntry.habit_id, RoutineEntry.task_id).label("item_id"),
        db.func.coalesce(Habit.name, Task.name).label("name"),
        db.func.coalesce(Habit.icon, Task.icon).label("icon"),
        db.func.coalesce(Habit.difficulty, Task.difficulty).label("difficulty"),
        db.func.coalesce(Habit.importance, Task.importance).label("importance"),
        db.func.coalesce(Habit.current_streak, Task.current_streak).label("current_streak"),
        Task.one_time,
        EntryCheck.checked,
        EntryCheck.skipped,
        EntryCheck.xp,
    )
    .outerjoin(Habit, Habit.id == RoutineEntry.habit_id)
    .outerjoin(Task, Task.id == RoutineEntry.task_id)
    .outerjoin(EntryCheck, db.and_(EntryCheck.entry_id == RoutineEntry.id, EntryCheck.day == db.bindparam("today")))
    .where(RoutineEntry.routine_id == db.bindparam("routine_id"))
    .order_by(RoutineEntry.position)
)


def day_routines(user, day, today=None):
    """What `day` looked like, routine by routine: today's live routine, or a past day's frozen
    entries (plus, until the day is closed, the routine scheduled that day)."""
    today = today or local_today(user)[1]
    if day > today:
        raise Invalid("INVALID_INPUT", details={"day": "DAY_IN_FUTURE"})
    if day == today:
        view = today_routine(user, today)
        return [view] if view else []
    kinds = dict(db.session.execute(db.select(Routine.id, Routine.kind).where(Routine.user_id == user.id)).all())
    views, sections = {}, {}
    closed = streaks.is_closed(user, day)
    for row in streaks.day_items(user, day, closed):
        view = views.get(row.routine_id)
        if view is None:
            kind = kinds.get(row.routine_id, RoutineKind.TIMED).value  # a deleted routine's day keeps its sections
            view = RoutineDay(str(row.routine_id), row.routine_name, row.routine_icon, kind, day, False)
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
    """One entry of today's routine from its objects (the check's answer), read as the card's
    rows are."""
    item = entry.item
    return _listed_view(
        SimpleNamespace(
            entry_id=entry.id,
            is_habit=entry.habit_id is not None,
            item_id=item.id,
            name=item.name,
            icon=item.icon,
            starts_at=entry.starts_at,
            ends_at=entry.ends_at,
            difficulty=item.difficulty,
            importance=item.importance,
            current_streak=item.current_streak,
            one_time=getattr(item, "one_time", False),
            checked=bool(row and row.checked),
            skipped=bool(row and row.skipped),
            xp=row.xp if row else 0.0,
        )
    )


def _listed_view(row):
    """One entry of today's routine, from a `_TODAYS_ENTRIES` row (none: untouched today)."""
    checked, skipped = bool(row.checked), bool(row.skipped)
    return EntryView(
        str(row.entry_id),
        "HABIT" if row.is_habit else "TASK",
        str(row.item_id),
        row.name,
        row.icon,
        row.starts_at,
        row.ends_at,
        checked,
        skipped,
        row.xp if checked else 0.0,
        0.0 if checked else _offered_xp(row),
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


def _offered_xp(item):
    """What checking an unchecked entry today would pay, as the page shows it: from the item's
    stored streak (kept current by every check and by the day close), so showing a routine costs
    no query per entry. The check itself computes the streak from the outcomes. `item` is a
    habit, a task or a `_TODAYS_ENTRIES` row (`one_time` is a task's)."""
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


def _one_change(action):
    """A check or skip reads everything first and writes once at the commit (no autoflush in
    between, so each table gets one statement). It runs again when the day close froze the same
    entry and day meanwhile (the unique check row): the second attempt sees the close's row.
    Checks of one account never collide with each other: each holds the account's lock
    (`_lock_account`)."""

    @wraps(action)
    def attempt(*args, **kwargs):
        try:
            with db.session.no_autoflush:
                return action(*args, **kwargs)
        except IntegrityError:
            db.session.rollback()
            with db.session.no_autoflush:
                return action(*args, **kwargs)

    return attempt


@_one_change
def check(user, entry_id, day=None, now=None):
    """Toggle an entry's check on `day` (default today): checking pays XP to the user, the
    routine, the habit and every category of the habit or task; checking again takes back
    exactly what was paid. A past day is a late check (decayed XP, no celebration)."""
    now, today = local_today(user, now)
    day = _the_day(day, today)
    change = _Change.open(user, entry_id, day, today)
    row = change.row
    if row.checked:
        grant(user, -row.xp, change.xp_owners(), today)
        row.checked, row.checked_at, row.xp = False, None, 0.0
        change.set_done_on(None)
    else:
        xp = change.xp_for_check()
        grant(user, xp, change.xp_owners(), today)
        row.checked, row.skipped, row.checked_at, row.xp = True, False, now, xp
        if day == today:
            change.set_done_on(today)
    return change.settle()


@dataclass(frozen=True)
class CheckPreview:
    """What `check` would do now: the entry's name and routine, the day, whether the entry is
    checked (the check then unchecks it, taking `xp` back) and the XP that moves."""

    entry_id: str
    name: str
    routine: str
    day: date
    checked: bool
    xp: float


def check_preview(user, entry_id, day=None, now=None):
    """Read what checking the entry on `day` would do, refusing what `check` would refuse, and
    change nothing (the check row a first check would freeze is left unsaved)."""
    now, today = local_today(user, now)
    day = _the_day(day, today)
    with db.session.no_autoflush:
        change = _Change.open(user, entry_id, day, today)
        row = change.row
        preview = CheckPreview(
            entry_id=str(row.entry_id),
            name=row.item_name,
            routine=row.routine_name,
            day=day,
            checked=row.checked,
            xp=row.xp if row.checked else change.xp_for_check(),
        )
        if row in db.session.new:
            db.session.expunge(row)
    return preview


@_one_change
def skip(user, entry_id, skip=True, day=None, now=None):
    """Skip (or, with skip=False, unskip) an entry on `day` (default today; never a future day).

    A skip pays nothing and never breaks a streak. Skipping a checked entry changes nothing."""
    now, today = local_today(user, now)
    day = _the_day(day, today, refuse="SKIP_IN_FUTURE")
    change = _Change.open(user, entry_id, day, today)
    if not change.row.checked:
        change.row.skipped = bool(skip)
    return change.settle()


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


# An entry with nothing written yet on an open day counts as untouched.
_UNTOUCHED = SimpleNamespace(checked=False, skipped=False, touched=False)


class _Change:
    """One check or skip: everything it reads, loaded in a fixed number of queries whatever the
    account's history, then changed in memory and written in one flush and two upserts.

    The reads: the account row, locked (so concurrent checks of one account run one after the
    other and never pay XP twice) with how far its days are closed; the entry with its routine,
    the item, its categories and the routine scheduled on the day (and, in COMPLETE mode on an
    open day, the scheduled routine's entry ids: one more statement); the day's check rows; the
    item's and the account's outcomes around the day, counted (`streaks.day_summaries`), never
    read row by row.
    """

    def __init__(self, user, day, today):
        self.user, self.day, self.today = user, day, today
        self.entry = self.row = self.item = self.routine = None
        self.closed = False
        self.day_rows = []
        self.scheduled_entry_ids = set()
        self.summaries = {}
        self.before = {}

    @classmethod
    def open(cls, user, entry_id, day, today):
        change = cls(user, day, today)
        closed_through = _lock_account(user)
        change.closed = closed_through is not None and day <= closed_through
        entry_uuid = routines.as_uuid(entry_id)
        scheduled_id = None
        if entry_uuid is not None:
            change.entry, scheduled_id = _entry_and_scheduled(user, entry_uuid, day)
        change.day_rows = list(
            db.session.scalars(
                db.select(EntryCheck)
                .where(EntryCheck.user_id == user.id, EntryCheck.day == day)
                .order_by(EntryCheck.section_position, EntryCheck.position)
            )
        )
        change.row = next((row for row in change.day_rows if row.entry_id == entry_uuid), None)
        if change.entry is None and change.row is None:
            _refuse_item_id(user, entry_id, today)
            raise NotFound("ENTRY_NOT_FOUND")
        if change.row is None:
            change._freeze_new_row(scheduled_id)
        elif day == today and change.entry is None:
            raise NotFound("ENTRY_NOT_FOUND")
        change._load_owners(scheduled_id)
        return change

    def _freeze_new_row(self, scheduled_id):
        """The entry's first change that day: allowed only while the day is open (or today) and
        the entry's routine is the one scheduled that day."""
        entry, day = self.entry, self.day
        runs = scheduled_id == entry.routine_id and schedules.local_date(self.user, entry.routine.created_at) <= day
        if (day != self.today and self.closed) or not runs:
            raise Invalid("ENTRY_NOT_ON_DAY", details={"day": "ENTRY_NOT_ON_DAY"})
        self.row = EntryCheck.frozen_from(entry, day)
        db.session.add(self.row)
        self.day_rows.append(self.row)

    def _load_owners(self, scheduled_id):
        row, entry = self.row, self.entry
        if entry is not None and entry.routine_id == row.routine_id:
            self.routine, self.item = entry.routine, entry.item
        else:  # the entry was deleted or moved since: its frozen routine and item, if they still exist
            self.routine = db.session.scalar(
                db.select(Routine).where(Routine.id == row.routine_id, Routine.user_id == self.user.id)
            )
            model = Habit if row.item_type == OwnerType.HABIT else Task
            self.item = db.session.scalar(
                db.select(model)
                .where(model.id == row.item_id, model.user_id == self.user.id)
                .options(selectinload(model.categories))
            )
        if not self.closed and self.user.constance_mode == ConstanceMode.COMPLETE:
            self.scheduled_entry_ids = _scheduled_entry_ids(self.user, self.day, scheduled_id, entry)
        owners = [(OwnerType.USER, self.user.id)]
        if self.item is not None and not row.one_time:
            owners.append((row.item_type, row.item_id))
        self.summaries = streaks.day_summaries(owners, self.day, self.today)
        account = self.summaries[owners[0]]
        self.before = {  # what a celebration compares against: level and streaks before the change
            "level": self.user.level,
            "item_streak": self.item.current_streak if self.item is not None else 0,
            "constance": account.current_run(account.outcome),
        }

    def xp_owners(self):
        """Who shares a check's XP besides the user: the routine, the habit (tasks have no XP of
        their own) and each of the item's categories — whichever of them still exist."""
        owners = [self.routine] if self.routine is not None else []
        if self.item is not None:
            if isinstance(self.item, Habit):
                owners.append(self.item)
            owners.extend(self.item.categories)
        return owners

    def xp_for_check(self):
        row = self.row
        if self.day < self.today:
            return streaks.late_xp(self.user, row.difficulty, row.importance, self.day, self.today)
        # The run entering today: the day's summary leaves today's own row out.
        summary = self.summaries.get((row.item_type, row.item_id))
        streak = summary.run if summary is not None and not row.one_time else 0
        return streaks.check_xp(row.difficulty, row.importance, streak)

    def set_done_on(self, day):
        """A one-time task checked today is removed once the day ends (app.routines.day_close)."""
        if self.row.one_time and isinstance(self.item, Task):
            self.item.done_on = day

    def settle(self):
        """Write the day's outcomes and streaks after the change, commit, and describe the result."""
        user, row, item, day, today = self.user, self.row, self.item, self.day, self.today
        account = (OwnerType.USER, user.id)
        if not row.touched and not self.closed:  # an open day's untouched entry has no row (the close freezes it)
            self.day_rows.remove(row)
            if row in db.session.new:
                db.session.expunge(row)
            else:
                db.session.delete(row)
        outcomes = {}
        if item is not None and not row.one_time:
            owner = (row.item_type, row.item_id)
            outcomes[owner] = self._item_outcome()
            streaks.refresh_around(item, self.summaries[owner], outcomes[owner])
        outcomes[account] = self._account_outcome()
        streaks.refresh_account_around(user, self.summaries[account], outcomes[account])
        _write_outcomes(user, day, outcomes)
        constance = streaks.constance_around(user, self.summaries[account], outcomes[account])
        late = day < today
        result = CheckResult(
            entry=self._view(late),
            day=day,
            late=late,
            user=_user_figures(user, constance),
            item=_item_figures(item),
            routine=_xp_figures(self.routine) if self.routine is not None else None,
            categories=[_xp_figures(category) for category in (item.categories if item is not None else [])],
            celebration=None if late else _celebration(user, item, constance, self.before),
        )
        domains = {"routines", "habits" if row.item_type == OwnerType.HABIT else "tasks"}
        if item is not None and item.categories and row.xp:
            domains.add("categories")
        db.session.commit()
        announce(user, *sorted(domains))
        return result

    def _item_outcome(self):
        """Presence (DONE, SKIPPED) at once; without it an open day has no outcome (MISSED is only
        true once the day ends) and a closed day is MISSED, its frozen rows proving the item was
        part of the day."""
        rows = [row for row in self.day_rows if row.item_id == self.row.item_id]
        outcome = streaks.item_outcome(rows)
        if outcome is None and self.closed and rows:
            outcome = Outcome.MISSED
        return outcome

    def _account_outcome(self):
        """Written when the day counted; otherwise removed while the day is open, or how the day
        ended once it is closed. Whether an open day counted needs its untouched entries only in
        COMPLETE mode (every entry checked or skipped): in ANY mode one check is enough."""
        if self.closed:
            return streaks.account_outcome(self.user, self.day, self.day_rows)
        items = list(self.day_rows)
        if self.user.constance_mode == ConstanceMode.COMPLETE:
            written = {row.entry_id for row in self.day_rows}
            items += [_UNTOUCHED for entry_id in self.scheduled_entry_ids if entry_id not in written]
        elif not any(row.checked for row in items):
            return None
        outcome = streaks.account_outcome(self.user, self.day, items)
        return outcome if outcome == Outcome.DONE else None

    def _view(self, late):
        if self.entry is not None and not late:
            return _live_view(self.user, self.entry, self.row if self.row.touched else None, self.today)
        return _frozen_view(self.user, self.row, self.today, self.closed)


def _lock_account(user):
    """Lock the account's row for this transaction and read it afresh (its XP and streaks as the
    previous check left them), with the last closed day. SQLite has no row locks: it lets one
    writer in at a time anyway."""
    _fresh, closed_through = db.session.execute(
        db.select(User, DayCloseMark.closed_through)
        .outerjoin(DayCloseMark, DayCloseMark.user_id == User.id)
        .where(User.id == user.id)
        .with_for_update(of=User)
        .execution_options(populate_existing=True)
    ).one()
    return closed_through


def _entry_and_scheduled(user, entry_uuid, day):
    """(the user's entry with its routine and the routine's entries, its item with its categories
    and its section — or None; the id of the routine scheduled on `day`'s weekday)."""
    scheduled = (
        db.select(ScheduleDay.routine_id)
        .where(ScheduleDay.user_id == user.id, ScheduleDay.weekday == day.weekday())
        .scalar_subquery()
    )
    found = (
        db.session.execute(
            db.select(RoutineEntry, scheduled)
            .join(Routine, Routine.id == RoutineEntry.routine_id)
            .where(RoutineEntry.id == entry_uuid, Routine.user_id == user.id)
            .options(
                joinedload(RoutineEntry.routine),
                joinedload(RoutineEntry.section),
                joinedload(RoutineEntry.habit).joinedload(Habit.categories),
                joinedload(RoutineEntry.task).joinedload(Task.categories),
            )
        )
        .unique()
        .first()
    )
    if found is None:
        found = (
            None,
            db.session.scalar(
                db.select(ScheduleDay.routine_id).where(
                    ScheduleDay.user_id == user.id, ScheduleDay.weekday == day.weekday()
                )
            ),
        )
    return found


def _scheduled_entry_ids(user, day, scheduled_id, entry):
    """The entries of the routine scheduled on an open `day` (none before that routine existed)."""
    if scheduled_id is None:
        return set()
    if entry is not None and entry.routine_id == scheduled_id:
        routine = entry.routine
        return {e.id for e in routine.entries} if schedules.local_date(user, routine.created_at) <= day else set()
    routine = schedules.routine_on(user, day)
    return {e.id for e in routine.entries} if routine is not None else set()


def _write_outcomes(user, day, outcomes):
    """The day's outcome of each owner in `outcomes`: set in one upsert, removed (None) in one
    delete."""
    kept = [
        {"id": uuid.uuid4(), "user_id": user.id, "owner_type": kind, "owner_id": owner_id, "day": day, "outcome": value}
        for (kind, owner_id), value in outcomes.items()
        if value is not None
    ]
    gone = [(kind, owner_id) for (kind, owner_id), value in outcomes.items() if value is None]
    table = DayOutcome.__table__
    if kept:
        upsert(table, kept, ("owner_type", "owner_id", "day"), lambda new: {"outcome": new.outcome})
    if gone:
        db.session.execute(
            db.delete(table).where(
                table.c.user_id == user.id,
                table.c.day == day,
                db.or_(*(db.and_(table.c.owner_type == kind, table.c.owner_id == owner_id) for kind, owner_id in gone)),
            )
        )


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


# Getting started ----------------------------------------------------------------------------------


@dataclass
class Footing:
    """How far a new account has come with routines: what the dashboard's next steps read."""

    first_routine_id: uuid.UUID | None  # the oldest routine, none when there is no routine yet
    todays_routine_id: uuid.UUID | None  # the routine scheduled on today's weekday
    todays_entries: bool  # today's routine holds at least one habit or task
    checked_once: bool  # any entry was ever checked


def footing(user, today=None):
    """Where the user stands with routines, in one statement (the dashboard reads it on each load
    and each refresh while a next step is left)."""
    today = today or local_today(user)[1]
    todays = (
        db.select(ScheduleDay.routine_id)
        .where(ScheduleDay.user_id == user.id, ScheduleDay.weekday == today.weekday())
        .scalar_subquery()
    )
    row = db.session.execute(
        db.select(
            db.select(Routine.id)
            .where(Routine.user_id == user.id)
            .order_by(Routine.created_at, Routine.id)
            .limit(1)
            .scalar_subquery(),
            todays,
            db.select(RoutineEntry.id).where(RoutineEntry.routine_id == todays).exists(),
            db.select(EntryCheck.id).where(EntryCheck.user_id == user.id, EntryCheck.checked.is_(True)).exists(),
        )
    ).one()
    return Footing(*row)
