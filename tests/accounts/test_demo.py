"""`flask seed-demo`: the demo account arrives with two months of a believable life, once.

The life takes seconds to live: every test reads the demo that `demo_app` (tests/conftest.py)
seeds once per worker, in a database of its own.
"""

import pytest

from app.categories.models import Category
from app.extensions import db
from app.goals.models import Goal, GoalStatus
from app.habits.models import Habit
from app.mood import services as mood
from app.routines import streaks
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.routines.models.routines import Routine, RoutineKind, ScheduleDay
from app.tasks.models import Task
from tests.conftest import sign_in


def row_counts(app):
    with app.app_context():
        return {
            table.name: db.session.scalar(db.select(db.func.count()).select_from(table))
            for table in db.metadata.sorted_tables
        }


def owned(model, user, *where):
    return db.session.scalars(db.select(model).where(model.user_id == user.id, *where)).all()


def test_first_seed_creates_the_account_and_its_life(demo_app):
    assert "Created demo account demo@beyou.app / password beyou-demo-2026" in demo_app.first_output
    assert "Gave it a life: 5 categories, 12 habits, 6 tasks, 5 goals, 3 routines" in demo_app.first_output


def test_seeding_again_changes_no_row(demo_app):
    before = row_counts(demo_app)
    result = demo_app.test_cli_runner().invoke(args=["seed-demo"])
    assert result.exit_code == 0, result.output
    assert "Already there: demo account demo@beyou.app / password beyou-demo-2026" in result.output
    assert "nothing changed" in result.output
    assert row_counts(demo_app) == before


def test_demo_has_its_areas_habits_and_tasks(demo_account):
    assert {category.name for category in owned(Category, demo_account)} == {
        "Health",
        "Mind",
        "Work",
        "Home",
        "Relationships",
    }
    assert all(category.icon != "star" for category in owned(Category, demo_account))  # catalogue ids, not the fallback
    assert len(owned(Habit, demo_account)) == 12
    assert len(owned(Task, demo_account)) == 6
    assert len(owned(Task, demo_account, Task.one_time.is_(True))) == 1


def test_demo_goals_hold_a_sub_goal_and_a_finished_one(demo_account):
    found = owned(Goal, demo_account)
    assert len(found) == 5
    assert len([goal for goal in found if goal.parent_id is not None]) == 1
    finished = [goal for goal in found if goal.status == GoalStatus.COMPLETED]
    assert len(finished) == 1 and finished[0].xp_reward > 0


def test_demo_week_is_shared_by_two_timed_routines_and_a_list_waits(demo_account):
    found = owned(Routine, demo_account)
    timed = [routine for routine in found if routine.kind == RoutineKind.TIMED]
    listed = [routine for routine in found if routine.kind == RoutineKind.LIST]
    assert len(timed) == 2 and len(listed) == 1
    assert all(len(routine.sections) == 3 and routine.entries for routine in timed)
    assert sorted(day.weekday for day in owned(ScheduleDay, demo_account)) == list(range(7))
    assert listed[0].schedule_days == [] and listed[0].entries


def test_demo_has_two_months_of_days_with_streaks_that_mean_something(demo_account):
    days = owned(DayOutcome, demo_account, DayOutcome.owner_type == OwnerType.USER)
    assert len(days) >= 50
    outcomes = {day.outcome for day in owned(DayOutcome, demo_account, DayOutcome.owner_type == OwnerType.HABIT)}
    assert {Outcome.DONE, Outcome.SKIPPED, Outcome.MISSED} <= outcomes
    constance = streaks.constance(demo_account)
    assert constance.days > 0 and constance.best > constance.days  # one lost day broke a longer run
    assert max(habit.best_streak for habit in owned(Habit, demo_account)) >= 7
    assert demo_account.xp > 0 and demo_account.level > 1


def test_demo_is_past_the_tutorial_with_widgets_chosen(demo_account):
    assert demo_account.tutorial_done
    assert "constanceHeatmap" in demo_account.widgets and "dailyProgress" in demo_account.widgets


@pytest.mark.parametrize(
    ("page", "shows"),
    [("/dashboard", b" rhythm"), ("/habits", b"Drink a glass of water"), ("/routines", b"Errands")],
)
def test_demo_pages_render(demo_app, page, shows):
    client = demo_app.test_client()
    sign_in(client, email=demo_app.config["DEMO_EMAIL"], password=demo_app.config["DEMO_PASSWORD"])
    response = client.get(page)
    assert response.status_code == 200
    assert shows in response.data


def test_demo_has_two_weeks_of_moods_some_written_about(demo_account):
    days = mood.history(demo_account, 15)
    assert len(days) == 14 and {day.level for day in days} >= {2, 3, 4, 5}
    assert 0 < sum(day.has_text for day in days) < 14
