"""A first habit without categories: the dialog, the category made from inside it, and the tool."""

import re

from app.agent.registry import ToolContext
from app.assistant import tool_calls
from app.categories.models import Category
from app.extensions import db
from app.habits.models import Habit
from tests.builders import a_category, a_chat, as_user
from tests.conftest import hx


def test_a_new_user_saves_a_habit_without_a_category(app, signed_in, user_id):
    form = signed_in.get("/habits/new", headers=hx(signed_in)).get_data(as_text=True)
    assert "Categories (optional)" in form and "Create one first" not in form
    response = signed_in.post(
        "/habits", data={"name": "Drink water", "importance": "2", "difficulty": "1"}, headers=hx(signed_in)
    )
    assert response.status_code == 204 and "dialog:close" in response.headers["HX-Trigger"]
    assert "Drink water" in signed_in.get("/habits").get_data(as_text=True)


def test_a_category_added_inside_the_form_comes_back_ticked_beside_the_ticked_ones(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        health = str(a_category(ana, "Health").id)
    answer = signed_in.post(
        "/categories/choices",
        data={"name": "Drink water", "categories": health, "new_category": "Body"},
        headers=hx(signed_in),
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and 'id="category-choices"' in html
    with as_user(app, user_id):
        body = str(db.session.scalar(db.select(Category.id).where(Category.name == "Body")))
    ticked = set(re.findall(r'value="([^"]+)" checked', html))
    assert ticked == {health, body}
    assert "Drink water" not in html  # only the choices are swapped: the rest of the form stays as typed


def test_a_refused_new_category_keeps_its_name_and_says_why(app, signed_in, user_id):
    answer = signed_in.post("/categories/choices", data={"new_category": "B"}, headers=hx(signed_in))
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert 'value="B"' in html and 'id="new-category-error"' in html and 'aria-invalid="true"' in html
    with as_user(app, user_id):
        assert db.session.scalar(db.select(db.func.count()).select_from(Category)) == 0


def test_another_users_ticked_category_is_not_offered_back(app, signed_in, other_user_id):
    with as_user(app, other_user_id) as bruno:
        theirs = str(a_category(bruno, "Bruno's").id)
    html = signed_in.post(
        "/categories/choices", data={"categories": theirs, "new_category": "Mine"}, headers=hx(signed_in)
    ).get_data(as_text=True)
    assert theirs not in html and "Bruno's" not in html


def test_the_assistant_creates_a_habit_without_categories(app, user_id):
    with as_user(app, user_id) as ana:
        context = ToolContext(user=ana, chat=a_chat(ana), page="/habits")
        outcome = tool_calls.run(context, "createUserHabit", {"name": "Drink water", "importance": 2, "difficulty": 1})
        assert outcome.error_key is None, outcome.result
        assert outcome.result["created"]["categories"] == []
        assert db.session.scalar(db.select(Habit.name)) == "Drink water"
