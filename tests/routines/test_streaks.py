"""Streaks and constance: only a MISSED day breaks them; skips and unscheduled days are neutral."""

import random
from datetime import timedelta
from types import SimpleNamespace

import pytest

from app.extensions import db
from app.profile.models import ConstanceMode
from app.routines import day_close, schedules, streaks, today
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.shared.errors import Invalid
from tests.routines.conftest import TODAY, at, entry_of, make_habit, morning

START = TODAY - timedelta(days=6)  # a Thursday


def days(n, start=START):
    return [start + timedelta(days=i) for i in range(n)]


def test_skip_never_breaks_a_streak(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    monday, tuesday, wednesday = days(3)
    today.check(user, entry_of(routine).id, now=at(monday))
    today.skip(user, entry_of(routine).id, now=at(tuesday))
    today.check(user, entry_of(routine).id, now=at(wednesday))
    day_close.close_days(now=at(wednesday + timedelta(days=1)))
    assert habit.current_streak == 2
    assert streaks.constance(user, wednesday).days == 2


def test_a_missed_day_breaks_the_streak(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    first, missed, third = days(3)
    today.check(user, entry_of(routine).id, now=at(first))
    day_close.close_days(now=at(third, hour=0))
    today.check(user, entry_of(routine).id, now=at(third))
    outcome = streaks.outcome_row(user, OwnerType.HABIT, habit.id, missed).outcome
    assert outcome == Outcome.MISSED
    assert habit.current_streak == 1 and habit.best_streak == 1
    assert streaks.constance(user, third).days == 1


def test_a_day_with_nothing_scheduled_is_neutral(user):
    habit = make_habit(user)
    first, free, third = days(3)
    routine = morning(user, habit, weekdays=[first.weekday(), third.weekday()])
    today.check(user, entry_of(routine).id, now=at(first))
    today.check(user, entry_of(routine).id, now=at(third))
    day_close.close_days(now=at(third + timedelta(days=1)))
    assert streaks.outcome_row(user, OwnerType.HABIT, habit.id, free).outcome == Outcome.NOT_SCHEDULED
    assert streaks.outcome_row(user, OwnerType.USER, user.id, free).outcome == Outcome.NOT_SCHEDULED
    assert habit.current_streak == 2
    assert streaks.constance(user, third).days == 2


def test_today_still_open_does_not_break_the_streak(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    yesterday = TODAY - timedelta(days=1)
    today.check(user, entry_of(routine).id, now=at(yesterday))
    day_close.close_days(now=at(TODAY))
    assert streaks.constance(user, TODAY).days == 1
    assert habit.current_streak == 1


def test_best_streak_never_decreases(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    for day in days(3):
        today.check(user, entry_of(routine).id, now=at(day))
    day_close.close_days(now=at(START + timedelta(days=5)))  # two untouched days follow
    assert habit.current_streak == 0 and habit.best_streak == 3
    assert user.best_streak == 3 and user.max_constance == 3


def test_constance_any_counts_a_day_with_one_entry_checked(user):
    read, run = make_habit(user, "Read"), make_habit(user, "Run")
    routine = morning(user, read, run)
    result = today.check(user, entry_of(routine, 0).id, now=at(TODAY))
    assert result.user["constance"] == 1


def test_constance_any_never_counts_a_day_of_skips_alone(user):
    routine = morning(user, make_habit(user))
    result = today.skip(user, entry_of(routine).id, now=at(TODAY))
    assert result.user["constance"] == 0


def test_constance_complete_needs_every_entry_checked_or_skipped(user):
    user.constance_mode = ConstanceMode.COMPLETE
    read, run = make_habit(user, "Read"), make_habit(user, "Run")
    routine = morning(user, read, run)
    assert today.check(user, entry_of(routine, 0).id, now=at(TODAY)).user["constance"] == 0
    assert today.skip(user, entry_of(routine, 1).id, now=at(TODAY)).user["constance"] == 1


def test_constance_complete_misses_a_half_done_day_once_it_closes(user):
    user.constance_mode = ConstanceMode.COMPLETE
    routine = morning(user, make_habit(user, "Read"), make_habit(user, "Run"))
    yesterday = TODAY - timedelta(days=1)
    today.check(user, entry_of(routine, 0).id, now=at(yesterday))
    day_close.close_days(now=at(TODAY))
    assert streaks.outcome_row(user, OwnerType.USER, user.id, yesterday).outcome == Outcome.MISSED


def test_an_unchecked_day_uncounts_itself(user):
    routine = morning(user, make_habit(user))
    today.check(user, entry_of(routine).id, now=at(TODAY))
    assert today.check(user, entry_of(routine).id, now=at(TODAY)).user["constance"] == 0


def test_a_streak_is_dormant_after_a_fortnight_with_nothing_scheduled(user):
    habit = make_habit(user)
    routine = morning(user, habit, weekdays=[START.weekday()])
    today.check(user, entry_of(routine).id, now=at(START))
    schedules.clear(user, routine.id)
    later = START + timedelta(days=15)
    day_close.close_days(now=at(later))
    figures = streaks.constance(user, later)
    assert figures.days == 1 and figures.dormant


def test_history_has_one_entry_per_day_with_unknown_for_no_row(user):
    db.session.add(
        DayOutcome(user_id=user.id, owner_type=OwnerType.USER, owner_id=user.id, day=START, outcome=Outcome.DONE)
    )
    db.session.commit()
    found = streaks.history(user, "user", start=START - timedelta(days=1), end=START + timedelta(days=1))
    assert [outcome for _day, outcome in found.days] == ["UNKNOWN", "DONE", "UNKNOWN"]


def test_history_is_clamped_to_the_latest_366_days(user):
    found = streaks.history(user, "USER", start=TODAY - timedelta(days=1000), end=TODAY)
    assert len(found.days) == 366 and found.start == TODAY - timedelta(days=365)


def test_history_of_another_users_habit_is_all_unknown(user, other):
    habit = make_habit(other)
    db.session.add(
        DayOutcome(user_id=other.id, owner_type=OwnerType.HABIT, owner_id=habit.id, day=TODAY, outcome=Outcome.DONE)
    )
    db.session.commit()
    found = streaks.history(user, "HABIT", habit.id, start=TODAY, end=TODAY)
    assert found.days == [(TODAY, "UNKNOWN")]


def test_history_refuses_an_unknown_owner_type_and_a_reversed_range(user):
    with pytest.raises(Invalid):
        streaks.history(user, "GOAL", "x")
    with pytest.raises(Invalid):
        streaks.history(user, "USER", start=TODAY, end=TODAY - timedelta(days=2))


FIGURES = ("current_streak", "best_streak", "total_check_ins", "first_check_in", "last_check_in")


@pytest.mark.parametrize("seed", range(24))
def test_the_figures_counted_around_a_day_match_the_walk_over_every_outcome(user, other, seed):
    """A check counts an owner's outcomes around the day it changes (`day_summaries`); the day
    close walks every one of them (`refresh`). Any history — runs, misses, skips, gaps, a row after
    today, another user's rows — and any new outcome (or none) on any day give both the same
    figures and the same constance, the stored best being what the earlier writes left."""
    dice = random.Random(seed)
    kinds = [Outcome.DONE] * 5 + [Outcome.MISSED, Outcome.SKIPPED, Outcome.NOT_SCHEDULED, None]
    first = TODAY - timedelta(days=dice.choice([3, 20, 90]))
    habit = make_habit(user)
    owners = [(OwnerType.USER, user.id), (OwnerType.HABIT, habit.id)]
    rows = {owner: {} for owner in owners}
    for kind, owner_id, owned_by in [(*owner, user) for owner in owners] + [(OwnerType.USER, other.id, other)]:
        for offset in range((TODAY - first).days + 2):  # through tomorrow
            outcome = dice.choice(kinds)
            if outcome is not None:
                day = first + timedelta(days=offset)
                rows.get((kind, owner_id), {})[day] = outcome
                db.session.add(
                    DayOutcome(user_id=owned_by.id, owner_type=kind, owner_id=owner_id, day=day, outcome=outcome)
                )
    db.session.flush()
    streaks.refresh(user, habit, OwnerType.HABIT, TODAY)
    streaks.refresh_account(user, TODAY)
    db.session.commit()

    day = first + timedelta(days=dice.randrange((TODAY - first).days + 2))
    new = {owner: dice.choice(kinds) for owner in owners}
    summaries = streaks.day_summaries(owners, day, TODAY)
    for owner in owners:
        assert summaries[owner].outcome == rows[owner].get(day)
        stored = {"best_streak": habit.best_streak if owner[0] == OwnerType.HABIT else user.best_streak}
        counted = streaks.refresh_around(SimpleNamespace(**stored), summaries[owner], new[owner])
        rows[owner][day] = new[owner]
        walked_outcomes = sorted((d, o) for d, o in rows[owner].items() if o is not None)
        walked = streaks.refresh(user, SimpleNamespace(**stored), owner[0], TODAY, walked_outcomes)
        assert [getattr(counted, name) for name in FIGURES] == [getattr(walked, name) for name in FIGURES]

    account = (OwnerType.USER, user.id)
    streaks.refresh_account_around(user, summaries[account], new[account])
    figures = streaks.constance_around(user, summaries[account], new[account])
    walked_outcomes = sorted((d, o) for d, o in rows[account].items() if o is not None)
    days_now = streaks.current_run(walked_outcomes, TODAY)
    active = any(o in streaks.ACTIVE and TODAY - timedelta(days=13) <= d <= TODAY for d, o in walked_outcomes)
    assert figures.days == days_now
    assert figures.counted_today == (rows[account].get(TODAY) == Outcome.DONE)
    assert figures.dormant == (days_now > 0 and not active)  # no routine: nothing scheduled either
    assert figures.best == max(user.max_constance, longest_run_with_the_stored(user, walked_outcomes), days_now)


def longest_run_with_the_stored(user, outcomes):
    return max(user.best_streak, streaks.longest_run(outcomes))


def test_the_counted_constance_of_an_account_without_outcomes_is_zero(user):
    figures = streaks.constance(user, TODAY)
    assert (figures.days, figures.best, figures.dormant, figures.counted_today) == (0, 0, False, False)
