"""Focus mode's pages: opened from today's card, every step action answered with the list and a
toast, refusals keep what was typed, and the timer kept on the server: every page of the user
shows its state, a change it no longer allows is refused in words with the timer as it is."""

import re
from datetime import timedelta

import pytest

from app.extensions import db
from app.focus import services as focus
from app.focus.models import MicroTask, TimerCycle
from app.routines import schedules
from app.routines import services as routines
from app.shared.days import today_for
from tests.builders import a_habit, a_task, an_everyday_routine, as_user

HTMX = {"HX-Request": "true"}


@pytest.fixture
def entry_id(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        return str(
            an_everyday_routine(ana, a_habit(ana, "Write"), a_task(ana, "Tidy desk"), since_yesterday=True)[0].id
        )


def post(client, url, data=None, htmx=True):
    return client.post(url, data=data or {}, headers={"X-CSRFToken": client.csrf, **(HTMX if htmx else {})})


def text(response):
    return response.get_data(as_text=True)


def steps_of(app, user_id):
    with as_user(app, user_id):
        rows = db.session.scalars(db.select(MicroTask).order_by(MicroTask.position)).all()
        return [(row.text, row.done) for row in rows]


def step_id(app, user_id, step_text):
    with as_user(app, user_id):
        return str(db.session.scalar(db.select(MicroTask.id).where(MicroTask.text == step_text)))


def test_today_s_card_and_the_routines_page_open_focus_mode_on_an_entry(signed_in, entry_id):
    for page in ("/dashboard", "/routines"):
        assert f'href="/focus/{entry_id}"' in text(signed_in.get(page)), page


def test_the_focus_page_carries_the_entry_for_the_assistant_and_the_timer_s_state(signed_in, entry_id):
    page = text(signed_in.get(f"/focus/{entry_id}"))
    assert f'data-focus-entry-id="{entry_id}"' in page
    assert 'data-state="STOPPED" data-phase="WORK" data-remaining-ms="1500000"' in page
    assert ">25:00<" in page and "25 min focus, 5 min break." in page
    assert f'hx-get="/focus/{entry_id}/timer" hx-trigger="domain:focus from:body, timer:ended"' in page
    assert "js/focus.js" in page


def test_the_timer_s_changes_answer_with_its_state_and_announce_focus(app, signed_in, user_id, entry_id):
    started = post(signed_in, f"/focus/{entry_id}/timer/start")
    assert started.status_code == 200 and 'data-state="RUNNING" data-phase="WORK"' in text(started)
    assert "domain:focus" in started.headers["HX-Trigger"]
    assert f'hx-post="/focus/{entry_id}/timer/pause"' in text(started)
    assert 'data-revision="1"' in text(started)  # which change it shows: a page keeps the latest

    paused = post(signed_in, f"/focus/{entry_id}/timer/pause")
    assert 'data-state="PAUSED"' in text(paused) and f'hx-post="/focus/{entry_id}/timer/resume"' in text(paused)
    assert ">Paused<" in text(paused) and 'data-revision="2"' in text(paused)
    # A second page (another device) reads the same state
    assert 'data-state="PAUSED"' in text(signed_in.get(f"/focus/{entry_id}/timer"))
    assert 'data-state="PAUSED"' in text(signed_in.get(f"/focus/{entry_id}"))

    assert 'data-state="RUNNING"' in text(post(signed_in, f"/focus/{entry_id}/timer/resume"))
    stopped = post(signed_in, f"/focus/{entry_id}/timer/stop")
    assert 'data-state="STOPPED"' in text(stopped) and ">25:00<" in text(stopped)
    with as_user(app, user_id):
        assert db.session.scalar(db.select(db.func.count()).select_from(TimerCycle)) == 0  # stopped early


def test_a_change_the_timer_no_longer_allows_is_refused_in_words(app, signed_in, user_id, entry_id):
    """Paused on one device, "Pause" pressed on another that had not heard yet: the answer says
    why, in the person's language, and shows the timer as it is."""
    refused = post(signed_in, f"/focus/{entry_id}/timer/pause")
    assert refused.status_code == 409
    assert "The timer isn&#39;t running, so there is nothing to pause." in text(refused)
    assert 'data-state="STOPPED"' in text(refused) and 'class="toast toast-error"' in text(refused)
    assert post(signed_in, f"/focus/{entry_id}/timer/stop").status_code == 409
    assert post(signed_in, f"/focus/{entry_id}/timer/explode").status_code in (404, 405)

    with as_user(app, user_id) as ana:
        ana.language = "pt"
        db.session.commit()
    post(signed_in, f"/focus/{entry_id}/timer/start")
    again = post(signed_in, f"/focus/{entry_id}/timer/start")
    assert again.status_code == 409 and "O timer já está rodando." in text(again)


def test_without_javascript_a_timer_change_comes_back_to_the_page(signed_in, entry_id):
    answer = post(signed_in, f"/focus/{entry_id}/timer/start", htmx=False)
    assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/focus/{entry_id}")
    refused = post(signed_in, f"/focus/{entry_id}/timer/start", htmx=False)
    assert refused.status_code == 302
    assert "The timer is already running." in text(signed_in.get(f"/focus/{entry_id}"))


def test_each_step_action_answers_with_the_list_and_a_toast(app, signed_in, user_id, entry_id):
    added = post(signed_in, f"/focus/{entry_id}/steps", {"text": "Outline"})
    post(signed_in, f"/focus/{entry_id}/steps", {"text": "Draft"})
    assert added.status_code == 200 and "Outline" in text(added) and "Step added" in text(added)
    assert "domain:focus" in added.headers["HX-Trigger"]
    outline, draft = step_id(app, user_id, "Outline"), step_id(app, user_id, "Draft")

    checked = post(signed_in, f"/focus/steps/{outline}/check")
    pinned = post(signed_in, f"/focus/steps/{draft}/pin", {"pinned": "1"})
    moved = post(signed_in, f"/focus/steps/{draft}/move", {"direction": "up"})

    assert "Step done" in text(checked) and f'data-focus-after="check-step-{outline}"' in text(checked)
    assert re.search(r'id="pin-step-' + draft + r'" class="icon-button is-pinned"', text(pinned))
    assert f'data-focus-after="up-step-{draft}"' in text(moved)
    assert steps_of(app, user_id) == [("Draft", False), ("Outline", True)]

    deleted = post(signed_in, f"/focus/steps/{outline}/delete")
    assert "Step deleted" in text(deleted) and steps_of(app, user_id) == [("Draft", False)]


def test_a_drag_sends_the_whole_order(app, signed_in, user_id, entry_id):
    for name in ("One", "Two", "Three"):
        post(signed_in, f"/focus/{entry_id}/steps", {"text": name})
    ids = [step_id(app, user_id, name) for name in ("Three", "One", "Two")]

    answer = post(signed_in, f"/focus/{entry_id}/reorder", {"step": ids})

    assert answer.status_code == 200
    assert [name for name, _done in steps_of(app, user_id)] == ["Three", "One", "Two"]
    short = post(signed_in, f"/focus/{entry_id}/reorder", {"step": ids[:2]})
    assert short.status_code == 422 and "each exactly once" in text(short)


def test_a_refused_step_keeps_what_was_typed(app, signed_in, user_id, entry_id):
    typed = "A step far too long " * 15
    for htmx in (True, False):
        refused = post(signed_in, f"/focus/{entry_id}/steps", {"text": typed}, htmx=htmx)
        assert refused.status_code == 422
        assert "Use at most 200 characters for a step." in text(refused)
        assert typed.strip() in text(refused)
    assert steps_of(app, user_id) == []


def test_without_javascript_each_action_comes_back_to_the_page(app, signed_in, user_id, entry_id):
    answer = post(signed_in, f"/focus/{entry_id}/steps", {"text": "Outline"}, htmx=False)
    assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/focus/{entry_id}")


def test_a_finished_focus_is_counted_on_the_page_and_in_the_day_view(app, signed_in, user_id, entry_id):
    with as_user(app, user_id) as ana:
        focus.start_timer(ana, entry_id, now=focus.utcnow() - timedelta(minutes=26))
    timer = text(signed_in.get(f"/focus/{entry_id}/timer"))
    assert 'data-state="RUNNING" data-phase="BREAK"' in timer and "1 cycle completed today" in timer
    assert "1 cycle completed" in text(signed_in.get("/focus", headers=HTMX))


def test_no_cycle_yet_is_said_in_words_not_as_a_zero(app, signed_in, user_id, entry_id):
    """Portuguese counts 0 as singular ("0 ciclo"), so no count is shown before the first cycle."""
    assert "No cycle completed yet" in text(signed_in.get("/focus"))
    assert "No cycle completed today yet" in text(signed_in.get(f"/focus/{entry_id}"))
    with as_user(app, user_id) as ana:
        ana.language = "pt"
        db.session.commit()
    assert "Nenhum ciclo concluído ainda" in text(signed_in.get("/focus"))
    assert "0 ciclo" not in text(signed_in.get(f"/focus/{entry_id}"))


def test_the_day_view_lists_today_s_entries(signed_in, entry_id):
    day = text(signed_in.get("/focus"))
    assert "Write" in day and "Tidy desk" in day and f"/focus/{entry_id}" in day
    assert 'data-testid="entry-timer"' not in day


def test_the_day_view_shows_a_timer_that_runs_or_waits_paused(signed_in, entry_id):
    post(signed_in, f"/focus/{entry_id}/timer/start")
    assert "Timer running" in text(signed_in.get("/focus", headers=HTMX))
    post(signed_in, f"/focus/{entry_id}/timer/pause")
    day = text(signed_in.get("/focus", headers=HTMX))
    assert "Timer running" not in day and re.search(r'data-testid="entry-timer">.*Paused</span>', day)


def test_an_entry_of_another_day_leads_to_today_s_view(app, signed_in, user_id):
    with as_user(app, user_id) as ana:
        routine = routines.create_list(ana, "Weekend", entries=[{"habit_id": a_habit(ana, "Swim").id}])
        schedules.set_days(ana, routine.id, [day for day in range(7) if day != today_for(ana).weekday()])
        other = str(routine.entries[0].id)
    refused = signed_in.get(f"/focus/{other}", follow_redirects=True)
    assert refused.request.path == "/focus" and "not in today&#39;s routine" in text(refused)
    assert post(signed_in, f"/focus/{other}/steps", {"text": "Warm up"}).status_code == 422


def test_the_timer_lengths_are_set_on_the_configuration_page(app, signed_in, user_id):
    saved = post(signed_in, "/configuration/preferences", {"focus_work_minutes": "50", "focus_break_minutes": "10"})
    refused = post(signed_in, "/configuration/preferences", {"focus_work_minutes": "500", "focus_break_minutes": "10"})

    assert saved.status_code == 200
    assert refused.status_code == 422 and "Choose a focus length from 1 to 120 minutes." in text(refused)
    assert 'value="500"' in text(refused)
    with as_user(app, user_id) as ana:
        assert (ana.focus_work_minutes, ana.focus_break_minutes) == (50, 10)
        assert focus.timer(ana) == {"work": 50, "break": 10}


def test_bruno_cannot_see_ana_s_focus(app, signed_in, other_signed_in, entry_id, user_id):
    post(signed_in, f"/focus/{entry_id}/steps", {"text": "Outline"})
    outline = step_id(app, user_id, "Outline")
    assert other_signed_in.get(f"/focus/{entry_id}").status_code == 404
    assert post(other_signed_in, f"/focus/steps/{outline}/check").status_code == 404
    assert other_signed_in.get(f"/focus/{entry_id}/timer").status_code == 404
    assert post(other_signed_in, f"/focus/{entry_id}/timer/start").status_code == 404
    assert steps_of(app, user_id) == [("Outline", False)]
