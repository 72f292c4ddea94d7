"""Fixtures for routines, today, streaks and the day close: a user living in UTC since spring,
and factories that make habits, tasks and categories straight from the models."""

from datetime import UTC, date, datetime, time

import pytest

from app.categories.models import Category
from app.extensions import db
from app.habits.models import Habit
from app.profile.models import User
from app.routines import schedules
from app.routines import services as routines
from app.tasks.models import Task

# A Wednesday at noon, UTC. Tests move "now" around it instead of reading the clock.
NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
TODAY = date(2026, 6, 10)


def at(day, hour=12):
    """Noon (or `hour`) UTC on `day`: the `now` a service sees."""
    return datetime.combine(day, time(hour), tzinfo=UTC)


@pytest.fixture
def user(app_context, user_id):
    """Ana, in UTC, with an account made long before the days the tests look at."""
    ana = db.session.get(User, user_id)
    ana.timezone = "UTC"
    ana.created_at = datetime(2026, 1, 1, tzinfo=UTC)
    db.session.commit()
    return ana


@pytest.fixture
def other(app_context, other_user_id):
    bruno = db.session.get(User, other_user_id)
    bruno.timezone = "UTC"
    db.session.commit()
    return bruno


def make_category(user, name="Health"):
    category = Category(user_id=user.id, name=name, icon="heart")
    db.session.add(category)
    db.session.commit()
    return category


def make_habit(user, name="Read", difficulty=1, importance=1, categories=(), created=datetime(2026, 1, 1, tzinfo=UTC)):
    habit = Habit(
        user_id=user.id,
        name=name,
        icon="book",
        difficulty=difficulty,
        importance=importance,
        categories=list(categories),
        created_at=created,
    )
    db.session.add(habit)
    db.session.commit()
    return habit


def make_task(user, name="Tidy up", difficulty=1, importance=1, categories=(), one_time=False):
    task = Task(
        user_id=user.id,
        name=name,
        icon="home",
        difficulty=difficulty,
        importance=importance,
        one_time=one_time,
        categories=list(categories),
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    db.session.add(task)
    db.session.commit()
    return task


def morning(user, *items, weekdays=range(7), created=datetime(2026, 1, 1, tzinfo=UTC)):
    """A timed routine "Morning" (07:00–09:00) holding `items`, scheduled on `weekdays`."""
    entries = [{"habit_id" if isinstance(item, Habit) else "task_id": item.id} for item in items]
    routine = routines.create_timed(
        user, "Morning", "sun", [{"name": "Wake up", "starts_at": "07:00", "ends_at": "09:00", "entries": entries}]
    )
    routine.created_at = created
    db.session.commit()
    if weekdays:
        schedules.set_days(user, routine.id, list(weekdays))
    return routine


def entry_of(routine, index=0):
    return routine.entries[index]
