"""The category tools: get, create, edit and delete, declared as the catalogue declares them
(app/catalogue/tools.py)."""

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.catalogue.tools import Experience, Ref, Told, declare_entity_tools
from app.categories import services as categories


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
