"""Habits: recurring things a person wants to do, tagged with categories, earning XP and a streak."""

from sqlalchemy.orm import selectinload

from app.events import announce
from app.extensions import db
from app.models import Habit, RoutineEntry
from app.models.habits import habit_categories
from app.models.history import DayOutcome, OwnerType, XpDay
from app.services import icons, routines
from app.services.entity_fields import (
    UNSET,
    apply,
    category_filter,
    clean_name,
    clean_note,
    clean_scale,
    given,
    item_sorts,
    owned_categories,
    refuse_if,
    resolve_named,
    search_filter,
    sorted_by,
    starting_xp,
)
from app.services.errors import Conflict

SORTS = {
    **item_sorts(Habit),
    "xp": [Habit.xp],
    "xp_desc": [Habit.xp.desc()],
    "streak_desc": [Habit.current_streak.desc()],
}


def listing(user, *, search=None, sort="default", category=None):
    """The user's habits: `search` matches name or description, `category` is a category id,
    `sort` one of SORTS (unknown: default, the order they were created)."""
    statement = db.select(Habit).where(Habit.user_id == user.id).options(selectinload(Habit.categories))
    statement = search_filter(Habit, search, statement)
    statement = category_filter(Habit, habit_categories, "habit_id", category, user, statement)
    return db.session.scalars(sorted_by(Habit, sort, SORTS, statement)).all()


def routines_using(user):
    """habit id -> the routines (names, once each) that hold it."""
    return routines.names_by_item(user, RoutineEntry.habit_id)


def resolve(user, ref):
    """The user's habit by id or exact name (any letter case); an ambiguous name is refused
    with HABIT_AMBIGUOUS listing the candidates."""
    return resolve_named(Habit, user, ref, not_found="HABIT_NOT_FOUND", ambiguous="HABIT_AMBIGUOUS")


get = resolve


def create(
    user,
    *,
    name,
    importance,
    difficulty,
    categories,
    icon=None,
    description=None,
    motivation=None,
    experience="BEGINNER",
):
    """Create a habit. Importance and difficulty are 1–5; `categories` (ids or names, at least
    one) must be the user's own; `experience` sets the starting level (0, 5 or 8)."""
    problems = {}
    habit = Habit(
        user_id=user.id,
        name=clean_name(name, problems),
        description=clean_note(description, problems, "description"),
        motivation=clean_note(motivation, problems, "motivation"),
        icon=icons.resolve(icon),
        importance=clean_scale(importance, problems, "importance"),
        difficulty=clean_scale(difficulty, problems, "difficulty"),
        xp=starting_xp(experience, problems),
        categories=owned_categories(user, categories, problems, required=True),
    )
    refuse_if(problems)
    db.session.add(habit)
    db.session.commit()
    announce(user, "habits")
    return habit


def edit(
    user,
    habit_ref,
    *,
    name=UNSET,
    description=UNSET,
    motivation=UNSET,
    icon=UNSET,
    importance=UNSET,
    difficulty=UNSET,
    categories=UNSET,
):
    """A partial edit: only the fields given change; every field left out keeps its value
    (pass None or "" to clear a description or motivation). XP and streaks are never edited."""
    habit = resolve(user, habit_ref)
    problems, changes = {}, {}
    if given(name):
        changes["name"] = clean_name(name, problems)
    if given(description):
        changes["description"] = clean_note(description, problems, "description")
    if given(motivation):
        changes["motivation"] = clean_note(motivation, problems, "motivation")
    if given(icon):
        changes["icon"] = icons.resolve(icon)
    if given(importance):
        changes["importance"] = clean_scale(importance, problems, "importance")
    if given(difficulty):
        changes["difficulty"] = clean_scale(difficulty, problems, "difficulty")
    if given(categories):
        changes["categories"] = owned_categories(user, categories, problems, required=True)
    refuse_if(problems)
    apply(habit, changes)
    db.session.commit()
    announce(user, "habits")
    return habit


def deletion_refusal(user, habit_ref):
    """Why the habit cannot be deleted now (HABIT_IN_ROUTINE, naming the routines that hold it), or
    None: the delete dialog says so before offering to delete."""
    habit = resolve(user, habit_ref)
    holding = routines_using(user).get(habit.id)
    return Conflict("HABIT_IN_ROUTINE", routines=", ".join(holding)) if holding else None


def delete(user, habit_ref):
    """Delete a habit with its day outcomes and XP history.
    Refused while a routine holds it (`deletion_refusal`)."""
    habit = resolve(user, habit_ref)
    refusal = deletion_refusal(user, habit.id)
    if refusal is not None:
        raise refusal
    for history in (DayOutcome, XpDay):
        db.session.execute(
            db.delete(history).where(history.owner_type == OwnerType.HABIT, history.owner_id == habit.id)
        )
    db.session.delete(habit)
    db.session.commit()
    announce(user, "habits")
