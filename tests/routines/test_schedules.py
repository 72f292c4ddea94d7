"""Schedules: one routine per weekday; taking a day moves it and says from where."""

import pytest

from app.routines import schedules, today
from app.routines import services as routines
from app.routines.models.routines import RoutineKind
from app.shared import days
from app.shared.errors import Invalid, NotFound


def routine(user, name):
    return routines.create_list(user, name)


def test_a_routine_runs_on_the_days_it_is_given(user):
    gym = routine(user, "Gym")
    change = schedules.set_days(user, gym.id, [0, "Wednesday", "fri"])
    assert change.weekdays == [0, 2, 4] and change.moved == []
    assert {day: r.name for day, r in schedules.week(user).items()} == {0: "Gym", 2: "Gym", 4: "Gym"}


def test_taking_a_day_moves_it_from_the_other_routine_and_says_so(user):
    gym, rest = routine(user, "Gym"), routine(user, "Rest")
    schedules.set_days(user, gym.id, [0, 1, 2])
    change = schedules.set_days(user, rest.id, [2, 5])
    assert [(day.weekday, day.from_routine_name) for day in change.moved] == [(2, "Gym")]
    assert change.to_dict()["moved"][0]["from_routine_id"] == str(gym.id)
    assert {day: r.name for day, r in schedules.week(user).items()} == {0: "Gym", 1: "Gym", 2: "Rest", 5: "Rest"}


def test_setting_days_replaces_the_old_ones(user):
    gym = routine(user, "Gym")
    schedules.set_days(user, gym.id, [0, 1])
    schedules.set_days(user, gym.id, [1, 3])
    assert sorted(schedules.week(user)) == [1, 3]


def test_clearing_unschedules_the_routine(user):
    gym = routine(user, "Gym")
    schedules.set_days(user, gym.id, [0])
    schedules.clear(user, gym.id)
    assert schedules.week(user) == {}


def test_an_unknown_weekday_is_refused(user):
    gym = routine(user, "Gym")
    with pytest.raises(Invalid) as refusal:
        schedules.set_days(user, gym.id, [7])
    assert refusal.value.details == {"weekdays": "WEEKDAY_INVALID"}


def test_another_users_routine_cannot_be_scheduled(user, other):
    theirs = routine(other, "Theirs")
    with pytest.raises(NotFound):
        schedules.set_days(user, theirs.id, [0])
    assert schedules.week(other) == {}


def test_schedules_are_per_user(user, other):
    schedules.set_days(user, routine(user, "Mine").id, [0])
    schedules.set_days(other, routine(other, "Theirs").id, [0])
    assert schedules.week(user)[0].name == "Mine" and schedules.week(other)[0].name == "Theirs"


def test_a_routine_created_with_days_runs_on_them_at_once(user):
    today_weekday = days.today_for(user).weekday()
    created = schedules.create_scheduled(
        user, RoutineKind.TIMED, "Mornings", "sun", [{"name": "Wake", "starts_at": "07:00"}], [str(today_weekday)]
    )
    assert created.weekdays == [today_weekday] and created.moved == []
    assert today.today_routine(user).to_dict()["name"] == "Mornings"


def test_a_list_routine_created_on_a_held_day_takes_it_and_says_so(user):
    gym = routine(user, "Gym")
    schedules.set_days(user, gym.id, [0, 1])
    created = schedules.create_scheduled(user, RoutineKind.LIST, "Rest", weekdays=["monday", "sunday"])
    assert created.routine.kind == RoutineKind.LIST
    assert [(day.weekday, day.from_routine_name) for day in created.moved] == [(0, "Gym")]
    assert {day: r.name for day, r in schedules.week(user).items()} == {0: "Rest", 1: "Gym", 6: "Rest"}


def test_a_routine_created_without_days_waits_for_a_schedule(user):
    created = schedules.create_scheduled(user, RoutineKind.LIST, "Someday")
    assert created.weekdays == [] and schedules.week(user) == {}


def test_a_bad_day_creates_no_routine(user):
    with pytest.raises(Invalid) as refused:
        schedules.create_scheduled(user, RoutineKind.LIST, "Gym", weekdays=["funday"])
    assert refused.value.details == {"weekdays": "WEEKDAY_INVALID"}
    assert routines.listing(user) == []
