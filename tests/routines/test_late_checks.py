"""Late checks on past days: the streak-less base times the user's decay, and the day corrected."""

from datetime import timedelta

import pytest

from app.extensions import db
from app.profile.models import XpDecay
from app.routines import day_close, streaks, today
from app.routines import services as routines
from app.routines.models.history import Outcome, OwnerType
from app.shared.errors import Invalid
from tests.routines.conftest import NOW, TODAY, at, entry_of, make_category, make_habit, morning


def closed_routine(user, habit, days_back=6):
    """A daily routine with `habit`, its past days closed up to yesterday."""
    routine = morning(user, habit)
    day_close.close_days(now=NOW)
    return routine


@pytest.mark.parametrize(
    ("decay", "days_late", "xp"),
    [
        (XpDecay.GRADUAL, 1, 20.0),
        (XpDecay.GRADUAL, 2, 15.0),
        (XpDecay.GRADUAL, 3, 10.0),
        (XpDecay.GRADUAL, 5, 5.0),
        (XpDecay.FLAT, 1, 12.5),
        (XpDecay.FLAT, 6, 12.5),
        (XpDecay.TIME_WINDOW, 2, 25.0),
        (XpDecay.TIME_WINDOW, 3, 0.0),
    ],
)
def test_a_late_check_pays_the_base_times_the_decay(user, decay, days_late, xp):
    user.xp_decay = decay
    habit = make_habit(user, difficulty=2, importance=3)
    routine = closed_routine(user, habit)
    result = today.check(user, entry_of(routine).id, day=TODAY - timedelta(days=days_late), now=NOW)
    assert result.late and result.entry.checked
    assert result.entry.xp == xp and user.xp == xp and habit.xp == xp


def test_a_late_check_ignores_the_streak_bonus(user):
    habit = make_habit(user, difficulty=5, importance=5)
    routine = closed_routine(user, habit)
    for days_back in range(60, 1, -1):
        streaks.set_outcome(user, OwnerType.HABIT, habit.id, TODAY - timedelta(days=days_back), Outcome.DONE)
    db.session.commit()
    result = today.check(user, entry_of(routine).id, day=TODAY - timedelta(days=1), now=NOW)
    assert result.entry.xp == 40.0  # 50 × 0.8, no +50 %


def test_a_late_check_turns_a_missed_day_into_done_and_mends_the_streak(user):
    habit = make_habit(user)
    routine = closed_routine(user, habit)
    yesterday = TODAY - timedelta(days=1)
    assert streaks.outcome_row(user, OwnerType.HABIT, habit.id, yesterday).outcome == Outcome.MISSED
    result = today.check(user, entry_of(routine).id, day=yesterday, now=NOW)
    assert streaks.outcome_row(user, OwnerType.HABIT, habit.id, yesterday).outcome == Outcome.DONE
    assert streaks.outcome_row(user, OwnerType.USER, user.id, yesterday).outcome == Outcome.DONE
    assert habit.current_streak == 1 and result.user["constance"] == 1
    assert result.celebration is None


def test_undoing_a_late_check_takes_back_its_xp_and_the_day_is_missed_again(user):
    health = make_category(user)
    habit = make_habit(user, categories=[health])
    routine = closed_routine(user, habit)
    yesterday = TODAY - timedelta(days=1)
    today.check(user, entry_of(routine).id, day=yesterday, now=NOW)
    today.check(user, entry_of(routine).id, day=yesterday, now=NOW)
    assert user.xp == habit.xp == health.xp == routine.xp == 0
    assert streaks.outcome_row(user, OwnerType.HABIT, habit.id, yesterday).outcome == Outcome.MISSED
    assert streaks.outcome_row(user, OwnerType.USER, user.id, yesterday).outcome == Outcome.MISSED


def test_a_late_skip_is_neutral(user):
    habit = make_habit(user)
    routine = closed_routine(user, habit)
    yesterday = TODAY - timedelta(days=1)
    today.skip(user, entry_of(routine).id, day=yesterday, now=NOW)
    assert streaks.outcome_row(user, OwnerType.HABIT, habit.id, yesterday).outcome == Outcome.SKIPPED
    assert user.xp == 0


def test_a_past_day_keeps_its_entries_after_the_routine_changes(user):
    habit = make_habit(user, "Read")
    routine = closed_routine(user, habit)
    entry_id = entry_of(routine).id
    routines.remove_entry(user, entry_id)
    yesterday = TODAY - timedelta(days=1)
    (view,) = today.day_routines(user, yesterday, today=TODAY)
    assert [entry.name for entry in view.entries] == ["Read"]
    result = today.check(user, entry_id, day=yesterday, now=NOW)
    assert result.entry.checked and user.xp == 8.0


def test_a_late_check_on_a_day_the_routine_did_not_run_is_refused(user):
    habit = make_habit(user)
    routine = morning(user, habit, weekdays=[TODAY.weekday()])
    day_close.close_days(now=NOW)
    with pytest.raises(Invalid) as refusal:
        today.check(user, entry_of(routine).id, day=TODAY - timedelta(days=1), now=NOW)
    assert refusal.value.key == "ENTRY_NOT_ON_DAY"


def test_a_late_check_before_the_close_ran_uses_the_schedule_of_that_day(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    result = today.check(user, entry_of(routine).id, day=TODAY - timedelta(days=2), now=NOW)
    assert result.entry.xp == 6.0


def test_a_check_on_a_future_day_is_refused(user):
    routine = morning(user, make_habit(user))
    with pytest.raises(Invalid) as refusal:
        today.check(user, entry_of(routine).id, day=TODAY + timedelta(days=1), now=NOW)
    assert refusal.value.key == "CHECK_IN_FUTURE"


def test_the_history_view_offers_the_decayed_xp(user):
    habit = make_habit(user, difficulty=2, importance=3)
    closed_routine(user, habit)
    (view,) = today.day_routines(user, TODAY - timedelta(days=2), today=TODAY)
    assert view.entries[0].offered_xp == 15.0 and not view.entries[0].checked


def test_a_late_check_at_noon_is_still_judged_on_the_users_local_day(user):
    user.timezone = "Pacific/Kiritimati"  # UTC+14: at 12:00 UTC it is already tomorrow there
    habit = make_habit(user)
    routine = morning(user, habit)
    result = today.check(user, entry_of(routine).id, day=TODAY, now=at(TODAY))
    assert result.late and result.entry.xp == 8.0
