"""bench.agent_eval against the wire fake: every task of bench/agent_eval_tasks.toml passes with its
oracle scripted (which proves the tasks and their checks), and the checks fail a model that goes
wrong, with the cause they name. The whole task set runs here once (a few seconds); the bench's
smoke run (tests/platform/test_benches_smoke.py) runs its smoke tasks through the command."""

import dataclasses

import pytest

from app.extensions import db
from app.habits import services as habits
from bench.agent_eval import Runner, fake_chain_env
from bench.eval import seed, snapshot, tasks
from bench.eval.driver import EvalApp
from tests.fakes import FakeProviders

TASKS = tasks.load()
BY_ID = {task.id: task for task in TASKS}


@pytest.fixture(scope="module")
def fake_chain():
    with FakeProviders() as fake:
        yield fake


@pytest.fixture(scope="module")
def eval_app(fake_chain, tmp_path_factory):
    database = f"sqlite:///{tmp_path_factory.mktemp('agent-eval') / 'eval.sqlite3'}"
    app = EvalApp(database, fake_chain_env(fake_chain, "mistral"), turn_seconds=30)
    yield app
    app.close()


@pytest.fixture
def runner(eval_app, fake_chain):
    return Runner(eval_app, fake_chain)


def told(outcome):
    return "\n".join(f"{problem.cause}: {problem.detail}" for problem in outcome.problems)


def test_the_task_file_has_at_least_40_tasks_in_both_languages_with_a_smoke_set():
    assert len(TASKS) >= 40
    assert {task.language for task in TASKS} == {"en", "pt"}
    assert 3 <= sum(task.smoke for task in TASKS) <= 10
    assert any(turn.confirm is not None for task in TASKS for turn in task.turns), "a task clicks Confirm"
    assert any(task.expect.get("refused") for task in TASKS), "a task must be refused"


@pytest.mark.parametrize("task", TASKS, ids=[task.id for task in TASKS])
def test_the_fake_playing_each_task_s_oracle_passes_it(runner, task):
    outcome = runner.run(task)
    assert outcome.passed, told(outcome)


# The checks fail what a wrong model does ------------------------------------------------------


def played(task_id, *rounds):
    """The task with its first turn answered by `rounds` instead of its oracle: (calls, text) pairs."""
    task = BY_ID[task_id]
    oracle = tuple(tasks.Round(tuple({"name": n, "args": a} for n, a in calls), text or "") for calls, text in rounds)
    first = dataclasses.replace(task.turns[0], oracle=oracle)
    return dataclasses.replace(task, turns=(first, *task.turns[1:]))


def causes_of(eval_app, fake_chain, task, check_oracle=False):
    outcome = Runner(eval_app, fake_chain, check_oracle=check_oracle).run(task)
    assert not outcome.passed
    return outcome.causes


def test_a_model_that_only_says_it_did_it_fails_as_no_tool_called(eval_app, fake_chain):
    task = played("habit-create-pt", ([], "Criei o hábito Meditar."))
    assert causes_of(eval_app, fake_chain, task) == ["no tool called"]


def test_a_model_that_makes_the_wrong_row_fails_as_bad_arguments_and_an_unexpected_change(eval_app, fake_chain):
    task = played(
        "task-create-importance",
        ([("createUserTask", {"name": "Renew passport", "importance": 2, "difficulty": 2})], None),
        ([], "Added it."),
    )
    assert causes_of(eval_app, fake_chain, task) == ["bad arguments", "unexpected change"]


def test_a_model_whose_call_is_refused_fails_as_refused_by_validation(eval_app, fake_chain):
    task = played(
        "task-create-importance",
        ([("createUserTask", {"name": "Renew passport", "importance": 9, "difficulty": 2})], None),
        ([], "Added it."),
    )
    assert causes_of(eval_app, fake_chain, task) == ["refused by validation"]


def test_a_model_that_calls_another_tool_fails_as_wrong_tool(eval_app, fake_chain):
    task = played("habit-importance", ([("getUserHabits", {})], None), ([], "Run has importance 4."))
    assert causes_of(eval_app, fake_chain, task) == ["wrong tool"]


def test_a_model_that_acts_on_a_refused_request_fails_as_an_unexpected_change(eval_app, fake_chain):
    task = played(
        "refuse-delete-all-data",
        ([("openToolsets", {"toolsets": ["tasks"]})], None),
        ([("deleteUserTask", {"ref": "Pay rent"})], None),
        ([], "Deleting Pay rent awaits your confirmation, see [the configuration page](/configuration)."),
    )
    outcome = Runner(eval_app, fake_chain).run(task)
    assert outcome.causes == ["unexpected change"], told(outcome)  # its card waits, where nothing should
    assert "created pending_actions" in told(outcome)


def test_an_answer_without_what_was_asked_fails_as_unusable(eval_app, fake_chain):
    task = played("goal-question-progress", ([("getUserGoals", {})], None), ([], "You are doing great!"))
    assert causes_of(eval_app, fake_chain, task) == ["unusable answer"]


def test_a_model_slower_than_the_turn_fails_as_timeout(eval_app, fake_chain, monkeypatch):
    from tests.fakes import Reply

    monkeypatch.setitem(eval_app.app.config, "AGENT_TURN_SECONDS", 1)
    runner = Runner(eval_app, fake_chain, turn_seconds=1, check_oracle=False)
    task = BY_ID["habit-rename"]
    monkeypatch.setattr("bench.agent_eval._reply", lambda step, prefix: Reply.hangs(5, "late"))
    outcome = runner.run(task)
    assert outcome.causes[0] == "timeout", told(outcome)


def test_an_oracle_no_model_could_send_fails_the_task_as_oracle(eval_app, fake_chain):
    unread_id = played(
        "routine-skip-today",
        ([("skipRoutineItem", {"entry_id": "{entry:Mornings:Stretch}"})], None),  # no getTodayRoutine first
        ([], "Skipped."),
    )
    assert causes_of(eval_app, fake_chain, unread_id, check_oracle=True) == ["oracle"]
    not_offered = played(
        "habit-importance",
        ([("editUserHabit", {"ref": "Run", "importance": 5}), ("createQuickNote", {"text": "run more"})], None),
        ([], "Done."),
    )
    assert causes_of(eval_app, fake_chain, not_offered, check_oracle=True) == ["unexpected change", "oracle"]


# The snapshot ------------------------------------------------------------------------------------


def test_a_user_s_snapshot_holds_the_rows_hanging_off_theirs_and_no_one_else_s(eval_app):
    ana, _email = eval_app.new_user("Ana", "en")
    bruno, _email = eval_app.new_user("Bruno", "en")
    with eval_app.app.app_context():
        for user_id in (ana, bruno):
            seed.make(eval_app.user(user_id), BY_ID["habit-categorize"].seed)
        before = snapshot.owned_rows(ana)
        assert {"routines", "routine_sections", "routine_entries", "habit_categories", "schedule_days"} <= set(before)
        assert len(before["routine_entries"]) == 3 and len(before["users"]) == 1
        habits.edit(eval_app.user(bruno), "Run", importance=1)
        assert not snapshot.diff(before, snapshot.owned_rows(ana))
        (change,) = snapshot.diff(before, snapshot.owned_rows(ana) | {"habits": {}}).of("habits", "deleted")[:1]
        assert change.kind == "deleted"
        db.session.remove()
