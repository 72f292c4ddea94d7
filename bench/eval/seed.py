"""A task's starting state, made through the app's own services (as the pages would make it), and
the placeholders a task's text uses for what only exists once seeded: dates relative to the
user's today and the ids of their rows.

A seed is a TOML table of kinds, each a list, made in this order (docs/agent-eval.md):

    user        {theme, phrase, timezone, … any setting of the configuration page; assistant_note}
    categories  [{name, icon?, description?}]
    habits      [{name, importance?, difficulty?, icon?, description?, categories?}]
    tasks       [{name, importance?, difficulty?, one_time?, description?, categories?}]
    goals       [{name, target, unit, start?, end?, current?, parent?, term?, categories?, archived?}]
    routines    [{name, icon?, weekdays?, since?, sections = [{name, starts_at, ends_at?, items = [names]}]}]
    lists       [{name, icon?, weekdays?, since?, items = [names]}]      (list routines)
    checks      [{routine, item, day?}]                           (past check-ins of an entry)
    notebook    [{topic, pages = [{title, notes?, board?, connections?}]}]
    ideas       [{text, colour?}]
    moods       [{level, day?}]
    micro_tasks [{routine, item, text}]                           (today's steps of an entry)
    study_cycles [{name, days = {weekday = minutes}, subjects = [page titles]}]
    study_sessions [{page, minutes, day?}]

Routine items name a seeded habit or task; weekdays are 0 (Monday) to 6, or "every day"; `since`
is the day the routine was made (default today: it has no past days to check).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from app.categories import services as categories
from app.extensions import db
from app.focus import services as focus
from app.goals import services as goals
from app.habits import services as habits
from app.habits.models import Habit
from app.ideas import services as ideas
from app.mood import services as mood
from app.notebook import boards
from app.notebook import services as notebook
from app.profile import configuration
from app.routines import schedules, today
from app.routines import services as routines
from app.routines.models.routines import Routine, RoutineEntry, RoutineSection
from app.shared.days import today_for
from app.study_cycles import services as study_cycles
from app.tasks import services as tasks
from app.tasks.models import Task

KINDS = ("user", "categories", "habits", "tasks", "goals", "routines", "lists", "checks", "notebook", "ideas",
         "moods", "micro_tasks", "study_cycles", "study_sessions")  # fmt: skip
EVERY_DAY = list(range(7))

# {today}, {today+3}, {tomorrow}, {yesterday}, {weekday}, {weekday+1}, {year}; {id:habits:Read},
# {entry:Mornings:Read}, {section:Mornings:Wake up} (names in any letter case)
PLACEHOLDER = re.compile(
    r"\{(today|tomorrow|yesterday|weekday|year)([+-]\d+)?\}|\{(id|entry|section):([^{}:]+):([^{}]+)\}"
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class SeedError(Exception):
    """A task's seed or placeholder names something that is not there: the task is wrong."""


def merged(*seeds):
    """Seeds made one after the other, as one: each kind's lists joined, `user` settings merged."""
    whole: dict = {}
    for seed in seeds:
        for kind, items in (seed or {}).items():
            if kind not in KINDS:
                raise SeedError(f"unknown seed kind {kind!r} (one of {', '.join(KINDS)})")
            if kind == "user":
                whole.setdefault("user", {}).update(items)
            else:
                whole.setdefault(kind, []).extend(items)
    return whole


def make(user, seed):
    """Make the seed's rows for `user`, kind by kind."""
    seed = expand(seed, user)
    settings = dict(seed.get("user", {}))
    if "assistant_note" in settings:  # the assistant's memory, which only the assistant writes
        user.assistant_note = settings.pop("assistant_note")
        db.session.commit()
    if settings:
        configuration.update(user, **settings)
    for category in seed.get("categories", []):
        categories.create(user, icon=category.get("icon", "star"), **_without(category, "icon"))
    for habit in seed.get("habits", []):
        habits.create(user, **{"importance": 3, "difficulty": 2, "icon": "activity", **habit})
    for task in seed.get("tasks", []):
        tasks.create(user, **{"importance": 2, "difficulty": 1, "icon": "check", **task})
    for goal in seed.get("goals", []):
        _goal(user, goal)
    for routine in seed.get("routines", []):
        sections = [
            {**_without(section, "items"), "entries": [_item(user, name) for name in section.get("items", [])]}
            for section in routine["sections"]
        ]
        made = routines.create_timed(user, routine["name"], routine.get("icon", "sun"), sections)
        _schedule(user, made, routine)
    for listed in seed.get("lists", []):
        made = routines.create_list(user, listed["name"], listed.get("icon", "list"),
                                    [_item(user, name) for name in listed.get("items", [])])  # fmt: skip
        _schedule(user, made, listed)
    for check in seed.get("checks", []):
        today.check(user, entry_id(user, check["routine"], check["item"]), day=_date(check.get("day")))
    for topic in seed.get("notebook", []):
        _topic(user, topic)
    for note in seed.get("ideas", []):
        ideas.create(user, note["text"], note.get("colour"))
    for entry in seed.get("moods", []):
        mood.log(user, entry["level"], day=_date(entry.get("day")))
    for step in seed.get("micro_tasks", []):
        focus.add(user, entry_id(user, step["routine"], step["item"]), step["text"])
    for cycle in seed.get("study_cycles", []):
        days = {int(weekday): {"minutes": minutes} for weekday, minutes in cycle["days"].items()}
        subjects = [{"page": str(notebook.resolve_page(user, title).id)} for title in cycle["subjects"]]
        study_cycles.create_cycle(user, {"name": cycle["name"], "days": days, "subjects": subjects})
    for session in seed.get("study_sessions", []):
        study_cycles.log_session(user, session["page"], session["minutes"], day=_date(session.get("day")))
    db.session.commit()


def _without(mapping, *keys):
    return {key: value for key, value in mapping.items() if key not in keys}


def _date(text):
    return date.fromisoformat(text) if text else None


def _goal(user, goal):
    start, end = goal.get("start", "{today-30}"), goal.get("end", "{today+60}")
    start, end = expand(start, user), expand(end, user)
    fields = _without(goal, "target", "current", "start", "end", "archived", "completed")
    made = goals.create(user, target_value=goal["target"], current_value=goal.get("current", 0), start_date=start,
                        end_date=end, **fields)  # fmt: skip
    if goal.get("archived"):
        goals.archive(user, made.id)


def _item(user, name):
    """A routine entry's item: the seeded habit or task of that name."""
    if db.session.scalar(db.select(Habit.id).where(Habit.user_id == user.id, Habit.name == name)):
        return {"habit_id": name}
    if db.session.scalar(db.select(Task.id).where(Task.user_id == user.id, Task.name == name)):
        return {"task_id": name}
    raise SeedError(f"a routine names {name!r}, which is no seeded habit or task")


def _schedule(user, routine, spec):
    """Its weekdays; and with `since`, the day it was made: the one write outside the services, as
    no page dates a routine back (tests/builders.py does the same), so that its past days exist."""
    if spec.get("since"):
        routine.created_at = datetime.combine(_date(spec["since"]), time(0), tzinfo=UTC)
        db.session.commit()
    weekdays = spec.get("weekdays", [])
    if weekdays == "every day":
        weekdays = EVERY_DAY
    if weekdays:
        schedules.set_days(user, routine.id, weekdays)


def _topic(user, spec):
    topic = notebook.create_topic(user, spec["topic"])
    for page_spec in spec.get("pages", []):
        page = notebook.create_page(user, topic.id, page_spec["title"])
        for text in page_spec.get("notes", []):
            notebook.add_note(user, page.id, text)
        for node in page_spec.get("board", []):
            node = {"title": node} if isinstance(node, str) else node
            boards.add_node(user, page.id, node["title"], node.get("description"), node.get("status"))
        for source, target in page_spec.get("connections", []):
            boards.connect(user, page.id, source, target)


# Placeholders ------------------------------------------------------------------------------


def expand(value, user):
    """`value` with every placeholder replaced (in strings, lists and tables, keys left alone)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda match: _placeholder(match, user), value)
    if isinstance(value, list):
        return [expand(item, user) for item in value]
    if isinstance(value, dict):
        return {key: expand(item, user) for key, item in value.items()}
    return value


def _placeholder(match, user):
    word, offset, kind, first, second = match.groups()
    if word:
        days = int(offset or 0) + {"tomorrow": 1, "yesterday": -1}.get(word, 0)
        day = today_for(user) + timedelta(days=days)
        if word == "year":
            return str(today_for(user).year + int(offset or 0))
        return WEEKDAYS[day.weekday()] if word == "weekday" else day.isoformat()
    if kind == "id":
        return str(row_id(user, first, second))
    if kind == "entry":
        return str(entry_id(user, first, second))
    return str(section_id(user, first, second))


def row_id(user, table_name, name):
    """The id of the user's row of `table_name` whose name (or title, or text) is `name`."""
    table = db.metadata.tables.get(table_name)
    if table is None:
        raise SeedError(f"no table {table_name!r}")
    column = next((table.c[c] for c in ("name", "title", "text") if c in table.c), None)
    if column is None or "user_id" not in table.c:
        raise SeedError(f"{table_name} rows have no owner and name to find them by")
    named = db.func.lower(column) == name.lower()
    found = db.session.scalars(db.select(table.c.id).where(table.c.user_id == user.id, named)).all()
    if len(found) != 1:
        raise SeedError(f"{len(found)} rows of {table_name} named {name!r}")
    return found[0]


def entry_id(user, routine_name, item_name):
    """The id of the entry of `item_name` (a habit or task) in the user's routine `routine_name`."""
    found = db.session.scalars(
        db.select(RoutineEntry.id)
        .join(Routine, Routine.id == RoutineEntry.routine_id)
        .outerjoin(Habit, Habit.id == RoutineEntry.habit_id)
        .outerjoin(Task, Task.id == RoutineEntry.task_id)
        .where(Routine.user_id == user.id, _named(Routine.name, routine_name))
        .where(db.or_(_named(Habit.name, item_name), _named(Task.name, item_name)))
    ).all()
    if len(found) != 1:
        raise SeedError(f"{len(found)} entries of {item_name!r} in the routine {routine_name!r}")
    return found[0]


def section_id(user, routine_name, section_name):
    found = db.session.scalars(
        db.select(RoutineSection.id)
        .join(Routine, Routine.id == RoutineSection.routine_id)
        .where(Routine.user_id == user.id, _named(Routine.name, routine_name))
        .where(_named(RoutineSection.name, section_name))
    ).all()
    if len(found) != 1:
        raise SeedError(f"{len(found)} sections {section_name!r} in the routine {routine_name!r}")
    return found[0]


def _named(column, name):
    return db.func.lower(column) == name.lower()
