"""Focus mode's rows travel in the export, go with the account, and a deleted routine entry takes
its steps, pins and timer along while its timer cycles stay (emptied of the entry)."""

import json
import uuid

import pytest

from app.extensions import db
from app.focus import services as focus
from app.focus.models import FocusTimer, MicroTask, PinnedStep, TimerCycle
from app.profile import configuration
from app.routines import services as routines
from app.shared.errors import Invalid
from tests.conftest import PASSWORD


def a_focused_morning(user, entry):
    step, _ = focus.add(user, entry.id, "Outline")
    focus.pin(user, step.id)
    focus.check(user, step.id)
    focus.start_timer(user, entry.id)
    return focus.record_cycle(user, entry.id, uuid.uuid4(), "WORK", 25)[0]


def test_the_export_carries_steps_pins_and_cycles_as_strict_json(ana, entry):
    cycle = a_focused_morning(ana, entry)

    exported = configuration.export(ana)["focus"]

    json.dumps(exported, allow_nan=False)
    assert [(row["entry_id"], row["text"], row["done"]) for row in exported["micro_tasks"]] == [
        (str(entry.id), "Outline", True)
    ]
    assert [row["name"] for row in exported["pinned_steps"]] == ["Outline"]
    assert exported["timer_cycles"] == [
        {
            "cycle_id": str(cycle.cycle_id),
            "entry_id": str(entry.id),
            "day": cycle.day.isoformat(),
            "kind": "WORK",
            "minutes": 25,
            "completed_at": cycle.completed_at.isoformat(),
        }
    ]
    [timer] = exported["focus_timers"]
    assert (timer["entry_id"], timer["phase"], timer["state"], timer["planned_seconds"]) == (
        str(entry.id), "WORK", "RUNNING", 1500
    )  # fmt: skip
    assert timer["started_at"] and timer["paused_at"] is None and timer["pauses"] == 0


def test_the_timer_lengths_are_settings_like_any_other(ana):
    assert configuration.settings(ana)["focus_work_minutes"] == 25
    configuration.update(ana, focus_work_minutes="45", focus_break_minutes=10)
    assert focus.timer(ana) == {"work": 45, "break": 10}
    for name, value, key in (
        ("focus_work_minutes", 0, "FOCUS_WORK_MINUTES_INVALID"),
        ("focus_work_minutes", "121", "FOCUS_WORK_MINUTES_INVALID"),
        ("focus_break_minutes", "5.5", "FOCUS_BREAK_MINUTES_INVALID"),
        ("focus_break_minutes", True, "FOCUS_BREAK_MINUTES_INVALID"),
    ):
        with pytest.raises(Invalid) as refused:
            configuration.update(ana, **{name: value})
        assert refused.value.details == {name: key}
    assert focus.timer(ana) == {"work": 45, "break": 10}


def test_deleting_the_account_removes_every_focus_row(ana, bruno, entry):
    a_focused_morning(ana, entry)
    ana_id = ana.id

    configuration.delete_account(ana, PASSWORD, "DELETE")

    for model in (MicroTask, PinnedStep, TimerCycle, FocusTimer):
        assert db.session.scalars(db.select(model).where(model.user_id == ana_id)).all() == []


def test_replacing_a_routine_without_the_entry_keeps_working(ana, entry):
    a_focused_morning(ana, entry)
    routine = entry.routine

    routines.replace(ana, routine.id, {"name": routine.name, "sections": [{"name": "Later", "starts_at": "10:00"}]})

    assert db.session.scalars(db.select(MicroTask)).all() == []
    assert db.session.scalars(db.select(FocusTimer)).all() == []
    assert db.session.scalar(db.select(TimerCycle.entry_id)) is None
    assert focus.day_view(ana).entries == []
