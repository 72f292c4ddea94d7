"""Focus mode's rules: today's entries only, pinned names kept by the read, the timer's cycles
recorded once per cycle id, and another user's ids answered like unknown ones."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from app.extensions import db
from app.focus import services as focus
from app.focus.models import MicroTask, PinnedStep, TimerCycle
from app.routines import schedules
from app.routines import services as routines
from app.shared.days import today_for
from app.shared.errors import Invalid, NotFound
from tests.builders import a_habit, an_everyday_routine


def texts(steps):
    return [step.text for step in steps.steps]


def tomorrow():
    return datetime.now(UTC) + timedelta(days=1)


# Pinned names ----------------------------------------------------------------------------------


def test_a_name_pinned_on_one_day_comes_back_the_next_day_through_the_read(ana, entry):
    step, _ = focus.add(ana, entry.id, "Open the draft")
    focus.add(ana, entry.id, "Answer one email")
    focus.pin(ana, step.id)

    next_day = focus.list_steps(ana, entry.id, now=tomorrow())

    assert texts(next_day) == ["Open the draft"]
    assert next_day.is_pinned(next_day.steps[0]) and not next_day.steps[0].done
    stored = db.session.scalars(db.select(MicroTask).where(MicroTask.day == next_day.day)).all()
    assert [row.text for row in stored] == ["Open the draft"], "the read wrote the pinned step"


def test_the_read_materialises_only_what_is_missing_and_announces(ana, entry, monkeypatch):
    step, _ = focus.add(ana, entry.id, "Stretch")
    focus.pin(ana, step.id)
    announced = []
    monkeypatch.setattr(focus, "announce", lambda user, *names: announced.append(names))

    focus.list_steps(ana, entry.id, now=tomorrow())
    again = focus.list_steps(ana, entry.id, now=tomorrow())

    assert texts(again) == ["Stretch"]
    assert announced == [("focus",)], "the first read wrote and announced; the second had nothing to add"


def test_pinning_belongs_to_the_name_whatever_its_letter_case(ana, entry):
    step, _ = focus.add(ana, entry.id, "Stretch")
    focus.pin(ana, step.id)
    twin, steps = focus.add(ana, entry.id, "stretch")
    assert steps.is_pinned(twin), "the name is pinned, not the line"

    focus.pin(ana, twin.id)
    next_day = focus.list_steps(ana, entry.id, now=tomorrow())

    assert db.session.scalar(db.select(db.func.count()).select_from(PinnedStep)) == 1
    assert texts(next_day) == ["Stretch"]
    focus.pin(ana, twin.id, pinned=False)
    assert db.session.scalars(db.select(PinnedStep)).all() == []


def test_deleting_a_pinned_step_stops_keeping_its_name(ana, entry):
    step, _ = focus.add(ana, entry.id, "Stretch")
    focus.pin(ana, step.id)

    focus.delete(ana, step.id)

    assert db.session.scalars(db.select(PinnedStep)).all() == []
    assert texts(focus.list_steps(ana, entry.id, now=tomorrow())) == []


def test_unpinning_keeps_today_s_step_and_stops_the_next_days(ana, entry):
    step, _ = focus.add(ana, entry.id, "Stretch")
    focus.pin(ana, step.id)
    focus.pin(ana, step.id, pinned=False)

    assert texts(focus.list_steps(ana, entry.id)) == ["Stretch"]
    assert texts(focus.list_steps(ana, entry.id, now=tomorrow())) == []


def test_pins_belong_to_the_entry_not_to_the_habit(ana, entry):
    """The same habit in a second routine's entry keeps its own steps."""
    other_routine = routines.create_list(ana, "Evenings", entries=[{"habit_id": entry.habit_id}])
    step, _ = focus.add(ana, entry.id, "Stretch")
    focus.pin(ana, step.id)
    schedules.set_days(ana, other_routine.id, list(range(7)))

    assert texts(focus.list_steps(ana, other_routine.entries[0].id)) == []


# Steps -----------------------------------------------------------------------------------------


def test_check_toggles_and_sets(ana, entry):
    step, _ = focus.add(ana, entry.id, "Outline")
    assert focus.check(ana, step.id)[0].done is True
    assert focus.check(ana, step.id)[0].done is False
    assert focus.check(ana, step.id, done=False)[0].done is False


def test_reorder_takes_every_step_once(ana, entry):
    first, _ = focus.add(ana, entry.id, "One")
    second, _ = focus.add(ana, entry.id, "Two")
    third, _ = focus.add(ana, entry.id, "Three")

    assert texts(focus.reorder(ana, entry.id, [third.id, first.id, second.id])) == ["Three", "One", "Two"]
    assert texts(focus.list_steps(ana, entry.id)) == ["Three", "One", "Two"]
    for wrong in ([third.id, first.id], [third.id, first.id, first.id, second.id], [third.id, first.id, uuid.uuid4()]):
        with pytest.raises(Invalid) as refused:
            focus.reorder(ana, entry.id, wrong)
        assert refused.value.key == "MICRO_TASK_ORDER_INVALID"


def test_move_goes_one_place_and_stops_at_the_ends(ana, entry):
    focus.add(ana, entry.id, "One")
    second, _ = focus.add(ana, entry.id, "Two")

    assert texts(focus.move(ana, second.id, -1)[1]) == ["Two", "One"]
    assert texts(focus.move(ana, second.id, -1)[1]) == ["Two", "One"]
    assert texts(focus.move(ana, second.id, 1)[1]) == ["One", "Two"]


def test_a_step_s_text_is_required_and_short(ana, entry):
    for text, key in (("   ", "MICRO_TASK_TEXT_REQUIRED"), ("x" * 201, "MICRO_TASK_TEXT_TOO_LONG")):
        with pytest.raises(Invalid) as refused:
            focus.add(ana, entry.id, text)
        assert refused.value.details == {"text": key}
    assert focus.add(ana, entry.id, "  Two   spaces ")[0].text == "Two spaces"


def test_a_list_holds_at_most_fifty_steps(ana, entry):
    for number in range(focus.STEPS_MAX):
        focus.add(ana, entry.id, f"Step {number}")
    with pytest.raises(Invalid) as refused:
        focus.add(ana, entry.id, "One more")
    assert refused.value.key == "MICRO_TASKS_FULL"


def test_yesterday_s_steps_cannot_be_changed_today(ana, entry):
    step, _ = focus.add(ana, entry.id, "Outline", now=datetime.now(UTC))
    with pytest.raises(NotFound) as refused:
        focus.check(ana, step.id, now=tomorrow())
    assert refused.value.key == "MICRO_TASK_NOT_FOUND"


# Which entry -----------------------------------------------------------------------------------


def test_an_entry_not_in_today_s_routine_is_refused(ana):
    habit = a_habit(ana, "Swim")
    routine = routines.create_list(ana, "Weekend", entries=[{"habit_id": habit.id}])
    other_days = [day for day in range(7) if day != today_for(ana).weekday()]
    schedules.set_days(ana, routine.id, other_days)

    for attempt in (
        lambda: focus.list_steps(ana, routine.entries[0].id),
        lambda: focus.add(ana, routine.entries[0].id, "Warm up"),
        lambda: focus.timer_state(ana, routine.entries[0].id),
        lambda: focus.start_timer(ana, routine.entries[0].id),
    ):
        with pytest.raises(Invalid) as refused:
            attempt()
        assert refused.value.key == "FOCUS_ENTRY_NOT_TODAY"


def test_another_user_s_entry_and_step_are_unknown_ones(ana, bruno, entry):
    (bruno_entry,) = an_everyday_routine(bruno, a_habit(bruno, "Paint"))
    bruno_step, _ = focus.add(bruno, bruno_entry.id, "Mix colours")

    for foreign, unknown in (
        (lambda: focus.list_steps(ana, bruno_entry.id), lambda: focus.list_steps(ana, uuid.uuid4())),
        (lambda: focus.add(ana, bruno_entry.id, "Mine"), lambda: focus.add(ana, uuid.uuid4(), "Mine")),
        (lambda: focus.check(ana, bruno_step.id), lambda: focus.check(ana, uuid.uuid4())),
        (lambda: focus.delete(ana, bruno_step.id), lambda: focus.delete(ana, uuid.uuid4())),
        (
            lambda: focus.record_cycle(ana, bruno_entry.id, uuid.uuid4(), "WORK", 25),
            lambda: focus.record_cycle(ana, uuid.uuid4(), uuid.uuid4(), "WORK", 25),
        ),
    ):
        with pytest.raises(NotFound) as from_bruno:
            foreign()
        with pytest.raises(NotFound) as from_nowhere:
            unknown()
        assert from_bruno.value.key == from_nowhere.value.key
        assert from_bruno.value.message == from_nowhere.value.message
    assert db.session.get(MicroTask, bruno_step.id).done is False


def test_the_missing_entry_refusal_names_the_entry_open_in_focus_mode(ana, entry):
    with pytest.raises(Invalid) as refused:
        focus.refuse_missing_entry(ana, entry.id)
    assert refused.value.key == "FOCUS_ENTRY_REQUIRED_OPEN"
    assert "Write" in refused.value.message and str(entry.id) in refused.value.message

    with pytest.raises(Invalid) as refused:
        focus.refuse_missing_entry(ana, None)
    assert refused.value.key == "FOCUS_ENTRY_REQUIRED"


# The timer -------------------------------------------------------------------------------------


def test_the_same_cycle_id_twice_is_one_row(ana, entry):
    cycle_id = uuid.uuid4()
    first, created = focus.record_cycle(ana, entry.id, str(cycle_id), "work", "25")
    again, created_again = focus.record_cycle(ana, entry.id, str(cycle_id), "WORK", 25)

    assert (created, created_again) == (True, False)
    assert first.id == again.id
    assert db.session.scalar(db.select(db.func.count()).select_from(TimerCycle)) == 1


def test_a_cycle_needs_an_id_a_kind_and_minutes_in_range(ana, entry):
    for cycle_id, kind, minutes, field in (
        ("not-an-id", "WORK", 25, "cycle_id"),
        (uuid.uuid4(), "NAP", 25, "kind"),
        (uuid.uuid4(), "WORK", 0, "minutes"),
        (uuid.uuid4(), "BREAK", 61, "minutes"),
        (uuid.uuid4(), "WORK", "1e3", "minutes"),
    ):
        with pytest.raises(Invalid) as refused:
            focus.record_cycle(ana, entry.id, cycle_id, kind, minutes)
        assert field in refused.value.details


def test_the_day_view_counts_steps_pins_and_completed_work_cycles(ana, entries):
    write, tidy = entries
    step, _ = focus.add(ana, write.id, "Outline")
    focus.add(ana, write.id, "Draft")
    focus.check(ana, step.id)
    pinned, _ = focus.add(ana, tidy.id, "Clear the desk")
    focus.pin(ana, pinned.id)
    for kind in ("WORK", "WORK", "BREAK"):
        focus.record_cycle(ana, write.id, uuid.uuid4(), kind, 5 if kind == "BREAK" else 25)

    today = focus.day_view(ana).to_dict()
    next_day = focus.day_view(ana, now=tomorrow()).to_dict()

    assert today["completed_cycles"] == 2
    keys = ("name", "micro_tasks_done", "micro_tasks_total", "completed_cycles")
    counts = [tuple(e[key] for key in keys) for e in today["entries"]]
    assert counts == [("Write", 1, 2, 2), ("Tidy desk", 0, 1, 0)]
    assert [e["micro_tasks_total"] for e in next_day["entries"]] == [0, 1], "a pinned name waiting counts"
    later = db.select(db.func.count()).select_from(MicroTask).where(MicroTask.day > today_for(ana))
    assert db.session.scalar(later) == 0, "the day view only reads"


# Deleting an entry ---------------------------------------------------------------------------


def test_removing_an_entry_takes_its_steps_and_pins_and_keeps_its_cycles(ana, entry):
    step, _ = focus.add(ana, entry.id, "Outline")
    focus.pin(ana, step.id)
    focus.record_cycle(ana, entry.id, uuid.uuid4(), "WORK", 25)

    routines.remove_entry(ana, entry.id)

    assert db.session.scalars(db.select(MicroTask)).all() == []
    assert db.session.scalars(db.select(PinnedStep)).all() == []
    (cycle,) = db.session.scalars(db.select(TimerCycle)).all()
    db.session.refresh(cycle)
    assert cycle.entry_id is None and cycle.minutes == 25
