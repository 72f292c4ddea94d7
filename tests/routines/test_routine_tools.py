"""The assistant creates a routine that runs at once, as the create dialog does."""

from app.agent.registry import ToolContext
from app.assistant import tool_calls
from app.routines import schedules
from app.routines import services as routines
from tests.builders import a_chat


def run(user, tool, **arguments):
    return tool_calls.run(ToolContext(user=user, chat=a_chat(user), page="/routines"), tool, arguments)


def test_a_routine_created_by_the_assistant_with_days_runs_on_them(user):
    held = routines.create_list(user, "Gym")
    schedules.set_days(user, held.id, ["Monday"])
    outcome = run(
        user,
        "createUserRoutine",
        name="Mornings",
        sections=[{"name": "Wake", "starts_at": "07:00"}],
        weekdays=["Monday", "Tuesday"],
    )
    assert outcome.error_key is None, outcome.result
    assert outcome.result["moved"] == [{"weekday": 0, "from_routine_id": str(held.id), "from_routine_name": "Gym"}]
    assert {day: r.name for day, r in schedules.week(user).items()} == {0: "Mornings", 1: "Mornings"}


def test_a_list_routine_created_by_the_assistant_without_days_is_not_scheduled(user):
    outcome = run(user, "createListRoutine", name="Packing")
    assert outcome.error_key is None and outcome.result["moved"] == []
    assert schedules.week(user) == {}
