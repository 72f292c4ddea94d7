"""Checking and skipping today's entries: XP to every owner, symmetry, and the refusals."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event

from app.extensions import db
from app.profile.models import ConstanceMode
from app.routines import schedules, today
from app.routines import services as routines
from app.routines.models.checks import EntryCheck
from app.routines.models.history import DayOutcome, Outcome, OwnerType, XpDay
from app.shared.errors import Invalid, NotFound
from tests.routines.conftest import NOW, TODAY, entry_of, make_category, make_habit, make_task, morning


def xp_rows(user):
    return {(row.owner_type, row.owner_id): row.xp for row in db.session.scalars(db.select(XpDay)).all()}


def test_a_check_pays_the_user_the_routine_the_habit_and_each_category(user):
    health, mind = make_category(user, "Health"), make_category(user, "Mind")
    habit = make_habit(user, difficulty=2, importance=3, categories=[health, mind])
    routine = morning(user, habit)
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert result.entry.checked and result.entry.xp == 25
    for owner in (user, routine, habit, health, mind):
        assert owner.xp == 25
    assert result.user["xp"] == 25 and result.item["xp"] == 25
    assert {c["name"] for c in result.categories} == {"Health", "Mind"}
    assert xp_rows(user)[(OwnerType.HABIT, habit.id)] == 25


def test_checking_again_takes_back_exactly_what_was_paid(user):
    health = make_category(user)
    habit = make_habit(user, difficulty=5, importance=5, categories=[health])
    routine = morning(user, habit)
    today.check(user, entry_of(routine).id, now=NOW)
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert not result.entry.checked and result.entry.xp == 0
    for owner in (user, routine, habit, health):
        assert owner.xp == 0
    assert set(xp_rows(user).values()) == {0}
    assert habit.total_check_ins == 0 and habit.current_streak == 0


def test_the_streak_bonus_reads_the_streak_entering_today(user):
    habit = make_habit(user, difficulty=5, importance=5)
    routine = morning(user, habit)
    for days_ago in range(25, 0, -1):
        db.session.add(
            DayOutcome(
                user_id=user.id,
                owner_type=OwnerType.HABIT,
                owner_id=habit.id,
                day=TODAY - timedelta(days=days_ago),
                outcome=Outcome.DONE,
            )
        )
    db.session.commit()
    assert today.check(user, entry_of(routine).id, now=NOW).entry.xp == 63
    assert habit.current_streak == 26


def test_a_habit_without_categories_pays_the_user_the_routine_and_the_habit_and_no_category(user):
    health = make_category(user, "Health")
    habit = make_habit(user, difficulty=2, importance=3)
    routine = morning(user, habit)
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert result.entry.xp == 25 and (user.xp, routine.xp, habit.xp) == (25, 25, 25)
    assert health.xp == 0 and result.categories == []
    assert (OwnerType.CATEGORY, health.id) not in xp_rows(user)


def test_a_task_without_categories_still_pays_the_user_and_the_routine(user):
    task = make_task(user, difficulty=1, importance=2)
    routine = morning(user, task)
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert result.entry.xp == 15
    assert user.xp == 15 and routine.xp == 15
    assert result.item["type"] == "TASK" and "xp" not in result.item


def test_a_one_time_task_is_marked_done_today_and_earns_no_streak_bonus(user):
    task = make_task(user, one_time=True)
    routine = morning(user, task)
    today.check(user, entry_of(routine).id, now=NOW)
    assert task.done_on == TODAY
    assert db.session.scalar(db.select(DayOutcome).where(DayOutcome.owner_id == task.id)) is None


def test_a_check_records_the_day_as_done_for_the_habit_and_the_account(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    result = today.check(user, entry_of(routine).id, now=NOW)
    outcomes = {(row.owner_type, row.owner_id): row.outcome for row in db.session.scalars(db.select(DayOutcome))}
    assert outcomes == {(OwnerType.HABIT, habit.id): Outcome.DONE, (OwnerType.USER, user.id): Outcome.DONE}
    assert result.user["constance"] == 1 and result.user["constance_today"] is True


def test_an_uncheck_leaves_an_open_day_without_outcomes(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    today.check(user, entry_of(routine).id, now=NOW)
    today.check(user, entry_of(routine).id, now=NOW)
    assert db.session.scalars(db.select(DayOutcome)).all() == []
    assert db.session.scalars(db.select(EntryCheck)).all() == []


def test_a_skip_pays_nothing_and_is_recorded(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    result = today.skip(user, entry_of(routine).id, now=NOW)
    assert result.entry.skipped and not result.entry.checked
    assert user.xp == 0
    outcome = db.session.scalar(db.select(DayOutcome.outcome).where(DayOutcome.owner_id == habit.id))
    assert outcome == Outcome.SKIPPED


def test_skipping_a_checked_entry_changes_nothing(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    today.check(user, entry_of(routine).id, now=NOW)
    result = today.skip(user, entry_of(routine).id, now=NOW)
    assert result.entry.checked and not result.entry.skipped and user.xp == 10


def test_a_check_overwrites_a_skip(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    today.skip(user, entry_of(routine).id, now=NOW)
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert result.entry.checked and not result.entry.skipped


def test_unskipping_puts_the_entry_back_to_open(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    today.skip(user, entry_of(routine).id, now=NOW)
    result = today.skip(user, entry_of(routine).id, skip=False, now=NOW)
    assert not result.entry.skipped
    assert db.session.scalars(db.select(DayOutcome)).all() == []


def test_a_future_skip_is_refused(user):
    routine = morning(user, make_habit(user))
    with pytest.raises(Invalid) as refusal:
        today.skip(user, entry_of(routine).id, day=TODAY + timedelta(days=1), now=NOW)
    assert refusal.value.key == "SKIP_IN_FUTURE"


def test_a_habit_id_where_an_entry_id_belongs_is_refused_naming_the_entry(user):
    habit = make_habit(user, name="Stretch")
    routine = morning(user, habit)
    with pytest.raises(Invalid) as refusal:
        today.check(user, habit.id, now=NOW)
    assert refusal.value.key == "ENTRY_ID_REQUIRED"
    assert str(entry_of(routine).id) in refusal.value.message
    assert "Stretch" in refusal.value.message


def test_a_task_id_outside_every_routine_is_refused_as_not_in_a_routine(user):
    task = make_task(user)
    with pytest.raises(Invalid) as refusal:
        today.skip(user, task.id, now=NOW)
    assert refusal.value.key == "ITEM_NOT_IN_ROUTINE"


def test_another_users_entry_is_not_found(user, other):
    routine = morning(other, make_habit(other))
    for action in (today.check, today.skip):
        with pytest.raises(NotFound) as refusal:
            action(user, entry_of(routine).id, now=NOW)
        assert refusal.value.key == "ENTRY_NOT_FOUND"
    assert other.xp == 0


def test_another_users_habit_id_is_not_found_rather_than_explained(user, other):
    habit = make_habit(other)
    morning(other, habit)
    with pytest.raises(NotFound):
        today.check(user, habit.id, now=NOW)


def test_a_malformed_entry_id_is_not_found(user):
    with pytest.raises(NotFound):
        today.check(user, "not-an-id", now=NOW)


def test_today_routine_is_the_one_scheduled_on_the_local_weekday(user):
    habit = make_habit(user)
    weekday_routine = morning(user, habit, weekdays=[TODAY.weekday()])
    other = routines.create_list(user, "Evening", entries=[{"habit_id": habit.id}])
    view = today.today_routine(user, TODAY)
    assert view.routine_id == str(weekday_routine.id) and view.total == 1
    assert today.today_routine(user, TODAY + timedelta(days=1)) is None
    assert other.id != weekday_routine.id


def test_today_routine_shows_each_entrys_state(user):
    read, run = make_habit(user, "Read"), make_habit(user, "Run")
    routine = morning(user, read, run)
    today.check(user, entry_of(routine, 0).id, now=NOW)
    today.skip(user, entry_of(routine, 1).id, now=NOW)
    view = today.today_routine(user, TODAY)
    states = {entry.name: (entry.checked, entry.skipped) for entry in view.entries}
    assert states == {"Read": (True, False), "Run": (False, True)}
    assert (view.done, view.skipped, view.total, view.xp) == (1, 1, 2, 10)


def test_today_routine_reads_three_statements_whatever_its_size(user):
    """Today's card is on every dashboard and routines page: the routine, its entries with their
    items and today's checks, its sections, as rows. Loading it as objects took five statements
    and a quarter of the heavy dashboard's time (docs/performance.md, "Pages")."""
    habits = [make_habit(user, f"Habit {n}", difficulty=1 + n % 5) for n in range(12)]
    chore = make_task(user, "Tidy up", one_time=True)
    first_half = [{"habit_id": habit.id} for habit in habits[:6]]
    second_half = [*({"habit_id": habit.id} for habit in habits[6:]), {"task_id": chore.id}]
    routine = routines.create_timed(
        user, "Day", "sun",
        [
            {"name": "Morning", "starts_at": "07:00", "ends_at": "09:00", "entries": first_half},
            {"name": "Evening", "starts_at": "18:00", "ends_at": "20:00", "entries": second_half},
            {"name": "Night", "starts_at": "22:00", "ends_at": "23:00", "entries": []},
        ],
    )  # fmt: skip
    routine.created_at = datetime(2026, 1, 1, tzinfo=UTC)
    schedules.set_days(user, routine.id, [TODAY.weekday()])
    today.check(user, routine.sections[0].entries[0].id, now=NOW)
    today.skip(user, routine.sections[1].entries[0].id, now=NOW)
    db.session.refresh(user)  # the account as a request has it, loaded by the sign-in
    seen = []
    listener = lambda *args: seen.append(args[2])  # noqa: E731
    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        view = today.today_routine(user, TODAY)
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)

    assert len(seen) == 3
    assert [(section.name, len(section.entries)) for section in view.sections] == [
        ("Morning", 6), ("Evening", 7), ("Night", 0)
    ]  # fmt: skip
    first, skipped, last = view.sections[0].entries[0], view.sections[1].entries[0], view.sections[1].entries[-1]
    assert (first.checked, first.xp, first.offered_xp) == (True, 10, 0.0)
    assert (skipped.skipped, skipped.checked, skipped.offered_xp) == (True, False, 15)
    assert (last.name, last.item_type, last.item_id, last.offered_xp) == ("Tidy up", "TASK", str(chore.id), 10)
    assert view.sections[0].entries[1].item_id == str(habits[1].id) and view.sections[0].entries[1].item_type == "HABIT"


def test_a_streak_milestone_is_celebrated(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    for days_ago in range(6, 0, -1):
        db.session.add(
            DayOutcome(
                user_id=user.id,
                owner_type=OwnerType.HABIT,
                owner_id=habit.id,
                day=TODAY - timedelta(days=days_ago),
                outcome=Outcome.DONE,
            )
        )
    db.session.commit()
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert result.celebration == {"kind": "streak", "value": 7, "name": "Read"}


def test_a_level_up_is_celebrated(user):
    habit = make_habit(user, difficulty=5, importance=5)
    routine = morning(user, habit)
    result = today.check(user, entry_of(routine).id, now=NOW)
    assert result.celebration == {"kind": "level", "value": 1}


def test_the_data_export_carries_the_check_rows(user):
    from app.profile import configuration

    routine = morning(user, make_habit(user, "Read"))
    today.check(user, entry_of(routine).id, now=NOW)
    (row,) = configuration.export(user)["entry_checks"]
    assert row["item_name"] == "Read" and row["checked"] and row["xp"] == 10 and row["day"] == TODAY.isoformat()


def statements_of(action):
    seen = []

    def count(_conn, _cursor, statement, *_rest):
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        action()
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    return seen


def test_a_check_reads_the_routine_s_entries_only_in_complete_mode(user):
    """In ANY mode one check makes an open day count, so a check does not read which entries the
    day's routine holds; in COMPLETE mode its untouched entries decide, read in one statement
    more (the day, not complete yet, then has no outcome for the account)."""
    routine = morning(user, *(make_habit(user, f"Habit {i}") for i in range(4)))
    first, second = (str(entry_of(routine, i).id) for i in range(2))
    db.session.commit()
    any_mode = statements_of(lambda: today.check(user, first, now=NOW))
    user.constance_mode = ConstanceMode.COMPLETE
    db.session.commit()
    complete = statements_of(lambda: today.check(user, second, now=NOW))
    reads = [[statement for statement in found if statement.startswith("SELECT")] for found in (any_mode, complete)]
    assert len(reads[1]) == len(reads[0]) + 1
    assert not today.check(user, second, now=NOW).user["constance_today"]
