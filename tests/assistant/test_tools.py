"""The tool runtime: each tool calls the service as the turn's user, and refusals come back to the
model as data it can act on. Another user's ids behave exactly like unknown ids, for every tool."""

import json
import re
import uuid
from datetime import date, timedelta
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from app import domains, events
from app.agent import registry, toolsets
from app.assistant import tool_calls
from app.categories import services as categories
from app.extensions import db
from app.focus import services as focus
from app.goals import services as goals
from app.habits import services as habits
from app.notebook import boards
from app.notebook import services as notebook
from app.profile.models import User
from app.routines import schedules
from app.routines import services as routines
from app.tasks import services as tasks
from tests.builders import a_chat, a_study_cycle, confirmed
from tests.conftest import make_user

ALL_TOOLS = sorted(registry.REGISTRY)


def context(user):
    return registry.ToolContext(user=user, chat=a_chat(user), page="/habits")


def run(user, tool_name, **arguments):
    return tool_calls.run(context(user), tool_name, arguments)


def build_a_life(user):
    """A category, a habit, a task, two goals (one under the other), a scheduled routine."""
    category = categories.create(user, name="Health", icon="heart")
    habit = habits.create(user, name="Run", importance=3, difficulty=2, categories=[category.id])
    task = tasks.create(user, name="Book dentist", importance=2, difficulty=1)
    parent = goals.create(user, name="Get fit", target_value=10, unit="km", start_date=date.today(),
                          end_date=date.today() + timedelta(days=60))  # fmt: skip
    child = goals.create(user, name="Run 5k", target_value=5, unit="km", start_date=date.today(),
                         end_date=date.today() + timedelta(days=30), parent=parent.id)  # fmt: skip
    routine = routines.create_timed(
        user, "Mornings", "sun",
        [{"name": "Wake up", "starts_at": "06:00", "ends_at": "09:00",
          "entries": [{"habit_id": habit.id, "starts_at": "07:00"}, {"task_id": task.id}]}],
    )  # fmt: skip
    schedules.set_days(user, routine.id, list(range(7)))
    section = routine.sections[0]
    micro_task, _steps = focus.add(user, section.entries[0].id, "Warm up")
    study_page = notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Cells")
    node, other_node = (boards.add_node(user, study_page.id, title) for title in ("Cell", "Tissue"))
    boards.connect(user, study_page.id, node.id, other_node.id)
    return {
        "category": category, "habit": habit, "task": task, "goal": child, "parent": parent,
        "routine": routine, "section": section, "entry": section.entries[0], "micro_task": micro_task,
        **a_study_cycle(user, page=study_page), "node": node, "other_node": other_node,
    }  # fmt: skip


def foreign_arguments(name, life):
    """Arguments for tool `name` that point at `life`'s rows by id (or None: no id to point at)."""
    ids = {key: str(row.id) for key, row in life.items()}
    by_tool = {
        "deleteUserCategory": {"ref": ids["category"]},
        "editUserCategory": {"ref": ids["category"], "name": "Taken"},
        "deleteUserHabit": {"ref": ids["habit"]},
        "editUserHabit": {"ref": ids["habit"], "name": "Taken"},
        "createUserHabit": {"name": "Mine", "importance": 1, "difficulty": 1, "categories": [ids["category"]]},
        "deleteUserTask": {"ref": ids["task"]},
        "editUserTask": {"ref": ids["task"], "name": "Taken"},
        "createUserTask": {"name": "Mine", "importance": 1, "difficulty": 1, "categories": [ids["category"]]},
        "deleteUserGoal": {"ref": ids["goal"]},
        "editUserGoal": {"ref": ids["goal"], "name": "Taken"},
        "completeUserGoal": {"ref": ids["goal"]},
        "increaseUserGoalValue": {"ref": ids["goal"]},
        "decreaseUserGoalValue": {"ref": ids["goal"]},
        "archiveUserGoal": {"ref": ids["goal"]},
        "restoreUserGoal": {"ref": ids["goal"]},
        "moveGoalUnder": {"ref": ids["goal"], "parent": None},
        "createUserGoal": {
            "name": "Mine",
            "target_value": 1,
            "unit": "x",
            "start_date": "2026-01-01",
            "end_date": "2026-12-31",
            "parent": ids["parent"],
        },
        "renameUserRoutine": {"routine": ids["routine"], "name": "Taken"},
        "editRoutineSection": {"routine": ids["routine"], "section_id": ids["section"], "name": "Taken"},
        "replaceUserRoutine": {
            "routine": ids["routine"],
            "name": "Taken",
            "sections": [{"name": "S", "starts_at": "08:00"}],
        },
        "replaceListRoutine": {"routine": ids["routine"], "name": "Taken", "items": []},
        "addHabitToRoutineSection": {"routine": ids["routine"], "habit": ids["habit"], "section_id": ids["section"]},
        "addTaskToRoutineSection": {"routine": ids["routine"], "task": ids["task"], "section_id": ids["section"]},
        "removeRoutineItem": {"entry_id": ids["entry"]},
        "deleteUserRoutine": {"routine": ids["routine"]},
        "createUserRoutine": {
            "name": "Mine",
            "sections": [{"name": "S", "starts_at": "08:00", "entries": [{"habit_id": ids["habit"]}]}],
        },
        "createListRoutine": {"name": "Mine", "items": [{"task_id": ids["task"]}]},
        "createUserSchedule": {"routine": ids["routine"], "weekdays": ["Monday"]},
        "updateUserSchedule": {"routine": ids["routine"], "weekdays": ["Monday"]},
        "deleteUserSchedule": {"routine": ids["routine"]},
        "checkRoutineItem": {"entry_id": ids["entry"]},
        "skipRoutineItem": {"entry_id": ids["entry"]},
        "listMicroTasks": {"entry_id": ids["entry"]},
        "addMicroTask": {"entry_id": ids["entry"], "text": "Taken"},
        "reorderMicroTasks": {"entry_id": ids["entry"], "micro_task_ids": [ids["micro_task"]]},
        "checkMicroTask": {"micro_task_id": ids["micro_task"]},
        "pinMicroTask": {"micro_task_id": ids["micro_task"]},
        "deleteMicroTask": {"micro_task_id": ids["micro_task"]},
        "addStudyNotes": {"page": ids["study_page"], "text": "Taken"},
        "addStudyDiagram": {"page": ids["study_page"], "source": "graph TD\n  Taken-->Over"},
        "generateStudyCards": {"page": ids["study_page"]},
        "getStudyBoard": {"page": ids["study_page"]},
        "addStudyNode": {"page": ids["study_page"], "title": "Taken"},
        "editStudyNode": {"page": ids["study_page"], "node": ids["node"], "title": "Taken"},
        "setStudyNodeStatus": {"page": ids["study_page"], "node": ids["node"], "status": "DONE"},
        "connectStudyNodes": {"page": ids["study_page"], "from_node": ids["other_node"], "to_node": ids["node"]},
        "disconnectStudyNodes": {"page": ids["study_page"], "from_node": ids["node"], "to_node": ids["other_node"]},
        "removeStudyNode": {"page": ids["study_page"], "node": ids["node"]},
        "reorderStudyBoard": {"page": ids["study_page"], "nodes": [ids["other_node"], ids["node"]]},
        "getStudyCycle": {"cycle": ids["study_cycle"]},
        "editStudyCycle": {"cycle": ids["study_cycle"], "name": "Taken"},
        "editStudyBlock": {"cycle": ids["study_cycle"], "number": 1, "minutes": 10},
        "archiveStudyCycle": {"cycle": ids["study_cycle"]},
        "deleteStudyCycle": {"cycle": ids["study_cycle"]},
        "createStudyCycle": {
            "name": "Taken",
            "days": [{"day": "Monday", "minutes": 60}],
            "subjects": [{"page": ids["study_page"]}],
        },
        "logStudySession": {"page": ids["study_page"], "minutes": 10},
        "deleteStudySession": {"session_id": ids["study_session"]},
    }
    return by_tool.get(name)


def unknown_arguments(arguments):
    """The same arguments with every id replaced by a fresh, unknown one."""
    text = json.dumps(arguments)
    for value in set(_uuids(arguments)):
        text = text.replace(value, str(uuid.uuid4()))
    return json.loads(text)


def _uuids(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _uuids(item)
    elif isinstance(value, list):
        for item in value:
            yield from _uuids(item)
    elif isinstance(value, str):
        try:
            uuid.UUID(value)
        except ValueError:
            return
        yield value


def shape(outcome):
    """What the model sees of a refusal, with ids masked (they differ between the two calls)."""
    text = outcome.as_model_content
    for value in set(_uuids(outcome.result)) | set(_uuids_in_text(text)):
        text = text.replace(value, "<id>")
    return outcome.error_key, text


def _uuids_in_text(text):
    return re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text)


# The tools that name nothing by id: they only read or write the acting user's own things.
NO_IDS = {"getUserHabits", "getUserCategories", "getUserTasks", "getUserGoals", "getUserRoutines",
          "getUserSchedules", "getTodayRoutine", "getUserConfiguration", "updateUserConfiguration",
          "updateGlobalContext", "updateChatContext", "submitUserFeedback", "createUserCategory",
          "openToolsets", "logDailyMood", "getUserMoodHistory", "createQuickNote", "getQuickNotes",
          "getDayView", "listStudyTopics", "showDiagram", "getStudyPlanForToday", "getStudyToday", "listStudyCycles",
          "listStudySessions"}  # fmt: skip
TAKING_IDS = [name for name in ALL_TOOLS if name not in NO_IDS]


def test_the_sweep_covers_every_tool_that_takes_an_id():
    for name in TAKING_IDS:
        assert foreign_arguments(name, {key: _Row() for key in LIFE_KEYS}) is not None, name


class _Row:
    id = uuid.uuid4()


LIFE_KEYS = ("category", "habit", "task", "goal", "parent", "routine", "section", "entry", "micro_task",
             "study_page", "node", "other_node", "study_cycle", "study_session")  # fmt: skip


@pytest.mark.parametrize("name", TAKING_IDS)
def test_another_users_ids_are_answered_exactly_like_unknown_ids(app, app_context, name):
    ana = db.session.get(User, make_user(app))
    bruno = db.session.get(User, make_user(app, email="bruno@example.com", name="Bruno"))
    arguments = foreign_arguments(name, build_a_life(bruno))
    foreign = tool_calls.run(context(ana), name, arguments)
    unknown = tool_calls.run(context(ana), name, unknown_arguments(arguments))
    assert foreign.error_key is not None, f"{name} acted on another user's row"
    assert shape(foreign) == shape(unknown)
    assert "Bruno" not in foreign.as_model_content and "Taken" not in foreign.as_model_content


ROOT = Path(__file__).resolve().parents[2]
CATALOGUE_COPY = ROOT / "docs" / "tool-catalogue.md"
DESIGN_DOCUMENT = ROOT.parent / "shared" / "spec" / "features.md"


def catalogue_rows(text):
    """{domain heading: [tool names]} from the table under "## The agent's tools"."""
    rows = {}
    for line in text[text.index("## The agent's tools") :].splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("Domain", "---"):
            rows[cells[0]] = [name.strip() for name in cells[1].split(",")]
    return rows


CATALOGUE = catalogue_rows(CATALOGUE_COPY.read_text())


def test_the_committed_tool_catalogue_is_the_design_documents():
    if not DESIGN_DOCUMENT.exists():
        pytest.skip(f"{DESIGN_DOCUMENT} is not beside this clone; docs/tool-catalogue.md stands in for it")
    assert catalogue_rows(DESIGN_DOCUMENT.read_text()) == CATALOGUE, "copy the table into docs/tool-catalogue.md"


def test_every_catalogue_row_belongs_to_exactly_one_declared_domain():
    claims = [heading for domain in domains.DOMAINS for heading in domain.catalogue]
    assert sorted(claims) == sorted(CATALOGUE)


def test_every_registered_tool_is_in_the_design_document():
    catalogued = {name for names in CATALOGUE.values() for name in names}
    assert set(registry.REGISTRY) - catalogued == {toolsets.DISCOVERY}  # the way to the others, not a feature


# Tools of a domain that arrive with a later part of it, and which part.
STILL_TO_COME = {}


@pytest.mark.parametrize("heading", CATALOGUE)
def test_every_tool_of_the_design_document_is_registered(heading):
    """Every domain has every tool of its catalogue row, but those STILL_TO_COME names."""
    assert [domain for domain in domains.DOMAINS if heading in domain.catalogue]
    missing = [name for name in CATALOGUE[heading] if name not in registry.REGISTRY]
    assert missing == [name for name in CATALOGUE[heading] if name in STILL_TO_COME]


def test_a_tool_still_to_come_is_not_registered_yet():
    """Once it lands, it leaves STILL_TO_COME."""
    assert not set(STILL_TO_COME) & set(registry.REGISTRY)


def test_every_tool_describes_itself_and_a_write_links_to_its_page():
    for tool in registry.REGISTRY.values():
        assert tool.description, tool.name
        if tool.kind == "write" and tool.name != "updateChatContext":  # the chat note lives in the chat
            assert tool.page, f"{tool.name}: a write card needs a page to link to"


def test_create_tools_return_the_new_id(app, app_context):
    ana = db.session.get(User, make_user(app))
    category = run(ana, "createUserCategory", name="Mind", icon="book").result["created"]
    habit = run(ana, "createUserHabit", name="Read", importance=2, difficulty=2, categories=["Mind"]).result
    assert uuid.UUID(category["id"]) and uuid.UUID(habit["created"]["id"])
    assert habit["created"]["categories"] == [{"id": category["id"], "name": "Mind"}]


def test_an_ambiguous_name_is_refused_with_the_candidates(app, app_context):
    ana = db.session.get(User, make_user(app))
    for name in ("Run 5k", "Run 10k"):
        goals.create(ana, name=name, target_value=1, unit="race", start_date=date.today(), end_date=date.today())
    outcome = run(ana, "increaseUserGoalValue", ref="Run")
    assert outcome.error_key == "GOAL_AMBIGUOUS"
    assert "Run 5k" in outcome.result["message"] and "Run 10k" in outcome.result["message"]


def test_checking_with_a_habit_id_is_refused_naming_the_entry_id(app, app_context):
    ana = db.session.get(User, make_user(app))
    life = build_a_life(ana)
    outcome = run(ana, "checkRoutineItem", entry_id=str(life["habit"].id))
    assert outcome.error_key == "ENTRY_ID_REQUIRED"
    assert str(life["entry"].id) in outcome.result["message"]
    proposed = run(ana, "checkRoutineItem", entry_id=str(life["entry"].id))
    assert proposed.error_key is None and ana.xp == 0
    with events.collecting() as announced:
        assert confirmed(ana, proposed)["entry"]["checked"]
    assert {"routines", "habits"} <= announced


def test_invalid_arguments_name_the_field(app, app_context):
    ana = db.session.get(User, make_user(app))
    outcome = run(ana, "createUserHabit", name="Read", importance=9, difficulty=2, categories=["x"])
    assert outcome.error_key == "INVALID_ARGUMENTS"
    assert outcome.result["details"][0]["field"] == "importance"


def test_the_configuration_tool_never_shows_the_email(app, app_context):
    ana = db.session.get(User, make_user(app))
    outcome = run(ana, "getUserConfiguration")
    assert "ana@example.com" not in outcome.as_model_content
    assert outcome.result["configuration"]["name"] == "Ana"


def test_tool_calls_are_counted_by_outcome(app, app_context):
    ana = db.session.get(User, make_user(app))
    before = REGISTRY.get_sample_value("beyou_agent_tool_calls_total", {"tool": "getUserHabits", "outcome": "ok"}) or 0
    run(ana, "getUserHabits")
    after = REGISTRY.get_sample_value("beyou_agent_tool_calls_total", {"tool": "getUserHabits", "outcome": "ok"})
    assert after == before + 1
