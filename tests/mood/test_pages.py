"""The mood page, its month view and the dashboard's "mood week" widget."""

import re
from datetime import timedelta

from app.mood import services as mood
from app.profile import configuration
from app.shared.days import today_for
from tests.builders import as_user
from tests.conftest import csrf_token_from, make_user, sign_in

HTMX = {"HX-Request": "true"}


def post(client, **form):
    return client.post("/mood", data=form, headers={**HTMX, "X-CSRFToken": client.csrf})


def test_the_page_offers_five_labelled_levels_and_says_the_journal_is_private(signed_in):
    page = signed_in.get("/mood").get_data(as_text=True)
    assert len(re.findall(r'<input type="radio" name="level" value="[1-5]"', page)) == 5
    assert "<legend>Your mood</legend>" in page and "Great" in page and "Awful" in page
    assert 'aria-describedby="journal-private"' in page and "only you can read this" in page
    assert 'data-testid="mood-month"' in page


def test_saving_a_mood_toasts_announces_and_keeps_the_journal_on_the_form(app, signed_in, user_id):
    response = post(signed_in, level="4", journal="Good talk with Rui.")
    body = response.get_data(as_text=True)
    assert response.status_code == 200 and "domain:mood" in response.headers["HX-Trigger"]
    assert "Mood saved for today." in body and 'hx-swap-oob="beforeend:#toasts"' in body
    assert 'value="4" checked' in body and "Good talk with Rui.</textarea>" in body
    with as_user(app, user_id) as ana:
        assert mood.day_of(ana, today_for(ana)) == mood.MoodDay(today_for(ana), 4, True)


def test_a_refused_save_keeps_what_was_typed_and_says_why(app, signed_in, user_id):
    response = post(signed_in, level="9", journal="Words I must not lose")
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Words I must not lose</textarea>" in body
    assert "Choose how you felt, from 1 (awful) to 5 (great)." in body
    response = post(signed_in, journal="Still here")  # no level chosen at all
    assert response.status_code == 422 and "Still here</textarea>" in response.get_data(as_text=True)
    with as_user(app, user_id) as ana:
        assert mood.history(ana, 30) == []


def test_a_refused_save_without_javascript_is_the_whole_page_with_the_typed_words(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        tomorrow = (today_for(ana) + timedelta(days=1)).isoformat()
    refusals = ({"level": "9"}, {"level": "3", "day": "not a day"}, {"level": "3", "day": tomorrow})
    for refused in refusals:
        form = {"journal": " ".join(["Words I must not lose"] * 450), **refused}  # 9,899 characters, all kept
        response = signed_in.post("/mood", data=form, headers={"X-CSRFToken": signed_in.csrf})
        body = response.get_data(as_text=True)
        assert response.status_code == 422, refused
        assert f"{form['journal']}</textarea>" in body and 'data-testid="mood-month"' in body, refused
    too_long = signed_in.post("/mood", data={"level": "3", "journal": "x" * 10_001},
                              headers={"X-CSRFToken": signed_in.csrf})  # fmt: skip
    assert too_long.status_code == 422 and "10000" in too_long.get_data(as_text=True).replace(",", "")
    with as_user(app, user_id) as ana:
        assert mood.history(ana, 30) == []


def test_a_refusal_is_in_the_user_s_language(app, client, user_id):
    make_user(app, email="lia@example.com", name="Lia", language="pt")
    sign_in(client, email="lia@example.com")
    client.csrf = csrf_token_from(client.get("/mood"))
    body = post(client, level="0", journal="Meu texto").get_data(as_text=True)
    assert "Meu texto</textarea>" in body and "1 (péssimo) a 5 (ótimo)" in body


def test_a_future_day_is_refused_and_a_past_day_opens_with_its_journal(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        current = today_for(ana)
        mood.save(ana, current - timedelta(days=3), 2, "That Sunday")
    past = signed_in.get(f"/mood?day={(current - timedelta(days=3)).isoformat()}").get_data(as_text=True)
    assert "That Sunday</textarea>" in past and 'value="2" checked' in past and "Back to today" in past
    assert signed_in.get(f"/mood?day={(current + timedelta(days=1)).isoformat()}").status_code == 422
    refused = post(signed_in, day=(current + timedelta(days=1)).isoformat(), level="3", journal="Tomorrow")
    body = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "Tomorrow</textarea>" in body and "That day hasn&#39;t happened yet" in body
    saved = post(signed_in, day=(current - timedelta(days=3)).isoformat(), level="3", journal="Line one\r\nLine two")
    assert "Mood saved for " in saved.get_data(as_text=True)
    with as_user(app, user_id) as ana:
        assert mood.read_journal(ana, current - timedelta(days=3)) == "Line one\nLine two"


def test_the_month_view_marks_days_with_text_and_moves_between_months(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        current = today_for(ana)
        mood.save(ana, current, 5, "Written")
        mood.log(ana, 1, day=current.replace(day=1) - timedelta(days=1))
    month = signed_in.get("/mood/month", headers=HTMX).get_data(as_text=True)
    today_link = re.search(rf'<a class="[^"]*"[^>]*data-testid="mood-day-{current.isoformat()}"[^>]*>', month).group(0)
    assert "mood-level-5" in today_link and "data-has-text" in today_link and "journal written" in today_link
    assert 'hx-trigger="domain:mood from:body"' in month
    previous = current.replace(day=1) - timedelta(days=1)
    earlier = signed_in.get(f"/mood/month?month={previous.strftime('%Y-%m')}", headers=HTMX).get_data(as_text=True)
    last_day = re.search(rf'<a class="[^"]*"[^>]*data-testid="mood-day-{previous.isoformat()}"', earlier).group(0)
    assert "mood-level-1" in last_day and "data-has-text" not in last_day
    future = (current.replace(day=1) + timedelta(days=32)).strftime("%Y-%m")
    assert current.strftime("%Y-%m") in signed_in.get(f"/mood/month?month={future}").get_data(as_text=True)


def test_the_mood_week_widget_shows_the_last_seven_levels_and_refreshes_on_mood(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        configuration.update(ana, widgets=["moodWeek"])
        current = today_for(ana)
        mood.save(ana, current - timedelta(days=1), 2, "Private words in the widget")
        mood.log(ana, 5)
    page = signed_in.get("/dashboard").get_data(as_text=True)
    widget = page[page.index('id="widget-moodWeek"') :]
    widget = widget[: widget.index("</section>")]
    assert re.findall(r'data-level="([1-5]?)"', widget) == ["", "", "", "", "", "2", "5"]
    assert "Private words" not in page
    assert re.search(r'hx-trigger="domain:mood from:body delay:1ms"', page)
    refreshed = signed_in.get("/dashboard/regions?ids=moodWeek", headers=HTMX).get_data(as_text=True)
    assert 'id="widget-moodWeek"' in refreshed and 'data-level="5"' in refreshed


def test_the_page_works_without_htmx(app, signed_in, user_id):
    response = signed_in.post("/mood", data={"level": "3", "journal": "", "csrf_token": signed_in.csrf})
    assert response.status_code == 302
    assert "Mood saved for today." in signed_in.get(response.headers["Location"]).get_data(as_text=True)


def test_another_user_s_day_shows_only_ana_s_own_empty_form(app, signed_in, other_user_id):
    with as_user(app, other_user_id) as bruno:
        current = today_for(bruno)
        mood.save(bruno, current, 1, "Bruno's private words")
    for url in ("/mood", f"/mood?day={current.isoformat()}", "/mood/month"):
        page = signed_in.get(url).get_data(as_text=True)
        assert "Bruno" not in page and "mood-day mood-level" not in page and 'value="1" checked' not in page


def test_the_month_opened_as_a_page_is_the_whole_mood_page_at_that_month(app, signed_in, user_id):
    """A bookmark or a new tab on /mood/month gets the styled page, not the fragment htmx swaps."""
    with as_user(app, user_id) as ana:
        current = today_for(ana)
    previous = current.replace(day=1) - timedelta(days=1)
    page = signed_in.get(f"/mood/month?month={previous.strftime('%Y-%m')}").get_data(as_text=True)
    assert page.startswith("<!doctype html>") and 'class="app-shell"' in page and "<h1>Mood</h1>" in page
    assert 'data-testid="mood-entry"' in page and f'data-testid="mood-day-{previous.isoformat()}"' in page
    fragment = signed_in.get(f"/mood/month?month={previous.strftime('%Y-%m')}", headers=HTMX).get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="mood-month"') and "app-shell" not in fragment
