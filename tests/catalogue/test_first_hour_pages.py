"""What a newcomer meets in the first hour, as the server answers it: the welcome card, the phone's
navigation, a toast after every create, edit and delete, a level-up wherever it happens, delete
dialogs that say up front what will happen, Portuguese dates, the icon picker and the time zone
field. (The browser side is tests/browser/test_first_hour.py.)"""

import json
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from babel.dates import format_date

from app.extensions import db
from app.profile.models import User
from app.shared import icons
from app.web.navigation import AREAS
from tests.builders import a_category, a_goal, a_habit, a_task, as_user, put_in_routine
from tests.conftest import make_user, sign_in
from tests.routines.conftest import make_category, make_habit, morning

HTMX = {"HX-Request": "true"}


def post(client, url, data=None, htmx=True):
    headers = {"X-CSRFToken": client.csrf, **(HTMX if htmx else {})}
    return client.post(url, data=data or {}, headers=headers)


def triggered(response):
    """The events an HX-Trigger header fires, name -> detail."""
    header = response.headers.get("HX-Trigger", "")
    if header.startswith("{"):
        return json.loads(header)
    return {name.strip(): None for name in header.split(",") if name.strip()}


def bottom_bar(page):
    return page[page.index('<nav class="bottom-bar"') : page.index("</nav>", page.index('<nav class="bottom-bar"'))]


# 11. The welcome card ------------------------------------------------------------------------------


def test_got_it_is_a_plain_form_whose_answer_is_the_whole_dashboard(signed_in):
    page = signed_in.get("/dashboard").get_data(as_text=True)
    card = page[page.index('data-testid="welcome"') :]
    form = card[card.index("<form") : card.index(">", card.index("<form"))]
    assert 'method="post"' in form and "hx-post" not in form  # htmx never follows a redirect into the card

    answer = post(signed_in, "/dashboard/tour-done", htmx=False)
    assert answer.status_code == 302 and answer.headers["Location"].endswith("/dashboard")
    dashboard = signed_in.get("/dashboard").get_data(as_text=True)
    assert 'data-testid="welcome"' not in dashboard
    assert "data-agent-open" in dashboard


# 12. Every area within reach on a phone ---------------------------------------------------------------


def test_the_phone_bar_and_its_more_sheet_reach_every_area_and_sign_out(app, signed_in):
    bar = bottom_bar(signed_in.get("/dashboard").get_data(as_text=True))
    with app.test_request_context():
        targets = [area.url for area in AREAS]
    assert "/tasks" in targets and "/feedback" in targets
    for href in targets:
        assert f'href="{href}"' in bar, href
    assert 'action="/logout"' in bar
    assert 'data-testid="more-menu"' in bar


def test_the_menu_and_the_page_both_say_routines(signed_in):
    page = signed_in.get("/routines").get_data(as_text=True)
    assert "<span>Routines</span>" in page and "<h1>Routines</h1>" in page
    assert "<span>Today</span>" not in page


# 13. A toast after each create, edit and delete; a level-up wherever it happens -----------------------


@pytest.mark.parametrize(
    ("kind", "arrange", "fields"),
    [
        ("category", lambda user: a_category(user, name="Mind"), {"name": "Body", "icon": "heart"}),
        ("habit", lambda user: a_habit(user), None),
        ("task", lambda user: a_task(user), None),
        ("goal", lambda user: a_goal(user), None),
    ],
)
def test_create_edit_and_delete_each_answer_with_a_toast(app, signed_in, user_id, kind, arrange, fields):
    plural = {"category": "categories"}.get(kind, kind + "s")
    with as_user(app, user_id) as ana:
        thing_id = arrange(ana).id
        category_id = a_category(ana, name="Extra").id
    values = fields or _form_for(kind, category_id)

    created = post(signed_in, f"/{plural}", values)
    edited = post(signed_in, f"/{plural}/{thing_id}/edit", values | {"name": "Renamed"})
    deleted = post(signed_in, f"/{plural}/{thing_id}/delete")

    noun = kind.capitalize()
    assert triggered(created)["toast"] == {"message": f"{noun} created.", "kind": "success"}
    assert triggered(edited)["toast"] == {"message": f"{noun} saved.", "kind": "success"}
    assert triggered(deleted)["toast"] == {"message": f"{noun} deleted.", "kind": "success"}
    assert "dialog:close" in triggered(deleted) and f"domain:{plural}" in triggered(deleted)


def _form_for(kind, category_id):
    common = {"name": "New one", "icon": "star", "categories": [str(category_id)]}
    if kind in ("habit", "task"):
        return common | {"importance": "2", "difficulty": "2"}
    return common | {
        "target_value": "10",
        "unit": "km",
        "current_value": "0",
        "start_date": "2026-01-01",
        "end_date": "2026-12-31",
        "term": "SHORT_TERM",
        "status": "NOT_STARTED",
    }


def test_a_refused_write_raises_no_toast(signed_in):
    refused = post(signed_in, "/categories", {"name": "", "icon": "heart"})
    assert refused.status_code == 422
    assert "toast" not in triggered(refused)


def test_the_toast_travels_as_ascii_json_in_portuguese(app, client):
    make_user(app, email="rita@example.com", name="Rita", language="pt")
    sign_in(client, email="rita@example.com")
    client.csrf = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/dashboard").get_data(as_text=True))[1]
    created = post(client, "/categories", {"name": "Saúde", "icon": "heart"})
    created.headers["HX-Trigger"].encode("ascii")
    assert triggered(created)["toast"]["message"] == "Categoria criada."


def test_without_htmx_the_confirmation_is_a_flash_on_the_next_page(signed_in):
    created = post(signed_in, "/categories", {"name": "Body", "icon": "heart"}, htmx=False)
    assert created.status_code == 302
    assert "Category created." in signed_in.get("/categories").get_data(as_text=True)


def test_completing_a_goal_that_crosses_a_level_celebrates_it(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        goal_id = a_goal(ana, target_value=1, current_value=1).id
        level_before = ana.level
    completed = post(signed_in, f"/goals/{goal_id}/complete")
    with as_user(app, user_id) as ana:
        assert ana.level > level_before
        assert triggered(completed)["level:up"] == {"value": ana.level}


def test_a_write_that_stays_within_the_level_celebrates_nothing(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        goal_id = a_goal(ana).id
    stepped = post(signed_in, f"/goals/{goal_id}/increase")
    assert stepped.status_code == 204
    assert "level:up" not in triggered(stepped)


def test_every_page_holds_the_level_up_card_and_the_live_regions(signed_in):
    page = signed_in.get("/habits").get_data(as_text=True)
    assert 'id="celebration"' in page and 'id="level-up-card"' in page
    assert '<div id="toasts" class="toasts" aria-live="polite">' in page


# 14. Delete dialogs say what will happen before asking ---------------------------------------------


def test_a_category_in_use_says_where_before_offering_to_delete(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        fitness = a_category(ana, name="Fitness")
        a_habit(ana, name="Run", category=fitness)
        category_id = fitness.id
    asked = signed_in.get(f"/categories/{category_id}/delete", headers=HTMX)
    dialog = asked.get_data(as_text=True)
    assert asked.status_code == 200
    assert "“Fitness” is still in use" in dialog
    assert "This category is used in: Run" in dialog
    assert 'type="submit"' not in dialog and "will be deleted" not in dialog


def test_a_task_in_a_routine_says_which_before_offering_to_delete(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        task = a_task(ana)
        put_in_routine(ana, task, "Evenings")
        task_id = task.id
    dialog = signed_in.get(f"/tasks/{task_id}/delete", headers=HTMX).get_data(as_text=True)
    assert "This task is used in: Evenings" in dialog and 'type="submit"' not in dialog


def test_a_free_item_is_offered_for_deletion_with_what_goes_with_it(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        habit_id = a_habit(ana, name="Run").id
    dialog = signed_in.get(f"/habits/{habit_id}/delete", headers=HTMX).get_data(as_text=True)
    assert "“Run”, its check history and its XP will be deleted." in dialog
    assert 'type="submit"' in dialog


# 15. Portuguese dates, the icon picker, the time zone field -------------------------------------------


def test_a_portuguese_date_capitalises_only_its_first_letter(app, client):
    make_user(app, email="rita@example.com", name="Rita", language="pt")
    sign_in(client, email="rita@example.com")
    page = client.get("/dashboard").get_data(as_text=True)
    today = datetime.now(ZoneInfo("Europe/Lisbon")).date()
    written = format_date(today, "full", locale="pt")  # "segunda-feira, 30 de novembro de 2026"
    assert written[0].upper() + written[1:] in page
    assert 'class="capitalize"' not in page


def test_the_icon_choice_is_a_grid_of_named_radio_buttons(signed_in):
    form = signed_in.get("/habits/new", headers=HTMX).get_data(as_text=True)
    assert "<select" not in form[form.index('data-testid="icon-picker"') :].split("</fieldset>")[0]
    assert '<input type="radio" name="icon" value="heart" aria-label="Heart">' in form
    assert 'value="star" aria-label="Star" checked' in form  # the new habit's default


def test_icon_names_are_in_the_readers_language(app, client):
    make_user(app, email="rita@example.com", name="Rita", language="pt")
    sign_in(client, email="rita@example.com")
    form = client.get("/categories/new", headers=HTMX).get_data(as_text=True)
    assert 'value="heart" aria-label="Coração"' in form
    assert 'value="emoji-run" aria-label="Corrida"' in form


def test_every_icon_of_the_catalogue_has_a_name():
    assert set(icons.ICON_GROUP) == set(icons.LABELS)


def test_the_time_zone_is_a_searchable_field_with_the_users_region_first(signed_in):
    page = signed_in.get("/configuration").get_data(as_text=True)
    assert '<select id="timezone"' not in page
    field = page[page.index('<input id="timezone"') :]
    assert 'value="Europe/Lisbon"' in field[: field.index(">")]
    suggestions = re.findall(r'<option value="([^"]+)">', field[: field.index("</datalist>")])
    assert suggestions[0].startswith("Europe/") and "America/Sao_Paulo" in suggestions
    assert len(suggestions) < 500 and "US/Eastern" not in suggestions  # places, not legacy aliases


def test_a_zone_typed_by_hand_is_still_checked(app, signed_in, user_id):
    refused = post(signed_in, "/configuration/preferences", {"timezone": "Mars/Olympus"})
    assert refused.status_code == 422
    with app.app_context():
        assert db.session.get(User, user_id).timezone == "Europe/Lisbon"


def test_a_one_day_streak_reads_one_day(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        habit = make_habit(ana, "Read", categories=[make_category(ana)])
        entry_id = str(morning(ana, habit).entries[0].id)
    post(signed_in, f"/routines/entries/{entry_id}/check")
    card = signed_in.get("/routines/today-card").get_data(as_text=True)
    assert "Your streak is now 1 day — see you tomorrow!" in card
