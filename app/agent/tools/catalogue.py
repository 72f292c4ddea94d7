"""Tools for categories, habits and tasks: read, create (returning the new id), edit, delete.

Each entity declares its four tools once (`declare_entity_tools`): the names follow
get<Plural> / create<One> / edit<One> / delete<One>, and what differs — labels, typed
arguments, what the model is told, how a list is read — is in the declaration.
"""

import inspect
from dataclasses import dataclass
from typing import Literal

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.tools import views
from app.agent.tools.registry import Proposal, pinned, tool
from app.services import categories, habits, tasks

Experience = Literal["BEGINNER", "INTERMEDIATE", "ADVANCED"]
Scale = Field(ge=1, le=5)


class Search(BaseModel):
    search: str | None = Field(None, description="Only items whose name or description contains this text.")


class Ref(BaseModel):
    ref: str = Field(description="The id, or the exact name (any letter case), read from a list tool first.")


@dataclass(frozen=True)
class Told:
    """A tool's chip label (translated, for the person) and its description (for the model)."""

    label: object
    description: str
    proposal: object = None  # the delete card's words, with %(name)s (a delete waits for the person's click)


def declare_entity_tools(service, *, told, nouns, new, change, reads=Search, listing=None):
    """Register get<many>, create<one>, edit<one> and delete<one> (`nouns`: one, many) as
    adapters into `service`, the domain's service module (named for its domain): its listing,
    create, edit, resolve, delete and as_data.

    `told` maps "get", "create", "edit", "delete" to what each tool says; `reads`, `new` and
    `change` are the typed arguments of get, create and edit. `listing(user, args)` reads the
    rows (default: `service.listing` with the search).
    """
    domain = service.__name__.rsplit(".", 1)[-1]
    one, many = nouns
    args = {"get": reads, "create": new, "edit": change, "delete": Ref}
    page = f"/{domain}"
    listing = listing or (lambda user, arguments: service.listing(user, search=arguments.search))

    def shown(user):
        """How a row reads: its data, with the routines that hold it for a routine item."""
        if hasattr(service, "routines_using"):
            return views.held(service.as_data, service.routines_using(user))
        return service.as_data

    def get(ctx, arguments):
        return views.capped(listing(ctx.user, arguments), shown(ctx.user))

    def create(ctx, arguments):
        return {"created": service.as_data(service.create(ctx.user, **arguments.model_dump()))}

    def edit(ctx, arguments):
        changes = arguments.model_dump(exclude_unset=True, exclude={"ref"})
        return {"updated": service.as_data(service.edit(ctx.user, arguments.ref, **changes))}

    def delete(ctx, arguments):
        row = service.resolve(ctx.user, arguments.ref)
        name = row.name
        service.delete(ctx.user, row.id)
        return {"deleted": name}

    def delete_preview(ctx, arguments):
        """The row the delete names, refused at once when the service would refuse it (in use)."""
        row = service.resolve(ctx.user, arguments.ref)
        refusal = service.deletion_refusal(ctx.user, row.id) if hasattr(service, "deletion_refusal") else None
        if refusal is not None:
            raise refusal
        summary = told["delete"].proposal % {"name": row.name}
        return Proposal(summary, pinned(arguments, ref=row.id), {"id": str(row.id), "name": row.name})

    declaring_module = inspect.currentframe().f_back.f_globals["__name__"]  # the domain's tool module
    adapters = (("get", get, many), ("create", create, one), ("edit", edit, one), ("delete", delete, one))
    for verb, handler, noun in adapters:
        handler.__name__ = handler.__qualname__ = f"{verb}User{noun}"
        handler.__module__ = declaring_module
        handler.__doc__ = told[verb].description
        kind = "read" if verb == "get" else "write"
        where = None if verb == "get" else page
        confirm = delete_preview if verb == "delete" else None
        tool(domain=domain, kind=kind, label=told[verb].label, page=where, args=args[verb], confirm=confirm)(handler)


# Categories ---------------------------------------------------------------------------------


class CategoryNew(BaseModel):
    name: str = Field(description="2–256 characters.")
    icon: str | None = Field(None, description="An icon id from the catalogue.")
    description: str | None = Field(None, description="At most 256 characters.")
    experience: Experience = Field("BEGINNER", description="How experienced the person already is in this area.")


class CategoryEdit(Ref):
    name: str | None = None
    icon: str | None = None
    description: str | None = None


declare_entity_tools(
    categories,
    told={
        "get": Told(
            _l("Read your categories"), "List the person's categories (areas of life) with their XP and level."
        ),
        "create": Told(
            _l("Created a category"), "Create a category (an area of life such as Health or Work). Returns its id."
        ),
        "edit": Told(
            _l("Changed a category"),
            "Change a category's name, icon or description; fields you do not send keep their value.",
        ),
        "delete": Told(
            _l("Deleted a category"),
            "Delete a category. Refused while a habit, task or goal uses it: the refusal says which.",
            _l("Delete the category “%(name)s”"),
        ),
    },
    nouns=("Category", "Categories"),
    new=CategoryNew,
    change=CategoryEdit,
    listing=lambda user, arguments: [use.category for use in categories.listing(user, search=arguments.search)],
)


# Habits and tasks ---------------------------------------------------------------------------


class ItemNew(BaseModel):
    """What a new habit and a new task both take."""

    name: str = Field(description="2–256 characters.")
    importance: int = Scale
    difficulty: int = Scale
    icon: str | None = Field(None, description="An icon id from the catalogue.")
    description: str | None = None


class ItemEdit(Ref):
    """What an edit of a habit or a task can change besides its own fields."""

    name: str | None = None
    importance: int | None = Field(None, ge=1, le=5)
    difficulty: int | None = Field(None, ge=1, le=5)
    icon: str | None = None
    description: str | None = None


class HabitNew(ItemNew):
    categories: list[str] = Field(min_length=1, description="At least one category: ids or exact names.")
    motivation: str | None = Field(None, description="A motivational phrase, at most 256 characters.")
    experience: Experience = "BEGINNER"


class HabitEdit(ItemEdit):
    categories: list[str] | None = Field(None, description="The complete new list of categories.")
    motivation: str | None = None


declare_entity_tools(
    habits,
    told={
        "get": Told(
            _l("Read your habits"),
            "List the person's habits (recurring things) with ids, categories, streaks and the routines that "
            "hold them.",
        ),
        "create": Told(
            _l("Created a habit"),
            "Create a habit. Returns the new habit with its id (use that id to put it in a routine).",
        ),
        "edit": Told(_l("Changed a habit"), "Change some fields of a habit; fields you do not send keep their value."),
        "delete": Told(
            _l("Deleted a habit"),
            "Delete a habit with its history. Refused while it is in a routine (the refusal names the "
            "routines): remove its entries first, if the person agrees.",
            _l("Delete the habit “%(name)s” with its streak and history"),
        ),
    },
    nouns=("Habit", "Habits"),
    new=HabitNew,
    change=HabitEdit,
)


class TaskNew(ItemNew):
    categories: list[str] = Field(default_factory=list, description="Optional: ids or exact names.")
    one_time: bool = Field(False, description="True for a task done once: it goes away after the day it is checked.")


class TaskEdit(ItemEdit):
    categories: list[str] | None = None
    one_time: bool | None = None


declare_entity_tools(
    tasks,
    told={
        "get": Told(
            _l("Read your tasks"), "List the person's tasks with ids, categories and the routines that hold them."
        ),
        "create": Told(
            _l("Created a task"),
            "Create a task (something the person intends to do). Returns the new task with its id.",
        ),
        "edit": Told(_l("Changed a task"), "Change some fields of a task; fields you do not send keep their value."),
        "delete": Told(
            _l("Deleted a task"),
            "Delete a task with its history. Refused while it is in a routine.",
            _l("Delete the task “%(name)s” with its history"),
        ),
    },
    nouns=("Task", "Tasks"),
    new=TaskNew,
    change=TaskEdit,
)
