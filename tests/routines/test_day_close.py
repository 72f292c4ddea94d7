"""The day close: absences filled in once a local day ends, idempotent, never over a real check."""

from datetime import UTC, datetime, timedelta

from app.extensions import db
from app.routines import day_close, streaks, today
from app.routines import services as routines
from app.routines.models.checks import DayCloseMark, EntryCheck
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.tasks.models import Task
from tests.routines.conftest import NOW, TODAY, at, entry_of, make_habit, make_task, morning

YESTERDAY = TODAY - timedelta(days=1)


def outcomes(user, day):
    rows = db.session.scalars(db.select(DayOutcome).where(DayOutcome.user_id == user.id, DayOutcome.day == day))
    return {(row.owner_type, row.owner_id): row.outcome for row in rows}


def start_today(user):
    """The account was made today: no earlier day is closed."""
    user.created_at = NOW - timedelta(hours=1)
    db.session.commit()


def test_an_untouched_scheduled_entry_is_missed(user):
    habit = make_habit(user)
    morning(user, habit)
    day_close.close_days(now=NOW)
    assert outcomes(user, YESTERDAY) == {
        (OwnerType.HABIT, habit.id): Outcome.MISSED,
        (OwnerType.USER, user.id): Outcome.MISSED,
    }


def test_absences_say_why_an_item_was_not_due(user):
    scheduled, unscheduled, loose = make_habit(user, "A"), make_habit(user, "B"), make_task(user, "C")
    morning(user, scheduled)
    routines.create_list(user, "Weekend", entries=[{"habit_id": unscheduled.id}])
    day_close.close_days(now=NOW)
    found = outcomes(user, YESTERDAY)
    assert found[(OwnerType.HABIT, unscheduled.id)] == Outcome.NOT_SCHEDULED
    assert found[(OwnerType.TASK, loose.id)] == Outcome.NOT_IN_ROUTINE


def test_the_close_never_overwrites_a_check(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    today.check(user, entry_of(routine).id, now=at(YESTERDAY))
    day_close.close_days(now=NOW)
    assert outcomes(user, YESTERDAY) == {
        (OwnerType.HABIT, habit.id): Outcome.DONE,
        (OwnerType.USER, user.id): Outcome.DONE,
    }


def test_closing_twice_changes_nothing(user):
    morning(user, make_habit(user))
    first = day_close.close_days(now=NOW)
    snapshot = sorted((r.owner_id, r.day, r.outcome) for r in db.session.scalars(db.select(DayOutcome)))
    checks = db.session.scalar(db.select(db.func.count(EntryCheck.id)))
    second = day_close.close_days(now=NOW)
    assert first.days > 0 and second.days == 0 and second.users == 0
    assert sorted((r.owner_id, r.day, r.outcome) for r in db.session.scalars(db.select(DayOutcome))) == snapshot
    assert db.session.scalar(db.select(db.func.count(EntryCheck.id))) == checks


def test_a_late_close_closes_every_missed_day(user):
    start_today(user)
    habit = make_habit(user, created=NOW - timedelta(hours=1))
    morning(user, habit, created=NOW - timedelta(hours=1))
    day_close.close_days(now=NOW + timedelta(days=4))
    missed = [day for day in (TODAY + timedelta(days=i) for i in range(4)) if outcomes(user, day)]
    assert missed == [TODAY + timedelta(days=i) for i in range(4)]
    assert db.session.get(DayCloseMark, user.id).closed_through == TODAY + timedelta(days=3)


def test_the_close_invents_nothing_before_the_account_existed(user):
    start_today(user)
    day_close.close_days(now=NOW + timedelta(days=1))
    assert db.session.scalar(db.select(db.func.min(DayOutcome.day))) == TODAY


def test_the_close_invents_no_missed_day_before_the_routine_existed(user):
    habit = make_habit(user)
    morning(user, habit, created=NOW)
    day_close.close_days(now=NOW)
    assert outcomes(user, YESTERDAY)[(OwnerType.HABIT, habit.id)] == Outcome.NOT_SCHEDULED
    assert outcomes(user, YESTERDAY)[(OwnerType.USER, user.id)] == Outcome.NOT_SCHEDULED


def test_the_close_freezes_the_days_entries(user):
    habit = make_habit(user, "Read")
    routine = morning(user, habit)
    day_close.close_days(now=NOW)
    habit.name = "Read a novel"
    routines.rename(user, routine.id, "Dawn")
    frozen = db.session.scalar(db.select(EntryCheck).where(EntryCheck.day == YESTERDAY))
    assert (frozen.item_name, frozen.routine_name, frozen.checked) == ("Read", "Morning", False)


def test_a_one_time_task_leaves_once_its_day_is_closed(user):
    task = make_task(user, "Post the letter", one_time=True)
    routine = morning(user, task)
    today.check(user, entry_of(routine).id, now=at(YESTERDAY))
    day_close.close_days(now=NOW)
    assert db.session.get(Task, task.id) is None
    assert routine.entries == []
    # Yesterday's row: the close may also have frozen other days of the entry (no order without ORDER BY).
    frozen = db.session.scalar(db.select(EntryCheck).where(EntryCheck.item_id == task.id, EntryCheck.day == YESTERDAY))
    assert frozen.checked and frozen.item_name == "Post the letter"


def test_the_close_waits_for_each_users_own_midnight(app_context, user, other):
    """At 10:30 UTC it is already tomorrow in Kiritimati (UTC+14) and still yesterday in
    Pago Pago (UTC−11)."""
    user.timezone, other.timezone = "Pacific/Kiritimati", "Pacific/Pago_Pago"
    for person in (user, other):
        person.created_at = datetime(2026, 6, 8, tzinfo=UTC)
        morning(person, make_habit(person), created=datetime(2026, 6, 8, tzinfo=UTC))
    instant = datetime(2026, 6, 10, 10, 30, tzinfo=UTC)  # Kiritimati: 11 Jun 00:30; Pago Pago: 9 Jun 23:30
    day_close.close_days(now=instant)
    assert db.session.get(DayCloseMark, user.id).closed_through == datetime(2026, 6, 10).date()
    assert db.session.get(DayCloseMark, other.id).closed_through == datetime(2026, 6, 8).date()


def test_a_check_counts_on_the_users_local_day(app_context, user, other):
    user.timezone, other.timezone = "Pacific/Kiritimati", "Pacific/Pago_Pago"
    instant = datetime(2026, 6, 10, 10, 30, tzinfo=UTC)
    for person in (user, other):
        routine = morning(person, make_habit(person))
        today.check(person, entry_of(routine).id, now=instant)
    by_user = {row.user_id: row.day for row in db.session.scalars(db.select(EntryCheck))}
    assert by_user == {user.id: datetime(2026, 6, 11).date(), other.id: datetime(2026, 6, 9).date()}
    assert streaks.constance(user, datetime(2026, 6, 11).date()).counted_today


def test_the_day_close_command_closes_and_reports(app, user):
    morning(user, make_habit(user))
    result = app.test_cli_runner().invoke(args=["day-close"])
    assert result.exit_code == 0 and "Closed" in result.output
    again = app.test_cli_runner().invoke(args=["day-close"])
    assert "Closed 0 day(s)" in again.output
