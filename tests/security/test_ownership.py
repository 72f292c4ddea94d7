"""Another user's id behaves exactly like an unknown id on every route that takes one.

The sweep is built from the URL map, not from a list: every rule with an argument naming a row
(each domain's `ids` in app/domains.py say which table it names) is requested with each of its
methods by Ana, once with Bruno's row and once with an id nobody has, every other argument
being Ana's own. Both answers must be the same refusal, and no row of anyone may change. A route
argument the declarations do not account for fails the sweep, so a new route cannot be skipped.
"""

import re
import uuid

import pytest

from app import domains
from app.assistant import pending_actions
from app.assistant import services as assistant
from app.extensions import db
from app.feedback import services as feedback
from app.focus import services as focus
from app.ideas import services as ideas
from app.notebook import boards
from app.notebook import services as notebook
from app.routines import schedules
from app.routines import services as routines
from tests.builders import a_category, a_goal, a_habit, a_study_cycle, a_task, as_user

SOURCES = {argument: table for domain in domains.DOMAINS for argument, table in domain.ids.items()}
FORM = {"name": "Taken over", "value": "5", "target_value": "1", "unit": "x", "importance": "1",
        "difficulty": "1", "text": "Taken over", "title": "Taken over", "status": "DONE",
        "starts_at": "06:00", "ends_at": "07:00", "message": "Taken over"}  # fmt: skip


def a_whole_life(user):
    """One row in every table a route can name: the catalogue, a scheduled routine and a step of
    its entry, feedback, a note, a notebook page with a flashcard and a concept on its board, a chat
    with a change the assistant proposed waiting on its card."""
    category = a_category(user)
    habit = a_habit(user, "Run", category=category)
    task = a_task(user, "Call mom", categories=[category.id])
    a_goal(user, "Read 12 books", current_value=3, categories=[category.id])
    routine = routines.create_timed(
        user, "Mornings", "sun",
        [{"name": "Wake up", "starts_at": "06:00", "ends_at": "09:00",
          "entries": [{"habit_id": habit.id, "starts_at": "07:00"}, {"task_id": task.id}]}],
    )  # fmt: skip
    schedules.set_days(user, routine.id, list(range(7)))
    focus.add(user, routine.sections[0].entries[0].id, "Warm up")
    feedback.submit(user, "BUG", "The button is blue")
    ideas.create(user, "A thought worth keeping")
    topic = notebook.create_topic(user, "Biology")
    page = notebook.create_page(user, topic.id, "Cells")
    notebook.add_card(user, page.id, "Unit of life?", "The cell")
    boards.add_node(user, page.id, "Cell")
    a_study_cycle(user, page=page)
    chat = assistant.create_chat(user, "Plans")
    assistant.start_turn(user, chat.id, "What is on today?")
    pending_actions.propose(user, chat, "deleteUserHabit", {"ref": str(habit.id)}, "Delete the habit “Run”",
                            {"id": str(habit.id), "name": "Run"})  # fmt: skip


def row_of(user_id, table_name):
    """The id of one of the user's rows in that table, reached through its owner like the services do."""
    table = db.metadata.tables[table_name]
    if "user_id" in table.c:
        return db.session.scalars(db.select(table.c.id).where(table.c.user_id == user_id).limit(1)).first()
    key = min((key for key in table.foreign_keys if "user_id" in key.column.table.c), key=str)
    owners = db.select(key.column.table.c.id).where(key.column.table.c.user_id == user_id)
    return db.session.scalars(db.select(table.c.id).where(key.parent.in_(owners)).limit(1)).first()


def everything(app):
    """Every row of every table but the sign-ins (which note each request), to compare before and after."""
    with app.app_context():
        return {
            table.name: sorted(map(repr, db.session.execute(db.select(table)).all()))
            for table in db.metadata.sorted_tables
            if table.name != "user_sessions"
        }


def routes_naming_rows(app):
    """(rule, method, the row arguments) for every rule with an argument naming a row."""
    unaccounted = []
    for rule in app.url_map.iter_rules():
        for argument in rule.arguments:
            if argument not in SOURCES and argument not in domains.ROUTE_ARGUMENTS_THAT_ARE_NOT_ROWS:
                unaccounted.append(f"{rule.endpoint} takes {argument}")
        rows = sorted(argument for argument in rule.arguments if argument in SOURCES)
        if rows:
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield rule, method, rows
    assert unaccounted == [], "declare these in a domain's `ids` (or as not naming a row) in app/domains.py"


@pytest.fixture
def two_lives(app, signed_in, user_id, other_user_id):
    ids = {}
    for who, owner in (("ana", user_id), ("bruno", other_user_id)):
        with as_user(app, owner) as user:
            a_whole_life(user)
            ids[who] = {argument: row_of(owner, table) for argument, table in SOURCES.items()}
    return ids


def request(client, rule, method, values, hx):
    url = rule.build(values)[1]
    headers = {"X-CSRFToken": client.csrf, **({"HX-Request": "true"} if hx else {})}
    response = client.open(url, method=method, data=FORM if method == "POST" else None, headers=headers)
    return response.status_code, response.get_data(as_text=True)


def test_every_route_naming_a_row_answers_bruno_s_row_exactly_like_an_unknown_one(app, signed_in, two_lives):
    ana, bruno = two_lives["ana"], two_lives["bruno"]
    before = everything(app)
    swept = 0
    for rule, method, arguments in routes_naming_rows(app):
        for argument in arguments:
            own = {name: ana[name] for name in arguments}
            unknown_id = uuid.uuid4()
            for hx in (True, False):
                foreign = request(signed_in, rule, method, {**own, argument: bruno[argument]}, hx)
                unknown = request(signed_in, rule, method, {**own, argument: unknown_id}, hx)
                malformed = request(signed_in, rule, method, {**own, argument: "not-an-id"}, hx)
                where = (rule.endpoint, method, argument, hx)
                assert foreign[0] == unknown[0] == malformed[0] and foreign[0] in (403, 404), (where, foreign[0])
                assert _without(foreign[1], bruno[argument]) == _without(unknown[1], unknown_id), where
                assert "Bruno" not in foreign[1], where
            swept += 1
    assert swept >= 40
    assert everything(app) == before


CSRF_TOKEN = re.compile(r'(name="csrf-token" content|name="csrf_token" value)="[^"]+"')


def _without(body, row_id):
    """The body with the requested id and the CSRF token (it carries the time) blanked out: the
    only things allowed to differ."""
    return CSRF_TOKEN.sub(r'\1="<token>"', re.sub(re.escape(str(row_id)), "<id>", body))
