"""Tasks: one-off or occasional things to do. They carry a streak but no XP of their own."""

from app.catalogue.entities import RoutineItem, category_refs, iso, streak_data
from app.catalogue.fields import any_categories, flag, icon, item_sorts, name, note, scale
from app.routines.models.history import DayOutcome, OwnerType
from app.routines.models.routines import RoutineEntry
from app.tasks.models import Task, task_categories

TASK = RoutineItem(
    model=Task,
    domain="tasks",
    fields={
        "name": name,
        "description": note,
        "icon": icon,
        "importance": scale,
        "difficulty": scale,
        "categories": any_categories,
        "one_time": flag,  # a one-time task leaves the list once done
    },
    not_found="TASK_NOT_FOUND",
    ambiguous="TASK_AMBIGUOUS",
    sorts=item_sorts(Task),
    category_link=task_categories,
    category_column="task_id",
    entry_column=RoutineEntry.task_id,
    in_routine="TASK_IN_ROUTINE",
    history=(DayOutcome,),
    owner_type=OwnerType.TASK,
)
SORTS, FIELDS = TASK.sorts, TASK.fields
listing, count, routines_using = TASK.listing, TASK.count, TASK.routines_using
categories_in_use = TASK.categories_in_use
resolve = get = TASK.resolve
deletion_refusal, delete = TASK.deletion_refusal, TASK.delete


def create(user, **fields):
    """Create a task: `name`, `importance` and `difficulty` (1–5) are required; `categories`
    (the user's own, ids or names), `icon`, `description` and `one_time` are not."""
    return TASK.create(user, fields)


def edit(user, task_ref, **changes):
    """A partial edit: only the fields given change (None or "" clears the description, []
    removes every category). A task made recurring again forgets the day it was done."""
    return TASK.edit(user, task_ref, changes, follows=_done_on_follows_one_time)


def _done_on_follows_one_time(task, changes):
    return {"done_on": None} if changes.get("one_time") is False else {}


def as_data(task):
    """A task as data: what the export writes, the assistant reads and the edit form starts from."""
    return {
        "id": str(task.id),
        "name": task.name,
        "description": task.description,
        "icon": task.icon,
        "importance": task.importance,
        "difficulty": task.difficulty,
        "one_time": task.one_time,
        "done_on": iso(task.done_on),
        "categories": category_refs(task),
        "streak": streak_data(task),
        "created_at": iso(task.created_at),
    }
