"""Issue 11's journey, in one sitting of one person: a note added on /ideas and turned into a
task, a mood logged, Focus mode opened from today's card, a step added and pinned, and a
(one-minute) timer cycle run to its end on Playwright's clock and the server's, and counted in
the day view.

Each area's own journey (test_ideas_journey, test_mood_journey, test_focus_journey) goes further
into its page; this one proves the three work together, one after the other, in one session.
"""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration
from app.profile.models import User
from tests.browser.conftest import serve, sign_in, wait_until_quiet
from tests.builders import a_habit, an_everyday_routine
from tests.focus import server_clock

pytestmark = pytest.mark.browser

PASSWORD = "one day at a time"


@pytest.fixture(scope="module")
def day_server(tmp_path_factory):
    """Lia: a routine that runs every day (so "Read" is on today's card), a one-minute focus, the
    mood week on her dashboard."""
    database = tmp_path_factory.mktemp("day") / "day.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Lia", email="lia@example.com", password=PASSWORD, timezone_name="UTC")
        configuration.update(
            user,
            tutorial_done=True,
            focus_work_minutes=1,
            focus_break_minutes=1,
            widgets=["dailyProgress", "moodWeek"],
        )
        an_everyday_routine(db.session.get(User, user.id), a_habit(user, "Read"))
        db.session.remove()
    with serve(app) as base_url:
        yield base_url


def test_a_note_becomes_a_task_a_mood_is_logged_and_a_focus_cycle_completes(browser, day_server, monkeypatch):
    server = server_clock.installed(monkeypatch)  # the timer's time on the server, moved with the page's
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", timezone_id="UTC")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.clock.install()
    sign_in(page, day_server, "lia@example.com", PASSWORD)

    # The Ideas board: a note in the first cell, then a task.
    page.goto(f"{day_server}/ideas")
    page.get_by_label("New note").fill("Book the train to Porto")
    page.get_by_role("button", name="Add note").click()
    note = page.get_by_role("article", name="Note at row 1, column 1")
    expect(note).to_contain_text("Book the train to Porto")
    note.get_by_label("More for the note at row 1, column 1").click()
    note.get_by_role("button", name="Turn into task").click()
    expect(page.locator("#toasts")).to_contain_text("Task created from your note")
    expect(page.get_by_test_id("note")).to_have_count(0)
    page.goto(f"{day_server}/tasks")
    expect(page.get_by_test_id("task-list")).to_contain_text("Book the train to Porto")

    # Mood: today's level, seen in the dashboard's mood week.
    page.goto(f"{day_server}/mood")
    page.get_by_role("group", name="Your mood").get_by_label("Great").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#toasts")).to_contain_text("Mood saved for today.")
    page.goto(f"{day_server}/dashboard")
    expect(page.get_by_test_id("widget-moodWeek").get_by_test_id("mood-week-day").last).to_have_attribute(
        "data-level", "5"
    )

    # Focus mode from today's card: a pinned step and a whole focus cycle.
    page.get_by_test_id("today-card").get_by_role("link", name="Focus on Read").click()
    expect(page).to_have_url(re.compile(r"/focus/[0-9a-f-]{36}$"))
    page.wait_for_load_state("load")  # the step form is htmx's once the page's scripts have run
    page.get_by_label("New step").fill("Chapter 3")
    page.get_by_label("New step").press("Enter")
    steps = page.get_by_test_id("focus-steps")
    expect(steps.get_by_test_id("step").filter(has_text="Chapter 3")).to_be_visible()
    steps.get_by_role("button", name="Pin Chapter 3: keep it every day").click()
    expect(steps.get_by_role("button", name="Pin Chapter 3: keep it every day")).to_have_attribute(
        "aria-pressed", "true"
    )
    page.get_by_test_id("timer-toggle").click()
    expect(page.get_by_test_id("timer-toggle")).to_contain_text("Pause")
    wait_until_quiet(page)  # the start's live refresh has landed before time jumps
    server.run_for(61_000)
    page.clock.run_for(61_000)
    expect(page.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")

    page.get_by_role("link", name="Focus mode").click()
    read = page.get_by_test_id("focus-day-entry").filter(has_text="Read")
    expect(read).to_contain_text("0 of 1 steps")
    expect(read.get_by_test_id("entry-cycles")).to_have_text(re.compile(r"1 cycle"))
    assert errors == []
    context.close()
