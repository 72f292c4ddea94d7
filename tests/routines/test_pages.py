"""The routines page and the dashboard: fragments for htmx, check in place, and ids that leak nothing."""

import re
import uuid
from datetime import timedelta

import pytest

from app.extensions import db
from app.profile.models import User
from app.routines import day_close, schedules
from app.routines import services as routines
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.routines.models.routines import Routine
from app.shared import days
from tests.routines.conftest import make_category, make_habit, morning

HTMX = {"HX-Request": "true"}


def post(client, url, data=None, htmx=True):
    headers = {"X-CSRFToken": client.csrf, **(HTMX if htmx else {})}
    return client.post(url, data=data or {}, headers=headers)


def text(response):
    return response.get_data(as_text=True)


@pytest.fixture
def plan(app, signed_in, user):
    """Ana's daily routine "Morning" holding the habit "Read" (2 + 3: 25 XP a check)."""
    habit = make_habit(user, "Read", difficulty=2, importance=3, categories=[make_category(user)])
    routine = morning(user, habit)
    return {"routine": str(routine.id), "entry": str(routine.entries[0].id), "habit": str(habit.id)}


def routine_of(plan):
    return db.session.get(Routine, uuid.UUID(plan["routine"]))


def fresh_user(user_id):
    db.session.expire_all()
    return db.session.get(User, user_id)


def test_the_routines_page_shows_todays_routine_with_check_and_skip(signed_in, plan):
    page = text(signed_in.get("/routines"))
    assert 'data-testid="today-card"' in page and "Read" in page
    assert f"/routines/entries/{plan['entry']}/check" in page and "Skip" in page
    assert 'aria-current="page"' in page and "Routines" in page


def test_the_navigation_leads_to_the_routines_page(signed_in, plan):
    assert 'href="/routines"' in text(signed_in.get("/dashboard"))


def test_an_htmx_visit_gets_the_day_region_only(signed_in, plan):
    fragment = text(signed_in.get("/routines", headers=HTMX))
    assert fragment.lstrip().startswith('<div id="routines-day">') and "<html" not in fragment


def test_a_check_in_place_repaints_the_row_with_its_xp(signed_in, plan, user_id):
    response = post(signed_in, f"/routines/entries/{plan['entry']}/check")
    assert response.status_code == 200
    assert "domain:routines" in response.headers["HX-Trigger"]
    row = text(response)
    assert f'id="entry-{plan["entry"]}"' in row and 'aria-pressed="true"' in row and "+25 XP" in row
    assert fresh_user(user_id).xp == 25


def test_after_a_check_the_card_and_the_level_widget_show_the_new_xp(signed_in, plan):
    post(signed_in, f"/routines/entries/{plan['entry']}/check")
    card = text(signed_in.get("/routines/today-card"))
    assert "1 of 1" in card and "Routine complete" in card
    level = text(signed_in.get("/dashboard/regions?ids=levelProgress"))
    assert re.search(r'data-testid="user-xp">25 XP<', level) and 'hx-swap-oob="true"' in level


def test_a_skip_in_place_marks_the_row_skipped(signed_in, plan):
    response = post(signed_in, f"/routines/entries/{plan['entry']}/skip", {"skip": "1"})
    assert "is-skipped" in text(response) and "Undo skip" in text(response)
    response = post(signed_in, f"/routines/entries/{plan['entry']}/skip", {"skip": "0"})
    assert "is-skipped" not in text(response)


def test_a_milestone_check_answers_with_a_celebration(app, signed_in, plan, user):
    today = days.today_for(user)
    for days_ago in range(1, 7):
        db.session.add(
            DayOutcome(user_id=user.id, owner_type=OwnerType.HABIT, owner_id=routine_of(plan).entries[0].habit_id,
                       day=today - timedelta(days=days_ago), outcome=Outcome.DONE)
        )  # fmt: skip
    db.session.commit()
    body = text(post(signed_in, f"/routines/entries/{plan['entry']}/check"))
    assert 'id="celebration"' in body and 'hx-swap-oob="true"' in body and "7-day streak!" in body


def test_a_habit_id_sent_as_an_entry_is_refused_with_a_toast_naming_the_entry(signed_in, plan):
    response = post(signed_in, f"/routines/entries/{plan['habit']}/check")
    assert response.status_code == 422
    assert response.headers["HX-Reswap"] == "none"
    assert plan["entry"] in text(response) and "toast-error" in text(response)


def test_a_past_day_shows_the_history_view_with_the_decayed_xp(signed_in, plan, user):
    yesterday = days.today_for(user) - timedelta(days=1)
    page = text(signed_in.get(f"/routines?day={yesterday.isoformat()}"))
    assert 'data-testid="history-mode"' in page and 'data-testid="history-card"' in page
    assert "+20 XP" in page  # 25 × 0.8, one day late
    assert f'"day": "{yesterday.isoformat()}"' in page


def test_a_late_check_from_the_history_view_pays_the_decayed_xp(signed_in, plan, user_id, user):
    yesterday = days.today_for(user) - timedelta(days=1)
    response = post(signed_in, f"/routines/entries/{plan['entry']}/check", {"day": yesterday.isoformat()})
    assert response.status_code == 200 and "+20 XP" in text(response)
    assert "celebration" not in text(response)
    assert fresh_user(user_id).xp == 20


def test_a_future_day_is_refused(signed_in, plan, user):
    tomorrow = days.today_for(user) + timedelta(days=2)
    assert signed_in.get(f"/routines?day={tomorrow.isoformat()}").status_code == 422
    assert post(signed_in, f"/routines/entries/{plan['entry']}/skip", {"day": tomorrow.isoformat()}).status_code == 422


def test_creating_a_routine_opens_its_editor_and_announces_it(signed_in, user):
    response = post(
        signed_in,
        "/routines",
        {"kind": "TIMED", "name": "Evening", "icon": "moon", "section_name": "Wind down", "section_starts_at": "21:00"},
    )
    assert response.status_code == 200 and 'data-testid="routine-editor"' in text(response)
    assert "domain:routines" in response.headers["HX-Trigger"]
    assert [r.name for r in routines.listing(user)] == ["Evening"]


def test_a_refused_create_keeps_what_was_typed(signed_in, user):
    response = post(
        signed_in, "/routines", {"kind": "TIMED", "name": "Evening", "section_name": "", "section_starts_at": "21:00"}
    )
    assert response.status_code == 422
    body = text(response)
    assert 'value="Evening"' in body and "Give the section a name." in body
    assert routines.listing(user) == []


def ticked_days(body):
    form = body[body.index('data-testid="routine-days"') :]
    return sorted(int(day) for day in re.findall(r'name="weekdays" value="(\d)" checked', form))


def test_a_first_routine_is_offered_every_day(signed_in, user):
    assert ticked_days(text(signed_in.get("/routines/new", headers=HTMX))) == [0, 1, 2, 3, 4, 5, 6]


def test_the_section_name_shows_its_example_whole(signed_in, user):
    assert 'placeholder="Cozy morning"' in text(signed_in.get("/routines/new", headers=HTMX))


def test_the_create_dialog_ticks_only_the_free_days_and_names_who_holds_the_rest(signed_in, plan, user):
    schedules.set_days(user, plan["routine"], [0, 1, 2, 3, 4])
    body = text(signed_in.get("/routines/new", headers=HTMX))
    assert ticked_days(body) == [5, 6] and body.count("now “Morning”") == 5


def test_a_routine_created_with_todays_day_is_todays_routine_on_the_dashboard(signed_in, user):
    weekday = str(days.today_for(user).weekday())
    created = post(
        signed_in,
        "/routines",
        {"kind": "LIST", "name": "Evening", "icon": "moon", "weekdays": [weekday]},
    )
    assert created.status_code == 200 and 'data-testid="routine-editor"' in text(created)
    today_card = text(signed_in.get("/dashboard"))
    assert "Evening" in today_card and "No routine scheduled for today" not in today_card


def test_a_created_routine_taking_a_held_day_says_the_day_moved(signed_in, plan, user):
    response = post(signed_in, "/routines", {"kind": "LIST", "name": "Evening", "weekdays": ["6"]})
    assert "Sunday from “Morning”" in text(response)
    db.session.expire_all()
    assert schedules.week(user)[6].name == "Evening"


def test_a_refused_create_keeps_the_ticked_days(signed_in, user):
    response = post(signed_in, "/routines", {"kind": "LIST", "name": " ", "weekdays": ["1", "3"]})
    assert response.status_code == 422 and ticked_days(text(response)) == [1, 3]
    assert routines.listing(user) == []


def test_the_editor_adds_an_entry_and_refuses_a_time_outside_the_section_in_place(signed_in, plan, user):
    habit = make_habit(user, "Stretch")
    routine_id = plan["routine"]
    section_id = str(routine_of(plan).sections[0].id)
    refused = post(
        signed_in,
        f"/routines/{routine_id}/entries",
        {"item": f"habit:{habit.id}", "section_id": section_id, "starts_at": "10:00"},
    )
    assert refused.status_code == 422
    assert "The start time must be within the section" in text(refused) and 'value="10:00"' in text(refused)
    added = post(
        signed_in,
        f"/routines/{routine_id}/entries",
        {"item": f"habit:{habit.id}", "section_id": section_id, "starts_at": "08:00"},
    )
    assert added.status_code == 200 and "Stretch" in text(added)
    db.session.expire_all()
    assert [e.item.name for e in routine_of(plan).entries] == ["Read", "Stretch"]


def test_scheduling_a_taken_day_moves_it_and_says_so(signed_in, plan, user):
    evening = routines.create_list(user, "Evening")
    response = post(signed_in, f"/routines/{evening.id}/schedule", {"weekdays": ["0", "6"]})
    assert response.status_code == 200
    assert "dialog:close" in response.headers["HX-Trigger"]
    body = text(response)
    assert "Monday from “Morning”" in body and "Sunday from “Morning”" in body
    db.session.expire_all()
    assert schedules.week(user)[0].name == "Evening"


def test_the_schedule_dialog_names_the_routine_holding_each_day(signed_in, plan, user):
    evening = routines.create_list(user, "Evening")
    body = text(signed_in.get(f"/routines/{evening.id}/schedule", headers=HTMX))
    assert "now “Morning”" in body


def test_deleting_asks_first_then_closes_the_dialog(signed_in, plan, user):
    confirm = signed_in.get(f"/routines/{plan['routine']}/delete", headers=HTMX)
    assert "Delete this routine?" in text(confirm)
    response = post(signed_in, f"/routines/{plan['routine']}/delete")
    assert response.status_code == 200 and "dialog:close" in response.headers["HX-Trigger"]
    db.session.expire_all()
    assert routines.listing(user) == []


ROUTES_WITH_IDS = [
    ("get", "/routines/{routine}/edit"),
    ("post", "/routines/{routine}/rename"),
    ("post", "/routines/{routine}/sections"),
    ("post", "/routines/{routine}/sections/{section}"),
    ("post", "/routines/{routine}/sections/{section}/move"),
    ("post", "/routines/{routine}/sections/{section}/delete"),
    ("post", "/routines/{routine}/entries"),
    ("post", "/routines/entries/{entry}"),
    ("post", "/routines/entries/{entry}/move"),
    ("post", "/routines/entries/{entry}/delete"),
    ("post", "/routines/entries/{entry}/check"),
    ("post", "/routines/entries/{entry}/skip"),
    ("post", "/routines/entries/{habit}/check"),
    ("get", "/routines/{routine}/schedule"),
    ("post", "/routines/{routine}/schedule"),
    ("get", "/routines/{routine}/delete"),
    ("post", "/routines/{routine}/delete"),
]


@pytest.mark.parametrize(("method", "route"), ROUTES_WITH_IDS)
def test_another_users_ids_are_not_found_on_every_route(other_signed_in, plan, method, route, user_id):
    section = str(routine_of(plan).sections[0].id)
    url = route.format(section=section, **plan)
    for htmx in (True, False):
        if method == "get":
            response = other_signed_in.get(url, headers=HTMX if htmx else {})
        else:
            response = post(other_signed_in, url, {"name": "Mine", "weekdays": ["1"], "starts_at": "07:00"}, htmx=htmx)
        assert response.status_code == 404, (url, htmx)
    db.session.expire_all()
    routine = routine_of(plan)
    assert routine.name == "Morning" and len(routine.entries) == 1 and len(routine.schedule_days) == 7
    assert fresh_user(user_id).xp == 0


def test_the_dashboard_shows_the_today_card_and_the_chosen_widgets_in_order(signed_in, plan, user):
    user.widgets = ["fastTips", "constanceHeatmap", "levelProgress"]
    db.session.commit()
    page = text(signed_in.get("/dashboard"))
    assert 'data-testid="today-card"' in page
    order = [page.index(f'data-testid="widget-{name}"') for name in user.widgets]
    assert order == sorted(order)
    assert 'data-testid="widget-dailyProgress"' not in page


def test_the_dashboard_invites_to_choose_widgets_when_there_are_none(signed_in, user):
    user.widgets = []
    db.session.commit()
    page = text(signed_in.get("/dashboard"))
    assert 'data-testid="widgets-invitation"' in page and "/configuration" in page


def test_the_dashboard_loads_the_goals_ahead_lazily(signed_in, user):
    page = text(signed_in.get("/dashboard"))
    assert 'hx-get="/goals/horizon" hx-trigger="load, domain:goals from:body"' in page


def test_the_streak_chip_appears_once_a_day_counts(signed_in, plan):
    assert 'data-testid="constance-chip"' not in text(signed_in.get("/dashboard/regions?ids=constance-chip"))
    post(signed_in, f"/routines/entries/{plan['entry']}/check")
    chip = text(signed_in.get("/dashboard/regions?ids=constance-chip"))
    assert 'data-testid="constance-chip"' in chip and "1 day" in chip


def test_every_widget_in_the_catalogue_renders_as_its_own_fragment(signed_in, plan):
    from app.profile.widgets import CATALOGUE

    for widget_id in CATALOGUE:
        response = signed_in.get(f"/dashboard/regions?ids={widget_id}")
        assert response.status_code == 200, widget_id
        assert f'id="widget-{widget_id}"' in text(response)
    assert signed_in.get("/dashboard/regions?ids=levelProgress,unknown").status_code == 404
    assert signed_in.get("/dashboard/regions").status_code == 404


def test_the_dashboard_refreshes_its_regions_in_one_request_per_set_of_domains_they_read(signed_in, plan, user):
    user.widgets = ["dailyProgress", "constance", "levelProgress", "betterArea", "worstArea", "fastTips"]
    db.session.commit()
    page = text(signed_in.get("/dashboard"))
    refreshers = re.findall(r'data-testid="dashboard-refresher" hx-get="([^"]+)" hx-trigger="([^"]+)"', page)
    assert [(url.replace("%2C", ","), trigger) for url, trigger in refreshers] == [
        (
            "/dashboard/regions?ids=constance-chip,today-card,dailyProgress,constance",
            "domain:routines from:body delay:1ms",
        ),
        (
            "/dashboard/regions?ids=levelProgress",
            "domain:routines from:body delay:1ms, domain:goals from:body delay:1ms",
        ),
        (
            "/dashboard/regions?ids=betterArea,worstArea",
            "domain:routines from:body delay:1ms, domain:goals from:body delay:1ms, "
            "domain:categories from:body delay:1ms",
        ),
    ]
    assert page.count('hx-trigger="domain:') == len(refreshers)  # no region refreshes by itself
    answer = text(signed_in.get(refreshers[0][0].replace("&amp;", "&")))
    for region in ("constance-chip", "today-card", "widget-dailyProgress", "widget-constance"):
        assert f'id="{region}"' in answer
    assert answer.count('hx-swap-oob="true"') == 4


def test_the_heatmap_is_an_accessible_svg_of_sixteen_weeks(signed_in, plan, user):
    yesterday = days.today_for(user) - timedelta(days=1)
    day_close.close_days()
    body = text(signed_in.get("/dashboard/regions?ids=constanceHeatmap"))
    assert 'role="img"' in body and "<title" in body and "Done" in body and "Missed" in body
    assert 16 * 7 - 6 <= body.count("<rect") <= 16 * 7
    assert f"{yesterday.day}" in body


def test_the_category_widgets_show_the_areas(signed_in, plan, user):
    post(signed_in, f"/routines/entries/{plan['entry']}/check")
    better = text(signed_in.get("/dashboard/regions?ids=betterArea"))
    assert "Health" in better and "25 XP" in better
    balance = text(signed_in.get("/dashboard/regions?ids=categoryBalance"))
    assert "Add at least 3 categories" in balance


def test_a_closed_past_day_shows_what_was_missed(signed_in, plan, user):
    day_close.close_days()
    yesterday = days.today_for(user) - timedelta(days=1)
    fragment = text(signed_in.get(f"/routines/day?day={yesterday.isoformat()}"))
    assert "Missed" in fragment and "Completed: 0" in fragment


def test_the_header_summary_comes_back_with_the_routine_list_when_routines_change(signed_in):
    page = signed_in.get("/routines").get_data(as_text=True)
    assert 'hx-get="/routines/list"' in page and "domain:routines from:body delay:1ms" in page
    fragment = signed_in.get("/routines/list", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="routine-list"' in fragment
    assert (
        'id="routines-summary" class="muted" data-testid="routines-summary" hx-swap-oob="true">0 routines' in fragment
    )
