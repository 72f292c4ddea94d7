"""The dashboard's next steps: what a new account still lacks to have a day worth opening the app
for (a habit, a routine on today, something in it, a first check, a goal), each with the one
action that does it.

A step is done when the user's data says so, never because a card was closed: a step skipped
in onboarding stays until it is done, however it gets done (a page, the assistant, another tab),
and the card leaves the dashboard with the last one.
"""

from dataclasses import dataclass

from flask import url_for
from flask_babel import lazy_gettext as _l

from app.extensions import db
from app.goals.models import Goal
from app.habits.models import Habit
from app.routines import today

# The domains whose writes can finish a step: the card refreshes on them.
DOMAINS = ("routines", "habits", "goals")


@dataclass(frozen=True)
class Step:
    """One thing left to do, with what the button does: `dialog` opens a form in the page's dialog;
    otherwise the link goes to `url` (a page or a place on this one)."""

    key: str
    title: str
    why: str
    action: str
    url: str
    icon: str
    dialog: bool = True


@dataclass(frozen=True)
class Footing:
    """What the steps are decided from: the routines' footing and whether a habit and a goal exist."""

    routines: today.Footing
    has_habit: bool
    has_goal: bool


TITLES = {
    "habit": (_l("Create your first habit"), _l("Something you want to do regularly, like drinking water.")),
    "routine": (_l("Create a routine"), _l("A routine is your day's plan: the habits and tasks you do, and when.")),
    "schedule": (_l("Schedule a routine for today"), _l("Only a routine scheduled on a day shows up on it.")),
    "fill": (_l("Put a habit in today's routine"), _l("Today's routine is empty: add what you want to do today.")),
    "check": (_l("Make your first check"), _l("Check a habit in today's routine when you do it: checks earn XP.")),
    "goal": (_l("Set your first goal"), _l("A goal gives your habits a direction, like reading 12 books this year.")),
}
ACTIONS = {
    "habit": _l("Create habit"),
    "routine": _l("Create routine"),
    "schedule": _l("Choose its days"),
    "fill": _l("Edit today's routine"),
    "check": _l("Go to today's routine"),
    "goal": _l("Create goal"),
}
ICONS = {
    "habit": "repeat",
    "routine": "calendar",
    "schedule": "calendar",
    "fill": "list",
    "check": "check-circle",
    "goal": "target",
}
# A habit, a routine on today with something in it, a first check, a goal: "routine",
# "schedule" and "fill" are one step at three stages, never two of them left at once.
TOTAL = 4


def footing(user):
    """The facts the steps are decided from: two statements."""
    has_habit, has_goal = db.session.execute(
        db.select(
            db.select(Habit.id).where(Habit.user_id == user.id).exists(),
            db.select(Goal.id).where(Goal.user_id == user.id).exists(),
        )
    ).one()
    return Footing(today.footing(user), has_habit, has_goal)


def left(found):
    """The steps still to do, in the order a new user best takes them, from a `Footing`."""
    routines = found.routines
    keys = []
    if not found.has_habit:
        keys.append("habit")
    if routines.first_routine_id is None:
        keys.append("routine")
    elif routines.todays_routine_id is None:
        keys.append("schedule")
    elif not routines.todays_entries:
        keys.append("fill")
    if not routines.checked_once:
        keys.append("check")
    if not found.has_goal:
        keys.append("goal")
    return [_step(key, routines) for key in keys]


def _step(key, routines):
    title, why = TITLES[key]
    if key == "schedule":
        url = url_for("routines.schedule_form", routine_id=routines.first_routine_id)
    elif key == "fill":
        url = url_for("routines.edit", routine_id=routines.todays_routine_id)
    elif key == "check":
        url = "#today-card"  # the card is right below: the check happens there
    else:
        url = url_for(f"{key}s.new")
    return Step(key, title, why, ACTIONS[key], url, ICONS[key], dialog=key != "check")
