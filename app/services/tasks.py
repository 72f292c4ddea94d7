"""Tasks: one-off or occasional things to do. They carry a streak but no XP of their own."""

from sqlalchemy.orm import selectinload

from app.events import announce
from app.extensions import db
from app.models import RoutineEntry, Task
from app.models.history import DayOutcome, OwnerType
from app.models.tasks import task_categories
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
)
from app.services.errors import Conflict

SORTS = item_sorts(Task)


def listing(user, *, search=None, sort="default", category=None):
    """The user's tasks: `search` matches name or description, `category` is a category id,
    `sort` one of SORTS (unknown: default, the order they were created)."""
    statement = db.select(Task).where(Task.user_id == user.id).options(selectinload(Task.categories))
    statement = search_filter(Task, search, statement)
    statement = category_filter(Task, task_categories, "task_id", category, user, statement)
    return db.session.scalars(sorted_by(Task, sort, SORTS, statement)).all()


def routines_using(user):
    """task id -> the routines (names, once each) that hold it."""
    return routines.names_by_item(user, RoutineEntry.task_id)


def resolve(user, ref):
    """The user's task by id or exact name (any letter case); an ambiguous name is refused
    with TASK_AMBIGUOUS listing the candidates."""
    return resolve_named(Task, user, ref, not_found="TASK_NOT_FOUND", ambiguous="TASK_AMBIGUOUS")


get = resolve


def create(user, *, name, importance, difficulty, categories=(), icon=None, description=None, one_time=False):
    """Create a task. Importance and difficulty are 1–5; `categories` (ids or names) are
    optional and must be the user's own; a `one_time` task leaves the list once done."""
    problems = {}
    task = Task(
        user_id=user.id,
        name=clean_name(name, problems),
        description=clean_note(description, problems, "description"),
        icon=icons.resolve(icon),
        importance=clean_scale(importance, problems, "importance"),
        difficulty=clean_scale(difficulty, problems, "difficulty"),
        one_time=bool(one_time),
        categories=owned_categories(user, categories, problems, required=False),
    )
    refuse_if(problems)
    db.session.add(task)
    db.session.commit()
    announce(user, "tasks")
    return task


def edit(
    user,
    task_ref,
    *,
    name=UNSET,
    description=UNSET,
    icon=UNSET,
    importance=UNSET,
    difficulty=UNSET,
    categories=UNSET,
    one_time=UNSET,
):
    """A partial edit: only the fields given change; every field left out keeps its value
    (pass None or "" to clear the description, [] to remove every category)."""
    task = resolve(user, task_ref)
    problems, changes = {}, {}
    if given(name):
        changes["name"] = clean_name(name, problems)
    if given(description):
        changes["description"] = clean_note(description, problems, "description")
    if given(icon):
        changes["icon"] = icons.resolve(icon)
    if given(importance):
        changes["importance"] = clean_scale(importance, problems, "importance")
    if given(difficulty):
        changes["difficulty"] = clean_scale(difficulty, problems, "difficulty")
    if given(categories):
        changes["categories"] = owned_categories(user, categories, problems, required=False)
    if given(one_time):
        changes["one_time"] = bool(one_time)
        if not one_time:
            changes["done_on"] = None
    refuse_if(problems)
    apply(task, changes)
    db.session.commit()
    announce(user, "tasks")
    return task


def deletion_refusal(user, task_ref):
    """Why the task cannot be deleted now (TASK_IN_ROUTINE, naming the routines that hold it), or
    None: the delete dialog says so before offering to delete."""
    task = resolve(user, task_ref)
    holding = routines_using(user).get(task.id)
    return Conflict("TASK_IN_ROUTINE", routines=", ".join(holding)) if holding else None


def delete(user, task_ref):
    """Delete a task with its day outcomes.
    Refused while a routine holds it (`deletion_refusal`)."""
    task = resolve(user, task_ref)
    refusal = deletion_refusal(user, task.id)
    if refusal is not None:
        raise refusal
    db.session.execute(
        db.delete(DayOutcome).where(DayOutcome.owner_type == OwnerType.TASK, DayOutcome.owner_id == task.id)
    )
    db.session.delete(task)
    db.session.commit()
    announce(user, "tasks")
