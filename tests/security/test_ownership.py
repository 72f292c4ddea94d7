"""Another user's ids behave exactly like unknown ids on every catalogue route: 404, nothing changed."""

import uuid

import pytest

from app.services import configuration
from tests.builders import a_category, a_goal, a_habit, a_task, as_user

BLUEPRINTS = ("categories", "habits", "tasks", "goals")


def _routes_with_an_id(app):
    for rule in app.url_map.iter_rules():
        if rule.endpoint.split(".")[0] in BLUEPRINTS and any(arg.endswith("_id") for arg in rule.arguments):
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield rule, method


def _snapshot(app, user_id):
    with as_user(app, user_id) as user:
        data = configuration.export(user)
    data.pop("exported_at")
    return data


@pytest.fixture
def anas_things(app, user_id):
    with as_user(app, user_id) as ana:
        category = a_category(ana)
        habit = a_habit(ana, "Run", category=category)
        task = a_task(ana, "Call mom", categories=[category.id])
        goal = a_goal(ana, "Read 12 books", current_value=3, categories=[category.id])
        return {"category_id": category.id, "habit_id": habit.id, "task_id": task.id, "goal_id": goal.id}


def test_every_route_with_an_id_answers_404_to_another_user_and_changes_nothing(
    app, other_signed_in, user_id, anas_things
):
    before = _snapshot(app, user_id)
    routes = list(_routes_with_an_id(app))
    assert len(routes) >= 20
    form = {"name": "Taken over", "value": "5", "target_value": "1", "unit": "x", "importance": "1", "difficulty": "1"}
    for rule, method in routes:
        (argument,) = [arg for arg in rule.arguments if arg.endswith("_id")]
        url = rule.build({argument: anas_things[argument]})[1]
        for headers in ({"HX-Request": "true"}, {}):
            headers = {**headers, "X-CSRFToken": other_signed_in.csrf}
            response = other_signed_in.open(
                url, method=method, data=form if method == "POST" else None, headers=headers
            )
            assert response.status_code == 404, (method, url, response.status_code)
            assert "Read 12 books" not in response.get_data(as_text=True)
    assert _snapshot(app, user_id) == before


def test_an_unknown_or_malformed_id_gets_the_same_404(signed_in):
    for url in (f"/habits/{uuid.uuid4()}/edit", "/habits/not-an-id/edit", f"/goals/{uuid.uuid4()}/progress"):
        assert signed_in.get(url, headers={"HX-Request": "true"}).status_code == 404
