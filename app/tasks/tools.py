"""The task tools: get, create, edit and delete, declared as the catalogue declares them
(app/catalogue/tools.py)."""

from flask_babel import lazy_gettext as _l
from pydantic import Field

from app.catalogue.tools import ItemEdit, ItemNew, Told, declare_entity_tools
from app.tasks import services as tasks


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
