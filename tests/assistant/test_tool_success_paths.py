"""Every registered tool does its job when asked properly: each one has a success case here that
runs it through the registry as the model would and checks what changed or what it read. A new
tool without a case fails `test_every_registered_tool_has_a_success_case`.

A write that waits for the person (`confirm=`: deletes, rebuilt routines, checks and completions
that move XP) is run the way it happens in the chat: the model's call only proposes it, and the
person's Confirm performs it — the case checks what holds after the click.

Also pinned: the memory notes' limits, and a NUL character refused in any tool argument."""

import json
from datetime import date, timedelta

import pytest

from app import events
from app.agent import registry
from app.assistant import confirmations, tool_calls
from app.assistant import services as assistant
from app.assistant.models.chats import CHAT_NOTE_MAX, GLOBAL_NOTE_MAX
from app.categories import services as categories
from app.categories.models import Category
from app.extensions import db
from app.feedback.models import Feedback
from app.focus import services as focus
from app.focus.models import MicroTask, PinnedStep
from app.goals import services as goals
from app.goals.models import Goal, GoalStatus
from app.habits import services as habits
from app.habits.models import Habit
from app.ideas import services as ideas
from app.ideas.models import QuickNote
from app.mood.models import MoodEntry
from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.ai.models.studio import CardDraft
from app.notebook.models.board import BoardConnection, BoardNode
from app.notebook.models.pages import PageBlock
from app.profile.models import User
from app.routines import schedules
from app.routines import services as routines
from app.routines.models.routines import Routine, RoutineKind
from app.study_cycles import services as study_cycles
from app.tasks import services as tasks
from app.tasks.models import Task
from tests.assistant.conftest import Reply
from tests.builders import a_study_cycle
from tests.conftest import make_user


def a_life(user):
    """Ana's things: one of each kind, a routine scheduled every day, and spares to delete."""
    health = categories.create(user, name="Health", icon="heart")
    spare_category = categories.create(user, name="Spare", icon="star")
    run = habits.create(user, name="Run", importance=3, difficulty=2, categories=[health.id])
    stretch = habits.create(user, name="Stretch", importance=2, difficulty=1, categories=[health.id])
    dentist = tasks.create(user, name="Book dentist", importance=2, difficulty=1)
    call = tasks.create(user, name="Call mom", importance=1, difficulty=1)
    start = date.today() - timedelta(days=1)
    fit = goals.create(user, name="Get fit", target_value=10, unit="km", start_date=start,
                       end_date=start + timedelta(days=60))  # fmt: skip
    five_k = goals.create(user, name="Run 5k", target_value=5, unit="km", start_date=start,
                          end_date=start + timedelta(days=30), parent=fit.id)  # fmt: skip
    mornings = routines.create_timed(
        user, "Mornings", "sun",
        [{"name": "Wake up", "starts_at": "06:00", "ends_at": "09:00",
          "entries": [{"habit_id": run.id, "starts_at": "07:00"}, {"task_id": dentist.id}]}],
    )  # fmt: skip
    schedules.set_days(user, mornings.id, list(range(7)))
    evenings = routines.create_list(user, "Evenings", "moon", [{"task_id": dentist.id}])
    warm_up, _steps = focus.add(user, mornings.sections[0].entries[0].id, "Warm up")
    cool_down, _steps = focus.add(user, mornings.sections[0].entries[0].id, "Cool down")
    cells = notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Cells")
    cell, tissue, organ = (boards.add_node(user, cells.id, title) for title in ("Cell", "Tissue", "Organ"))
    boards.connect(user, cells.id, cell.id, tissue.id)
    return {
        "cells": cells, "cell": cell, "tissue": tissue, "organ": organ,
        "health": health, "spare_category": spare_category, "run": run, "stretch": stretch,
        "dentist": dentist, "call": call, "fit": fit, "five_k": five_k, "mornings": mornings,
        "section": mornings.sections[0], "run_entry": mornings.sections[0].entries[0], "evenings": evenings,
        "warm_up": warm_up, "cool_down": cool_down, "chat": assistant.create_chat(user),
        "ukulele": ideas.create(user, "Learn the ukulele", "BLUE"), **a_study_cycle(user, page=cells),
    }  # fmt: skip


def ids(life, key):
    return str(life[key].id)


def rows(model, **where):
    return db.session.scalars(db.select(model).filter_by(**where)).all()


def names(listed):
    return sorted(item["name"] for item in listed["items"])


# name: (arguments from the life, what must hold afterwards given (result, life, user))
CASES = {
    # categories
    "getUserCategories": (
        lambda life: {},
        lambda result, life, user: names(result) == ["Health", "Spare"] and result["total"] == 2,
    ),
    "createUserCategory": (
        lambda life: {"name": "Mind", "icon": "book", "experience": "INTERMEDIATE"},
        lambda result, life, user: rows(Category, name="Mind")[0].xp > 0 and result["created"]["name"] == "Mind",
    ),
    "editUserCategory": (
        lambda life: {"ref": "Health", "description": "Body first"},
        lambda result, life, user: life["health"].description == "Body first" and life["health"].name == "Health",
    ),
    "deleteUserCategory": (
        lambda life: {"ref": ids(life, "spare_category")},
        lambda result, life, user: result == {"deleted": "Spare"} and not rows(Category, name="Spare"),
    ),
    # habits
    "getUserHabits": (
        lambda life: {"search": "ru"},
        lambda result, life, user: names(result) == ["Run"] and result["items"][0]["in_routines"],
    ),
    "createUserHabit": (
        lambda life: {"name": "Meditate", "importance": 4, "difficulty": 2, "categories": ["Health"]},
        lambda result, life, user: rows(Habit, name="Meditate")[0].categories == [life["health"]],
    ),
    "editUserHabit": (
        lambda life: {"ref": "Stretch", "importance": 5},
        lambda result, life, user: life["stretch"].importance == 5 and life["stretch"].difficulty == 1,
    ),
    "deleteUserHabit": (
        lambda life: {"ref": "Stretch"},
        lambda result, life, user: result == {"deleted": "Stretch"} and not rows(Habit, name="Stretch"),
    ),
    # tasks
    "getUserTasks": (
        lambda life: {},
        lambda result, life, user: names(result) == ["Book dentist", "Call mom"],
    ),
    "createUserTask": (
        lambda life: {"name": "Pay rent", "importance": 5, "difficulty": 1, "one_time": True},
        lambda result, life, user: rows(Task, name="Pay rent")[0].one_time,
    ),
    "editUserTask": (
        lambda life: {"ref": "Call mom", "name": "Call dad"},
        lambda result, life, user: life["call"].name == "Call dad",
    ),
    "deleteUserTask": (
        lambda life: {"ref": "Call mom"},
        lambda result, life, user: result == {"deleted": "Call mom"} and not rows(Task, name="Call mom"),
    ),
    # goals
    "getUserGoals": (
        lambda life: {},
        lambda result, life, user: names(result) == ["Get fit", "Run 5k"],
    ),
    "createUserGoal": (
        lambda life: {
            "name": "Read 12 books",
            "target_value": 12,
            "unit": "books",
            "start_date": "2026-01-01",
            "end_date": "2026-12-31",
            "parent": "Get fit",
        },
        lambda result, life, user: rows(Goal, name="Read 12 books")[0].parent_id == life["fit"].id,
    ),
    "editUserGoal": (
        lambda life: {"ref": "Run 5k", "target_value": 6},
        lambda result, life, user: life["five_k"].target_value == 6 and life["five_k"].unit == "km",
    ),
    "deleteUserGoal": (
        lambda life: {"ref": "Get fit"},
        lambda result, life, user: not rows(Goal, name="Get fit") and life["five_k"].parent_id is None,
    ),
    "completeUserGoal": (
        lambda life: {"ref": "Run 5k"},
        lambda result, life, user: life["five_k"].status == GoalStatus.COMPLETED and user.xp > 0,
    ),
    "increaseUserGoalValue": (
        lambda life: {"ref": "Run 5k", "value": 2.5},
        lambda result, life, user: life["five_k"].current_value == 2.5 and result["goal"]["current_value"] == 2.5,
    ),
    "decreaseUserGoalValue": (
        lambda life: {"ref": "Run 5k", "value": 1},
        lambda result, life, user: life["five_k"].current_value == 0 and result["goal"]["current_value"] == 0,
    ),
    "archiveUserGoal": (
        lambda life: {"ref": "Run 5k"},
        lambda result, life, user: life["five_k"].archived_at is not None and result["goal"]["archived"],
    ),
    "restoreUserGoal": (
        lambda life: {"ref": "Run 5k"},
        lambda result, life, user: life["five_k"].archived_at is None,
    ),
    "moveGoalUnder": (
        lambda life: {"ref": "Run 5k", "parent": None},
        lambda result, life, user: life["five_k"].parent_id is None and result["goal"]["parent_id"] is None,
    ),
    # routines
    "getUserRoutines": (
        lambda life: {},
        lambda result, life, user: sorted(r["name"] for r in result["routines"]) == ["Evenings", "Mornings"],
    ),
    "createUserRoutine": (
        lambda life: {
            "name": "Weekend",
            "sections": [{"name": "Late start", "starts_at": "09:00", "entries": [{"habit_id": "Stretch"}]}],
        },
        lambda result, life, user: (
            [e.habit_id for e in rows(Routine, name="Weekend")[0].entries] == [life["stretch"].id]
        ),
    ),
    "createListRoutine": (
        lambda life: {"name": "Errands", "items": [{"task_id": "Call mom"}, {"habit_id": "Stretch"}]},
        lambda result, life, user: (
            rows(Routine, name="Errands")[0].kind == RoutineKind.LIST and len(result["routine"]["entries"]) == 2
        ),
    ),
    "renameUserRoutine": (
        lambda life: {"routine": "Mornings", "name": "Early mornings"},
        lambda result, life, user: life["mornings"].name == "Early mornings",
    ),
    "editRoutineSection": (
        lambda life: {"routine": "Mornings", "section_id": ids(life, "section"), "name": "Rise"},
        lambda result, life, user: (
            life["section"].name == "Rise" and result["routine"]["sections"][0]["name"] == "Rise"
        ),
    ),
    "replaceUserRoutine": (
        lambda life: {
            "routine": "Mornings",
            "name": "Mornings",
            "sections": [
                {
                    "id": ids(life, "section"),
                    "name": "Wake up",
                    "starts_at": "06:00",
                    "ends_at": "09:00",
                    "entries": [{"id": ids(life, "run_entry"), "habit_id": ids(life, "run"), "starts_at": "07:00"}],
                }
            ],
        },
        lambda result, life, user: [e["name"] for e in result["routine"]["sections"][0]["entries"]] == ["Run"],
    ),
    "replaceListRoutine": (
        lambda life: {"routine": "Evenings", "name": "Evenings", "items": [{"habit_id": "Stretch"}]},
        lambda result, life, user: [e["name"] for e in result["routine"]["entries"]] == ["Stretch"],
    ),
    "addHabitToRoutineSection": (
        lambda life: {
            "routine": "Mornings",
            "habit": "Stretch",
            "section_id": ids(life, "section"),
            "starts_at": "08:00",
        },
        lambda result, life, user: "Stretch" in [e["name"] for e in result["routine"]["sections"][0]["entries"]],
    ),
    "addTaskToRoutineSection": (
        lambda life: {"routine": "Evenings", "task": "Call mom"},
        lambda result, life, user: [e["name"] for e in result["routine"]["entries"]] == ["Book dentist", "Call mom"],
    ),
    "removeRoutineItem": (
        lambda life: {"entry_id": ids(life, "run_entry")},
        lambda result, life, user: [e["name"] for e in result["routine"]["sections"][0]["entries"]] == ["Book dentist"],
    ),
    "deleteUserRoutine": (
        lambda life: {"routine": "Evenings"},
        lambda result, life, user: result == {"deleted": "Evenings"} and not rows(Routine, name="Evenings"),
    ),
    # schedules
    "getUserSchedules": (
        lambda life: {},
        lambda result, life, user: [day["routine"]["name"] for day in result["week"]] == ["Mornings"] * 7,
    ),
    "createUserSchedule": (
        lambda life: {"routine": "Evenings", "weekdays": ["Saturday", "sunday"]},
        lambda result, life, user: result["weekdays"] == [5, 6] and len(result["moved"]) == 2,
    ),
    "updateUserSchedule": (
        lambda life: {"routine": "Mornings", "weekdays": ["0", "1", "2", "3", "4"]},
        lambda result, life, user: sorted(schedules.week(user)) == [0, 1, 2, 3, 4],
    ),
    "deleteUserSchedule": (
        lambda life: {"routine": "Mornings"},
        lambda result, life, user: schedules.week(user) == {} and result["weekdays"] == [],
    ),
    # today
    "getTodayRoutine": (
        lambda life: {},
        lambda result, life, user: result["today"]["name"] == "Mornings" and result["today"]["total"] == 2,
    ),
    "checkRoutineItem": (
        lambda life: {"entry_id": ids(life, "run_entry")},
        lambda result, life, user: result["entry"]["checked"] and user.xp > 0 and life["run"].xp > 0,
    ),
    "skipRoutineItem": (
        lambda life: {"entry_id": ids(life, "run_entry")},
        lambda result, life, user: result["entry"]["skipped"] and user.xp == 0,
    ),
    # Focus mode
    "listMicroTasks": (
        lambda life: {"entry_id": ids(life, "run_entry")},
        lambda result, life, user: [step["text"] for step in result["steps"]] == ["Warm up", "Cool down"],
    ),
    "addMicroTask": (
        lambda life: {"entry_id": ids(life, "run_entry"), "text": "Stretch calves"},
        lambda result, life, user: [str(step.id) for step in rows(MicroTask, text="Stretch calves")] == [result["id"]],
    ),
    "checkMicroTask": (
        lambda life: {"micro_task_id": ids(life, "warm_up")},
        lambda result, life, user: result["done"] and rows(MicroTask, text="Warm up")[0].done,
    ),
    "pinMicroTask": (
        lambda life: {"micro_task_id": ids(life, "warm_up")},
        lambda result, life, user: result["pinned"] and [pin.name for pin in rows(PinnedStep)] == ["Warm up"],
    ),
    "deleteMicroTask": (
        lambda life: {"micro_task_id": ids(life, "warm_up")},
        lambda result, life, user: [step.text for step in rows(MicroTask)] == ["Cool down"],
    ),
    "reorderMicroTasks": (
        lambda life: {
            "entry_id": ids(life, "run_entry"),
            "micro_task_ids": [ids(life, "cool_down"), ids(life, "warm_up")],
        },
        lambda result, life, user: [step["text"] for step in result["steps"]] == ["Cool down", "Warm up"],
    ),
    "getDayView": (
        lambda life: {},
        lambda result, life, user: (
            [(e["name"], e["micro_tasks_total"]) for e in result["entries"]] == [("Run", 2), ("Book dentist", 0)]
        ),
    ),
    # study cycles (a_study_cycle: "Exams" over the page Cells, one block, a 10-minute session)
    "getStudyToday": (lambda life: {}, lambda result, life, user: result["today"][0]["name"] == "Exams"),
    "listStudyCycles": (lambda life: {}, lambda result, life, user: result["cycles"][0]["lap"]["done"] == 10),
    "getStudyCycle": (lambda life: {"cycle": "exams"}, lambda result, life, user: result["blocks"][0]["number"] == 1),
    "listStudySessions": (
        lambda life: {},
        lambda result, life, user: [found["id"] for found in result["sessions"]] == [ids(life, "study_session")],
    ),
    "createStudyCycle": (
        lambda life: {"name": "Finals", "days": [{"day": "sábado", "minutes": 92}], "subjects": [{"page": "Cells"}]},
        lambda result, life, user: result["week"] == [{"weekday": 5, "minutes": 90, "startsAt": None}],
    ),
    "editStudyCycle": (
        lambda life: {"cycle": "Exams", "name": "Exam season"},
        lambda result, life, user: study_cycles.resolve_cycle(user, "exam season").id == life["study_cycle"].id,
    ),
    "editStudyBlock": (
        lambda life: {"cycle": "Exams", "number": 1, "minutes": 45},
        lambda result, life, user: result["minutes"] == 45,
    ),
    "archiveStudyCycle": (
        lambda life: {"cycle": "Exams"},
        lambda result, life, user: study_cycles.active_cycles(user) == [],
    ),
    "deleteStudyCycle": (
        lambda life: {"cycle": ids(life, "study_cycle")},
        lambda result, life, user: study_cycles.every_cycle(user) == [],
    ),
    "logStudySession": (
        lambda life: {"page": "Cells", "minutes": 20},
        lambda result, life, user: (
            result["minutes"] == 20 and study_cycles.lap_progress(life["study_cycle"]).done == 30
        ),
    ),
    "deleteStudySession": (
        lambda life: {"session_id": ids(life, "study_session")},
        lambda result, life, user: study_cycles.sessions(user) == [],
    ),
    # the person and the assistant
    "getUserConfiguration": (
        lambda life: {},
        lambda result, life, user: result["configuration"]["name"] == "Ana" and "email" not in result["configuration"],
    ),
    "updateUserConfiguration": (
        lambda life: {"theme": "dark", "phrase": "One step at a time", "timezone": "America/Sao_Paulo"},
        lambda result, life, user: (
            (user.theme, user.phrase, user.timezone) == ("dark", "One step at a time", "America/Sao_Paulo")
            and "email" not in result["configuration"]
        ),
    ),
    "updateGlobalContext": (
        lambda life: {"note": "Prefers mornings."},
        lambda result, life, user: user.assistant_note == "Prefers mornings.",
    ),
    "updateChatContext": (
        lambda life: {"note": "Planning a 5k."},
        lambda result, life, user: life["chat"].note == "Planning a 5k.",
    ),
    "openToolsets": (
        lambda life: {"toolsets": ["goals"]},
        lambda result, life, user: result["opened"] == ["goals"] and "completeUserGoal" in result["tools"],
    ),
    # the Ideas board
    "createQuickNote": (
        lambda life: {"text": "Ask Rui about the bike trip", "colour": "Pink"},
        lambda result, life, user: (
            [(n.text, n.colour, n.cell) for n in rows(QuickNote, text="Ask Rui about the bike trip")]
            == [("Ask Rui about the bike trip", "pink", 1)]
            and result["colour"] == "pink"
        ),
    ),
    "getQuickNotes": (
        lambda life: {},
        lambda result, life, user: (
            result["items"] == [{"id": ids(life, "ukulele"), "text": "Learn the ukulele", "colour": "blue"}]
        ),
    ),
    # the study notebook's pages
    "listStudyTopics": (
        lambda life: {},
        lambda result, life, user: (
            [(topic["name"], [page["title"] for page in topic["pages"]]) for topic in result["items"]]
            == [("Biology", ["Cells"])]
        ),
    ),
    "addStudyNotes": (
        lambda life: {"page": "Cells", "text": "The unit of life."},
        lambda result, life, user: [(b.kind, b.text) for b in rows(PageBlock)] == [("note", "The unit of life.")],
    ),
    "addStudyDiagram": (
        lambda life: {"page": ids(life, "cells"), "source": "flowchart TD\n  A --> B"},
        lambda result, life, user: [(b.kind, b.page_id) for b in rows(PageBlock)] == [("diagram", life["cells"].id)],
    ),
    "generateStudyCards": (
        lambda life: {"page": "Cells", "count": 2},
        lambda result, life, user: (
            [(d.front, d.back, d.passage["number"]) for d in rows(CardDraft)]
            == [("What is a cell?", "The unit of life.", 1)]
            and result["awaiting"] == 1
            and [b.kind for b in rows(PageBlock)] == ["note"]  # a draft, not a card: the person accepts it
        ),
    ),
    "showDiagram": (
        lambda life: {"source": "mindmap\n  root((Cells))"},
        lambda result, life, user: result["diagram"] == "mindmap\n  root((Cells))" and rows(PageBlock) == [],
    ),
    "submitUserFeedback": (
        lambda life: {"kind": "FEATURE_REQUEST", "text": "A dark theme for the calendar, please."},
        lambda result, life, user: (
            [(f.kind.value, f.page) for f in rows(Feedback)] == [("FEATURE_REQUEST", "/goals")] and result["sent"]
        ),
    ),
    # the study notebook's board
    "getStudyBoard": (
        lambda life: {"page": "Cells"},
        lambda result, life, user: (
            [(node["title"], node["leadsTo"]) for node in result["nodes"]]
            == [("Cell", [ids(life, "tissue")]), ("Tissue", []), ("Organ", [])]
        ),
    ),
    "addStudyNode": (
        lambda life: {"page": ids(life, "cells"), "title": "Organ system", "status": "LEARNING"},
        lambda result, life, user: (
            [(n.status.value, n.position) for n in rows(BoardNode, title="Organ system")] == [("LEARNING", 3)]
            and result["id"] == str(rows(BoardNode, title="Organ system")[0].id)
        ),
    ),
    "editStudyNode": (
        lambda life: {"page": "Cells", "node": ids(life, "organ"), "description": "Tissues working together"},
        lambda result, life, user: (
            (life["organ"].title, life["organ"].description) == ("Organ", "Tissues working together")
        ),
    ),
    "setStudyNodeStatus": (
        lambda life: {"page": "Cells", "node": "Tissue", "status": "done"},
        lambda result, life, user: life["tissue"].status.value == "DONE" and result["status"] == "DONE",
    ),
    "connectStudyNodes": (
        lambda life: {"page": "Cells", "from_node": "Tissue", "to_node": "Organ"},
        lambda result, life, user: (
            len(rows(BoardConnection, from_node_id=life["tissue"].id, to_node_id=life["organ"].id)) == 1
        ),
    ),
    "disconnectStudyNodes": (
        lambda life: {"page": "Cells", "from_node": "Cell", "to_node": "Tissue"},
        lambda result, life, user: rows(BoardConnection) == [],
    ),
    "removeStudyNode": (
        lambda life: {"page": "Cells", "node": ids(life, "cell")},
        lambda result, life, user: (
            sorted(n.title for n in rows(BoardNode)) == ["Organ", "Tissue"] and rows(BoardConnection) == []
        ),
    ),
    "reorderStudyBoard": (
        lambda life: {"page": "Cells", "nodes": ["Organ", "Cell", "Tissue"]},
        lambda result, life, user: [node["title"] for node in result["nodes"]] == ["Organ", "Cell", "Tissue"],
    ),
    "getStudyPlanForToday": (
        lambda life: {},
        lambda result, life, user: [cycle["name"] for cycle in result["plan"]] == ["Exams"],
    ),
    # mood
    "logDailyMood": (
        lambda life: {"level": 4, "note": "Slept well"},
        lambda result, life, user: (
            result["logged"] == {"date": date.today().isoformat(), "level": 4, "has_text": True}
            and [(row.level, row.journal) for row in rows(MoodEntry)] == [(4, "Slept well")]
        ),
    ),
    "getUserMoodHistory": (
        lambda life: {"days": 7},
        lambda result, life, user: result == {"days": [], "logged": 0, "of_days": 7},
    ),
}


@pytest.fixture
def ana(app, app_context):
    user = db.session.get(User, make_user(app))
    user.timezone = "UTC"
    db.session.commit()
    return user


def run(user, life, name, arguments):
    return tool_calls.run(registry.ToolContext(user=user, chat=life["chat"], page="/goals"), name, arguments)


def test_every_registered_tool_has_a_success_case():
    assert sorted(registry.REGISTRY) == sorted(CASES)


# The tools that ask the study door (app/notebook/ai/services.py), and the answer the wire fake gives it.
STUDY_DOOR = {
    "generateStudyCards": {
        "supported": True,
        "cards": [{"front": "What is a cell?", "back": "The unit of life [1].", "passage": 1}],
    },
}


@pytest.fixture
def ana_on_the_wire(make_agent_app, fake):
    """Ana in an app whose chain is the wire fake, for the tools that ask a model themselves."""
    app = make_agent_app()
    user_id = make_user(app)
    with app.test_request_context():
        user = db.session.get(User, user_id)
        user.timezone = "UTC"
        db.session.commit()
        yield user
        db.session.remove()


def confirmed(user, outcome):
    """The person's Confirm on the card a call proposed: (what the tool answered, what it announced)."""
    with events.collecting() as announced:
        decision = confirmations.confirm(user, outcome.pending_action_id)
    assert decision.decided and decision.action.state == "CONFIRMED", decision.action.outcome
    return decision.action.outcome, tuple(sorted(announced))


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_tool_succeeds_when_asked_properly(request, name):
    ana = request.getfixturevalue("ana_on_the_wire" if name in STUDY_DOOR else "ana")
    life = a_life(ana)
    if name in STUDY_DOOR:
        notebook.add_note(ana, life["cells"].id, "A cell is the unit of life.")
        request.getfixturevalue("fake").script("mistral", Reply.says(json.dumps(STUDY_DOOR[name])))
    if name in ("decreaseUserGoalValue",):
        goals.increase(ana, life["five_k"].id, 1)
    if name == "restoreUserGoal":
        goals.archive(ana, life["five_k"].id)
    arguments, holds = CASES[name]
    outcome = run(ana, life, name, arguments(life))
    assert outcome.error_key is None, outcome.result
    tool = registry.REGISTRY[name]
    result, domains = outcome.result, outcome.domains
    if tool.confirm is not None:
        assert outcome.pending_action_id is not None and domains == (), "the call alone changes nothing"
        result, domains = confirmed(ana, outcome)
    db.session.expire_all()
    assert holds(result, life, ana), result
    if tool.kind == "read":
        assert domains == ()
    else:
        assert tool.domain in domains, "a write announces the domain its tool belongs to"


def test_the_global_note_takes_2000_characters_and_refuses_2001(ana):
    life = a_life(ana)
    kept = run(ana, life, "updateGlobalContext", {"note": "n" * GLOBAL_NOTE_MAX})
    assert kept.error_key is None and len(ana.assistant_note) == GLOBAL_NOTE_MAX
    refused = run(ana, life, "updateGlobalContext", {"note": "m" * (GLOBAL_NOTE_MAX + 1)})
    assert refused.error_key == "NOTE_TOO_LONG"
    assert "2001" in refused.result["message"] and "2000" in refused.result["message"]
    db.session.expire_all()
    assert ana.assistant_note == "n" * GLOBAL_NOTE_MAX  # the old note stays whole


def test_the_chat_note_refuses_more_than_its_limit(ana):
    life = a_life(ana)
    refused = run(ana, life, "updateChatContext", {"note": "c" * (CHAT_NOTE_MAX + 1)})
    assert refused.error_key == "NOTE_TOO_LONG"


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("createUserCategory", {"name": "Mi\x00nd"}),
        ("getUserHabits", {"search": "ru\x00n"}),
        ("createUserRoutine", {"name": "Weekend", "sections": [{"name": "S\x00", "starts_at": "09:00"}]}),
        ("updateGlobalContext", {"note\x00": "x"}),
    ],
)
def test_a_nul_character_in_any_argument_is_refused_with_a_stable_key(ana, name, arguments):
    life = a_life(ana)
    outcome = run(ana, life, name, arguments)
    assert outcome.error_key == "TEXT_HAS_NUL"
    assert outcome.result["error"] == "TEXT_HAS_NUL" and "NUL" in outcome.result["message"]
    assert not rows(Category, name="Mind") and not rows(Routine, name="Weekend")
