"""Outcomes, streaks and the account's constance, always recomputed from the day outcomes.

Only a MISSED day breaks a streak. A skip, a day with nothing scheduled, and a day with no row
at all (unknown) are neutral: the walk back from today steps over them without counting. A day
is MISSED only once it has ended (the day close writes it, app.routines.day_close), so an open
day never zeroes a live streak.

The account's own outcome per day (owner USER) says whether the day counted: in ANY mode at
least one entry checked, in COMPLETE mode every entry of the day checked or skipped.
"""

from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from sqlalchemy import Date

from app.categories.models import Category
from app.extensions import db
from app.profile.models import ConstanceMode, XpDecay
from app.routines import schedules
from app.routines import services as routines
from app.routines.models.checks import DayCloseMark, EntryCheck
from app.routines.models.history import DayOutcome, Outcome, OwnerType, XpDay
from app.routines.models.routines import Routine
from app.shared.days import today_for
from app.shared.errors import Invalid
from app.shared.values import day_from

MILESTONES = (7, 30, 100, 365)  # streak lengths worth a celebration
DORMANT_AFTER = 14  # days with nothing scheduled or done before a streak reads as paused
HISTORY_MAX_DAYS = 366
HISTORY_DEFAULT_DAYS = 28
UNKNOWN = "UNKNOWN"  # history's word for "no row": neutral, never guessed

PRESENT = (Outcome.DONE, Outcome.SKIPPED)
ACTIVE = (Outcome.DONE, Outcome.SKIPPED, Outcome.MISSED)  # a day that shows the routine still runs


# XP ------------------------------------------------------------------------------------------


def check_xp(difficulty, importance, streak):
    """round(5 × (difficulty + importance) × (1 + min(streak × 1 %, 50 %))), halves rounding up.

    Worked in whole hundredths so 62.5 is exactly 62.5 and rounds to 63."""
    difficulty, importance = (min(max(int(v or 1), 1), 5) for v in (difficulty, importance))
    bonus = min(max(int(streak or 0), 0), 50)
    return (5 * (difficulty + importance) * (100 + bonus) + 50) // 100


def decay_multiplier(strategy, days_late):
    """The share of the base XP a check `days_late` days after the day still pays."""
    if days_late <= 0:
        return 1.0
    if strategy == XpDecay.FLAT:
        return 0.5
    if strategy == XpDecay.TIME_WINDOW:
        return 1.0 if days_late <= 2 else 0.0
    return {1: 0.8, 2: 0.6, 3: 0.4}.get(days_late, 0.2)


def late_xp(user, difficulty, importance, day, today):
    """A late check's XP: the streak-less base times the user's decay (not rounded to a whole)."""
    return round(check_xp(difficulty, importance, 0) * decay_multiplier(user.xp_decay, (today - day).days), 2)


# Which days are final -------------------------------------------------------------------------


def closed_through(user):
    """The last day the day close has finished for this user (None before the first close)."""
    return db.session.scalar(db.select(DayCloseMark.closed_through).where(DayCloseMark.user_id == user.id))


def is_closed(user, day):
    last = closed_through(user)
    return last is not None and day <= last


# A day's entries ---------------------------------------------------------------------------------


def day_items(user, day, closed=None):
    """Every entry that belongs to `day`, as check rows.

    A closed day is exactly its frozen rows. An open day is the rows written so far plus an
    unsaved, untouched row for each entry of the routine scheduled that day that has none yet.
    """
    rows = written_items(user, day)
    if closed is None:
        closed = is_closed(user, day)
    if closed:
        return list(rows)
    routine = schedules.routine_on(user, day)
    have = {row.entry_id for row in rows}
    extra = [EntryCheck.frozen_from(entry, day) for entry in routine.entries if entry.id not in have] if routine else []
    return list(rows) + extra


def written_items(user, day):
    """The check rows written for `day` so far: on an open day, the entries checked, skipped or
    unchecked again (an untouched entry has none)."""
    return db.session.scalars(
        db.select(EntryCheck)
        .where(EntryCheck.user_id == user.id, EntryCheck.day == day)
        .order_by(EntryCheck.section_position, EntryCheck.position)
    ).all()


def item_outcome(rows):
    """An item's presence on a day from its check rows: DONE, SKIPPED or None."""
    if any(row.checked for row in rows):
        return Outcome.DONE
    if any(row.skipped for row in rows):
        return Outcome.SKIPPED
    return None


def account_outcome(user, day, items):
    """How `day` ended for the account, judged on that day's entries (`day_items`)."""
    checked = any(item.checked for item in items)
    if user.constance_mode == ConstanceMode.COMPLETE:
        counted = bool(items) and all(item.touched for item in items)
    else:
        counted = checked
    if counted:
        return Outcome.DONE
    if any(item.skipped for item in items):
        return Outcome.SKIPPED
    if items:
        return Outcome.MISSED
    has_routine = db.session.scalar(db.select(Routine.id).where(Routine.user_id == user.id).limit(1)) is not None
    return Outcome.NOT_SCHEDULED if has_routine else Outcome.NOT_IN_ROUTINE


# Writing outcomes -------------------------------------------------------------------------------


def outcome_row(user, owner_type, owner_id, day):
    return db.session.scalar(
        db.select(DayOutcome).where(
            DayOutcome.user_id == user.id,
            DayOutcome.owner_type == owner_type,
            DayOutcome.owner_id == owner_id,
            DayOutcome.day == day,
        )
    )


def set_outcome(user, owner_type, owner_id, day, outcome):
    """Write (or, with None, remove) one owner's outcome for one day."""
    row = outcome_row(user, owner_type, owner_id, day)
    if outcome is None:
        if row is not None:
            db.session.delete(row)
    elif row is None:
        db.session.add(DayOutcome(user_id=user.id, owner_type=owner_type, owner_id=owner_id, day=day, outcome=outcome))
    else:
        row.outcome = outcome


# Streak figures ---------------------------------------------------------------------------------


def _outcomes(user, owner_type, owner_id):
    """(day, outcome) pairs for one owner, oldest first."""
    return outcomes_of(user, [(owner_type, owner_id)])[(owner_type, owner_id)]


def current_run(outcomes, today):
    """Walk back from `today`: DONE counts, MISSED stops, anything else is stepped over."""
    count = 0
    for day, outcome in reversed(outcomes):
        if day > today:
            continue
        if outcome == Outcome.MISSED:
            break
        if outcome == Outcome.DONE:
            count += 1
    return count


def longest_run(outcomes):
    best = run = 0
    for _day, outcome in outcomes:
        if outcome == Outcome.MISSED:
            run = 0
        elif outcome == Outcome.DONE:
            run += 1
            best = max(best, run)
    return best


def outcomes_of(user, owners):
    """{(owner type, owner id): [(day, outcome)] oldest first} for several owners of different
    types in one statement (a check reads its item's and the account's): one indexed select per
    owner, joined by UNION ALL, each row naming only its owner's type."""
    selects = [
        db.select(DayOutcome.owner_type, DayOutcome.day, DayOutcome.outcome).where(
            DayOutcome.owner_type == kind, DayOutcome.owner_id == owner_id, DayOutcome.user_id == user.id
        )
        for kind, owner_id in owners
    ]
    query = selects[0].order_by(DayOutcome.day) if len(selects) == 1 else db.union_all(*selects).order_by("day")
    by_type = {kind: (kind, owner_id) for kind, owner_id in owners}
    found = {owner: [] for owner in owners}
    for kind, day, outcome in db.session.execute(query):
        found[by_type[kind]].append((day, outcome))
    return found


def refresh(user, owner, owner_type, today, outcomes=None):
    """Recompute an owner's streak scalars from its outcomes (read here unless given). The best
    never goes down."""
    if outcomes is None:
        outcomes = _outcomes(user, owner_type, owner.id)
    done = [day for day, outcome in outcomes if outcome == Outcome.DONE]
    owner.current_streak = current_run(outcomes, today)
    owner.best_streak = max(owner.best_streak or 0, longest_run(outcomes), owner.current_streak)
    owner.total_check_ins = len(done)
    owner.first_check_in = done[0] if done else None
    owner.last_check_in = done[-1] if done else None
    return owner


def refresh_account(user, today, outcomes=None):
    refresh(user, user, OwnerType.USER, today, outcomes)
    user.max_constance = max(user.max_constance or 0, user.best_streak or 0)


# Streak figures around one day, counted by the database -----------------------------------------


@dataclass
class DaySummary:
    """An owner's outcomes as they bear on one `day`, counted by the database with that day's own
    row left out: the figures `current_run`, `longest_run` and the check-in counts would make of
    every row, for any outcome the day is given, follow by arithmetic. Only the run through the
    day can have grown: every other run is at most the stored best, which each write of outcomes
    (a check, the day close) keeps at least the longest run they hold."""

    day: date
    today: date
    outcome: Outcome | None  # the day's stored outcome
    done: int  # DONE days
    first_done: date | None
    last_done: date | None
    last_missed: date | None  # the last MISSED day up to today
    run: int  # DONE days after `last_missed`, up to today
    run_after_day: int  # DONE days after `day`, up to today
    done_around: int  # DONE days between the MISSED days on either side of `day`
    active: int  # DONE, SKIPPED or MISSED days of the last two weeks up to today
    done_today: int

    def current_run(self, outcome):
        """`current_run` over the outcomes, the day reading `outcome`."""
        counts = self.day <= self.today and (self.last_missed is None or self.day > self.last_missed)
        if counts and outcome == Outcome.MISSED:
            return self.run_after_day
        return self.run + (counts and outcome == Outcome.DONE)

    def run_through_day(self, outcome):
        """The DONE days of the run holding the day once it reads `outcome`."""
        return 0 if outcome == Outcome.MISSED else self.done_around + (outcome == Outcome.DONE)

    def check_ins(self, outcome):
        """(total, first, last) DONE days, the day reading `outcome`."""
        days = [day for day in (self.first_done, self.last_done) if day is not None]
        if outcome == Outcome.DONE:
            days.append(self.day)
        return self.done + (outcome == Outcome.DONE), min(days, default=None), max(days, default=None)


def day_summaries(owners, day, today):
    """{(owner type, owner id): DaySummary} around `day` for several owners, in one statement.

    The owners are the caller's user's own (the account, an item read through its ownership), and
    an owner id names one row of one user: the rows are found by owner alone, which the index on
    (owner type, owner id, day, outcome) answers without reading the table."""
    values = {"day": day, "today": today, "fortnight": _fortnight(today)}
    for position, (kind, owner_id) in enumerate(owners):
        values[f"kind_{position}"], values[f"owner_{position}"] = kind, owner_id
    found = db.session.execute(_summaries_query(len(owners)), values)
    return {owners[position]: DaySummary(day, today, *figures) for position, *figures in found}


@cache
def _summaries_query(owners):
    """The statement of `day_summaries` for a number of owners, built once: its thirty-odd
    subqueries cost more to build than to run."""
    day, today = db.bindparam("day", type_=Date), db.bindparam("today", type_=Date)
    other_days, done = DayOutcome.day != day, DayOutcome.outcome == Outcome.DONE
    missed, count = DayOutcome.outcome == Outcome.MISSED, db.func.count()
    selects = []
    for position in range(owners):
        mine = (
            DayOutcome.owner_type == db.bindparam(f"kind_{position}"),
            DayOutcome.owner_id == db.bindparam(f"owner_{position}"),
        )

        def of(column, *conditions, mine=mine):
            return db.select(column).where(*mine, *conditions).scalar_subquery()

        last_missed = of(db.func.max(DayOutcome.day), missed, other_days, DayOutcome.day <= today)
        missed_before = of(db.func.max(DayOutcome.day), missed, DayOutcome.day < day)
        missed_after = of(db.func.min(DayOutcome.day), missed, DayOutcome.day > day)
        selects.append(
            db.select(
                db.literal(position),
                of(DayOutcome.outcome, DayOutcome.day == day),
                of(count, done, other_days),
                of(db.func.min(DayOutcome.day), done, other_days),
                of(db.func.max(DayOutcome.day), done, other_days),
                last_missed,
                of(count, done, other_days, DayOutcome.day.between(db.func.coalesce(last_missed, date.min), today)),
                of(count, done, DayOutcome.day > day, DayOutcome.day <= today),
                of(
                    count,
                    done,
                    other_days,
                    DayOutcome.day > db.func.coalesce(missed_before, date.min),
                    DayOutcome.day < db.func.coalesce(missed_after, date.max),
                ),
                of(
                    count,
                    DayOutcome.outcome.in_(ACTIVE),
                    other_days,
                    DayOutcome.day.between(db.bindparam("fortnight", type_=Date), today),
                ),
                of(count, done, other_days, DayOutcome.day == today),
            )
        )
    return selects[0] if owners == 1 else db.union_all(*selects)


def refresh_around(owner, summary, outcome):
    """`refresh` for an owner whose outcome on the summary's day becomes `outcome` (None: no row),
    without reading its outcomes. The best never goes down."""
    owner.current_streak = summary.current_run(outcome)
    owner.best_streak = max(owner.best_streak or 0, summary.run_through_day(outcome), owner.current_streak)
    owner.total_check_ins, owner.first_check_in, owner.last_check_in = summary.check_ins(outcome)
    return owner


def refresh_account_around(user, summary, outcome):
    refresh_around(user, summary, outcome)
    user.max_constance = max(user.max_constance or 0, user.best_streak or 0)


# The account's constance ------------------------------------------------------------------------


@dataclass
class Constance:
    days: int
    best: int
    dormant: bool  # the streak is paused: nothing scheduled or done for two weeks (it is not broken)
    counted_today: bool

    def to_dict(self):
        return vars(self).copy()


def constance(user, today=None):
    """The account's streak as of `today`, counted by the database (`day_summaries`), so that a
    page showing two figures does not load every day of the account's history."""
    today = today or today_for(user)
    account = (OwnerType.USER, user.id)
    summary = day_summaries([account], today, today)[account]
    return constance_around(user, summary, summary.outcome)


def constance_around(user, summary, outcome):
    """The constance as of the summary's `today`, the summary's day reading `outcome` (a check
    has just decided it). Its best is the stored one: `refresh_account` and
    `refresh_account_around` follow every write of the account's outcomes."""
    days = summary.current_run(outcome)
    active = summary.active > 0 or (outcome in ACTIVE and _recent(summary.day, summary.today))
    counted_today = summary.done_today > 0 or (summary.day == summary.today and outcome == Outcome.DONE)
    dormant = days > 0 and not active and not _routine_runs(user, summary.today)
    best = max(user.max_constance or 0, user.best_streak or 0, days)
    return Constance(days=days, best=best, dormant=dormant, counted_today=counted_today)


def _fortnight(today):
    return today - timedelta(days=DORMANT_AFTER - 1)


def _recent(day, today):
    return _fortnight(today) <= day <= today


def _routine_runs(user, today):
    routine_today = schedules.routine_on(user, today)
    return bool(routine_today and routine_today.entries)


# History ----------------------------------------------------------------------------------------


@dataclass
class History:
    owner_type: str
    owner_id: str
    start: date
    end: date
    days: list  # [(day, outcome name or UNKNOWN)], one per day, oldest first

    def to_dict(self):
        return {
            "owner_type": self.owner_type,
            "owner_id": self.owner_id,
            "from": self.start.isoformat(),
            "to": self.end.isoformat(),
            "days": [{"day": day.isoformat(), "outcome": outcome} for day, outcome in self.days],
        }


def history(user, owner_type="USER", owner_id=None, start=None, end=None):
    """One outcome per day for a habit, task, routine or the account (UNKNOWN where no row).

    `end` defaults to today and may be at most tomorrow; `start` to 27 days before `end`. A range
    wider than 366 days keeps its most recent 366 (the result says which range it covers). An id
    that is not the user's simply reads as all UNKNOWN.
    """
    try:
        kind = OwnerType(str(owner_type).strip().upper())
    except ValueError:
        raise Invalid("INVALID_INPUT", details={"owner_type": "HISTORY_OWNER_INVALID"}) from None
    owner = user.id if kind == OwnerType.USER else routines.as_uuid(owner_id)
    today = today_for(user)
    end = _as_date(end, "to") or today
    if end > today + timedelta(days=1):
        raise Invalid("INVALID_INPUT", details={"to": "HISTORY_RANGE_INVALID"})
    start = _as_date(start, "from") or end - timedelta(days=HISTORY_DEFAULT_DAYS - 1)
    if start > end:
        raise Invalid("INVALID_INPUT", details={"from": "HISTORY_RANGE_INVALID"})
    start = max(start, end - timedelta(days=HISTORY_MAX_DAYS - 1))
    found = {}
    if owner is not None:
        values = {"user_id": user.id, "kind": kind, "owner_id": owner, "start": start, "end": end}
        rows = db.session.execute(_OUTCOMES_BETWEEN, values).all()
        found = {day: outcome.value for day, outcome in rows}
    span = (end - start).days + 1
    days = [(start + timedelta(days=i), found.get(start + timedelta(days=i), UNKNOWN)) for i in range(span)]
    return History(kind.value, str(owner) if owner else "", start, end, days)


def _as_date(value, field):
    if value in (None, ""):
        return None
    day = day_from(value)
    if day is None:
        raise Invalid("INVALID_INPUT", details={field: "DATE_INVALID"})
    return day


# XP history for the charts ----------------------------------------------------------------------

XP_HISTORY_MAX_DAYS = 90


@dataclass
class XpHistory:
    days: list  # the dates, oldest first
    series: dict  # (owner type, owner id) -> [net XP per day]

    def values(self, owner_type, owner_id):
        return self.series.get((OwnerType(owner_type), owner_id), [0.0] * len(self.days))

    def to_dict(self):
        return {
            "from": self.days[0].isoformat(),
            "to": self.days[-1].isoformat(),
            "days": [day.isoformat() for day in self.days],
            "series": [
                {"owner_type": kind.value, "owner_id": str(owner_id), "values": values}
                for (kind, owner_id), values in self.series.items()
            ],
        }


def xp_history(user, days=7, today=None, owner_type=None):
    """The net XP of each owner (of `owner_type` only, when given) on each of the last `days`
    days (1–90), zero where nothing happened; only owners with XP in the window appear."""
    try:
        days = int(days)
    except (TypeError, ValueError):
        days = 0
    if not 1 <= days <= XP_HISTORY_MAX_DAYS:
        raise Invalid("INVALID_INPUT", details={"days": "XP_HISTORY_DAYS_INVALID"})
    today = today or today_for(user)
    dates = [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]
    values = {"user_id": user.id, "start": dates[0], "end": today}
    if owner_type is None:
        rows = db.session.execute(_XP_BETWEEN, values).all()
    else:
        rows = db.session.execute(_XP_OF_KIND_BETWEEN, {**values, "kind": OwnerType(owner_type)}).all()
    series = {}
    for kind, owner_id, day, xp in rows:
        series.setdefault((kind, owner_id), [0.0] * days)[(day - dates[0]).days] += xp
    return XpHistory(dates, series)


def categories_by_xp(user):
    """The user's categories, most XP first: the dashboard's best and worst areas."""
    return db.session.scalars(_CATEGORIES_BY_XP, {"user_id": user.id}).all()


# Statements the dashboard runs on every visit, built once: building one cost about as much as
# running it on a heavy account.
_OUTCOMES_BETWEEN = db.select(DayOutcome.day, DayOutcome.outcome).where(
    DayOutcome.user_id == db.bindparam("user_id"),
    DayOutcome.owner_type == db.bindparam("kind"),
    DayOutcome.owner_id == db.bindparam("owner_id"),
    DayOutcome.day.between(db.bindparam("start"), db.bindparam("end")),
)
_XP_BETWEEN = db.select(XpDay.owner_type, XpDay.owner_id, XpDay.day, XpDay.xp).where(
    XpDay.user_id == db.bindparam("user_id"), XpDay.day.between(db.bindparam("start"), db.bindparam("end"))
)
_XP_OF_KIND_BETWEEN = _XP_BETWEEN.where(XpDay.owner_type == db.bindparam("kind"))
_CATEGORIES_BY_XP = (
    db.select(Category).where(Category.user_id == db.bindparam("user_id")).order_by(Category.xp.desc(), Category.name)
)
