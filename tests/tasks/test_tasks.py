"""Tasks: optional categories, one-time tasks, partial edits, and never deleting one in use."""

from datetime import date

import pytest

from app.extensions import db
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.shared.errors import Conflict, Invalid
from app.tasks import services as tasks
from app.tasks.models import Task
from tests.builders import a_category, a_task, put_in_routine


def test_a_task_needs_no_category(ana):
    task = tasks.create(ana, name="Call mom", importance=2, difficulty=1)
    assert task.categories == [] and task.one_time is False


def test_a_one_time_task_is_marked_so(ana):
    assert tasks.create(ana, name="Renew passport", importance=4, difficulty=2, one_time=True).one_time


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": ""}, {"name": "NAME_INVALID"}),
        ({"importance": None}, {"importance": "SCALE_INVALID"}),
        ({"difficulty": 9}, {"difficulty": "SCALE_INVALID"}),
        ({"categories": ["Nowhere"]}, {"categories": "CATEGORY_NOT_FOUND"}),
    ],
)
def test_invalid_tasks_are_refused_field_by_field(ana, fields, problem):
    values = {"name": "Call mom", "importance": 2, "difficulty": 1, **fields}
    with pytest.raises(Invalid) as refused:
        tasks.create(ana, **values)
    assert refused.value.details == problem
    assert db.session.scalar(db.select(db.func.count()).select_from(Task)) == 0


def test_a_task_edit_changes_only_the_fields_given(ana):
    health = a_category(ana)
    task = a_task(ana, description="Sunday", categories=[health.id])
    tasks.edit(ana, task.id, one_time=True)
    assert (task.name, task.description, task.categories, task.one_time) == ("Call mom", "Sunday", [health], True)
    tasks.edit(ana, task.id, categories=[])
    assert task.categories == []


def test_a_task_in_a_routine_cannot_be_deleted(ana):
    task = a_task(ana)
    put_in_routine(ana, task, "Evening routine")
    with pytest.raises(Conflict) as refused:
        tasks.delete(ana, task.id)
    assert refused.value.key == "TASK_IN_ROUTINE"
    assert "Evening routine" in refused.value.message


def test_deleting_a_task_removes_its_outcomes(ana):
    task = a_task(ana)
    db.session.add(
        DayOutcome(
            user_id=ana.id, owner_type=OwnerType.TASK, owner_id=task.id, day=date(2026, 3, 1), outcome=Outcome.MISSED
        )
    )
    db.session.commit()
    tasks.delete(ana, "call mom")
    assert db.session.scalar(db.select(db.func.count()).select_from(DayOutcome)) == 0
    assert db.session.scalar(db.select(db.func.count()).select_from(Task)) == 0
