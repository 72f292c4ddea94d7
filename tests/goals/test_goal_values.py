"""Goal values are finite and bounded, read strictly in the user's language, and stay so through
increases, the tools, the page and the export; stored values out of range are repaired."""

import json
import math
import uuid
from datetime import date, datetime

import pytest
import sqlalchemy as sa
from flask_migrate import upgrade

from app import create_app
from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.goals import services as goals
from app.goals.models import Goal
from app.shared.errors import Invalid
from app.shared.values import NUMBER_MAX
from tests.builders import a_goal


def refusal_of(action):
    with pytest.raises(Invalid) as refused:
        action()
    return refused.value.details


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"current_value": 1e308}, {"current_value": "VALUE_TOO_LARGE"}),
        ({"current_value": "1e308"}, {"current_value": "VALUE_INVALID"}),
        ({"current_value": "inf"}, {"current_value": "VALUE_INVALID"}),
        ({"current_value": "nan"}, {"current_value": "VALUE_INVALID"}),
        ({"current_value": math.inf}, {"current_value": "VALUE_INVALID"}),
        ({"target_value": NUMBER_MAX + 1}, {"target_value": "VALUE_TOO_LARGE"}),
        ({"target_value": "1_000"}, {"target_value": "TARGET_INVALID"}),
        ({"target_value": "1,5"}, {"target_value": "TARGET_INVALID"}),  # Ana writes English
        ({"target_value": "12 books"}, {"target_value": "TARGET_INVALID"}),
        ({"target_value": "0.00000000001"}, {"target_value": "TARGET_INVALID"}),  # current × 100 / target
        ({"start_date": "0001-01-01"}, {"start_date": "DATE_INVALID"}),
        ({"end_date": "9999-12-31"}, {"end_date": "DATE_INVALID"}),
        ({"start_date": "20260101"}, {"start_date": "DATE_INVALID"}),
    ],
)
def test_numbers_and_dates_are_finite_bounded_and_strict(ana, fields, problem):
    assert refusal_of(lambda: a_goal(ana, **fields)) == problem


@pytest.mark.parametrize(
    ("language", "typed", "read"),
    [
        ("en", "1,000", 1000.0),
        ("en", "2.5", 2.5),
        ("pt", "1,5", 1.5),
        ("pt", "1.000,5", 1000.5),
        ("pt", "2.5", 2.5),  # what a number input sends, in every language
        ("en", str(NUMBER_MAX), float(NUMBER_MAX)),
    ],
)
def test_numbers_are_read_the_way_the_users_language_writes_them(ana, language, typed, read):
    ana.language = language
    assert a_goal(ana, target_value=typed).target_value == read


def test_increases_stop_at_the_bound_instead_of_reaching_infinity(ana):
    goal = a_goal(ana, current_value=NUMBER_MAX - 1)
    goals.increase(ana, goal.id, 1)
    assert refusal_of(lambda: goals.increase(ana, goal.id, 1)) == {"value": "VALUE_TOO_LARGE"}
    assert refusal_of(lambda: goals.increase(ana, goal.id, 1e308)) == {"value": "VALUE_TOO_LARGE"}
    db.session.refresh(goal)
    assert goal.current_value == NUMBER_MAX


def test_the_goal_tools_follow_the_same_bound(ana):
    context = registry.ToolContext(user=ana, chat=None)
    created = tool_calls.run(context, "createUserGoal", {"name": "Huge", "target_value": 10, "unit": "x",
                                                       "current_value": 1e308, "start_date": "2026-01-01",
                                                       "end_date": "2026-12-31"})  # fmt: skip
    assert created.error_key == "INVALID_INPUT"
    assert created.result["details"] == {"current_value": "Use a number no larger than 1,000,000,000,000."}
    goal = a_goal(ana)
    increased = tool_calls.run(context, "increaseUserGoalValue", {"ref": str(goal.id), "value": 1e308})
    assert increased.error_key == "INVALID_INPUT"


def test_huge_values_never_break_the_goals_page_or_the_export(signed_in):
    form = {"name": "Infinite", "target_value": "10", "unit": "x", "current_value": "1e308", "term": "SHORT_TERM",
            "start_date": "2026-01-01", "end_date": "2026-12-31", "csrf_token": signed_in.csrf}  # fmt: skip
    assert signed_in.post("/goals", data=form).status_code == 422
    vanishing = {**form, "current_value": "5", "target_value": "0." + "0" * 300 + "1"}
    assert signed_in.post("/goals", data=vanishing).status_code == 422
    form["current_value"] = str(NUMBER_MAX)
    assert signed_in.post("/goals", data=form).status_code == 302
    goal_id = json.loads(signed_in.get("/configuration/export").data)["goals"][0]["id"]
    for _ in range(2):
        signed_in.post(f"/goals/{goal_id}/progress", data={"value": "1e308", "csrf_token": signed_in.csrf})
    assert signed_in.get("/goals").status_code == 200
    assert signed_in.get("/goals/horizon").status_code == 200
    export = signed_in.get("/configuration/export").get_data(as_text=True)
    strict = json.loads(export, parse_constant=lambda name: pytest.fail(f"the export holds {name}"))
    assert strict["goals"][0]["current_value"] == NUMBER_MAX


def a_row(table, **values):
    """`values` plus a plain value for every other required column (whatever the schema holds)."""
    plain = {str: "x", int: 0, float: 0.0, bool: False, datetime: datetime(2026, 1, 1), date: date(2026, 1, 1)}
    row = dict(values)
    for column in table.columns:
        if column.name not in row and not column.nullable:
            try:
                row[column.name] = plain.get(column.type.python_type, "x")
            except NotImplementedError:  # JSON and the like
                row[column.name] = "[]"
    return row


def test_the_migration_repairs_values_out_of_range(tmp_path):
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'old.sqlite3'}")
    stored = {"inf": (10.0, math.inf), "huge": (1e308, 5.0), "negative": (-1.0, -4.0), "tiny": (1e-300, 2.0),
              "fine": (12.0, 3.0)}  # fmt: skip
    with app.app_context():
        upgrade(revision="0004_xp_days_by_day")
        with db.engine.begin() as connection:
            tables = sa.MetaData()
            tables.reflect(connection, only=["users", "goals"])
            users, goal_rows = tables.tables["users"], tables.tables["goals"]
            user_id = uuid.uuid4().hex
            connection.execute(users.insert().values(a_row(users, id=user_id, email="a@x.io")))
            for name, (target, current) in stored.items():
                connection.execute(goal_rows.insert().values(a_row(
                    goal_rows, id=uuid.uuid4().hex, user_id=user_id, name=name, target_value=target,
                    current_value=current, term="SHORT_TERM", status="IN_PROGRESS", parent_id=None,
                )))  # fmt: skip
        upgrade()
        repaired = {goal.name: (goal.target_value, goal.current_value) for goal in db.session.scalars(db.select(Goal))}
        db.session.remove()
        db.engine.dispose()
    assert repaired == {
        "inf": (10.0, float(NUMBER_MAX)),
        "huge": (float(NUMBER_MAX), 5.0),
        "negative": (1.0, 0.0),
        "tiny": (0.01, 2.0),
        "fine": (12.0, 3.0),
    }


def test_a_goal_created_by_a_date_object_keeps_working(ana):
    assert a_goal(ana, start_date=date(2026, 1, 1)).start_date == date(2026, 1, 1)
