"""Habits: recurring things a person wants to do, tagged with categories if they like, earning XP
and a streak when checked in a routine. Their shape is the catalogue's (app/catalogue).
"""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "habits",
    Area(_l("Habits"), "repeat", "habits.index"),
    export={"habits": ("habits", "habit_categories")},
    ids={"habit_id": "habits"},
    errors={
        "HABIT_NOT_FOUND": _l("We couldn't find that habit. It may have been deleted."),
        "HABIT_AMBIGUOUS": _l("More than one habit is called “%(ref)s”: %(candidates)s. Use its id."),
        "HABIT_IN_ROUTINE": _l("This habit is used in: %(routines)s. Remove it from the routine first."),
    },
    catalogue=("Habits",),
    toolset="list, create, edit, delete",
)
