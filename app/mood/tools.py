"""Tools for the daily mood: one writer (a level, and a note in the person's own words only when
they ask) and one reader (date, level and whether text exists).

The journal is private: neither tool returns its words, and the writer never replaces them. A
note is appended after what the person wrote (app/mood/services.py `log`).
"""

from datetime import date

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import tool
from app.mood import services as mood

NOTE_MAX = 1000


class MoodLog(BaseModel):
    level: int = Field(description="How the person said they feel: 1 awful, 2 bad, 3 okay, 4 good, 5 great.")
    day: date | None = Field(None, description="A past day (YYYY-MM-DD) they named; leave out for today.")
    note: str | None = Field(
        None,
        max_length=NOTE_MAX,
        description="ONLY when the person asks you to write something down: their own words, as they said "
        "them. It is added after their journal's text for the day, which you cannot read.",
    )


class MoodHistory(BaseModel):
    days: int = Field(14, ge=1, le=mood.HISTORY_DAYS_MAX, description="How many days back, today included.")


@tool(domain="mood", kind="write", label=_l("Logged your mood"), page="/mood", args=MoodLog)
def logDailyMood(ctx, args):
    """Log how the person feels, 1–5, for today (or a past day they name); a second log for the same
    day changes its level. Only a mood they stated — never one you inferred. Their journal is kept."""
    logged = mood.log(ctx.user, args.level, day=args.day, note=args.note)
    return {"logged": logged.as_data()}


@tool(domain="mood", kind="read", label=_l("Read your mood history"), args=MoodHistory)
def getUserMoodHistory(ctx, args):
    """The logged days of the last N days, newest first: date, level 1–5 and whether the person wrote
    in their journal that day. The journal's words are private and not readable."""
    found = mood.history(ctx.user, args.days)
    return {"days": [entry.as_data() for entry in found], "logged": len(found), "of_days": args.days}
