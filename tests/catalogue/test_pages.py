"""The catalogue pages as a browser sees them: full pages or htmx fragments, refusals that keep
what was typed, and the HX-Trigger announcements that refresh lists."""

import json
import re

import pytest

from app.categories.models import Category
from app.extensions import db
from app.feedback.models import Feedback
from app.goals.models import Goal
from app.habits.models import Habit
from app.profile.models import User
from tests.builders import a_category, a_goal, a_habit, as_user, put_in_routine
from tests.conftest import PASSWORD

HTMX = {"HX-Request": "true"}


def post(client, url, data=None, htmx=True):
    headers = {"X-CSRFToken": client.csrf, **(HTMX if htmx else {})}
    return client.post(url, data=data or {}, headers=headers)


def events(response):
    """The event names an HX-Trigger header fires (a plain list, or JSON once one carries a detail)."""
    header = response.headers.get("HX-Trigger", "")
    if header.startswith("{"):
        return set(json.loads(header))
    return {name.strip() for name in header.split(",") if name.strip()}


@pytest.mark.parametrize("url", ["/categories", "/habits", "/tasks", "/goals"])
def test_a_list_is_a_full_page_or_just_the_list_for_htmx(signed_in, url):
    full = signed_in.get(url)
    fragment = signed_in.get(url, headers=HTMX)
    assert full.status_code == fragment.status_code == 200
    assert "<html" in full.get_data(as_text=True) and 'class="sidebar"' in full.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True) and "toolbar" not in fragment.get_data(as_text=True)


def test_the_navigation_leads_to_the_built_areas(signed_in):
    page = signed_in.get("/dashboard").get_data(as_text=True)
    for href in ("/habits", "/tasks", "/goals", "/categories", "/configuration", "/feedback"):
        assert f'href="{href}"' in page


def test_creating_a_habit_closes_the_dialog_and_announces_habits(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        category_id = a_category(ana).id
    response = post(
        signed_in,
        "/habits",
        {"name": "Run", "importance": "3", "difficulty": "2", "categories": str(category_id), "icon": "activity"},
    )
    assert response.status_code == 204  # nothing to swap: the dialog closes, the list refreshes itself
    assert "domain:habits" in response.headers["HX-Trigger"]
    assert "dialog:close" in response.headers["HX-Trigger"]
    assert "Run" in signed_in.get("/habits", headers=HTMX).get_data(as_text=True)


def test_a_refused_habit_form_keeps_what_was_typed(signed_in):
    response = post(signed_in, "/habits", {"name": "Run every morning", "description": "x" * 300, "importance": "3"})
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'value="Run every morning"' in page
    assert "x" * 300 in page
    assert "Use at most 256 characters." in page
    assert "Choose a value from 1 to 5." in page  # difficulty was left out
    assert "<html" not in page


def test_without_javascript_a_refused_form_is_a_full_page_and_success_redirects(signed_in):
    refused = post(signed_in, "/categories", {"name": "H"}, htmx=False)
    assert refused.status_code == 422 and "<html" in refused.get_data(as_text=True)
    created = post(signed_in, "/categories", {"name": "Health", "icon": "heart"}, htmx=False)
    assert created.status_code == 302 and created.headers["Location"].endswith("/categories")


def test_a_refused_edit_keeps_the_typed_values(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        category_id = a_category(ana).id
    response = post(signed_in, f"/categories/{category_id}/edit", {"name": "H", "description": "Body and mind"})
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'value="H"' in page and "Body and mind" in page and "Enter a name between 2 and 256 characters." in page


def test_the_edit_dialog_is_filled_with_the_current_values(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        habit = a_habit(ana, "Run", description="Around the park")
        habit_id, category_id = habit.id, habit.categories[0].id
    page = signed_in.get(f"/habits/{habit_id}/edit", headers=HTMX).get_data(as_text=True)
    assert 'value="Run"' in page and "Around the park" in page
    assert re.search(rf'value="{category_id}" checked', page)


def test_deleting_a_habit_in_a_routine_shows_the_refusal_in_the_dialog(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        habit = a_habit(ana)
        put_in_routine(ana, habit, "Morning routine")
        habit_id = habit.id
    asked = signed_in.get(f"/habits/{habit_id}/delete", headers=HTMX)
    assert asked.status_code == 200
    assert "This habit is used in: Morning routine" in asked.get_data(as_text=True)
    assert 'type="submit"' not in asked.get_data(as_text=True)  # no button the server would refuse
    response = post(signed_in, f"/habits/{habit_id}/delete")  # a second tab still asks: refused the same way
    assert response.status_code == 409
    assert "This habit is used in: Morning routine" in response.get_data(as_text=True)
    assert "HX-Trigger" not in response.headers
    with app.app_context():
        assert db.session.get(Habit, habit_id) is not None


def test_deleting_a_category_in_use_names_the_users(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        category = a_category(ana)
        a_goal(ana, "Run 100 km", categories=[category.id])
        category_id = category.id
    response = post(signed_in, f"/categories/{category_id}/delete")
    assert response.status_code == 409 and "Run 100 km" in response.get_data(as_text=True)


def test_deleting_announces_and_closes_the_dialog(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        category_id = a_category(ana).id
    response = post(signed_in, f"/categories/{category_id}/delete")
    assert response.status_code == 204
    assert events(response) == {"domain:categories", "dialog:close", "toast"}
    with app.app_context():
        assert db.session.get(Category, category_id) is None


def test_the_list_searches_and_filters_by_category(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        health, mind = a_category(ana, "Health"), a_category(ana, "Mind")
        a_habit(ana, "Run", category=health)
        a_habit(ana, "Read", category=mind)
        mind_id = mind.id
    searched = signed_in.get("/habits?q=ru", headers=HTMX).get_data(as_text=True)
    assert "Run" in searched and "Read" not in searched
    filtered = signed_in.get(f"/habits?category={mind_id}", headers=HTMX).get_data(as_text=True)
    assert "Read" in filtered and "Run" not in filtered
    assert "Nothing found" in signed_in.get("/habits?q=swim", headers=HTMX).get_data(as_text=True)


def test_goal_buttons_step_complete_and_archive_in_place(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        goal_id = a_goal(ana, target_value=2).id
    for _ in range(2):
        stepped = post(signed_in, f"/goals/{goal_id}/increase")
        assert stepped.status_code == 204 and stepped.headers["HX-Trigger"] == "domain:goals"
    tree = signed_in.get("/goals", headers=HTMX).get_data(as_text=True)
    assert "2/2 books" in tree and "Complete" in tree
    completed = post(signed_in, f"/goals/{goal_id}/complete")
    assert events(completed) == {"domain:categories", "domain:goals", "domain:profile", "level:up"}
    assert "Undo" in signed_in.get("/goals", headers=HTMX).get_data(as_text=True)
    post(signed_in, f"/goals/{goal_id}/archive")
    assert "Read 12 books" not in signed_in.get("/goals", headers=HTMX).get_data(as_text=True)
    assert "Read 12 books" in signed_in.get("/goals?archived=1", headers=HTMX).get_data(as_text=True)


def test_the_progress_dialog_refuses_a_zero_amount_in_place(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        goal_id = a_goal(ana).id
    response = post(signed_in, f"/goals/{goal_id}/progress", {"value": "0", "direction": "increase"})
    assert response.status_code == 422 and "Enter an amount greater than zero." in response.get_data(as_text=True)
    added = post(signed_in, f"/goals/{goal_id}/progress", {"value": "5", "direction": "increase"})
    assert "dialog:close" in added.headers["HX-Trigger"]
    with app.app_context():
        assert db.session.get(Goal, goal_id).current_value == 5


def test_the_edit_dialog_moves_a_goal_under_another(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        top_id, child_id = a_goal(ana, "Top").id, a_goal(ana, "Child").id
    form = {
        "name": "Child",
        "target_value": "12",
        "unit": "books",
        "start_date": "2026-01-01",
        "end_date": "2026-12-31",
        "term": "MEDIUM_TERM",
        "status": "NOT_STARTED",
        "parent": str(top_id),
    }
    assert post(signed_in, f"/goals/{child_id}/edit", form).status_code == 204
    tree = signed_in.get("/goals", headers=HTMX).get_data(as_text=True)
    assert f'id="goal-{child_id}" data-depth="1"' in tree
    cycle = post(signed_in, f"/goals/{top_id}/edit", {**form, "name": "Top", "parent": str(child_id)})
    assert cycle.status_code == 422 and "can&#39;t go under one of its own sub-goals" in cycle.get_data(as_text=True)


def test_the_horizon_is_a_fragment_for_the_dashboard(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        a_goal(ana, "Read 12 books")
    response = signed_in.get("/goals/horizon", headers=HTMX)
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'data-testid="goal-horizon"' in page and "Read 12 books" in page
    assert "<html" not in page


def test_saving_the_profile_answers_with_the_section(app, signed_in, user_id):
    response = post(signed_in, "/configuration/profile", {"name": "Ana Maria", "phrase": "Small steps"})
    assert response.status_code == 200
    assert response.headers["HX-Trigger"] == "domain:profile"
    assert "Saved." in response.get_data(as_text=True) and 'value="Ana Maria"' in response.get_data(as_text=True)
    refused = post(signed_in, "/configuration/profile", {"name": "A", "phrase": "Kept phrase"})
    assert refused.status_code == 422
    assert 'value="A"' in refused.get_data(as_text=True) and "Kept phrase" in refused.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(User, user_id).name == "Ana Maria"


def test_changing_the_theme_or_language_reloads_the_page(app, signed_in, user_id):
    assert post(signed_in, "/configuration/appearance", {"theme": "dark"}).headers["HX-Refresh"] == "true"
    assert 'data-theme="dark"' in signed_in.get("/configuration").get_data(as_text=True)
    assert post(signed_in, "/configuration/preferences", {"language": "pt"}).headers["HX-Refresh"] == "true"
    unchanged = post(signed_in, "/configuration/preferences", {"xp_decay": "FLAT", "language": "pt"})
    assert "HX-Refresh" not in unchanged.headers


def test_an_unknown_time_zone_is_refused_in_place(signed_in):
    response = post(signed_in, "/configuration/preferences", {"timezone": "Mars/Olympus"})
    assert response.status_code == 422 and "Choose a valid time zone." in response.get_data(as_text=True)


def test_widgets_are_added_and_reordered(app, signed_in, user_id):
    post(signed_in, "/configuration/widgets", {"widgets": ["constance", "dailyProgress"]})
    response = post(signed_in, "/configuration/widgets", {"widgets": ["dailyProgress", "constance"]})
    assert response.status_code == 200
    with app.app_context():
        assert db.session.get(User, user_id).widgets == ["dailyProgress", "constance"]
    assert post(signed_in, "/configuration/widgets", {"widgets": ["weather"]}).status_code == 422


def test_the_export_downloads_as_a_dated_json_file(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        a_habit(ana, "Run")
    response = signed_in.get("/configuration/export")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert re.match(
        r'attachment; filename="beyou-data-\d{4}-\d{2}-\d{2}\.json"', response.headers["Content-Disposition"]
    )
    assert [habit["name"] for habit in json.loads(response.data)["habits"]] == ["Run"]


def test_deleting_the_account_signs_out_and_removes_it(app, signed_in, user_id):
    refused = post(signed_in, "/configuration/delete-account", {"password": "wrong one", "confirmation": "DELETE"})
    assert refused.status_code == 422 and "That password is not right." in refused.get_data(as_text=True)
    response = post(signed_in, "/configuration/delete-account", {"password": PASSWORD, "confirmation": "DELETE"})
    assert response.headers["HX-Redirect"] == "/login"
    with app.app_context():
        assert db.session.get(User, user_id) is None
    assert signed_in.get("/habits").status_code == 302


def test_feedback_is_sent_and_thanked_for(app, signed_in, user_id):
    refused = post(signed_in, "/feedback", {"kind": "BUG", "text": "Bad"})
    assert refused.status_code == 422 and "Write between 5 and 4000 characters." in refused.get_data(as_text=True)
    assert ">Bad</textarea>" in refused.get_data(as_text=True)
    sent = post(signed_in, "/feedback", {"kind": "BUG", "text": "The chart is empty", "page": "/dashboard"})
    assert sent.status_code == 200 and "Thanks — we got it." in sent.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(Feedback.page)) == "/dashboard"


def test_the_feedback_inbox_is_for_admins_only(app, signed_in, other_signed_in, other_user_id, user_id):
    with as_user(app, user_id) as ana:
        from app.feedback import services as feedback

        item_id = feedback.submit(ana, "BUG", "The chart is empty").id
    assert signed_in.get("/admin/feedback").status_code == 403
    assert post(signed_in, f"/admin/feedback/{item_id}/status", {"status": "DONE"}).status_code == 403
    with app.app_context():
        db.session.get(User, other_user_id).is_admin = True
        db.session.commit()
    inbox = other_signed_in.get("/admin/feedback").get_data(as_text=True)
    assert "The chart is empty" in inbox and "ana@example.com" in inbox
    changed = post(other_signed_in, f"/admin/feedback/{item_id}/status", {"status": "DONE"})
    assert changed.status_code == 200 and 'value="DONE" selected' in changed.get_data(as_text=True)
    assert changed.headers["HX-Trigger"] == "feedback:triaged"
    assert 'data-testid="count-DONE">1<' in other_signed_in.get("/admin/feedback/counts").get_data(as_text=True)
