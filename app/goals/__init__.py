"""Goals: a target value to reach by a date, arranged in a tree, completed for XP."""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "goals",
    Area(_l("Goals"), "target", "goals.index"),
    export={"goals": ("goals", "goal_categories")},
    ids={"goal_id": "goals"},
    errors={
        "GOAL_NOT_FOUND": _l("We couldn't find that goal. It may have been deleted."),
        "GOAL_AMBIGUOUS": _l("More than one goal matches “%(ref)s”: %(candidates)s. Use its exact name or id."),
        "GOAL_CYCLE": _l("A goal can't go under one of its own sub-goals."),
        "GOAL_SELF_PARENT": _l("A goal can't go under itself."),
        "GOAL_PARENT_ARCHIVED": _l("This goal is archived. Restore it before putting goals under it."),
        "GOAL_STATUS_INVALID": _l("Choose Not started or In progress; use Complete on the goal to finish it."),
        "TARGET_INVALID": _l("Enter a target of at least 0.01."),
        "UNIT_INVALID": _l("Enter a unit of 1 to 64 characters."),
        "VALUE_INVALID": _l("Enter a number of zero or more."),
        "AMOUNT_INVALID": _l("Enter an amount greater than zero."),
        "VALUE_TOO_LARGE": _l("Use a number no larger than 1,000,000,000,000."),
        "DATES_OUT_OF_ORDER": _l("The end date can't be before the start date."),
        "TERM_INVALID": _l("Choose short, medium or long term."),
    },
    catalogue=("Goals",),
    toolset="list, create, edit, delete, progress, complete, archive, nest",
)
