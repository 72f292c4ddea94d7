"""The study cycle service: the refusals of a bad configuration (nothing half-saved), partial
edits, blocks edited by number, laps credited and debited by sessions and by the Focus timer."""

import uuid
from datetime import date, timedelta

import pytest

from app.extensions import db
from app.focus import services as focus
from app.notebook import services as notebook
from app.shared.errors import Invalid, NotFound
from app.study_cycles import services as study_cycles
from app.study_cycles.models import StudyCycle, StudySession
from tests.builders import a_habit, an_everyday_routine
from tests.study_cycles.conftest import NOW, configuration, week

TODAY = date(2026, 3, 11)


def refusal(call):
    with pytest.raises((Invalid, NotFound)) as refused:
        call()
    return refused.value


def blocks(cycle):
    return [(block.number, block.subject.page.title, block.minutes, block.mode.value) for block in cycle.blocks]


def test_a_new_cycle_is_planned_into_numbered_blocks_and_starts_its_first_lap(cycle):
    assert blocks(cycle) == [
        (1, "Cells", 30, "TIME"),
        (2, "Genetics", 30, "TIME"),
        (3, "Cells", 30, "TIME"),
        (4, "Genetics", 30, "TIME"),
    ]
    assert [lap.number for lap in cycle.laps] == [1] and study_cycles.lap_progress(cycle).done == 0


def test_a_page_together_with_a_page_inside_it_is_refused_and_nothing_is_saved(ana, cells, mitosis):
    refused = refusal(lambda: study_cycles.create_cycle(ana, configuration(cells, mitosis)))
    assert refused.key == "STUDY_SUBJECTS_OVERLAP"
    assert "Mitosis" in refused.message and "Cells" in refused.message
    assert db.session.scalars(db.select(StudyCycle)).all() == []


def test_the_same_page_twice_is_refused(ana, cells):
    assert refusal(lambda: study_cycles.create_cycle(ana, configuration(cells, cells))).key == "STUDY_SUBJECT_TWICE"


def test_a_week_with_no_study_minutes_is_refused(ana, cells):
    refused = refusal(lambda: study_cycles.create_cycle(ana, configuration(cells, days=week(monday=0))))
    assert refused.key == "STUDY_WEEK_EMPTY"


def test_minutes_from_a_form_must_be_in_steps_of_5_and_the_assistant_s_are_snapped(ana, cells):
    refused = refusal(lambda: study_cycles.create_cycle(ana, configuration(cells, days=week(monday=62))))
    assert refused.key == "STUDY_MINUTES_STEP" and refused.details == {"minutes_0": "STUDY_MINUTES_STEP"}
    snapped = study_cycles.create_cycle(ana, configuration(cells, days=week(monday=62, friday=2)), snap=True)
    assert [(day.weekday, day.minutes) for day in snapped.days] == [(0, 60)]


def test_a_week_too_short_for_every_subject_is_refused(ana, cells, genetics):
    refused = refusal(lambda: study_cycles.create_cycle(ana, configuration(cells, genetics, days=week(monday=5))))
    assert refused.key == "STUDY_WEEK_TOO_SHORT"


def test_several_bad_fields_are_named_at_once(ana, cells):
    bad = configuration(cells, name=" ", days=week(monday=7), largest_block=300, default_mode="fast")
    refused = refusal(lambda: study_cycles.create_cycle(ana, bad))
    assert refused.key == "INVALID_INPUT"
    assert set(refused.details) == {"name", "minutes_0", "largest_block", "default_mode"}


def test_a_rename_keeps_blocks_edited_by_hand_and_a_new_week_replans(ana, cycle):
    study_cycles.edit_block(ana, cycle.id, 2, minutes=15)
    renamed = configuration_with(cycle, name="Finals")
    study_cycles.save_cycle(ana, cycle.id, renamed)
    assert cycle.name == "Finals" and blocks(cycle)[1] == (2, "Genetics", 15, "TIME")

    study_cycles.save_cycle(ana, cycle.id, configuration_with(cycle, days=week(monday=180)))
    assert [block.minutes for block in cycle.blocks] == [30] * 6


def configuration_with(cycle, **changes):
    return {**study_cycles.configuration_of(cycle), **changes}


def test_kept_subjects_keep_their_hand_set_minutes(ana, cycle, cells, genetics):
    subjects = [
        {"page": str(cells.id), "importance": 3, "mastery": 3, "minutes": 90},
        {"page": str(genetics.id), "importance": 3, "mastery": 3},
    ]
    study_cycles.save_cycle(ana, cycle.id, configuration_with(cycle, subjects=subjects))
    shares = {}
    for block in cycle.blocks:
        shares[block.subject.page.title] = shares.get(block.subject.page.title, 0) + block.minutes
    assert shares == {"Cells": 90, "Genetics": 30}


def test_a_block_is_edited_by_its_number(ana, cycle, mitosis):
    block = study_cycles.edit_block(ana, cycle.id, 3, concept="Mitosis")
    assert (block.mode.value, block.concept_page_id) == ("GOAL", mitosis.id)
    back = study_cycles.edit_block(ana, cycle.id, 3, mode="TIME")
    assert (back.mode.value, back.concept_page_id) == ("TIME", None)
    goal = study_cycles.edit_block(ana, cycle.id, 1, mode="GOAL")
    assert study_cycles.block_data(goal)["concept"] == "NEXT"


def test_block_refusals(ana, cycle, genetics):
    assert refusal(lambda: study_cycles.edit_block(ana, cycle.id, 5, minutes=10)).key == "STUDY_BLOCK_NOT_FOUND"
    assert refusal(lambda: study_cycles.edit_block(ana, cycle.id, 0)).key == "STUDY_BLOCK_NOT_FOUND"
    contradiction = refusal(lambda: study_cycles.edit_block(ana, cycle.id, 1, mode="TIME", concept="NEXT"))
    assert contradiction.key == "STUDY_BLOCK_MODE_CONTRADICTION"
    outside = refusal(lambda: study_cycles.edit_block(ana, cycle.id, 1, concept="Genetics"))
    assert outside.key == "STUDY_CONCEPT_OUTSIDE_SUBJECT"
    assert refusal(lambda: study_cycles.edit_block(ana, cycle.id, 1, minutes=35)).key == "STUDY_BLOCK_OVER_LARGEST"
    assert refusal(lambda: study_cycles.edit_block(ana, cycle.id, 1, minutes=12)).key == "STUDY_MINUTES_STEP"
    assert blocks(cycle)[0] == (1, "Cells", 30, "TIME")


def test_a_session_fills_its_subject_s_blocks_in_queue_order(ana, cycle):
    study_cycles.log_session(ana, "Cells", 40, now=NOW)
    progress = study_cycles.lap_progress(cycle)
    assert [found.done for found in progress.blocks] == [30, 0, 10, 0]
    assert progress.current.block.number == 2


def test_the_queue_reads_in_runs_of_blocks_alike(ana, cells, mitosis):
    alone = study_cycles.create_cycle(ana, configuration(cells, days=week(monday=60, tuesday=60, friday=60)))
    study_cycles.log_session(ana, "Cells", 40, now=NOW)
    (run,) = study_cycles.lap_progress(alone).runs
    assert [found.block.number for found in run.blocks] == [1, 2, 3, 4, 5, 6] and run.finished == 1
    study_cycles.edit_block(ana, alone.id, 3, concept="Mitosis")
    study_cycles.edit_block(ana, alone.id, 5, minutes=25)
    runs = study_cycles.lap_progress(alone).runs
    assert [[found.block.number for found in run.blocks] for run in runs] == [[1, 2], [3], [4], [5], [6]]
    assert [run.finished for run in runs] == [1, 0, 0, 0, 0]


def test_alternating_subjects_make_a_run_of_each_block(cycle):
    assert [len(run.blocks) for run in study_cycles.lap_progress(cycle).runs] == [1, 1, 1, 1]


def test_study_on_a_page_inside_a_subject_counts_for_the_subject(ana, cycle, mitosis):
    study_cycles.log_session(ana, "Mitosis", 20, now=NOW)
    assert study_cycles.lap_progress(cycle).blocks[0].done == 20


def test_a_full_lap_finishes_and_the_rest_goes_on_into_the_next(ana, cycle):
    study_cycles.log_session(ana, "Genetics", 60, now=NOW)
    study_cycles.log_session(ana, "Cells", 75, now=NOW)
    first, second = cycle.laps
    assert first.finished_at is not None and second.finished_at is None
    assert [found.done for found in study_cycles.lap_progress(cycle).blocks] == [15, 0, 0, 0]


def test_deleting_a_session_takes_its_minutes_out_of_a_running_lap(ana, cycle):
    session = study_cycles.log_session(ana, "Cells", 40, now=NOW)
    study_cycles.delete_session(ana, session.id)
    assert study_cycles.lap_progress(cycle).done == 0
    assert db.session.scalars(db.select(StudySession)).all() == []


def test_deleting_a_session_leaves_a_finished_lap_as_it_was(ana, cycle):
    study_cycles.log_session(ana, "Genetics", 60, now=NOW)
    cells_study = study_cycles.log_session(ana, "Cells", 75, now=NOW)
    study_cycles.delete_session(ana, cells_study.id)
    first, second = cycle.laps
    assert study_cycles.lap_progress(cycle, first).done == 120
    assert study_cycles.lap_progress(cycle, second).done == 0


def test_a_session_is_dated_today_or_within_the_last_30_days(ana, cycle):
    assert study_cycles.log_session(ana, "Cells", 10, now=NOW).day == TODAY
    assert study_cycles.log_session(ana, "Cells", 10, day=TODAY - timedelta(days=30), now=NOW).day.day == 9
    too_old = refusal(lambda: study_cycles.log_session(ana, "Cells", 10, day=TODAY - timedelta(days=31), now=NOW))
    assert too_old.key == "STUDY_SESSION_TOO_OLD"
    future = refusal(lambda: study_cycles.log_session(ana, "Cells", 10, day=TODAY + timedelta(days=1), now=NOW))
    assert future.key == "STUDY_SESSION_IN_FUTURE"
    assert refusal(lambda: study_cycles.log_session(ana, "Cells", 0, now=NOW)).key == "STUDY_SESSION_MINUTES_INVALID"


def test_a_session_on_a_page_no_active_cycle_holds_is_refused(ana, cycle, biology):
    notebook.create_page(ana, biology.id, "Ecology")
    assert refusal(lambda: study_cycles.log_session(ana, "Ecology", 10, now=NOW)).key == "STUDY_SESSION_NO_CYCLE"


def test_a_completed_focus_work_cycle_on_a_linked_entry_credits_the_lap(ana, cycle, cells):
    entry = an_everyday_routine(ana, a_habit(ana, "Study"))[0]
    study_cycles.link_entry(ana, entry.id, str(cells.id))
    cycle_id = uuid.uuid4()
    focus.record_cycle(ana, entry.id, cycle_id, "WORK", 25)
    focus.record_cycle(ana, entry.id, cycle_id, "WORK", 25)  # a retry: recorded once
    focus.record_cycle(ana, entry.id, uuid.uuid4(), "BREAK", 5)
    assert study_cycles.lap_progress(cycle).blocks[0].done == 25
    timer_sessions = db.session.scalars(db.select(StudySession)).all()
    assert [(found.source.value, found.minutes) for found in timer_sessions] == [("TIMER", 25)]
    refused = refusal(lambda: study_cycles.delete_session(ana, timer_sessions[0].id))
    assert refused.key == "STUDY_SESSION_NOT_FOUND"


def test_an_unlinked_entry_s_focus_cycles_credit_nothing(ana, cycle):
    entry = an_everyday_routine(ana, a_habit(ana, "Study"))[0]
    focus.record_cycle(ana, entry.id, uuid.uuid4(), "WORK", 25)
    assert study_cycles.lap_progress(cycle).done == 0


def test_an_archived_cycle_answers_like_an_unknown_one_and_stops_counting(ana, cycle, bruno):
    study_cycles.archive_cycle(ana, cycle.id)
    for ref in (str(cycle.id), "exams", "Nothing", str(uuid.uuid4())):
        assert refusal(lambda ref=ref: study_cycles.resolve_cycle(ana, ref)).key == "STUDY_CYCLE_NOT_ACTIVE"
    assert refusal(lambda: study_cycles.resolve_cycle(bruno, "Exams")).key == "STUDY_CYCLE_NOT_ACTIVE"
    assert refusal(lambda: study_cycles.log_session(ana, "Cells", 10, now=NOW)).key == "STUDY_SESSION_NO_CYCLE"
    assert study_cycles.archived_cycles(ana) == [cycle]


def test_a_cycle_is_found_by_name_in_any_case_or_by_id(ana, cycle):
    assert study_cycles.resolve_cycle(ana, "EXAMS") is cycle
    assert study_cycles.resolve_cycle(ana, str(cycle.id)) is cycle


def test_another_user_s_ids_are_unknown_ids(ana, bruno, cycle):
    session = study_cycles.log_session(ana, "Cells", 10, now=NOW)
    assert refusal(lambda: study_cycles.get_cycle(bruno, cycle.id)).key == "STUDY_CYCLE_NOT_FOUND"
    assert refusal(lambda: study_cycles.delete_session(bruno, session.id)).key == "STUDY_SESSION_NOT_FOUND"


def test_deleting_a_cycle_keeps_the_sessions(ana, cycle):
    study_cycles.log_session(ana, "Cells", 10, now=NOW)
    study_cycles.delete_cycle(ana, cycle.id)
    assert db.session.scalars(db.select(StudyCycle)).all() == []
    assert len(study_cycles.sessions(ana, 7, now=NOW)) == 1


def test_today_s_slice_starts_at_the_first_open_block_and_subtracts_today_s_study(ana, cycle):
    study_cycles.log_session(ana, "Cells", 40, now=NOW)
    (today,) = study_cycles.today(ana, now=NOW)
    assert (today.minutes, today.studied, today.left) == (60, 40, 20)
    assert [(block.number, minutes) for block, minutes in today.blocks] == [(2, 20)]


def test_a_rest_day_has_no_slice(ana, cycle):
    (tuesday,) = study_cycles.today(ana, now=NOW - timedelta(days=1))
    assert (tuesday.minutes, tuesday.blocks) == (0, [])


def test_weekday_names_come_in_any_case_or_in_portuguese():
    names = ["Monday", "TERÇA", "quarta-feira", "Thu", "sexta", "Sábado", "domingo"]
    assert [study_cycles.weekday_from(name) for name in names] == [0, 1, 2, 3, 4, 5, 6]
    assert study_cycles.weekday_from("someday") is None
