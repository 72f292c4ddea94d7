"""Configuration: settings with their limits, the export of everything, and deleting an account
so that nothing of it is left behind."""

from datetime import date

import pytest
import sqlalchemy as sa

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.feedback import services as feedback
from app.goals import services as goals
from app.profile import configuration
from app.profile.models import User
from app.routines import xp
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.routines.models.routines import ScheduleDay
from app.shared.errors import Invalid
from tests.builders import a_category, a_goal, a_habit, a_task, put_in_routine
from tests.conftest import PASSWORD


def test_settings_change_only_what_is_given(ana):
    configuration.update(ana, theme="dark", widgets=["constance", "dailyProgress"])
    settings = configuration.settings(ana)
    assert (settings["theme"], settings["widgets"], settings["language"], settings["name"]) == (
        "dark",
        ["constance", "dailyProgress"],
        "en",
        "Ana",
    )


def test_every_setting_can_be_changed(ana):
    configuration.update(
        ana,
        name="Ana Maria",
        phrase="Small steps",
        phrase_author="Someone wise",
        theme="light",
        language="pt",
        timezone="America/Sao_Paulo",
        constance_mode="complete",
        xp_decay="FLAT",
        widgets=[],
        tutorial_done=True,
    )
    db.session.expire_all()
    assert (ana.name, ana.phrase, ana.phrase_author, ana.theme, ana.language, ana.timezone) == (
        "Ana Maria",
        "Small steps",
        "Someone wise",
        "light",
        "pt",
        "America/Sao_Paulo",
    )
    assert (ana.constance_mode, ana.xp_decay, ana.widgets, ana.tutorial_done) == ("COMPLETE", "FLAT", [], True)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"name": " A "}, {"name": "NAME_INVALID"}),
        ({"phrase": "p" * 257}, {"phrase": "TEXT_TOO_LONG"}),
        ({"theme": "neon"}, {"theme": "THEME_INVALID"}),
        ({"language": "fr"}, {"language": "LANGUAGE_INVALID"}),
        ({"timezone": "Mars/Olympus"}, {"timezone": "TIMEZONE_INVALID"}),
        ({"constance_mode": "SOMETIMES"}, {"constance_mode": "CONSTANCE_MODE_INVALID"}),
        ({"xp_decay": "NEVER"}, {"xp_decay": "XP_DECAY_INVALID"}),
        ({"widgets": ["constance", "weather"]}, {"widgets": "WIDGET_UNKNOWN"}),
        ({"widgets": ["constance", "constance"]}, {"widgets": "WIDGET_DUPLICATE"}),
        ({"email": "new@example.com"}, {"email": "SETTING_UNKNOWN"}),
        ({"is_admin": True}, {"is_admin": "SETTING_UNKNOWN"}),
    ],
)
def test_invalid_settings_are_refused_and_nothing_changes(ana, changes, problem):
    with pytest.raises(Invalid) as refused:
        configuration.update(ana, **{"tutorial_done": True, **changes})
    assert refused.value.details == problem
    db.session.expire_all()
    assert ana.theme == "system" and not ana.tutorial_done and not ana.is_admin and ana.email == "ana@example.com"


def test_the_export_holds_everything_the_user_owns_and_no_password(ana, bruno):
    health = a_category(ana)
    habit = a_habit(ana, "Run", category=health)
    a_task(ana, "Call mom")
    goal = a_goal(ana, "Run 100 km", categories=[health.id])
    goals.complete(ana, goal.id, today=date(2026, 3, 11))
    routine = put_in_routine(ana, habit, "Morning routine")
    db.session.add(ScheduleDay(user_id=ana.id, routine_id=routine.id, weekday=0))
    db.session.add(
        DayOutcome(
            user_id=ana.id, owner_type=OwnerType.HABIT, owner_id=habit.id, day=date(2026, 3, 1), outcome=Outcome.DONE
        )
    )
    db.session.commit()
    feedback.submit(ana, "BUG", "The chart is empty", "/dashboard")
    a_habit(bruno, "Bruno's habit")

    data = configuration.export(ana)

    assert data["profile"]["email"] == "ana@example.com"
    assert "password" not in str(data.keys()) and "password_hash" not in data["profile"]
    assert [c["name"] for c in data["categories"]] == ["Health"]
    assert [h["name"] for h in data["habits"]] == ["Run"]
    assert data["habits"][0]["categories"] == [{"id": str(health.id), "name": "Health"}]
    assert [t["name"] for t in data["tasks"]] == ["Call mom"]
    assert data["goals"][0]["status"] == "COMPLETED" and data["goals"][0]["xp_reward"] > 0
    assert data["routines"][0]["name"] == "Morning routine"
    assert data["routines"][0]["sections"][0]["entries"][0]["habit_id"] == str(habit.id)
    assert data["routines"][0]["weekdays"] == [0]
    assert data["schedule"] == {"0": str(routine.id)}
    assert data["day_outcomes"] == [
        {"owner_type": "HABIT", "owner_id": str(habit.id), "day": "2026-03-01", "outcome": "DONE"}
    ]
    assert sum(row["xp"] for row in data["xp_days"] if row["owner_type"] == "USER") == ana.xp
    assert [f["text"] for f in data["feedback"]] == ["The chart is empty"]
    assert "status" not in data["feedback"][0]
    assert "Bruno" not in str(data)


def test_the_export_is_plain_json(ana):
    import json

    a_goal(ana)
    assert json.loads(json.dumps(configuration.export(ana)))["goals"][0]["name"] == "Read 12 books"


@pytest.mark.parametrize(
    ("password", "confirmation", "problem"),
    [
        ("wrong password", "DELETE", {"password": "PASSWORD_INCORRECT"}),
        (PASSWORD, "delete", {"confirmation": "CONFIRMATION_MISMATCH"}),
        (PASSWORD, "", {"confirmation": "CONFIRMATION_MISMATCH"}),
        (PASSWORD, "EXCLUIR", {"confirmation": "CONFIRMATION_MISMATCH"}),
    ],
)
def test_account_deletion_needs_the_password_and_the_exact_word(ana, password, confirmation, problem):
    with pytest.raises(Invalid) as refused:
        configuration.delete_account(ana, password, confirmation)
    assert refused.value.details == problem
    assert db.session.get(User, ana.id) is not None


def test_a_portuguese_account_confirms_with_its_own_word(app, ana):
    configuration.update(ana, language="pt")
    assert configuration.confirmation_word(ana) == "EXCLUIR"
    with pytest.raises(Invalid):
        configuration.delete_account(ana, PASSWORD, "DELETE")
    user_id = ana.id
    configuration.delete_account(ana, PASSWORD, " EXCLUIR ")
    assert db.session.get(User, user_id) is None


def _rows_of(user_id):
    """table name -> how many of its rows belong to the user (directly, or through a row that does)."""
    tables = db.metadata.tables.values()
    owned = {table.name for table in tables if "user_id" in table.c}
    counts = {}
    for table in tables:
        if table.name == "users":
            condition = table.c.id == user_id
        elif table.name in owned:
            condition = table.c.user_id == user_id
        else:
            links = [key for key in table.foreign_keys if key.column.table.name in owned]
            condition = sa.or_(
                *(
                    key.parent.in_(sa.select(key.column.table.c.id).where(key.column.table.c.user_id == user_id))
                    for key in links
                )
            )
        counts[table.name] = db.session.scalar(sa.select(sa.func.count()).select_from(table).where(condition))
    return counts


def _fill(user):
    health = a_category(user)
    habit = a_habit(user, "Run", category=health)
    task = a_task(user, "Call mom", categories=[health.id])
    top = a_goal(user, "Top", categories=[health.id])
    a_goal(user, "Child", parent=top.id)
    goals.complete(user, top.id, today=date(2026, 3, 11))
    routine = put_in_routine(user, habit, "Morning routine")
    put_in_routine(user, task, "Evening routine")
    db.session.add(ScheduleDay(user_id=user.id, routine_id=routine.id, weekday=2))
    db.session.add(
        DayOutcome(
            user_id=user.id, owner_type=OwnerType.HABIT, owner_id=habit.id, day=date(2026, 3, 1), outcome=Outcome.DONE
        )
    )
    xp.grant(user, 10, [habit, health, routine])
    db.session.commit()
    feedback.submit(user, "OTHER", "Lovely app", "/habits")


def test_deleting_an_account_removes_every_row_it_owns_and_only_those(ana, bruno):
    _fill(ana)
    _fill(bruno)
    ana_id, bruno_before = ana.id, _rows_of(bruno.id)
    before = _rows_of(ana_id)
    assert all(before[name] > 0 for name in ("users", "categories", "habits", "tasks", "goals", "routines"))
    assert all(
        before[name] > 0 for name in ("routine_entries", "habit_categories", "xp_days", "day_outcomes", "feedback")
    )

    configuration.delete_account(ana, PASSWORD, "DELETE")

    after = _rows_of(ana_id)
    assert {name: count for name, count in after.items() if count} == {}
    assert _rows_of(bruno.id) == bruno_before


def test_the_export_reads_routines_and_settings_as_the_assistant_does(ana):
    """One representation per domain: the export's routines are `routines.describe`, the same the
    routine tools answer with, and its profile carries `settings` as the configuration tool reads them."""
    put_in_routine(ana, a_habit(ana, name="Stretch"))
    exported = configuration.export(ana)
    context = registry.ToolContext(user=ana, chat=None)
    told = tool_calls.run(context, "getUserRoutines", {}).result["routines"]
    assert exported["routines"] == told and told[0]["sections"][0]["entries"][0]["name"] == "Stretch"
    settings = tool_calls.run(context, "getUserConfiguration", {}).result["configuration"]
    assert {key: exported["profile"][key] for key in settings} == settings
