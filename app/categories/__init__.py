"""Categories: the areas of life habits, tasks and goals are tagged with, each with its own XP."""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "categories",
    Area(_l("Categories"), "grid", "categories.index", in_bottom_bar=False),
    export={"categories": ("categories",)},
    ids={"category_id": "categories"},
    errors={
        "CATEGORY_NOT_FOUND": _l("We couldn't find that category. It may have been deleted."),
        "CATEGORY_AMBIGUOUS": _l("More than one category is called “%(ref)s”: %(candidates)s. Use its id."),
        "CATEGORY_IN_USE": _l("This category is used in: %(uses)s. Remove it from them first."),
    },
    catalogue=("Categories",),
    toolset="areas of life: list, create, edit, delete",
)
