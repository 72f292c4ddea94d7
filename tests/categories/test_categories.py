"""Categories: the areas of life, their starting level, and never losing one that is in use."""

import pytest

from app.categories import services as categories
from app.categories.models import Category
from app.extensions import db
from app.routines import xp
from app.routines.models.history import OwnerType, XpDay
from app.shared.errors import Conflict, Invalid, NotFound
from tests.builders import a_category, a_goal, a_habit, a_task


def test_a_category_keeps_its_name_description_and_icon(ana):
    category = categories.create(ana, name="  Health ", description="Body and mind", icon="emoji-run")
    assert (category.name, category.description, category.icon) == ("Health", "Body and mind", "emoji-run")
    assert category.level == 0 and category.xp == 0


@pytest.mark.parametrize(
    ("experience", "level", "xp"), [("BEGINNER", 0, 0), ("INTERMEDIATE", 5, 1250), ("ADVANCED", 8, 3200)]
)
def test_starting_experience_sets_the_starting_level_at_its_threshold(ana, experience, level, xp):
    category = categories.create(ana, name="Work", icon="briefcase", experience=experience)
    assert (category.level, category.xp) == (level, xp)


def test_starting_experience_is_a_baseline_not_xp_earned_today(ana):
    categories.create(ana, name="Work", icon="briefcase", experience="ADVANCED")
    assert db.session.scalar(db.select(db.func.count()).select_from(XpDay)) == 0
    assert ana.xp == 0


def test_an_unknown_icon_falls_back_to_the_default(ana):
    assert categories.create(ana, name="Work", icon="not-an-icon").icon == "star"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": "H"}, {"name": "NAME_INVALID"}),
        ({"name": "x" * 257}, {"name": "NAME_INVALID"}),
        ({"name": "Health", "description": "d" * 257}, {"description": "TEXT_TOO_LONG"}),
        ({"name": "Health", "experience": "GURU"}, {"experience": "EXPERIENCE_INVALID"}),
    ],
)
def test_invalid_categories_are_refused_field_by_field(ana, fields, problem):
    with pytest.raises(Invalid) as refused:
        categories.create(ana, icon="heart", **fields)
    assert refused.value.key == "INVALID_INPUT"
    assert refused.value.details == problem
    assert db.session.scalar(db.select(db.func.count()).select_from(Category)) == 0


def test_names_of_2_and_256_characters_are_accepted(ana):
    categories.create(ana, name="Hi", icon="heart")
    categories.create(ana, name="x" * 256, icon="heart")


def test_edit_changes_only_what_is_given(ana):
    category = a_category(ana, description="Body")
    categories.edit(ana, category.id, name="Health and body")
    assert (category.name, category.description, category.icon) == ("Health and body", "Body", "heart")


def test_a_refused_edit_changes_nothing(ana):
    category = a_category(ana)
    with pytest.raises(Invalid):
        categories.edit(ana, category.id, name="Body", description="d" * 300)
    db.session.expire_all()
    assert category.name == "Health" and category.description is None


def test_the_listing_says_what_uses_each_category(ana):
    health = a_category(ana)
    a_habit(ana, "Run", category=health)
    a_task(ana, "Book a check-up", categories=[health.id])
    a_goal(ana, "Run 100 km", categories=[health.id])
    (use,) = [use for use in categories.listing(ana) if use.category.id == health.id]
    assert [h.name for h in use.habits] == ["Run"]
    assert [t.name for t in use.tasks] == ["Book a check-up"]
    assert [g.name for g in use.goals] == ["Run 100 km"]


def test_the_listing_searches_and_sorts(ana):
    a_category(ana, "Work", description="Career")
    a_category(ana, "Health", description="Body")
    a_category(ana, "Family")
    assert [use.category.name for use in categories.listing(ana, sort="name")] == ["Family", "Health", "Work"]
    assert [use.category.name for use in categories.listing(ana, search="CAREER")] == ["Work"]


def test_a_category_in_use_is_refused_naming_where(ana):
    health = a_category(ana)
    a_habit(ana, "Run", category=health)
    a_goal(ana, "Run 100 km", categories=[health.id])
    with pytest.raises(Conflict) as refused:
        categories.delete(ana, health.id)
    assert refused.value.key == "CATEGORY_IN_USE" and refused.value.status == 409
    assert "Run, Run 100 km" in refused.value.message
    assert db.session.get(Category, health.id) is not None


def test_deleting_a_category_removes_its_xp_history(ana):
    health = a_category(ana)
    xp.grant(ana, 30, [health])
    db.session.commit()
    categories.delete(ana, health.id)
    remaining = db.session.scalars(db.select(XpDay.owner_type)).all()
    assert remaining == [OwnerType.USER]
    assert db.session.get(Category, health.id) is None


def test_resolve_by_id_or_exact_name_in_any_case(ana):
    health = a_category(ana)
    assert categories.resolve(ana, str(health.id)) is health
    assert categories.resolve(ana, "HEALTH") is health
    with pytest.raises(NotFound) as missing:
        categories.resolve(ana, "Heal")
    assert missing.value.key == "CATEGORY_NOT_FOUND"


def test_an_ambiguous_name_is_refused_listing_the_candidates(ana):
    first = a_category(ana, "Health")
    second = a_category(ana, "health")
    with pytest.raises(Invalid) as refused:
        categories.resolve(ana, "Health")
    assert refused.value.key == "CATEGORY_AMBIGUOUS"
    assert str(first.id) in refused.value.message and str(second.id) in refused.value.message


def test_another_users_category_is_not_found_like_an_unknown_one(ana, bruno):
    theirs = a_category(bruno, "Bruno's")
    for call in (
        lambda: categories.get(ana, theirs.id),
        lambda: categories.edit(ana, theirs.id, name="Mine now"),
        lambda: categories.delete(ana, theirs.id),
        lambda: categories.resolve(ana, "Bruno's"),
    ):
        with pytest.raises(NotFound) as refused:
            call()
        assert refused.value.key == "CATEGORY_NOT_FOUND"
    db.session.expire_all()
    assert theirs.name == "Bruno's"
