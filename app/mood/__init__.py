"""Mood: how the person felt each local day (a level from 1 to 5) and their private journal."""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "mood",
    Area(_l("Mood"), "smile", "mood.index", in_bottom_bar=False),
    export={"mood": ("mood_entries",)},
    errors={
        "MOOD_LEVEL_INVALID": _l("Choose how you felt, from 1 (awful) to 5 (great)."),
        "MOOD_IN_FUTURE": _l("That day hasn't happened yet. Log a mood for today or a past day."),
        "MOOD_JOURNAL_TOO_LONG": _l("A day's journal holds at most 10,000 characters. Shorten it and save again."),
        "MOOD_DAYS_INVALID": _l("Choose from 1 to 366 days."),
    },
    catalogue=("Mood",),
    toolset="log a day's mood level, read past levels",
)
