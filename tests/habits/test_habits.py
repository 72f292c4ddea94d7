"""Habits: what they must be given, partial edits, their level, and never deleting one in use."""

from datetime import date

import pytest

from app.extensions import db
from app.habits import services as habits
from app.habits.models import Habit
from app.routines import xp
from app.routines.models.history import DayOutcome, Outcome, OwnerType, XpDay
from app.shared.errors import Conflict, Invalid
from tests.builders import a_category, a_habit, put_in_routine


@pytest.mark.parametrize("no_categories", [{}, {"categories": []}, {"categories": [""]}])
def test_a_habit_needs_no_category(ana, no_categories):
    habit = habits.create(ana, name="Drink water", importance=3, difficulty=1, **no_categories)
    assert habit.categories == [] and habits.as_data(habit)["categories"] == []


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": "R"}, {"name": "NAME_INVALID"}),
        ({"importance": 0}, {"importance": "SCALE_INVALID"}),
        ({"importance": 6}, {"importance": "SCALE_INVALID"}),
        ({"difficulty": "hard"}, {"difficulty": "SCALE_INVALID"}),
        ({"description": "d" * 257}, {"description": "TEXT_TOO_LONG"}),
        ({"motivation": "m" * 257}, {"motivation": "TEXT_TOO_LONG"}),
        ({"experience": "EXPERT"}, {"experience": "EXPERIENCE_INVALID"}),
    ],
)
def test_invalid_habits_are_refused_field_by_field(ana, fields, problem):
    category = a_category(ana)
    values = {"name": "Run", "importance": 3, "difficulty": 2, "categories": [category.id], **fields}
    with pytest.raises(Invalid) as refused:
        habits.create(ana, **values)
    assert refused.value.details == problem
    assert db.session.scalar(db.select(db.func.count()).select_from(Habit)) == 0


def test_importance_and_difficulty_run_from_1_to_5(ana):
    category = a_category(ana)
    low = habits.create(ana, name="Stretch", importance=1, difficulty="1", categories=[category.id])
    high = habits.create(ana, name="Marathon", importance="5", difficulty=5, categories=[category.id])
    assert (low.importance, low.difficulty, high.importance, high.difficulty) == (1, 1, 5, 5)


def test_a_habit_can_name_its_categories_and_duplicates_count_once(ana):
    health = a_category(ana)
    habit = habits.create(ana, name="Run", importance=3, difficulty=2, categories=["health", health.id, "HEALTH"])
    assert habit.categories == [health]


def test_a_habit_cannot_use_another_users_category(ana, bruno):
    theirs = a_category(bruno, "Bruno's")
    with pytest.raises(Invalid) as refused:
        habits.create(ana, name="Run", importance=3, difficulty=2, categories=[theirs.id])
    assert refused.value.details == {"categories": "CATEGORY_NOT_FOUND"}


def test_a_category_name_two_categories_share_is_refused_with_the_candidates(ana):
    first, second = a_category(ana, "Health"), a_category(ana, "HEALTH")
    with pytest.raises(Invalid) as refused:
        habits.create(ana, name="Run", importance=3, difficulty=2, categories=["health"])
    assert refused.value.key == "CATEGORY_AMBIGUOUS"
    assert str(first.id) in refused.value.to_dict()["message"] and str(second.id) in refused.value.message
    assert db.session.scalar(db.select(db.func.count()).select_from(Habit)) == 0


def test_a_habit_starts_at_the_level_of_the_experience_given(ana):
    habit = a_habit(ana, experience="INTERMEDIATE")
    assert (habit.level, habit.xp) == (5, 1250)


def test_a_habit_edit_changes_only_the_fields_given(ana):
    habit = a_habit(ana, description="Around the park", motivation="Feel light")
    other = a_category(ana, "Sport")
    habits.edit(ana, habit.id, importance=5)
    assert (habit.name, habit.description, habit.motivation, habit.importance, habit.difficulty) == (
        "Run",
        "Around the park",
        "Feel light",
        5,
        2,
    )
    habits.edit(ana, "run", categories=[other.id], description="")
    assert habit.categories == [other] and habit.description is None


def test_a_habit_edit_can_take_away_every_category(ana):
    habit = a_habit(ana)
    habits.edit(ana, habit.id, categories=[])
    assert habit.categories == []


def test_habits_are_searched_filtered_by_category_and_sorted(ana):
    health, mind = a_category(ana, "Health"), a_category(ana, "Mind")
    a_habit(ana, "Run", category=health, importance=2)
    a_habit(ana, "Read", category=mind, importance=5, description="Before bed")
    a_habit(ana, "Swim", category=health, importance=4)
    assert [h.name for h in habits.listing(ana, sort="importance_desc")] == ["Read", "Swim", "Run"]
    assert [h.name for h in habits.listing(ana, category=str(health.id), sort="name")] == ["Run", "Swim"]
    assert [h.name for h in habits.listing(ana, search="bed")] == ["Read"]
    assert [h.name for h in habits.listing(ana, search="100%")] == []


def test_a_habit_in_a_routine_cannot_be_deleted_and_the_refusal_names_the_routine(ana):
    habit = a_habit(ana)
    put_in_routine(ana, habit, "Morning routine")
    with pytest.raises(Conflict) as refused:
        habits.delete(ana, habit.id)
    assert refused.value.key == "HABIT_IN_ROUTINE" and refused.value.status == 409
    assert "Morning routine" in refused.value.message
    assert db.session.get(Habit, habit.id) is not None


def test_deleting_a_habit_removes_its_outcomes_and_xp_history(ana):
    habit = a_habit(ana)
    category = habit.categories[0]
    xp.grant(ana, 20, [habit, category])
    db.session.add(
        DayOutcome(
            user_id=ana.id, owner_type=OwnerType.HABIT, owner_id=habit.id, day=date(2026, 3, 1), outcome=Outcome.DONE
        )
    )
    db.session.commit()
    habits.delete(ana, habit.id)
    assert db.session.scalar(db.select(db.func.count()).select_from(DayOutcome)) == 0
    assert {row.owner_type for row in db.session.scalars(db.select(XpDay))} == {OwnerType.USER, OwnerType.CATEGORY}


def test_resolving_a_habit_by_a_name_two_habits_share_lists_both(ana):
    first, second = a_habit(ana, "Run"), a_habit(ana, "run")
    with pytest.raises(Invalid) as refused:
        habits.resolve(ana, "RUN")
    assert refused.value.key == "HABIT_AMBIGUOUS"
    assert str(first.id) in refused.value.message and str(second.id) in refused.value.message
    assert habits.resolve(ana, first.id) is first
