"""Habits: recurring things a person wants to do, tagged with categories, earning XP and a streak."""

from app.catalogue.entities import RoutineItem, category_refs, iso, progress_data, streak_data
from app.catalogue.fields import any_categories, icon, item_sorts, name, note, scale, starting_xp
from app.habits.models import Habit, habit_categories
from app.routines.models.history import DayOutcome, OwnerType, XpDay
from app.routines.models.routines import RoutineEntry

HABIT = RoutineItem(
    model=Habit,
    domain="habits",
    fields={
        "name": name,
        "description": note,
        "motivation": note,
        "icon": icon,
        "importance": scale,
        "difficulty": scale,
        "categories": any_categories,
    },
    not_found="HABIT_NOT_FOUND",
    ambiguous="HABIT_AMBIGUOUS",
    sorts={
        **item_sorts(Habit),
        "xp": [Habit.xp],
        "xp_desc": [Habit.xp.desc()],
        "streak_desc": [Habit.current_streak.desc()],
    },
    category_link=habit_categories,
    category_column="habit_id",
    entry_column=RoutineEntry.habit_id,
    in_routine="HABIT_IN_ROUTINE",
    history=(DayOutcome, XpDay),  # its day outcomes and its XP history go with it
    owner_type=OwnerType.HABIT,
)


def create(user, *, experience="BEGINNER", **fields):
    """Create a habit: `name`, `importance` and `difficulty` (1–5) are required; `categories`
    (the user's own, ids or names), `icon`, `description` and `motivation` are not. A habit
    without a category earns its XP like any other; no category shares it. `experience`
    (BEGINNER, INTERMEDIATE, ADVANCED) sets the starting level (0, 5 or 8)."""
    problems = {}
    return HABIT.create(user, fields, problems, xp=starting_xp(experience, problems))


SORTS, FIELDS = HABIT.sorts, HABIT.fields
listing, count, routines_using = HABIT.listing, HABIT.count, HABIT.routines_using
categories_in_use = HABIT.categories_in_use
resolve = get = HABIT.resolve
deletion_refusal, delete = HABIT.deletion_refusal, HABIT.delete


def as_data(habit):
    """A habit as data: what the export writes, the assistant reads and the edit form starts from."""
    return {
        "id": str(habit.id),
        "name": habit.name,
        "description": habit.description,
        "motivation": habit.motivation,
        "icon": habit.icon,
        "importance": habit.importance,
        "difficulty": habit.difficulty,
        "categories": category_refs(habit),
        "progress": progress_data(habit),
        "streak": streak_data(habit),
        "created_at": iso(habit.created_at),
    }


def edit(user, habit_ref, **changes):
    """A partial edit: only the fields given change (None or "" clears a description or
    motivation). XP and streaks are never edited."""
    return HABIT.edit(user, habit_ref, changes)
