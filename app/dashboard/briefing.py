"""The daily briefing: two weeks of signals computed here, and a few lines from the model on
what two or three of them mean for today.

Every number the dialog shows comes from `facts`, computed from the same rows the app reads
(the day-close outcomes, mood levels, goals). The model receives them settled, picks signals by
name and says what they mean; a line of its that holds a digit is dropped, so no number on
screen is ever the model's arithmetic.

The text is generated on demand only (never by the nightly day close) and at most once per
account and day: the request that claims the day's row (one conditional UPDATE) calls the model
on a background thread; every other request, in this process or another, waits on the same row.
A failed call is not retried: the facts stand alone.
"""

import json
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from flask import current_app
from jinja2 import Environment, StrictUndefined
from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError

from app import daemons
from app.dashboard.models import BriefingStatus, DailyBriefing
from app.extensions import db
from app.goals.models import Goal, GoalStatus
from app.habits.models import Habit
from app.llm import AnswerUnreadable, BudgetSpent, ChatRequest, LLMError, Message, Model, RateBucket, model
from app.mood import services as mood
from app.profile.models import User
from app.routines import streaks, today
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.shared.days import today_for
from app.shared.ownership import owned

BRIEFING_BUCKET = RateBucket("briefing", "BRIEFING_RATE_LIMIT")


def briefing_model() -> Model:
    """The daily briefing's door to the chain: a ceiling per user and day (one briefing a day is
    generated)."""
    return model("briefing", bucket=BRIEFING_BUCKET)


log = logging.getLogger(__name__)

PROMPTS = Path(__file__).resolve().parent / "prompts"
LANGUAGE_NAMES = {"en": "English", "pt": "Brazilian Portuguese"}
SIGNALS = ("completion", "left_open", "every_day", "mood", "goals")
PICKS_MAX = 3
MEANING_MAX = 300
GOALS_MAX = 5
LISTED_MAX = 5  # habits named under one signal
PACE_MARGIN = 10  # percentage points either side of the straight line that still count as on track
MOOD_TREND_STEP = 0.5
WAIT_STEP = 0.1  # how often a waiting request reads the row


# The facts ----------------------------------------------------------------------------------


def facts(user, day=None):
    """The briefing's numbers for the local `day` (today by default), from the stored rows only:
    identical rows give identical facts.

    Yesterday is left out of every window: its items can still be checked late, so a count of
    them goes stale while the dialog is open. The two windows are the seven days before it and
    the seven before those.
    """
    day = day or today_for(user)
    recent = (day - timedelta(days=8), day - timedelta(days=2))
    previous = (day - timedelta(days=15), day - timedelta(days=9))
    outcomes = _item_outcomes(user, previous[0], recent[1])
    return {
        "day": day.isoformat(),
        "on_screen": _on_screen(user, day),
        "completion": _completion(outcomes, recent, previous),
        "left_open": _left_open(user, outcomes, recent),
        "every_day": _every_day(user, outcomes, recent),
        "mood": _mood(user, day),
        "goals": _goals(user, day),
    }


def _item_outcomes(user, first, last):
    statement = (
        db.select(DayOutcome.owner_type, DayOutcome.owner_id, DayOutcome.day, DayOutcome.outcome)
        .where(
            DayOutcome.user_id == user.id,
            DayOutcome.owner_type.in_([OwnerType.HABIT, OwnerType.TASK]),
            DayOutcome.day >= first,
            DayOutcome.day <= last,
        )
        .order_by(DayOutcome.day, DayOutcome.owner_id)
    )
    return db.session.execute(statement).all()


def _on_screen(user, day):
    """What the dashboard already shows: passed as context the model must not repeat."""
    plan = today.today_routine(user, day)
    return {
        "items_today": plan.total if plan else 0,
        "done_today": plan.done if plan else 0,
        "streak_days": streaks.constance(user, day).days,
    }


def _inside(row, window):
    return window[0] <= row.day <= window[1]


def _percent(part, whole):
    return round(100 * part / whole) if whole else None


def _window(outcomes, window):
    """Items checked among the items due (checked or left open) in the window; a skip and a
    day off are neither."""
    rows = [row for row in outcomes if _inside(row, window)]
    done = sum(1 for row in rows if row.outcome == Outcome.DONE)
    due = done + sum(1 for row in rows if row.outcome == Outcome.MISSED)
    return {
        "from": window[0].isoformat(),
        "to": window[1].isoformat(),
        "done": done,
        "due": due,
        "percent": _percent(done, due),
    }


def _completion(outcomes, recent, previous):
    now, before = _window(outcomes, recent), _window(outcomes, previous)
    change = None if now["percent"] is None or before["percent"] is None else now["percent"] - before["percent"]
    return {"recent": now, "previous": before, "change": change}


def _habit_days(user, outcomes, window):
    """{habit name: [outcomes on the days it appeared]} in the window, in name order."""
    appeared = (Outcome.DONE, Outcome.MISSED, Outcome.SKIPPED)
    by_id = {}
    for row in outcomes:
        if row.owner_type == OwnerType.HABIT and _inside(row, window) and row.outcome in appeared:
            by_id.setdefault(row.owner_id, []).append(row.outcome)
    if not by_id:
        return {}
    names = dict(
        db.session.execute(db.select(Habit.id, Habit.name).where(Habit.user_id == user.id, Habit.id.in_(by_id))).all()
    )
    return dict(sorted((names[habit_id], days) for habit_id, days in by_id.items() if habit_id in names))


def _left_open(user, outcomes, window):
    """Habits left open on more than half of the days they appeared (at least two)."""
    found = []
    for name, days in _habit_days(user, outcomes, window).items():
        open_days = days.count(Outcome.MISSED)
        if len(days) >= 2 and 2 * open_days > len(days):
            found.append({"name": name, "open_days": open_days, "days": len(days)})
    found.sort(key=lambda habit: (-habit["open_days"], habit["name"]))
    return found[:LISTED_MAX]


def _every_day(user, outcomes, window):
    """Habits checked on every day they appeared (at least three)."""
    found = [
        {"name": name, "days": len(days)}
        for name, days in _habit_days(user, outcomes, window).items()
        if len(days) >= 3 and all(outcome == Outcome.DONE for outcome in days)
    ]
    found.sort(key=lambda habit: (-habit["days"], habit["name"]))
    return found[:LISTED_MAX]


def _average(levels):
    return round(sum(levels) / len(levels), 1) if levels else None


def _mood(user, day):
    """Levels only (never the journal): the last fourteen days, and the trend between their halves."""
    logged = [entry for entry in mood.history(user, 14) if entry.day <= day]
    recent = [entry.level for entry in logged if entry.day > day - timedelta(days=7)]
    earlier = [entry.level for entry in logged if entry.day <= day - timedelta(days=7)]
    now, before = _average(recent), _average(earlier)
    trend = None
    if now is not None and before is not None:
        trend = "up" if now - before >= MOOD_TREND_STEP else "down" if before - now >= MOOD_TREND_STEP else "steady"
    levels = [{"date": entry.day.isoformat(), "level": entry.level} for entry in reversed(logged)]
    return {"levels": levels, "recent_average": now, "previous_average": before, "trend": trend}


def _goals(user, day):
    """Each running goal's progress against a straight line from its start to its end."""
    statement = (
        db.select(Goal)
        .where(
            Goal.user_id == user.id,
            Goal.archived_at.is_(None),
            Goal.status != GoalStatus.COMPLETED,
            Goal.start_date <= day,
        )
        .order_by(Goal.end_date, Goal.name)
        .limit(GOALS_MAX)
    )
    found = []
    for goal in db.session.scalars(statement):
        span = (goal.end_date - goal.start_date).days
        elapsed = 1.0 if span <= 0 else min(max((day - goal.start_date).days / span, 0.0), 1.0)
        percent = min(round(100 * goal.current_value / goal.target_value), 100) if goal.target_value else 0
        expected = round(100 * elapsed)
        pace = (
            "ahead"
            if percent >= expected + PACE_MARGIN
            else "behind"
            if percent < expected - PACE_MARGIN
            else ("on_track")
        )
        found.append(
            {
                "name": goal.name,
                "unit": goal.unit,
                "current": goal.current_value,
                "target": goal.target_value,
                "percent": percent,
                "expected_percent": expected,
                "pace": pace,
                "days_left": (goal.end_date - day).days,
            }
        )
    return found


def signals_in(found):
    """The signals the facts hold something for: the only ones the model may pick."""
    present = {
        "completion": found["completion"]["recent"]["due"] > 0,
        "left_open": bool(found["left_open"]),
        "every_day": bool(found["every_day"]),
        "mood": bool(found["mood"]["levels"]),
        "goals": bool(found["goals"]),
    }
    return [name for name in SIGNALS if present[name]]


# The model's answer ---------------------------------------------------------------------------


class BriefingPick(BaseModel):
    signal: str
    meaning: str


class BriefingAnswer(BaseModel):
    """What the model sends: the signals it picked, each with what it means for today."""

    picks: list[BriefingPick]


@cache
def _template():
    environment = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    return environment.from_string((PROMPTS / "briefing.md").read_text(encoding="utf-8"))


def request_for(user, found):
    """The one structured call: the rules, and the facts as data (on-screen ones marked)."""
    system = _template().render(language_name=LANGUAGE_NAMES.get(user.language, "English"), picks_max=PICKS_MAX)
    signals = {name: found[name] for name in signals_in(found)}
    payload = {"today": found["day"], "already_on_screen_do_not_repeat": found["on_screen"], "signals": signals}
    return ChatRequest(system=system, messages=[Message.user(json.dumps(payload, ensure_ascii=False))])


def clean_picks(answer, found):
    """Picks of signals the facts hold, each once, at most three, and without a digit in the
    meaning (the model does not do numbers here; the screen shows the facts')."""
    allowed, kept = set(signals_in(found)), []
    for pick in answer.picks:
        meaning = " ".join(pick.meaning.split())[:MEANING_MAX]
        if pick.signal in allowed and meaning and not any(character.isdigit() for character in meaning):
            kept.append({"signal": pick.signal, "meaning": meaning})
            allowed.discard(pick.signal)
        if len(kept) == PICKS_MAX:
            break
    return kept


# The day's row, its claim and its generation -------------------------------------------------------


@dataclass(frozen=True)
class Briefing:
    """What the dialog shows: the facts at once, the picks once READY."""

    id: str
    facts: dict
    status: str
    picks: list

    @property
    def settled(self):
        return self.status in (BriefingStatus.READY, BriefingStatus.FAILED, BriefingStatus.UNUSABLE)


def _view(row):
    status = row.status
    if status == BriefingStatus.GENERATING and _claim_lapsed(row):
        status = BriefingStatus.FAILED
    return Briefing(str(row.id), row.facts, str(status), list(row.picks or []))


def _claim_lapsed(row):
    """A claim older than the longest a generation may take lost its worker (a restart)."""
    claimed = row.claimed_at if row.claimed_at.tzinfo else row.claimed_at.replace(tzinfo=UTC)
    return datetime.now(UTC) - claimed > timedelta(seconds=current_app.config["BRIEFING_CLAIM_SECONDS"])


def _todays_row(user):
    day = today_for(user)
    query = db.select(DailyBriefing).where(DailyBriefing.user_id == user.id, DailyBriefing.day == day)
    row = db.session.scalar(query)
    if row is not None:
        return row
    db.session.add(DailyBriefing(user_id=user.id, day=day, facts=facts(user, day)))
    try:
        db.session.commit()
    except IntegrityError:  # another request stored today's facts first: theirs stand
        db.session.rollback()
    return db.session.scalar(query)


def _claim(row):
    """Move the row from PENDING to GENERATING; True for the one request whose UPDATE did it."""
    claimed = db.session.execute(
        db.update(DailyBriefing)
        .where(DailyBriefing.id == row.id, DailyBriefing.status == BriefingStatus.PENDING)
        .values(status=BriefingStatus.GENERATING, claimed_at=datetime.now(UTC))
    ).rowcount
    db.session.commit()
    return claimed == 1


def open_today(user, wait=None):
    """Today's briefing: the facts at once; the text when it arrives within `wait` seconds
    (BRIEFING_WAIT_SECONDS by default), else the status says it is still coming."""
    row = _todays_row(user)
    if row.status == BriefingStatus.PENDING and _claim(row):
        _generating.start(row.id, generate, row.id)
    wait = current_app.config["BRIEFING_WAIT_SECONDS"] if wait is None else wait
    deadline = time.monotonic() + wait
    view = _reread(row.id)
    while not view.settled and time.monotonic() < deadline:
        time.sleep(WAIT_STEP)
        view = _reread(row.id)
    return view


def _reread(briefing_id):
    db.session.expire_all()
    return _view(db.session.get(DailyBriefing, briefing_id))


def narrative(user, briefing_id):
    """One of the user's briefings by id, read once: never starts a call (the dialog's poll)."""
    return _view(owned(DailyBriefing, briefing_id, user))


_generating = daemons.Tracked("briefing")


def generate(briefing_id):
    """Ask the model once for the claimed row and store what it said; else FAILED, or UNUSABLE
    when a model answered with nothing readable (so the dialog does not blame the network). No
    retry. Runs on its own thread (a greenlet under gevent), after the request that claimed it."""
    row = db.session.get(DailyBriefing, briefing_id)
    user = db.session.get(User, row.user_id)
    picks, failed = None, BriefingStatus.FAILED
    try:
        answer = briefing_model().structured(request_for(user, row.facts), BriefingAnswer, user=user)
        picks = clean_picks(answer, row.facts)
    except AnswerUnreadable as unusable:
        log.warning("daily briefing %s has no text: %s", briefing_id, unusable)
        failed = BriefingStatus.UNUSABLE
    except (LLMError, BudgetSpent) as failure:
        log.warning("daily briefing %s has no text: %s", briefing_id, failure)
    except Exception:  # a background thread has no caller to tell: the row says FAILED instead
        log.exception("daily briefing %s failed", briefing_id)
        db.session.rollback()
    row.picks = picks or None
    row.status = BriefingStatus.READY if picks else failed
    db.session.commit()
