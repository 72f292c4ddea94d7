"""Routines: what a day looks like (timed sections, or a list), which routine runs on which weekday,
today's checks and skips, the outcomes and streaks they settle, the day close and the XP they pay.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "routines",
    Area(_l("Routines"), "calendar", "routines.index"),
    export={
        "routines": ("routines", "routine_sections", "routine_entries"),
        "schedule": ("schedule_days",),
        "day_outcomes": ("day_outcomes",),
        "entry_checks": ("entry_checks",),
        "xp_days": ("xp_days",),
    },
    not_exported={"day_close_marks": "bookkeeping of the day close; the outcomes it froze are exported"},
    ids={"routine_id": "routines", "section_id": "routine_sections", "entry_id": "routine_entries"},
    errors={
        "ROUTINE_NOT_FOUND": _l("We couldn't find that routine. It may have been deleted."),
        "ROUTINE_AMBIGUOUS": _l("More than one routine is called “%(ref)s”: %(candidates)s. Use its id."),
        "ROUTINE_NAME_REQUIRED": _l("Give the routine a name."),
        "ROUTINE_NAME_TOO_LONG": _l("Use at most 256 characters."),
        "ROUTINE_SECTION_REQUIRED": _l("A routine needs at least one section."),
        "ROUTINE_SECTION_NAME_REQUIRED": _l("Give the section a name."),
        "ROUTINE_SECTION_START_REQUIRED": _l("Choose when the section starts."),
        "ROUTINE_SECTION_NOT_FOUND": _l("We couldn't find that section in this routine."),
        "LIST_ROUTINE_HAS_NO_SECTIONS": _l("A list routine has no sections: add habits and tasks to the list itself."),
        "LIST_ROUTINE_HAS_NO_TIMES": _l("Items of a list routine have no times."),
        "TIME_INVALID": _l("Enter a time as HH:MM."),
        "ITEM_END_BEFORE_START": _l("The end time must be after the start time."),
        "ITEM_START_OUT_OF_SECTION": _l("The start time must be within the section's time."),
        "ITEM_END_OUT_OF_SECTION": _l("The end time must be within the section's time."),
        "ENTRY_ITEM_REQUIRED": _l("Choose one habit or one task."),
        "ENTRY_NOT_FOUND": _l("We couldn't find that routine entry. It may have been removed."),
        "ENTRY_ID_REQUIRED": _l(
            "“%(name)s” is a habit or task, not a routine entry. Check or skip it through its entry id: %(entries)s."
        ),
        "ITEM_NOT_IN_ROUTINE": _l("“%(name)s” is not in any routine. Add it to a routine to check it."),
        "ENTRY_NOT_ON_DAY": _l("This item was not part of that day's routine."),
        "CHECK_IN_FUTURE": _l("You can't check a day that hasn't happened yet."),
        "SKIP_IN_FUTURE": _l("You can't skip a day that hasn't happened yet."),
        "DAY_IN_FUTURE": _l("That day hasn't happened yet."),
        "WEEKDAY_INVALID": _l("Choose days from Monday to Sunday."),
        "HISTORY_OWNER_INVALID": _l("History is kept for habits, tasks, routines and your account."),
        "XP_HISTORY_DAYS_INVALID": _l("Choose from 1 to 90 days."),
        "HISTORY_RANGE_INVALID": _l("Choose a start on or before the end, and an end no later than tomorrow."),
    },
    catalogue=("Routines", "Schedules", "Today"),
    toolset="routines, sections, entries, weekday schedules, today: check, skip",
    toolset_also_on=("dashboard",),
)
