"""The calendarToday widget: today's timed routine entries and study blocks on one timeline, in
the order of the day, "now" among them, and what has no time counted apart."""

from datetime import time
from types import SimpleNamespace

from app.dashboard.timeline import day_timeline
from app.extensions import db
from app.profile import widgets
from app.routines import schedules, today
from app.routines import services as routines
from app.routines.today import EntryView, RoutineDay, SectionView
from app.study_cycles import services as study_cycles
from tests.builders import a_habit, a_study_cycle, an_everyday_routine, as_user


def _entry(name, starts=None, ends=None, checked=False, skipped=False):
    return EntryView(name, "HABIT", name, name, "activity", starts, ends, checked, skipped, 0.0, 5.0)


def _plan(*sections):
    return RoutineDay("r", "Weekdays", "sun", "TIMED", None, True, list(sections))


def _slice(name, minutes, starts=None, studied=0, blocks=()):
    cycle = SimpleNamespace(name=name)
    return SimpleNamespace(cycle=cycle, minutes=minutes, starts_at=starts, studied=studied,
                           left=max(minutes - studied, 0), blocks=list(blocks))  # fmt: skip


def _block(title):
    return SimpleNamespace(subject=SimpleNamespace(page=SimpleNamespace(title=title)))


def test_entries_are_placed_by_their_own_time_or_their_section_s_window():
    morning = SectionView("Morning", "sun", time(7), time(9), [_entry("Stretch"), _entry("Run", time(8), time(8, 30))])
    untimed = SectionView(None, None, None, None, [_entry("Read")])
    found = day_timeline(_plan(morning, untimed), [], now=time(12))
    assert [(slot.name, slot.starts, slot.ends, slot.detail) for slot in found.slots] == [
        ("Stretch", time(7), time(9), "Morning"),
        ("Run", time(8), time(8, 30), "Morning"),
    ]
    assert found.untimed_entries == 1


def test_study_blocks_follow_the_day_s_start_after_what_was_studied():
    cells = _slice("Exams", 60, time(18), studied=20, blocks=[(_block("Cells"), 25), (_block("Genes"), 15)])
    found = day_timeline(None, [cells], now=time(12))
    assert [(slot.name, slot.starts, slot.ends, slot.state) for slot in found.slots] == [
        ("Exams", time(18), time(18, 20), "done"),
        ("Cells", time(18, 20), time(18, 45), "open"),
        ("Genes", time(18, 45), time(19), "open"),
    ]


def test_study_with_no_start_time_is_for_any_time_and_a_rest_day_is_not_shown():
    found = day_timeline(None, [_slice("Exams", 60, studied=15), _slice("Languages", 0)], now=time(9))
    assert found.slots == [] and found.anytime_study == [("Exams", 45)]
    assert not found.empty


def test_now_falls_before_the_first_slot_still_to_start_and_earlier_ones_are_past():
    evening = SectionView("Evening", "moon", time(20), None, [_entry("Journal")])
    done, skipped = _entry("Stretch", checked=True), _entry("Walk", skipped=True)
    morning = SectionView("Morning", "sun", time(7), None, [done, skipped])
    study = _slice("Exams", 30, time(13), blocks=[(_block("Cells"), 30)])
    found = day_timeline(_plan(morning, evening), [study], time(13))
    assert [slot.name for slot in found.slots] == ["Stretch", "Walk", "Cells", "Journal"]
    assert found.now_index == 3  # the study block started at 13:00: now is inside it, not before it
    assert [slot.state for slot in found.slots[:2]] == ["done", "skipped"]
    assert found.slots[2].is_past(time(13, 30)) and not found.slots[3].is_past(time(13))


def test_study_running_past_midnight_ends_with_the_day():
    found = day_timeline(None, [_slice("Late", 60, time(23, 30), blocks=[(_block("Cells"), 60)])], time(9))
    assert found.slots[0].ends == time(23, 59)


def test_nothing_timed_is_an_empty_timeline():
    assert day_timeline(None, [], time(9)).empty


# On the dashboard -----------------------------------------------------------------------------


def test_calendar_today_is_a_widget_the_user_can_choose(app, user_id, signed_in):
    assert "calendarToday" in widgets.CATALOGUE
    configuration = signed_in.get("/configuration").data.decode()
    assert 'value="calendarToday"' in configuration


def _choose_the_calendar(app, user_id):
    with as_user(app, user_id) as ana:
        ana.widgets = ["calendarToday"]
        db.session.commit()


def test_the_widget_shows_a_timed_entry_and_a_timed_study_block(app, user_id, signed_in):
    _choose_the_calendar(app, user_id)
    with as_user(app, user_id) as ana:
        routine = routines.create_timed(
            ana, "Weekdays", "sun", [{"name": "Morning", "starts_at": "07:00", "ends_at": "08:00",
                                      "entries": [{"habit_id": a_habit(ana, "Stretch").id}]}]
        )  # fmt: skip
        schedules.set_days(ana, routine.id, list(range(7)))
        cycle = a_study_cycle(ana)["study_cycle"]
        weekday = today.local_today(ana)[1].weekday()
        study_cycles.save_cycle(ana, cycle.id, {
            "name": "Exams", "days": {weekday: {"minutes": 30, "starts_at": "18:00"}},
            "subjects": [{"page": str(cycle.subjects[0].page_id)}],
        })  # fmt: skip
    widget = signed_in.get("/dashboard").data.decode()
    assert 'data-testid="widget-calendarToday"' in widget
    assert "07:00" in widget and "Stretch" in widget and "Morning" in widget
    assert "18:00" in widget and "Cells" in widget


def test_the_widget_refreshes_on_routines_and_study_cycles(app, user_id, signed_in):
    _choose_the_calendar(app, user_id)
    page = signed_in.get("/dashboard").data.decode()
    assert (
        'hx-get="/dashboard/regions?ids=calendarToday" '
        'hx-trigger="domain:routines from:body delay:1ms, domain:study_cycles from:body delay:1ms"'
    ) in page
    region = signed_in.get("/dashboard/regions?ids=calendarToday").data.decode()
    assert 'hx-swap-oob="true"' in region and 'data-testid="calendar-empty"' in region


def test_the_empty_widget_says_how_to_fill_it_in_portuguese(app, user_id, signed_in):
    _choose_the_calendar(app, user_id)
    with as_user(app, user_id) as ana:
        ana.language = "pt"
        db.session.commit()
    widget = signed_in.get("/dashboard/regions?ids=calendarToday").data.decode()
    assert "Agenda de hoje" in widget and "Nothing with a time today" not in widget


def test_an_everyday_routine_s_all_day_section_is_on_the_timeline(app, user_id, signed_in):
    _choose_the_calendar(app, user_id)
    with as_user(app, user_id) as ana:
        an_everyday_routine(ana, a_habit(ana, "Read"))
    widget = signed_in.get("/dashboard/regions?ids=calendarToday").data.decode()
    assert 'data-testid="timeline-slot"' in widget and "00:00" in widget and "Read" in widget


def test_the_now_line_moves_on_with_the_clock_only_when_the_calendar_is_chosen(app, user_id, signed_in):
    assert 'data-testid="calendar-clock"' not in signed_in.get("/dashboard").data.decode()
    _choose_the_calendar(app, user_id)
    page = signed_in.get("/dashboard").data.decode()
    assert 'hx-get="/dashboard/regions?ids=calendarToday" hx-trigger="every 300s"' in page
