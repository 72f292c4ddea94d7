"""Tasks: one-off or occasional things to do. They carry a streak but no XP of their own. Their
shape is the catalogue's (app/catalogue).
"""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "tasks",
    Area(_l("Tasks"), "check-square", "tasks.index", in_bottom_bar=False),
    export={"tasks": ("tasks", "task_categories")},
    ids={"task_id": "tasks"},
    errors={
        "TASK_NOT_FOUND": _l("We couldn't find that task. It may have been deleted."),
        "TASK_AMBIGUOUS": _l("More than one task is called “%(ref)s”: %(candidates)s. Use its id."),
        "TASK_IN_ROUTINE": _l("This task is used in: %(routines)s. Remove it from the routine first."),
    },
    catalogue=("Tasks",),
    toolset="one-off to-dos: list, create, edit, delete",
)
