"""Goals: a target value to reach by a date, arranged in a tree, completed for XP.

Decisions worth knowing (the original differed):
- Undoing a completion takes back exactly the stored `xp_reward`, on the day it was granted, so
  totals and the XP history return to where they were (the original recomputed the formula).
- "Today" (completion date, the consistency bonus, deadlines) is the user's local date.
- Archiving touches one goal only: its active sub-goals stay active and show at the top of the
  active tree until the parent is restored. Deleting a goal moves its sub-goals up to its parent.

Its declaration (GOAL: fields and refusal keys) closes the module, after the checks it names.
"""

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy.orm import selectinload

from app.catalogue.entities import Entity, category_refs, iso
from app.catalogue.fields import any_categories, apply, category_filter, cleaned, icon, name, note
from app.events import announce
from app.extensions import db
from app.goals.models import Goal, GoalStatus, GoalTerm, goal_categories
from app.routines import xp
from app.shared import days
from app.shared.errors import Invalid, NotFound
from app.shared.fields import UNSET, given, refuse_if, search_filter, sorted_by
from app.shared.values import NUMBER_MAX, day_from, number_from

UNIT_MAX = 64
TARGET_MIN = 0.01

SORTS = {
    "default": [Goal.end_date, Goal.created_at],
    "name": [db.func.lower(Goal.name)],
    "name_desc": [db.func.lower(Goal.name).desc()],
    "end_soon": [Goal.end_date],
    "end_late": [Goal.end_date.desc()],
    "xp_desc": [Goal.xp_reward.desc()],
    "progress_desc": [(Goal.current_value / Goal.target_value).desc()],
    "newest": [Goal.start_date.desc()],
    "oldest": [Goal.start_date],
}


# Reading -------------------------------------------------------------------------------


def listing(user, *, archived=False, search=None, status=None, category=None, sort="default"):
    """The user's goals, flat: active ones, or only archived ones with `archived=True`.
    `status` is a GoalStatus name, `category` a category id, `sort` one of SORTS."""
    statement = (
        db.select(Goal)
        .where(Goal.user_id == user.id, Goal.archived_at.is_not(None) if archived else Goal.archived_at.is_(None))
        .options(selectinload(Goal.categories))
    )
    if status:
        statement = statement.where(Goal.status == _status_or_none(status))
    statement = search_filter(Goal, search, statement)
    statement = category_filter(Goal, goal_categories, "goal_id", category, user, statement)
    return db.session.scalars(sorted_by(Goal, sort, SORTS, statement)).all()


@dataclass
class TreeRow:
    goal: Goal
    depth: int
    # Set when the goal's parent is hidden from this view (archived, or filtered out).
    hidden_parent: Goal | None = None


def tree(user, **filters):
    """`listing(...)` arranged as a tree: each goal under its parent when the parent is in the
    same view, else at the top (with `hidden_parent` naming where it really sits)."""
    goals = listing(user, **filters)
    shown = {goal.id for goal in goals}
    children = {}
    for goal in goals:
        if goal.parent_id in shown:
            children.setdefault(goal.parent_id, []).append(goal)
    rows = []

    def walk(goal, depth):
        hidden = goal.parent if depth == 0 and goal.parent_id else None
        rows.append(TreeRow(goal, depth, hidden))
        for child in children.get(goal.id, ()):
            walk(child, depth + 1)

    for goal in goals:
        if goal.parent_id not in shown:
            walk(goal, 0)
    return rows


def resolve(user, ref):
    """The user's goal by id, exact name, or a case-insensitive piece of one name. Several
    matches (after preferring active goals over archived ones) are refused with GOAL_AMBIGUOUS,
    whose message lists each candidate's name and id."""
    return GOAL.resolve(user, ref)


get = resolve


@dataclass
class Horizon:
    overdue: list
    this_week: list
    this_month: list
    later: list

    def groups(self):
        """(key, goals) in the order the dashboard shows them."""
        return [
            ("overdue", self.overdue),
            ("this_week", self.this_week),
            ("this_month", self.this_month),
            ("later", self.later),
        ]

    @property
    def empty(self):
        return not (self.overdue or self.this_week or self.this_month or self.later)


def horizon(user, today=None):
    """Active, unfinished goals by deadline: overdue, this week (to Sunday), the rest of this
    month, later. Completed and archived goals are left out: the dashboard shows what is ahead."""
    today = today or days.today_for(user)
    week_end = today + timedelta(days=6 - today.weekday())
    next_month = date(today.year + today.month // 12, today.month % 12 + 1, 1)
    month_end = next_month - timedelta(days=1)
    found = Horizon([], [], [], [])
    for goal in listing(user, sort="end_soon"):
        if goal.status == GoalStatus.COMPLETED:
            continue
        if goal.end_date < today:
            found.overdue.append(goal)
        elif goal.end_date <= week_end:
            found.this_week.append(goal)
        elif goal.end_date <= month_end:
            found.this_month.append(goal)
        else:
            found.later.append(goal)
    return found


# Writing -------------------------------------------------------------------------------


def create(user, *, parent=None, **fields):
    """Create a goal. `target_value` > 0, `current_value` ≥ 0 (default 0), `start_date` ≤
    `end_date` (dates or ISO strings) and a `unit` are required with the `name`; `term`
    SHORT_TERM|MEDIUM_TERM|LONG_TERM (default MEDIUM_TERM), `categories` (ids or names),
    `icon`, `description`, `motivation` and `parent` (a goal, by id or name, to sit under) are
    optional. It starts NOT_STARTED, or IN_PROGRESS when the current value is above zero; only
    `complete` finishes it."""
    problems = {}
    values = GOAL.clean_all(user, fields, problems)
    _check_period(values["start_date"], values["end_date"], problems)
    parent_id = _parent_id(user, None, parent, problems)
    refuse_if(problems)
    goal = Goal(user_id=user.id, parent_id=parent_id, xp_reward=0.0, **values)
    goal.status = GoalStatus.IN_PROGRESS if goal.current_value > 0 else GoalStatus.NOT_STARTED
    db.session.add(goal)
    db.session.commit()
    announce(user, "goals")
    return goal


def edit(user, goal_ref, *, status=UNSET, parent=UNSET, **changes):
    """A partial edit: only the fields given change; every field left out keeps its value.
    `status` may only be NOT_STARTED or IN_PROGRESS on an unfinished goal (finishing and
    un-finishing go through `complete`, which moves XP). `parent` None moves it to the top."""
    goal = resolve(user, goal_ref)
    problems = {}
    clean = cleaned(user, GOAL.fields, changes, problems)
    if given(status):
        clean["status"] = _editable_status(goal, status, problems)
    _check_period(clean.get("start_date", goal.start_date), clean.get("end_date", goal.end_date), problems)
    if given(parent):
        clean["parent_id"] = _parent_id(user, goal, parent, problems)
    refuse_if(problems)
    apply(goal, clean)
    if "status" not in clean and goal.status == GoalStatus.NOT_STARTED and goal.current_value > 0:
        goal.status = GoalStatus.IN_PROGRESS
    db.session.commit()
    announce(user, "goals")
    return goal


def as_data(goal):
    """A goal as data: what the export writes, the assistant reads and the edit form starts from."""
    return {
        "id": str(goal.id),
        "parent_id": str(goal.parent_id) if goal.parent_id else None,
        "name": goal.name,
        "description": goal.description,
        "motivation": goal.motivation,
        "icon": goal.icon,
        "target_value": goal.target_value,
        "current_value": goal.current_value,
        "unit": goal.unit,
        "start_date": iso(goal.start_date),
        "end_date": iso(goal.end_date),
        "term": str(goal.term),
        "status": str(goal.status),
        "completed_on": iso(goal.completed_on),
        "xp_reward": goal.xp_reward or 0.0,
        "archived_at": iso(goal.archived_at),
        "archived": goal.archived_at is not None,
        "categories": category_refs(goal),
        "created_at": iso(goal.created_at),
    }


def delete(user, goal_ref):
    """Delete a goal; its sub-goals move up to its parent (or to the top). XP already granted
    for completing it stays earned."""
    goal = resolve(user, goal_ref)
    for child in list(goal.children):
        child.parent = goal.parent
    db.session.delete(goal)
    db.session.commit()
    announce(user, "goals")


def increase(user, goal_ref, value=1):
    """Add `value` (> 0, default 1) to the current value. The first increase starts a
    NOT_STARTED goal; reaching the target does not complete it (that is the user's call)."""
    goal = resolve(user, goal_ref)
    amount = _amount(user, value)
    goal.current_value = _within_bound((goal.current_value or 0) + amount)
    if goal.status == GoalStatus.NOT_STARTED:
        goal.status = GoalStatus.IN_PROGRESS
    db.session.commit()
    announce(user, "goals")
    return goal


def decrease(user, goal_ref, value=1):
    """Take `value` (> 0, default 1) from the current value, never below zero. The status does
    not change (a goal back at zero has still been started)."""
    goal = resolve(user, goal_ref)
    amount = _amount(user, value)
    goal.current_value = max((goal.current_value or 0) - amount, 0.0)
    db.session.commit()
    announce(user, "goals")
    return goal


def completion_xp(goal, today):
    """base × difficulty × urgency × consistency, rounded half up.

    base and difficulty grow with the target; urgency rewards a short start→end span; the
    consistency bonus applies while the deadline is still ahead of `today`.
    """
    target = goal.target_value
    base = 50 if target < 10 else 100 if target < 50 else 200 if target < 200 else 300
    difficulty = 2.0 if target >= 200 else 1.5 if target >= 50 else 1.2 if target >= 10 else 1.0
    span = (goal.end_date - goal.start_date).days
    urgency = 1.5 if span <= 7 else 1.2 if span <= 30 else 1.0
    consistency = 1.3 if goal.end_date > today else 1.0
    return float(math.floor(base * difficulty * urgency * consistency + 0.5))


def complete(user, goal_ref, done=None, today=None):
    """Complete a goal, or undo its completion: `done` True completes, False undoes, None
    toggles. Completing grants `completion_xp` to the user and each of the goal's categories and
    stores it as `xp_reward`; undoing takes back exactly that amount, on the day it was granted.
    Asking for the state the goal is already in changes nothing. The account's row is held
    first, so two requests completing one goal at once pay its XP once."""
    xp.lock_account(user)
    goal = resolve(user, goal_ref)
    is_done = goal.status == GoalStatus.COMPLETED
    wanted = (not is_done) if done is None else bool(done)
    if wanted == is_done:
        return goal
    today = today or days.today_for(user)
    if wanted:
        reward = completion_xp(goal, today)
        xp.grant(user, reward, goal.categories, day=today)
        goal.status, goal.completed_on, goal.xp_reward = GoalStatus.COMPLETED, today, reward
    else:
        xp.grant(user, -(goal.xp_reward or 0.0), goal.categories, day=goal.completed_on or today)
        goal.status, goal.completed_on, goal.xp_reward = GoalStatus.IN_PROGRESS, None, 0.0
    db.session.commit()
    announce(user, "goals", "categories", "profile")
    return goal


def move_under(user, goal_ref, parent_ref):
    """Put a goal under another goal (by id or name), or at the top with `parent_ref` None.
    Refused: under itself (GOAL_SELF_PARENT), under one of its own sub-goals (GOAL_CYCLE), under
    an archived goal (GOAL_PARENT_ARCHIVED)."""
    goal = resolve(user, goal_ref)
    parent = resolve(user, parent_ref) if parent_ref not in (None, "") else None
    refusal = parent and _parent_refusal(goal, parent)
    if refusal:
        raise Invalid(refusal)
    goal.parent_id = parent.id if parent else None
    db.session.commit()
    announce(user, "goals")
    return goal


def archive(user, goal_ref, now=None):
    """Archive one goal: it leaves the lists and the dashboard, keeps its history and XP, and
    can be restored. Its sub-goals are not archived with it."""
    goal = resolve(user, goal_ref)
    if goal.archived_at is None:
        goal.archived_at = now or datetime.now(UTC)
        db.session.commit()
    announce(user, "goals")
    return goal


def restore(user, goal_ref):
    """Bring an archived goal back, under its old parent if that one is still there."""
    goal = resolve(user, goal_ref)
    if goal.archived_at is not None:
        goal.archived_at = None
        db.session.commit()
    announce(user, "goals")
    return goal


# Checks --------------------------------------------------------------------------------


def _number(value, problems, field, key, language, positive=False):
    """A finite number from 0 (or above 0 when `positive`) to NUMBER_MAX, read strictly in the
    user's language; anything else records `key` (VALUE_TOO_LARGE past the bound)."""
    number = number_from(value, language)
    if number is None or number < 0 or (positive and number <= 0):
        problems[field] = key
        return None
    if number > NUMBER_MAX:
        problems[field] = "VALUE_TOO_LARGE"
        return None
    return number


def _target(user, value, problems, field):
    """A target of TARGET_MIN or more: progress is shown as current × 100 / target, which a
    vanishing target would blow up to infinity."""
    target = _number(value, problems, field, "TARGET_INVALID", user.language, positive=True)
    if target is not None and target < TARGET_MIN:
        problems[field] = "TARGET_INVALID"
        return None
    return target


def _current(user, value, problems, field):
    return _number(value, problems, field, "VALUE_INVALID", user.language)


def _amount(user, value):
    problems = {}
    amount = _number(1 if value in (None, "") else value, problems, "value", "AMOUNT_INVALID", user.language,
                     positive=True)  # fmt: skip
    refuse_if(problems)
    return amount


def _within_bound(value):
    """The current value after an increase, refused when it would pass NUMBER_MAX."""
    if value > NUMBER_MAX:
        raise Invalid("INVALID_INPUT", details={"value": "VALUE_TOO_LARGE"})
    return value


def _unit(user, value, problems, field):
    unit = " ".join(str(value or "").split())
    if not 1 <= len(unit) <= UNIT_MAX:
        problems[field] = "UNIT_INVALID"
    return unit


def _date(user, value, problems, field):
    day = day_from(value)
    if day is None:
        problems[field] = "DATE_INVALID"
    return day


def _check_period(start, end, problems):
    if start and end and end < start and "end_date" not in problems:
        problems["end_date"] = "DATES_OUT_OF_ORDER"


def _term(user, value, problems, field):
    try:
        return GoalTerm(str(value or "").strip().upper())
    except ValueError:
        problems[field] = "TERM_INVALID"
        return None


def _status_or_none(value):
    try:
        return GoalStatus(str(value).strip().upper())
    except ValueError:
        return None


def _editable_status(goal, value, problems):
    status = _status_or_none(value)
    if goal.status == GoalStatus.COMPLETED:
        if status != GoalStatus.COMPLETED:
            problems["status"] = "GOAL_STATUS_INVALID"
        return GoalStatus.COMPLETED
    if status not in (GoalStatus.NOT_STARTED, GoalStatus.IN_PROGRESS):
        problems["status"] = "GOAL_STATUS_INVALID"
        return goal.status
    return status


def _parent_refusal(goal, parent):
    """Why `goal` (None: a new goal) may not sit under `parent`, as a key; None when it may."""
    if goal is not None and parent.id == goal.parent_id:
        return None  # staying where it is, even under a parent archived since
    if goal is not None and parent.id == goal.id:
        return "GOAL_SELF_PARENT"
    if parent.archived_at is not None:
        return "GOAL_PARENT_ARCHIVED"
    ancestor, seen = parent, set()
    while goal is not None and ancestor is not None and ancestor.id not in seen:
        if ancestor.id == goal.id:
            return "GOAL_CYCLE"
        seen.add(ancestor.id)
        ancestor = ancestor.parent
    return None


def _parent_id(user, goal, parent_ref, problems):
    """The id of the goal `parent_ref` names (None: the top), refusals recorded in `problems`."""
    if parent_ref in (None, ""):
        return None
    try:
        parent = resolve(user, parent_ref)
    except NotFound as refusal:  # an ambiguous name raises on: its message lists the candidates
        problems["parent"] = refusal.key
        return None
    refusal = _parent_refusal(goal, parent)
    if refusal:
        problems["parent"] = refusal
    return parent.id


GOAL = Entity(
    model=Goal,
    domain="goals",
    fields={
        "name": name,
        "description": note,
        "motivation": note,
        "icon": icon,
        "target_value": _target,
        "unit": _unit,
        "current_value": _current,
        "start_date": _date,
        "end_date": _date,
        "term": _term,
        "categories": any_categories,
    },
    defaults={"current_value": 0, "term": GoalTerm.MEDIUM_TERM},
    not_found="GOAL_NOT_FOUND",
    ambiguous="GOAL_AMBIGUOUS",
    substring=True,
    prefer=lambda goal: goal.archived_at is None,  # active goals win a tie over archived ones
)
FIELDS = GOAL.fields
