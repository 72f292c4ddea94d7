"""Categories: the areas of life habits, tasks and goals are tagged with, each with its own XP."""

from dataclasses import dataclass, field

from app.catalogue.entities import Entity, iso, progress_data
from app.catalogue.fields import icon, name, note, starting_xp
from app.categories.models import Category
from app.events import announce
from app.extensions import db
from app.goals.models import Goal, goal_categories
from app.habits.models import Habit, habit_categories
from app.routines.models.history import OwnerType, XpDay
from app.shared.errors import Conflict
from app.shared.fields import search_filter, sorted_by
from app.tasks.models import Task, task_categories

CATEGORY = Entity(
    model=Category,
    domain="categories",
    fields={"name": name, "description": note, "icon": icon},
    not_found="CATEGORY_NOT_FOUND",
    ambiguous="CATEGORY_AMBIGUOUS",
)

SORTS = {
    "default": [Category.created_at],
    "name": [db.func.lower(Category.name)],
    "name_desc": [db.func.lower(Category.name).desc()],
    "xp": [Category.xp],
    "xp_desc": [Category.xp.desc()],
    "newest": [Category.created_at.desc()],
    "oldest": [Category.created_at],
}

_USERS = ((Habit, habit_categories, "habit_id"), (Task, task_categories, "task_id"), (Goal, goal_categories, "goal_id"))


@dataclass
class CategoryUse:
    """A category and the habits, tasks and goals tagged with it."""

    category: Category
    habits: list = field(default_factory=list)
    tasks: list = field(default_factory=list)
    goals: list = field(default_factory=list)

    @property
    def in_use(self):
        return bool(self.habits or self.tasks or self.goals)


def listing(user, *, search=None, sort="default"):
    """The user's categories as CategoryUse rows, searched by name/description and sorted."""
    statement = db.select(Category).where(Category.user_id == user.id)
    statement = sorted_by(Category, sort, SORTS, search_filter(Category, search, statement))
    found = db.session.scalars(statement).all()
    uses = {category.id: CategoryUse(category) for category in found}
    for model, link, column in _USERS:
        rows = db.session.execute(
            db.select(link.c.category_id, model)
            .join(model, model.id == link.c[column])
            .where(model.user_id == user.id, link.c.category_id.in_(uses))
            .order_by(db.func.lower(model.name))
        ).all()
        for category_id, item in rows:
            getattr(uses[category_id], model.__tablename__).append(item)
    return list(uses.values())


def usage(user, category_ref):
    """One category with what uses it."""
    category = resolve(user, category_ref)
    return next(use for use in listing(user) if use.category.id == category.id)


FIELDS = CATEGORY.fields
resolve = get = CATEGORY.resolve


def create(user, *, experience="BEGINNER", **fields):
    """Create a category: a `name`, optionally an `icon` (unknown ones fall back to the
    catalogue's default) and a `description`. `experience` (BEGINNER, INTERMEDIATE, ADVANCED)
    sets the starting level (0, 5, 8)."""
    problems = {}
    return CATEGORY.create(user, fields, problems, xp=starting_xp(experience, problems))


def edit(user, category_ref, **changes):
    """Change only the fields given; everything left out keeps its value. The starting
    experience cannot be changed after creation (XP has moved on from it)."""
    return CATEGORY.edit(user, category_ref, changes)


def as_data(category):
    """A category as data: what the export writes, the assistant reads and the edit form starts from."""
    return {
        "id": str(category.id),
        "name": category.name,
        "description": category.description,
        "icon": category.icon,
        "progress": progress_data(category),
        "created_at": iso(category.created_at),
    }


def deletion_refusal(user, category_ref):
    """Why the category cannot be deleted now (CATEGORY_IN_USE, naming the habits, tasks and
    goals that still use it), or None: the delete dialog says so before offering to delete."""
    return _refusal(usage(user, category_ref))


def _refusal(use):
    if not use.in_use:
        return None
    return Conflict("CATEGORY_IN_USE", uses=", ".join(item.name for item in (*use.habits, *use.tasks, *use.goals)))


def delete(user, category_ref):
    """Delete a category and its XP history. Refused while it is in use (`deletion_refusal`)."""
    use = usage(user, category_ref)
    refusal = _refusal(use)
    if refusal is not None:
        raise refusal
    category = use.category
    db.session.execute(db.delete(XpDay).where(XpDay.owner_type == OwnerType.CATEGORY, XpDay.owner_id == category.id))
    db.session.delete(category)
    db.session.commit()
    announce(user, "categories")
