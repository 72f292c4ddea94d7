"""The briefing's numbers are computed here, from the day-close rows, mood levels and goals:
the same rows always give the same facts, and the model receives them settled."""

import json
from datetime import timedelta

from app.dashboard import briefing
from app.goals import services as goals
from app.mood import services as mood
from app.shared.days import today_for
from tests.briefing.conftest import outcomes
from tests.builders import a_habit, a_task


def test_completion_compares_the_seven_days_before_yesterday_with_the_seven_before(ana):
    run = a_habit(ana, "Run")
    outcomes(ana, run, (2, "DONE"), (3, "DONE"), (4, "MISSED"), (5, "DONE"), (9, "MISSED"), (10, "DONE"))
    completion = briefing.facts(ana)["completion"]
    assert (completion["recent"]["done"], completion["recent"]["due"], completion["recent"]["percent"]) == (3, 4, 75)
    assert (completion["previous"]["done"], completion["previous"]["due"], completion["previous"]["percent"]) == (
        1,
        2,
        50,
    )
    assert completion["change"] == 25


def test_yesterday_is_left_out_of_every_signal_neither_name_nor_count(ana):
    read = a_habit(ana, "Read")
    outcomes(ana, read, (1, "MISSED"), (1 + 14, "MISSED"))
    found = briefing.facts(ana)
    assert found["completion"]["recent"]["due"] == 0 and found["left_open"] == []
    assert "Read" not in json.dumps(found)


def test_a_skip_is_neither_done_nor_due(ana):
    run = a_habit(ana, "Run")
    outcomes(ana, run, (2, "DONE"), (3, "SKIPPED"), (4, "NOT_SCHEDULED"))
    assert briefing.facts(ana)["completion"]["recent"]["percent"] == 100


def test_a_habit_left_open_on_most_days_it_appeared_is_named(ana):
    floss, run = a_habit(ana, "Floss"), a_habit(ana, "Run")
    outcomes(ana, floss, (2, "MISSED"), (3, "MISSED"), (4, "DONE"))
    outcomes(ana, run, (2, "MISSED"), (3, "DONE"), (4, "DONE"))
    assert briefing.facts(ana)["left_open"] == [{"name": "Floss", "open_days": 2, "days": 3}]


def test_a_habit_checked_on_every_day_it_appeared_is_named_and_tasks_are_not(ana):
    water, call = a_habit(ana, "Water"), a_task(ana, "Call mom")
    outcomes(ana, water, (2, "DONE"), (3, "DONE"), (5, "DONE"))
    outcomes(ana, call, (2, "DONE"), (3, "DONE"), (4, "DONE"))
    assert briefing.facts(ana)["every_day"] == [{"name": "Water", "days": 3}]


def test_mood_carries_levels_and_the_trend_between_the_two_weeks(ana):
    current = today_for(ana)
    for back, level in ((0, 4), (2, 5), (8, 2), (10, 2)):
        mood.save(ana, current - timedelta(days=back), level, "")
    found = briefing.facts(ana)["mood"]
    assert (found["recent_average"], found["previous_average"], found["trend"]) == (4.5, 2.0, "up")
    assert [day["level"] for day in found["levels"]] == [2, 2, 5, 4]  # oldest first


def test_each_goal_s_pace_is_measured_against_a_straight_line(ana):
    current = today_for(ana)
    period = {"start_date": current - timedelta(days=50), "end_date": current + timedelta(days=50), "unit": "km"}
    goals.create(ana, name="Walk", target_value=100, current_value=20, **period)
    goals.create(ana, name="Swim", target_value=100, current_value=55, **period)
    goals.create(ana, name="Bike", target_value=100, current_value=75, **period)
    found = {goal["name"]: goal for goal in briefing.facts(ana)["goals"]}
    assert {name: (goal["percent"], goal["expected_percent"], goal["pace"]) for name, goal in found.items()} == {
        "Walk": (20, 50, "behind"),
        "Swim": (55, 50, "on_track"),
        "Bike": (75, 50, "ahead"),
    }
    assert found["Walk"]["days_left"] == 50


def test_identical_rows_give_identical_facts(ana):
    run = a_habit(ana, "Run")
    outcomes(ana, run, (2, "DONE"), (3, "MISSED"), (4, "MISSED"), (9, "DONE"))
    mood.save(ana, today_for(ana), 3, "")
    first = briefing.facts(ana)
    assert briefing.facts(ana) == first
    assert json.loads(json.dumps(first)) == first  # stored as JSON as it is


def test_what_the_dashboard_shows_goes_to_the_model_marked_not_to_repeat(ana):
    run = a_habit(ana, "Run")
    outcomes(ana, run, (2, "DONE"))
    request = briefing.request_for(ana, briefing.facts(ana))
    payload = json.loads(request.messages[0].content)
    assert set(payload["already_on_screen_do_not_repeat"]) == {"items_today", "done_today", "streak_days"}
    assert set(payload["signals"]) == {"completion"}  # only the signals holding something
    assert "Never write a number" in request.system
