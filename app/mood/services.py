"""Mood: how the person felt each local day (a level from 1 to 5) and their private journal.

One entry per user per day: logging a day that has an entry updates it, in one upsert, so two
saves racing never meet a duplicate key. Today is the user's local today; a past day may be
logged, a future one is refused.

The journal is the person writing for themselves. Every reader here answers with `MoodDay`
(date, level, whether text exists) and never loads the words, except `read_journal`, which only
the mood page calls (tests/mood/test_journal_privacy.py scans the code for its callers). The
assistant's tools, the widgets and anything built for a model read `MoodDay` alone.
"""

import calendar
import uuid
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import case

from app.events import announce
from app.extensions import db
from app.mood.models import JOURNAL_MAX, LEVEL_MAX, LEVEL_MIN, MoodEntry
from app.shared.days import today_for
from app.shared.errors import Invalid
from app.shared.models import upsert, utcnow
from app.shared.values import day_from

LEVELS = range(LEVEL_MIN, LEVEL_MAX + 1)
HISTORY_DAYS_MAX = 366
WEEK_DAYS = 7
NOTE_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class MoodDay:
    """A logged day as everything but the mood page sees it: the words are not here to leak."""

    day: date
    level: int
    has_text: bool

    def as_data(self):
        return {"date": self.day.isoformat(), "level": self.level, "has_text": self.has_text}


def _refuse(problems):
    """One refusal naming every bad field; a single problem is also the headline."""
    if problems:
        raise Invalid(next(iter(problems.values())) if len(problems) == 1 else "INVALID_INPUT", details=problems)


def _level(value, problems):
    text = str(value).strip() if value is not None and not isinstance(value, bool) else ""
    if text not in {str(level) for level in LEVELS}:
        problems["level"] = "MOOD_LEVEL_INVALID"
        return None
    return int(text)


def _day(user, value, problems):
    """The local day meant: today when none is given; a future day is refused."""
    current = today_for(user)
    if value in (None, ""):
        return current
    day = day_from(value)
    if day is None:
        problems["day"] = "DATE_INVALID"
    elif day > current:
        problems["day"] = "MOOD_IN_FUTURE"
    return day


def _text(value, problems, field):
    """The person's text as typed (a browser's CRLF line ends made LF, surrounding blank lines
    dropped); blank is no text."""
    text = str(value or "").replace("\r\n", "\n").strip()
    if len(text) > JOURNAL_MAX:
        problems[field] = "MOOD_JOURNAL_TOO_LONG"
    return text or None


def _row(user, day, level, journal=None):
    now = utcnow()
    return {"id": uuid.uuid4(), "user_id": user.id, "day": day, "level": level, "journal": journal,
            "created_at": now, "updated_at": now}  # fmt: skip


_KEY = ("user_id", "day")


def save(user, day, level, journal):
    """The mood page's save: the day's level and its whole journal as the owner edited it
    (blank clears it). A refusal changes nothing, and the page shows the typed text again."""
    problems = {}
    chosen_day = _day(user, day, problems)
    chosen_level = _level(level, problems)
    text = _text(journal, problems, "journal")
    _refuse(problems)
    table = MoodEntry.__table__
    upsert(table, [_row(user, chosen_day, chosen_level, text)], _KEY,
           lambda new: {"level": new.level, "journal": new.journal, "updated_at": new.updated_at})  # fmt: skip
    db.session.commit()
    announce(user, "mood")
    return day_of(user, chosen_day)


def log(user, level, day=None, note=None):
    """Set a day's level (today by default), keeping its journal.

    `note` is the assistant's way to write down, when the person asks, a few words of theirs: it
    is appended after a blank line to whatever the day's journal holds, so text the person wrote
    is never replaced. The journal's limit counts the note (MOOD_JOURNAL_TOO_LONG).
    """
    problems = {}
    chosen_day = _day(user, day, problems)
    chosen_level = _level(level, problems)
    text = _text(note, problems, "note")
    if text and "day" not in problems:
        length = db.select(db.func.length(MoodEntry.journal))
        held = db.session.scalar(length.where(MoodEntry.user_id == user.id, MoodEntry.day == chosen_day))
        if (held or 0) + len(NOTE_SEPARATOR) + len(text) > JOURNAL_MAX:
            problems["note"] = "MOOD_JOURNAL_TOO_LONG"
    _refuse(problems)
    table = MoodEntry.__table__

    def changes(new):
        found = {"level": new.level, "updated_at": new.updated_at}
        if text:
            found["journal"] = case(
                (table.c.journal.is_(None), new.journal), else_=table.c.journal + NOTE_SEPARATOR + new.journal
            )
        return found

    upsert(table, [_row(user, chosen_day, chosen_level, text)], _KEY, changes)
    db.session.commit()
    announce(user, "mood")
    return day_of(user, chosen_day)


# Reading: levels and whether text exists ---------------------------------------------------


def _days(user, *conditions):
    """The user's logged days matching `conditions`, oldest first, without loading any text."""
    statement = (
        db.select(MoodEntry.day, MoodEntry.level, MoodEntry.journal.is_not(None))
        .where(MoodEntry.user_id == user.id, *conditions)
        .order_by(MoodEntry.day)
    )
    return [MoodDay(day, level, bool(has_text)) for day, level, has_text in db.session.execute(statement)]


def day_of(user, day):
    """The `MoodDay` logged for `day`, or None."""
    found = _days(user, MoodEntry.day == day)
    return found[0] if found else None


def history(user, days=14):
    """The logged days among the last `days` (1–366) up to today, newest first."""
    count = days if isinstance(days, int) and not isinstance(days, bool) else None
    if count is None or not 1 <= count <= HISTORY_DAYS_MAX:
        _refuse({"days": "MOOD_DAYS_INVALID"})
    current = today_for(user)
    return list(reversed(_days(user, MoodEntry.day > current - timedelta(days=count), MoodEntry.day <= current)))


def month(user, first):
    """{day: MoodDay} for the logged days of the month starting on `first`."""
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    return {found.day: found for found in _days(user, MoodEntry.day >= first, MoodEntry.day <= last)}


def week(user):
    """The "mood week" widget: the last seven days up to today, oldest first, each with its
    `MoodDay` or None when nothing was logged."""
    current = today_for(user)
    start = current - timedelta(days=WEEK_DAYS - 1)
    logged = {found.day: found for found in _days(user, MoodEntry.day >= start, MoodEntry.day <= current)}
    return [(day, logged.get(day)) for day in (start + timedelta(days=offset) for offset in range(WEEK_DAYS))]


# The words ------------------------------------------------------------------------------------


def read_journal(user, day):
    """The journal text of the user's `day`, or None: the one reader of the words, for the mood
    page and its owner only. Nothing built for a model may call it (see the module docstring)."""
    return db.session.scalar(db.select(MoodEntry.journal).where(MoodEntry.user_id == user.id, MoodEntry.day == day))
