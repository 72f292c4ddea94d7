"""The habit tools: get, create, edit and delete, declared as the catalogue declares them
(app/catalogue/tools.py)."""

from flask_babel import lazy_gettext as _l
from pydantic import Field

from app.catalogue.tools import Experience, ItemEdit, ItemNew, Told, declare_entity_tools
from app.habits import services as habits


class HabitNew(ItemNew):
    categories: list[str] = Field(default_factory=list, description="Optional: ids or exact names.")
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
