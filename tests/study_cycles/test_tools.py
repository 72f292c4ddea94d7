"""The eleven study cycle tools: each success path through the same service as the pages, the
refusals the model can act on, and no tool able to write, list or delete a Focus timer cycle."""

import inspect
import uuid

import pytest

import app.study_cycles.tools as cycle_tools
from app import events
from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.study_cycles import services as study_cycles
from app.study_cycles.models import StudyCycle
from tests.builders import a_chat, confirmed

TOOLS = [
    "getStudyToday",
    "listStudyCycles",
    "getStudyCycle",
    "listStudySessions",
    "createStudyCycle",
    "editStudyCycle",
    "editStudyBlock",
    "archiveStudyCycle",
    "deleteStudyCycle",
    "logStudySession",
    "deleteStudySession",
]


def run(user, tool_name, **arguments):
    context = registry.ToolContext(user=user, chat=a_chat(user), page="/notebook/cycles")
    return tool_calls.run(context, tool_name, arguments)


def created(user, **overrides):
    arguments = {
        "name": "Exams",
        "days": [{"day": "Monday", "minutes": 60, "starts_at": "18:00"}, {"day": "quarta", "minutes": 62}],
        "subjects": [{"page": "Cells", "importance": 4, "mastery": 2}, {"page": "Genetics"}],
        "largest_block": 30,
        **overrides,
    }
    return run(user, "createStudyCycle", **arguments)


def test_the_eleven_tools_are_registered_with_reads_and_writes_as_the_catalogue_says():
    kinds = {name: registry.REGISTRY[name].kind for name in TOOLS}
    assert {name for name, kind in kinds.items() if kind == "read"} == set(TOOLS[:4])
    assert {registry.REGISTRY[name].domain for name in TOOLS} == {"study_cycles"}


def test_create_snaps_minutes_reads_weekdays_in_portuguese_and_announces(ana, cells, genetics):
    outcome = created(ana)
    assert outcome.error_key is None and outcome.domains == ("study_cycles",)
    assert outcome.result["week"] == [
        {"weekday": 0, "minutes": 60, "startsAt": "18:00"},
        {"weekday": 2, "minutes": 60, "startsAt": None},
    ]
    assert [subject["importance"] for subject in outcome.result["subjects"]] == [4, 3]
    assert sum(block["minutes"] for block in outcome.result["blocks"]) == 120


def test_create_refuses_overlapping_subjects_and_saves_nothing(ana, cells, mitosis):
    outcome = created(ana, subjects=[{"page": "Cells"}, {"page": "Mitosis"}])
    assert outcome.error_key == "STUDY_SUBJECTS_OVERLAP" and outcome.domains == ()
    assert db.session.scalars(db.select(StudyCycle)).all() == []


def test_create_refuses_a_week_without_minutes_and_an_unknown_weekday(ana, cells, genetics):
    assert created(ana, days=[{"day": "Monday", "minutes": 0}]).error_key == "STUDY_WEEK_EMPTY"
    assert created(ana, days=[{"day": "Someday", "minutes": 30}]).error_key == "WEEKDAY_INVALID"


def test_an_unknown_page_title_answers_with_the_topics(ana, cells):
    outcome = created(ana, subjects=[{"page": "Botany"}])
    assert outcome.error_key == "NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE" and "Biology" in outcome.result["message"]


def test_reads_answer_from_the_active_cycles(ana, cells, genetics):
    created(ana)
    listed = run(ana, "listStudyCycles").result["cycles"]
    assert [(cycle["name"], cycle["lap"]["number"], cycle["lap"]["currentBlock"]) for cycle in listed] == [
        ("Exams", 1, 1)
    ]
    whole = run(ana, "getStudyCycle", cycle="exams").result
    assert [block["number"] for block in whole["blocks"]] == [1, 2, 3, 4, 5]  # Cells 75 min, Genetics 45
    assert isinstance(run(ana, "getStudyToday").result["today"], list)
    assert registry.REGISTRY["getStudyToday"].kind == "read"


def test_edit_changes_only_what_it_receives(ana, cells, genetics):
    created(ana)
    outcome = run(ana, "editStudyCycle", cycle="EXAMS", days=[{"day": "monday", "starts_at": "none"}])
    assert outcome.error_key is None and outcome.domains == ("study_cycles",)
    assert outcome.result["name"] == "Exams"
    assert outcome.result["week"][0] == {"weekday": 0, "minutes": 60, "startsAt": None}
    assert outcome.result["week"][1]["minutes"] == 60


def test_subjects_sent_are_the_whole_list_and_kept_ones_keep_their_weights(ana, cells, genetics, mitosis):
    created(ana)
    outcome = run(ana, "editStudyCycle", cycle="Exams", subjects=[{"page": "Cells"}])
    assert [(s["page"]["title"], s["importance"], s["mastery"]) for s in outcome.result["subjects"]] == [
        ("Cells", 4, 2)
    ]
    reweighted = run(ana, "editStudyCycle", cycle="Exams", subjects=[{"page": "Cells", "importance": 1}])
    assert reweighted.result["subjects"][0]["importance"] == 1


def test_edit_block_by_number_and_its_refusals(ana, cells, genetics, mitosis):
    created(ana)
    goal = run(ana, "editStudyBlock", cycle="Exams", number=1, concept="Mitosis")
    assert goal.error_key is None and goal.result["mode"] == "GOAL" and goal.result["concept"]["title"] == "Mitosis"
    snapped = run(ana, "editStudyBlock", cycle="Exams", number=2, minutes=22)
    assert snapped.result["minutes"] == 20
    contradiction = run(ana, "editStudyBlock", cycle="Exams", number=1, mode="TIME", concept="NEXT")
    assert contradiction.error_key == "STUDY_BLOCK_MODE_CONTRADICTION"
    assert run(ana, "editStudyBlock", cycle="Exams", number=9, minutes=10).error_key == "STUDY_BLOCK_NOT_FOUND"


def test_archived_unknown_and_foreign_cycles_answer_alike_listing_the_active_ones(ana, bruno, cells, genetics):
    first = created(ana).result
    created(ana, name="Languages", subjects=[{"page": "Genetics"}])
    assert run(ana, "archiveStudyCycle", cycle="exams").error_key is None
    for ref in ("Exams", first["id"], str(uuid.uuid4())):
        outcome = run(ana, "getStudyCycle", cycle=ref)
        assert outcome.error_key == "STUDY_CYCLE_NOT_ACTIVE" and "Languages" in outcome.result["message"]
    assert run(bruno, "deleteStudyCycle", cycle="Languages").error_key == "STUDY_CYCLE_NOT_ACTIVE"


def test_delete_removes_the_cycle(ana, cells, genetics):
    created(ana)
    outcome = run(ana, "deleteStudyCycle", cycle="Exams")
    assert "“Exams”" in outcome.result["awaiting_confirmation"]["summary"]
    assert len(study_cycles.every_cycle(ana)) == 1, "the call alone deletes nothing"
    with events.collecting() as announced:
        assert confirmed(ana, outcome)["deleted"]["name"] == "Exams"
    assert announced == {"study_cycles"}
    assert study_cycles.every_cycle(ana) == []


def test_sessions_are_logged_listed_and_deleted_with_their_ids(ana, cells, genetics):
    created(ana)
    logged = run(ana, "logStudySession", page="Cells", minutes=40)
    assert logged.error_key is None and logged.domains == ("study_cycles",)
    listed = run(ana, "listStudySessions").result["sessions"]
    assert [session["id"] for session in listed] == [logged.result["id"]]
    assert run(ana, "listStudyCycles").result["cycles"][0]["lap"]["done"] == 40
    proposed = run(ana, "deleteStudySession", session_id=logged.result["id"])
    assert "40" in proposed.result["awaiting_confirmation"]["summary"]
    confirmed(ana, proposed)
    assert run(ana, "listStudyCycles").result["cycles"][0]["lap"]["done"] == 0


def test_session_refusals(ana, cells, genetics):
    created(ana)
    assert run(ana, "logStudySession", page="Cells", minutes=10, day="2000-01-01").error_key == "STUDY_SESSION_TOO_OLD"
    assert run(ana, "logStudySession", page="Cells", minutes=10, day="2100-01-01").error_key == (
        "STUDY_SESSION_IN_FUTURE"
    )
    assert run(ana, "listStudySessions", days=32).error_key == "INVALID_ARGUMENTS"
    assert run(ana, "deleteStudySession", session_id=str(uuid.uuid4())).error_key == "STUDY_SESSION_NOT_FOUND"


@pytest.mark.parametrize("name", TOOLS)
def test_no_tool_touches_a_focus_timer_cycle(name):
    source = inspect.getsource(cycle_tools)
    assert "record_cycle" not in source and "TimerCycle" not in source and "credit_timer_cycle" not in source
    assert "timer" not in " ".join(registry.REGISTRY[name].args_model.model_fields)
