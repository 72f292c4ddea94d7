"""Focus mode's seven tools: they call the same service as the page, refuse a call without an
entry by naming the one open in Focus mode, and none of them can write, list or delete a timer cycle."""

import inspect
import json
import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import event

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.focus import services as focus
from app.focus.models import MicroTask, PinnedStep, TimerCycle
from tests.builders import a_chat, a_habit, an_everyday_routine, confirmed

APP = Path(__file__).resolve().parents[2] / "app"


def run(user, name, focus_entry_id=None, **arguments):
    context = registry.ToolContext(user=user, chat=a_chat(user), page="/focus", focus_entry_id=focus_entry_id)
    return tool_calls.run(context, name, arguments)


def test_the_tools_walk_a_focus_session(ana, entry):
    added = run(ana, "addMicroTask", entry_id=str(entry.id), text="Outline")
    run(ana, "addMicroTask", entry_id=str(entry.id), text="Draft")
    outline = added.result["id"]
    assert added.error_key is None and added.domains == ("focus",)

    assert run(ana, "checkMicroTask", micro_task_id=outline).result["done"] is True
    assert run(ana, "pinMicroTask", micro_task_id=outline).result["pinned"] is True
    listed = run(ana, "listMicroTasks", entry_id=str(entry.id)).result
    order = [step["id"] for step in reversed(listed["steps"])]
    reordered = run(ana, "reorderMicroTasks", entry_id=str(entry.id), micro_task_ids=order).result
    assert [step["text"] for step in reordered["steps"]] == ["Draft", "Outline"]
    proposed = run(ana, "deleteMicroTask", micro_task_id=outline)
    assert "it is pinned" in proposed.result["awaiting_confirmation"]["summary"]
    deleted = confirmed(ana, proposed)
    assert [step["text"] for step in deleted["steps"]] == ["Draft"]
    assert db.session.scalars(db.select(PinnedStep)).all() == [], "deleting the pinned step let its name go"

    day = run(ana, "getDayView").result
    assert day["entries"][0]["entry_id"] == str(entry.id) and day["entries"][0]["micro_tasks_total"] == 1


def test_list_says_that_it_writes_and_announces_what_it_added(ana, entry):
    step, _ = focus.add(ana, entry.id, "Stretch")
    focus.pin(ana, step.id)
    # Today's copy goes without unpinning (as on a new day): the pinned name is missing again.
    db.session.delete(db.session.get(MicroTask, step.id))
    db.session.commit()

    listed = run(ana, "listMicroTasks", entry_id=str(entry.id))

    assert "WRITES" in registry.REGISTRY["listMicroTasks"].description
    assert [step["text"] for step in listed.result["steps"]] == ["Stretch"]
    assert listed.domains == ("focus",)


@pytest.mark.parametrize("name", ["listMicroTasks", "addMicroTask", "reorderMicroTasks"])
def test_a_call_without_an_entry_is_refused_naming_the_open_one(ana, entry, name):
    arguments = {"addMicroTask": {"text": "Outline"}, "reorderMicroTasks": {"micro_task_ids": []}}.get(name, {})

    with_open = run(ana, name, focus_entry_id=entry.id, **arguments)
    without = run(ana, name, **arguments)

    assert with_open.error_key == "FOCUS_ENTRY_REQUIRED_OPEN"
    assert "Write" in with_open.result["message"] and str(entry.id) in with_open.result["message"]
    assert without.error_key == "FOCUS_ENTRY_REQUIRED"
    assert db.session.scalars(db.select(MicroTask)).all() == [], "nothing was written to a guessed entry"


def test_another_user_s_open_entry_is_not_named(ana, bruno):
    (bruno_entry,) = an_everyday_routine(bruno, a_habit(bruno, "Paint"))
    refused = run(ana, "addMicroTask", focus_entry_id=bruno_entry.id, text="Outline")
    assert refused.error_key == "FOCUS_ENTRY_REQUIRED" and "Paint" not in refused.as_model_content


# Timer cycles are out of every tool's reach ---------------------------------------------------


def test_no_tool_schema_mentions_cycles_but_the_day_view_s_count():
    mentioning = {
        tool.name
        for tool in registry.REGISTRY.values()
        if "cycle" in (tool.description + json.dumps(tool.args_model.model_json_schema())).lower()
        and tool.name != "openToolsets"  # it lists the toolsets' summaries, none of which writes a cycle
        # A study cycle is a week's plan, not a timer cycle: tests/study_cycles/test_tools.py pins
        # that those tools never reach a timer cycle.
        and tool.domain != "study_cycles"
        and tool.name != "getStudyPlanForToday"  # the notebook's door to the study cycles' plan
    }
    assert mentioning == {"getDayView"}
    assert registry.REGISTRY["getDayView"].kind == "read"
    assert registry.REGISTRY["getDayView"].args_model.model_json_schema().get("properties", {}) == {}


def test_only_the_timer_records_a_cycle():
    """No tool module, and no module but Focus mode's services, names the recording function or
    builds a cycle row, and no tool module names a change of the timer: a tool's code path
    cannot reach them (the catalogue lists no timer tool)."""
    callers = {
        path.relative_to(APP).as_posix()
        for path in APP.rglob("*.py")
        if re.search(r"record_cycle\(|(?<!class )TimerCycle\(", path.read_text())
    }
    assert callers == {"focus/services.py"}
    changes = ("start_timer", "pause_timer", "resume_timer", "stop_timer", "timer_state")
    for module in {inspect.getmodule(tool.handler) for tool in registry.REGISTRY.values()}:
        source = inspect.getsource(module)
        assert "record_cycle" not in source and "TimerCycle" not in source, module.__name__
        assert not any(change in source for change in changes), module.__name__


def test_running_every_focus_tool_never_writes_a_timer_cycle(app, ana, entry, entries):
    """Not even a focus that ran to its end with no page open: the tools read it as it stands,
    and only the timer's own page records it."""
    focus.record_cycle(ana, entry.id, uuid.uuid4(), "WORK", 25)
    focus.start_timer(ana, entries[1].id, now=focus.utcnow() - timedelta(minutes=27))
    written = []

    def watch(_connection, _cursor, statement, _parameters, _context, _many):
        words = statement.lstrip().upper()
        if ("TIMER_CYCLES" in words or "FOCUS_TIMERS" in words) and words.startswith(("INSERT", "UPDATE", "DELETE")):
            written.append(statement)

    engine = db.engine
    event.listen(engine, "before_cursor_execute", watch)
    try:
        step = run(ana, "addMicroTask", entry_id=str(entry.id), text="Outline").result["id"]
        for name, arguments in (
            ("listMicroTasks", {"entry_id": str(entry.id)}),
            ("checkMicroTask", {"micro_task_id": step}),
            ("pinMicroTask", {"micro_task_id": step}),
            ("reorderMicroTasks", {"entry_id": str(entry.id), "micro_task_ids": [step]}),
            ("getDayView", {}),
            ("deleteMicroTask", {"micro_task_id": step}),
        ):
            outcome = run(ana, name, **arguments)
            assert outcome.error_key is None, name
            if outcome.pending_action_id:
                confirmed(ana, outcome)
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    assert written == []
    day = run(ana, "getDayView").result
    assert day["completed_cycles"] == 1
    assert day["entries"][0]["timer"] == {"state": "STOPPED"}
    timer = day["entries"][1]["timer"]
    assert (timer["phase"], timer["state"], timer["planned_seconds"]) == ("BREAK", "RUNNING", 300)
    assert 120 <= timer["elapsed_seconds"] <= 130
    assert timer["elapsed_seconds"] + timer["remaining_seconds"] in (300, 301)
    assert db.session.scalar(db.select(db.func.count()).select_from(TimerCycle)) == 1
