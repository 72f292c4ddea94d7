"""A new account's dashboard in a real browser: right after the setup assistant it lists the next
steps, each with its action; a step done from its own button, or anywhere else, leaves without a
reload, and the card leaves with the last one. At 390 and 1280 px, in English and Portuguese."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.events import collecting
from app.extensions import db
from app.profile import accounts, configuration
from app.profile.models import User
from app.routines import schedules, today
from app.routines import services as routines
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.builders import a_habit, an_everyday_routine

pytestmark = pytest.mark.browser

PASSWORD = "the first steps are the hardest"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def steps_server(tmp_path_factory):
    """A server with three accounts just out of the setup assistant, which skipped everything.
    Yields (base URL, app)."""
    database = tmp_path_factory.mktemp("steps-e2e") / "steps.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for email, language in (("nova@example.com", "en"), ("nina@example.com", "en"), ("ines@example.com", "pt")):
            user = accounts.register(name="Nova", email=email, password=PASSWORD, timezone_name="Europe/Lisbon")
            configuration.update(user, tutorial_done=True, language=language)
    with serve(app) as base_url:
        yield base_url, app


def fits(page):
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_a_step_done_from_its_button_and_one_done_elsewhere_leave_without_a_reload(page, steps_server):
    base_url, app = steps_server
    page.set_viewport_size(DESKTOP)
    signed_in_as(page, base_url, "nova@example.com", PASSWORD)
    card = page.get_by_test_id("next-steps")
    expect(card.get_by_role("heading", name="Next steps")).to_be_visible()
    expect(card.locator("li")).to_have_count(4)
    for key in ("habit", "routine", "check", "goal"):
        expect(card.get_by_test_id(f"next-step-{key}")).to_be_visible()
    expect(page.get_by_test_id("next-steps-count")).to_have_text("0 of 4 done")

    # The goal step's own button opens the goal dialog here, on the dashboard.
    card.get_by_test_id("next-step-goal").get_by_role("link", name="Create goal").click()
    dialog = page.locator("#dialog")
    dialog.get_by_label("Name", exact=True).fill("Drink 2 litres a day")
    dialog.get_by_role("spinbutton", name="Target").fill("30")
    dialog.get_by_label("Unit").fill("days")
    dialog.get_by_role("button", name="Save goal").click()
    expect(card.get_by_test_id("next-step-goal")).to_have_count(0)
    expect(page.get_by_test_id("next-steps-count")).to_have_text("1 of 4 done")
    assert page.url.endswith("/dashboard")

    # A habit in a routine on every day, made elsewhere (another device, the assistant): the page
    # learns it from the live channel, the steps move on to the first check.
    with app.app_context(), collecting():
        user = db.session.scalar(db.select(User).where(User.email == "nova@example.com"))
        an_everyday_routine(user, a_habit(user, "Drink water"))
    expect(card.get_by_test_id("next-step-habit")).to_have_count(0)
    expect(card.get_by_test_id("next-step-routine")).to_have_count(0)
    expect(page.get_by_test_id("next-steps-count")).to_have_text("3 of 4 done")

    # The check step points at today's card; the first check there ends it, and the card goes.
    card.get_by_test_id("next-step-check").get_by_role("link", name="Go to today's routine").click()
    page.get_by_role("button", name="Check Drink water").click()
    expect(page.get_by_test_id("next-steps")).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id("today-card")).to_be_visible()
    expect(page.get_by_test_id("next-steps")).to_have_count(0)
    assert page.console_errors == []


def test_a_routine_on_another_day_asks_for_today_and_then_to_be_filled(page, steps_server):
    base_url, app = steps_server
    with app.app_context():
        user = db.session.scalar(db.select(User).where(User.email == "nina@example.com"))
        routine = routines.create_timed(user, "Weekends", "sun", [{"name": "Morning", "starts_at": "09:00"}])
        weekday = today.local_today(user)[1].weekday()
        schedules.set_days(user, routine.id, [(weekday + 1) % 7])
    page.set_viewport_size(PHONE)
    signed_in_as(page, base_url, "nina@example.com", PASSWORD)
    step = page.get_by_test_id("next-step-schedule")
    expect(step).to_contain_text("Schedule a routine for today")
    action = step.get_by_role("link", name="Choose its days")
    box = action.bounding_box()
    assert box["height"] >= 44 and box["x"] + box["width"] <= PHONE["width"]
    assert fits(page)
    action.click()
    dialog = page.locator("#dialog")
    expect(dialog).to_contain_text("Weekends")
    dialog.locator(f"input[name=weekdays][value='{weekday}']").check()
    dialog.get_by_role("button", name="Save schedule").click()
    # Scheduled on today, and still empty: the step moves on to filling it, with the editor.
    expect(page.get_by_test_id("next-step-schedule")).to_have_count(0)
    fill = page.get_by_test_id("next-step-fill")
    expect(fill).to_contain_text("Put a habit in today's routine")
    expect(page.get_by_test_id("today-card")).to_contain_text("Weekends")
    assert fits(page)
    assert page.console_errors == []


def test_the_steps_speak_portuguese_on_a_phone(page, steps_server):
    base_url, _app = steps_server
    page.set_viewport_size(PHONE)
    signed_in_as(page, base_url, "ines@example.com", PASSWORD)
    card = page.get_by_test_id("next-steps")
    expect(card.get_by_role("heading", name="Próximos passos")).to_be_visible()
    expect(card).to_contain_text("Crie seu primeiro hábito")
    expect(page.get_by_test_id("next-steps-count")).to_have_text("0 de 4 feitos")
    assert fits(page)
    assert not re.search(r"\b(Next steps|Create goal|Go to today)\b", card.inner_text())
    assert page.console_errors == []
