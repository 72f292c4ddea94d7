"""Tools for categories, habits and tasks: read, create (returning the new id), edit, delete."""

from typing import Literal

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.tools import views
from app.agent.tools.registry import tool
from app.services import categories, habits, tasks

Experience = Literal["BEGINNER", "INTERMEDIATE", "ADVANCED"]
Scale = Field(ge=1, le=5)


class Search(BaseModel):
    search: str | None = Field(None, description="Only items whose name or description contains this text.")


class Ref(BaseModel):
    ref: str = Field(description="The id, or the exact name (any letter case), read from a list tool first.")


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


@tool(domain="categories", kind="read", label=_l("Read your categories"), args=Search)
def getUserCategories(ctx, args):
    """List the person's categories (areas of life) with their XP and level."""
    rows = [use.category for use in categories.listing(ctx.user, search=args.search)]
    return views.capped(rows, views.category)


@tool(kind="write", label=_l("Created a category"), domain="categories", page="/categories", args=CategoryNew)
def createUserCategory(ctx, args):
    """Create a category (an area of life such as Health or Work). Returns its id."""
    created = categories.create(ctx.user, **args.model_dump())
    return {"created": views.category(created)}


@tool(kind="write", label=_l("Changed a category"), domain="categories", page="/categories", args=CategoryEdit)
def editUserCategory(ctx, args):
    """Change a category's name, icon or description; fields you do not send keep their value."""
    changes = args.model_dump(exclude_unset=True, exclude={"ref"})
    return {"updated": views.category(categories.edit(ctx.user, args.ref, **changes))}


@tool(kind="write", label=_l("Deleted a category"), domain="categories", page="/categories", args=Ref)
def deleteUserCategory(ctx, args):
    """Delete a category. Confirm with the person first. Refused while a habit, task or goal uses
    it: the refusal says which."""
    category = categories.resolve(ctx.user, args.ref)
    name = category.name
    categories.delete(ctx.user, category.id)
    return {"deleted": name}


# Habits -------------------------------------------------------------------------------------


class HabitNew(BaseModel):
    name: str = Field(description="2–256 characters.")
    importance: int = Scale
    difficulty: int = Scale
    categories: list[str] = Field(min_length=1, description="At least one category: ids or exact names.")
    icon: str | None = Field(None, description="An icon id from the catalogue.")
    description: str | None = None
    motivation: str | None = Field(None, description="A motivational phrase, at most 256 characters.")
    experience: Experience = "BEGINNER"


class HabitEdit(Ref):
    name: str | None = None
    importance: int | None = Field(None, ge=1, le=5)
    difficulty: int | None = Field(None, ge=1, le=5)
    categories: list[str] | None = Field(None, description="The complete new list of categories.")
    icon: str | None = None
    description: str | None = None
    motivation: str | None = None


@tool(domain="habits", kind="read", label=_l("Read your habits"), args=Search)
def getUserHabits(ctx, args):
    """List the person's habits (recurring things) with ids, categories, streaks and the routines
    that hold them."""
    using = habits.routines_using(ctx.user)
    return views.capped(habits.listing(ctx.user, search=args.search), lambda h: views.habit(h, using))


@tool(kind="write", label=_l("Created a habit"), domain="habits", page="/habits", args=HabitNew)
def createUserHabit(ctx, args):
    """Create a habit. Returns the new habit with its id (use that id to put it in a routine)."""
    return {"created": views.habit(habits.create(ctx.user, **args.model_dump()))}


@tool(kind="write", label=_l("Changed a habit"), domain="habits", page="/habits", args=HabitEdit)
def editUserHabit(ctx, args):
    """Change some fields of a habit; fields you do not send keep their value."""
    changes = args.model_dump(exclude_unset=True, exclude={"ref"})
    return {"updated": views.habit(habits.edit(ctx.user, args.ref, **changes))}


@tool(kind="write", label=_l("Deleted a habit"), domain="habits", page="/habits", args=Ref)
def deleteUserHabit(ctx, args):
    """Delete a habit. Confirm with the person first. Refused while it is in a routine (the
    refusal names the routines): remove its entries first, if the person agrees."""
    habit = habits.resolve(ctx.user, args.ref)
    name = habit.name
    habits.delete(ctx.user, habit.id)
    return {"deleted": name}


# Tasks --------------------------------------------------------------------------------------


class TaskNew(BaseModel):
    name: str = Field(description="2–256 characters.")
    importance: int = Scale
    difficulty: int = Scale
    categories: list[str] = Field(default_factory=list, description="Optional: ids or exact names.")
    icon: str | None = None
    description: str | None = None
    one_time: bool = Field(False, description="True for a task done once: it goes away after the day it is checked.")


class TaskEdit(Ref):
    name: str | None = None
    importance: int | None = Field(None, ge=1, le=5)
    difficulty: int | None = Field(None, ge=1, le=5)
    categories: list[str] | None = None
    icon: str | None = None
    description: str | None = None
    one_time: bool | None = None


@tool(domain="tasks", kind="read", label=_l("Read your tasks"), args=Search)
def getUserTasks(ctx, args):
    """List the person's tasks with ids, categories and the routines that hold them."""
    using = tasks.routines_using(ctx.user)
    return views.capped(tasks.listing(ctx.user, search=args.search), lambda t: views.task(t, using))


@tool(kind="write", label=_l("Created a task"), domain="tasks", page="/tasks", args=TaskNew)
def createUserTask(ctx, args):
    """Create a task (something the person intends to do). Returns the new task with its id."""
    return {"created": views.task(tasks.create(ctx.user, **args.model_dump()))}


@tool(kind="write", label=_l("Changed a task"), domain="tasks", page="/tasks", args=TaskEdit)
def editUserTask(ctx, args):
    """Change some fields of a task; fields you do not send keep their value."""
    changes = args.model_dump(exclude_unset=True, exclude={"ref"})
    return {"updated": views.task(tasks.edit(ctx.user, args.ref, **changes))}


@tool(kind="write", label=_l("Deleted a task"), domain="tasks", page="/tasks", args=Ref)
def deleteUserTask(ctx, args):
    """Delete a task. Confirm with the person first. Refused while it is in a routine."""
    task = tasks.resolve(ctx.user, args.ref)
    name = task.name
    tasks.delete(ctx.user, task.id)
    return {"deleted": name}
