"""Study cycles: a week of study minutes shared by notebook pages, the queue of blocks the planner
makes of it, the laps through that queue, and the study sessions that fill them.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Domain, Elsewhere

DOMAIN = Domain(
    "study_cycles",
    Elsewhere("inside the notebook, at /notebook/cycles"),
    export={
        "study_cycles": (
            "study_cycles",
            "study_cycle_days",
            "study_cycle_subjects",
            "study_blocks",
            "study_laps",
            "study_credits",
        ),
        "study_sessions": ("study_sessions", "study_entry_links"),
    },
    ids={"cycle_id": "study_cycles", "session_id": "study_sessions"},
    errors={
        "STUDY_CYCLE_NOT_FOUND": _l("We couldn't find that study cycle. It may have been deleted."),
        "STUDY_CYCLE_NOT_ACTIVE": _l(
            "No active study cycle is called “%(ref)s”. Your active cycles: %(cycles)s. Use a name or an id."
        ),
        "STUDY_CYCLE_AMBIGUOUS": _l("More than one active cycle is called “%(ref)s”: %(candidates)s. Use its id."),
        "STUDY_CYCLE_ARCHIVED": _l("This cycle is archived: its history is kept, and it no longer plans."),
        "STUDY_CYCLE_NAME_REQUIRED": _l("Give the cycle a name."),
        "STUDY_CYCLE_NAME_TOO_LONG": _l("Use at most 120 characters for a cycle's name."),
        "STUDY_SUBJECTS_REQUIRED": _l("Choose at least one notebook page to study."),
        "STUDY_SUBJECT_TWICE": _l("“%(page)s” is in the list twice. Keep it once."),
        "STUDY_SUBJECTS_OVERLAP": _l(
            "“%(inner)s” is inside “%(outer)s”: a cycle can't hold a page together with a page inside it. "
            "Keep one of them."
        ),
        "STUDY_WEEK_EMPTY": _l("Give at least one day of the week some study minutes."),
        "STUDY_MINUTES_STEP": _l("Use minutes in steps of 5 (5, 10, 15…)."),
        "STUDY_DAY_TOO_LONG": _l("A day holds at most 1,440 minutes."),
        "STUDY_WEEK_TOO_SHORT": _l(
            "The week's %(minutes)s minutes can't give each of the %(subjects)s subjects its share. "
            "Add minutes, remove a subject, or lower the minutes set by hand."
        ),
        "STUDY_LARGEST_BLOCK_INVALID": _l("Choose a largest block from 5 to 240 minutes, in steps of 5."),
        "STUDY_MODE_INVALID": _l("Choose how a block ends: when its minutes are studied, or when you reach a concept."),
        "STUDY_BLOCK_NOT_FOUND": _l("This cycle has blocks 1 to %(last)s. Choose one of those numbers."),
        "STUDY_BLOCK_OVER_LARGEST": _l("A block of this cycle holds at most %(largest)s minutes."),
        "STUDY_BLOCK_MODE_CONTRADICTION": _l(
            "A block that ends when you reach a concept can't also end when its minutes are studied. Choose one."
        ),
        "STUDY_CONCEPT_OUTSIDE_SUBJECT": _l(
            "“%(concept)s” is not a page inside “%(subject)s”. "
            "Choose a page inside the subject, or the next concept on the board."
        ),
        "STUDY_SESSION_NOT_FOUND": _l("We couldn't find that study session. It may have been deleted."),
        "STUDY_SESSION_MINUTES_INVALID": _l("Enter from 1 to 600 minutes."),
        "STUDY_SESSION_IN_FUTURE": _l("That day hasn't happened yet. Log study for today or a past day."),
        "STUDY_SESSION_TOO_OLD": _l("Log study from today or the last 30 days."),
        "STUDY_SESSION_NO_CYCLE": _l(
            "“%(page)s” is not a subject of an active cycle, so these minutes would count nowhere. "
            "Add it to a cycle first."
        ),
        "STUDY_SESSIONS_DAYS_INVALID": _l("Choose from 1 to 31 days."),
    },
    catalogue=("Study cycles",),
    toolset="the week's study plan, blocks, laps, today's study, logged sessions",
    toolset_also_on=("notebook/cycles",),  # its own page, inside the notebook's area
)
