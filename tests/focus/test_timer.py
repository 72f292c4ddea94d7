"""Focus mode's timer, kept on the server: the time a phase ran adds up across pauses, a phase
that reaches its length ends when the timer is next read (recorded once, at the moment it ended,
the break following from there), a change the state does not allow is refused in words, and
another user's entry is an unknown one. Every moment here is given, none is the machine's."""

import uuid
from datetime import UTC, datetime, time, timedelta

import pytest
from flask_babel import force_locale

from app.extensions import db
from app.focus import services as focus
from app.focus.models import CycleKind, FocusTimer, TimerCycle, TimerState
from app.routines import schedules
from app.routines import services as routines
from app.shared.days import today_for, user_zone
from app.shared.errors import Conflict, NotFound
from tests.builders import a_habit


@pytest.fixture
def noon(ana):
    """Noon of Ana's day, in UTC: far from midnight, so an hour of timer stays on one day."""
    return datetime.combine(today_for(ana), time(12), tzinfo=user_zone(ana)).astimezone(UTC)


def minutes(count):
    return timedelta(minutes=count)


def cycles(user):
    mine = db.select(TimerCycle).where(TimerCycle.user_id == user.id)
    rows = db.session.scalars(mine.order_by(TimerCycle.completed_at))
    return [(row.kind, row.minutes, row.day, row.completed_at.replace(tzinfo=UTC)) for row in rows]


def test_a_never_started_timer_is_stopped_at_the_user_s_focus_length(ana, entry, noon):
    clock = focus.timer_state(ana, entry.id, now=noon)
    assert (clock.state, clock.phase, clock.remaining_ms) == (TimerState.STOPPED, CycleKind.WORK, 25 * 60000)
    assert db.session.scalar(db.select(db.func.count()).select_from(FocusTimer)) == 0  # a read writes nothing


def test_the_time_run_adds_up_across_pauses_and_a_pause_stands_still(ana, entry, noon):
    focus.start_timer(ana, entry.id, now=noon)
    paused = focus.pause_timer(ana, entry.id, now=noon + minutes(5))
    assert (paused.state, paused.elapsed_ms, paused.remaining_ms) == (TimerState.PAUSED, 5 * 60000, 20 * 60000)
    assert focus.timer_state(ana, entry.id, now=noon + minutes(9)).remaining_ms == 20 * 60000  # stands still

    focus.resume_timer(ana, entry.id, now=noon + minutes(10))
    running = focus.timer_state(ana, entry.id, now=noon + minutes(12))
    assert (running.state, running.elapsed_ms, running.remaining_ms) == (TimerState.RUNNING, 7 * 60000, 18 * 60000)
    focus.pause_timer(ana, entry.id, now=noon + minutes(13))

    row = db.session.scalar(db.select(FocusTimer))
    assert (row.state, row.elapsed_ms, row.pauses, row.started_at) == (TimerState.PAUSED, 8 * 60000, 2, None)
    assert row.paused_at.replace(tzinfo=UTC) == noon + minutes(13)
    assert cycles(ana) == []


def test_every_change_of_the_timer_counts_one_more_and_a_read_that_changes_nothing_counts_none(ana, entry, noon):
    """Answers about the timer can reach a page in any order; the revision tells it which is
    later (focus.js keeps the highest)."""
    assert focus.timer_state(ana, entry.id, now=noon).revision == 0  # never started: no row yet
    seen = [
        focus.start_timer(ana, entry.id, now=noon).revision,
        focus.pause_timer(ana, entry.id, now=noon + minutes(1)).revision,
        focus.timer_state(ana, entry.id, now=noon + minutes(2)).revision,  # a read that changes nothing
        focus.resume_timer(ana, entry.id, now=noon + minutes(3)).revision,
        focus.timer_state(ana, entry.id, now=noon + minutes(30)).revision,  # the focus ended: the break
        focus.stop_timer(ana, entry.id, now=noon + minutes(31)).revision,
    ]
    assert seen == [1, 2, 2, 3, 4, 5]
    assert db.session.scalar(db.select(FocusTimer.revision)) == 5


def test_a_paused_focus_never_ends(ana, entry, noon):
    focus.start_timer(ana, entry.id, now=noon)
    focus.pause_timer(ana, entry.id, now=noon + minutes(1))
    clock = focus.timer_state(ana, entry.id, now=noon + minutes(120))
    assert (clock.state, clock.remaining_ms) == (TimerState.PAUSED, 24 * 60000)
    assert cycles(ana) == []


def test_a_focus_that_reached_its_length_is_recorded_once_and_its_break_follows(ana, entry, noon, monkeypatch):
    announced = []
    monkeypatch.setattr(focus, "announce", lambda user, *names: announced.append(names))
    focus.start_timer(ana, entry.id, now=noon)
    focus.pause_timer(ana, entry.id, now=noon + minutes(10))
    focus.resume_timer(ana, entry.id, now=noon + minutes(12))  # the focus now ends at 12:27

    on_break = focus.timer_state(ana, entry.id, now=noon + minutes(29))
    assert (on_break.state, on_break.phase, on_break.elapsed_ms) == (TimerState.RUNNING, CycleKind.BREAK, 2 * 60000)
    again = focus.timer_state(ana, entry.id, now=noon + minutes(30))  # another page, a minute later
    assert again.remaining_ms == 2 * 60000
    assert cycles(ana) == [(CycleKind.WORK, 25, today_for(ana), noon + minutes(27))]
    assert ("focus",) in announced

    finished = focus.timer_state(ana, entry.id, now=noon + minutes(40))
    assert (finished.state, finished.phase, finished.remaining_ms) == (TimerState.STOPPED, CycleKind.WORK, 25 * 60000)
    assert [kind for kind, *_ in cycles(ana)] == [CycleKind.WORK, CycleKind.BREAK]
    assert cycles(ana)[1][3] == noon + minutes(32)
    assert focus.day_view(ana, now=noon + minutes(41)).entry(entry.id).cycles == 1


def test_a_timer_left_alone_through_a_whole_focus_and_break_records_both(ana, entry, noon):
    focus.start_timer(ana, entry.id, now=noon)
    clock = focus.timer_state(ana, entry.id, now=noon + minutes(90))
    assert clock.state == TimerState.STOPPED
    assert [(kind, at) for kind, _m, _d, at in cycles(ana)] == [
        (CycleKind.WORK, noon + minutes(25)),
        (CycleKind.BREAK, noon + minutes(30)),
    ]


def test_a_stopped_focus_is_not_a_cycle_and_the_next_start_is_a_new_one(ana, entry, noon):
    focus.start_timer(ana, entry.id, now=noon)
    stopped = focus.stop_timer(ana, entry.id, now=noon + minutes(20))
    assert (stopped.state, stopped.remaining_ms) == (TimerState.STOPPED, 25 * 60000)
    restarted = focus.start_timer(ana, entry.id, now=noon + minutes(21))
    assert restarted.remaining_ms == 25 * 60000
    assert focus.timer_state(ana, entry.id, now=noon + minutes(40)).phase == CycleKind.WORK  # 19 min in
    assert cycles(ana) == []


def test_the_length_is_the_one_configured_when_the_focus_started(ana, entry, noon):
    focus.start_timer(ana, entry.id, now=noon)
    ana.focus_work_minutes = 50
    db.session.commit()
    assert focus.timer_state(ana, entry.id, now=noon + minutes(1)).remaining_ms == 24 * 60000
    focus.stop_timer(ana, entry.id, now=noon + minutes(2))
    assert focus.timer_state(ana, entry.id, now=noon + minutes(3)).remaining_ms == 50 * 60000


def test_a_paused_timer_of_another_day_is_forgotten_and_a_running_one_carries_on(ana, entries, noon):
    first, second = entries
    focus.start_timer(ana, first.id, now=noon)
    focus.pause_timer(ana, first.id, now=noon + minutes(1))
    late = noon + timedelta(hours=11, minutes=50)  # 23:50
    focus.start_timer(ana, second.id, now=late)

    next_day = noon + timedelta(hours=12, minutes=5)
    assert focus.timer_state(ana, first.id, now=next_day).state == TimerState.STOPPED
    carried = focus.timer_state(ana, second.id, now=next_day)
    assert (carried.state, carried.remaining_ms) == (TimerState.RUNNING, 10 * 60000)


def test_a_focus_that_ended_on_a_day_the_entry_is_not_scheduled_is_recorded_on_that_day(ana, noon):
    """Started at 23:50 on the routine's only day, read a week later: the focus ended at 00:15 the
    next day, is recorded there, and the page opens."""
    habit = a_habit(ana, "Swim")
    routine = routines.create_list(ana, "Today only", entries=[{"habit_id": habit.id}])
    schedules.set_days(ana, routine.id, [today_for(ana).weekday()])
    entry = routine.entries[0]
    late = noon + timedelta(hours=11, minutes=50)
    focus.start_timer(ana, entry.id, now=late)

    week_later = focus.timer_state(ana, entry.id, now=noon + timedelta(days=7))
    assert week_later.state == TimerState.STOPPED
    assert [(kind, day) for kind, _m, day, _at in cycles(ana)] == [
        (CycleKind.WORK, today_for(ana) + timedelta(days=1)),
        (CycleKind.BREAK, today_for(ana) + timedelta(days=1)),
    ]


def test_a_pause_after_midnight_is_kept_the_next_day(ana, entry, noon):
    focus.start_timer(ana, entry.id, now=noon + timedelta(hours=11, minutes=50))
    focus.pause_timer(ana, entry.id, now=noon + timedelta(hours=12, minutes=5))
    kept = focus.timer_state(ana, entry.id, now=noon + timedelta(hours=13))
    assert (kept.state, kept.remaining_ms) == (TimerState.PAUSED, 10 * 60000)


def test_two_first_starts_at_once_make_one_timer(ana, entry, noon, monkeypatch):
    """The other device's start made the row between this one's look and its write."""
    focus.start_timer(ana, entry.id, now=noon)
    monkeypatch.setattr(focus, "_timer_row", lambda user, entry_id: None)
    with pytest.raises(Conflict) as refused:
        focus.start_timer(ana, entry.id, now=noon + minutes(1))
    assert refused.value.key == "FOCUS_TIMER_RUNNING"
    monkeypatch.undo()
    assert db.session.scalar(db.select(db.func.count()).select_from(FocusTimer)) == 1
    assert focus.timer_state(ana, entry.id, now=noon + minutes(2)).remaining_ms == 23 * 60000


@pytest.mark.parametrize(
    ("before", "change", "refusal"),
    [
        ((), focus.pause_timer, "FOCUS_TIMER_NOT_RUNNING"),
        ((), focus.resume_timer, "FOCUS_TIMER_NOT_PAUSED"),
        ((), focus.stop_timer, "FOCUS_TIMER_STOPPED"),
        ((focus.start_timer,), focus.start_timer, "FOCUS_TIMER_RUNNING"),
        ((focus.start_timer,), focus.resume_timer, "FOCUS_TIMER_NOT_PAUSED"),
        ((focus.start_timer, focus.pause_timer), focus.start_timer, "FOCUS_TIMER_PAUSED"),
        ((focus.start_timer, focus.pause_timer), focus.pause_timer, "FOCUS_TIMER_NOT_RUNNING"),
        ((focus.start_timer, focus.stop_timer), focus.pause_timer, "FOCUS_TIMER_NOT_RUNNING"),
    ],
)
def test_a_change_the_state_does_not_allow_is_refused_in_words(ana, entry, noon, before, change, refusal):
    for step, done in enumerate(before):
        done(ana, entry.id, now=noon + minutes(step))
    kept = focus.timer_state(ana, entry.id, now=noon + minutes(5))
    with pytest.raises(Conflict) as refused:
        change(ana, entry.id, now=noon + minutes(5))
    assert refused.value.key == refusal and refused.value.status == 409
    assert refused.value.message != refusal and refused.value.message.startswith("The timer")
    after = focus.timer_state(ana, entry.id, now=noon + minutes(5))
    assert (after.state, after.phase, after.elapsed_ms) == (kept.state, kept.phase, kept.elapsed_ms)


def test_the_refusal_is_said_in_the_person_s_language(app, ana, entry, noon):
    with pytest.raises(Conflict) as refused:
        focus.pause_timer(ana, entry.id, now=noon)
    with force_locale("pt"):
        assert refused.value.message == "O timer não está rodando, então não há o que pausar."


@pytest.mark.parametrize(
    "change", [focus.timer_state, focus.start_timer, focus.pause_timer, focus.resume_timer, focus.stop_timer]
)
def test_another_user_s_entry_is_an_unknown_one(ana, bruno, entry, noon, change):
    focus.start_timer(ana, entry.id, now=noon)
    with pytest.raises(NotFound) as theirs:
        change(bruno, entry.id, now=noon + minutes(1))
    with pytest.raises(NotFound) as unknown:
        change(bruno, uuid.uuid4(), now=noon + minutes(1))
    assert theirs.value.key == unknown.value.key == "ENTRY_NOT_FOUND"
    assert focus.timer_state(ana, entry.id, now=noon + minutes(1)).state == TimerState.RUNNING
