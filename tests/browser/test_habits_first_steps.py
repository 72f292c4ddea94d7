"""A new user's first habit and first routine, on a phone: "Drink water" is saved without a
category, a category made inside the dialog keeps what was typed, and a routine created with its
days is today's routine on the dashboard without a second dialog."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_up

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def newcomer(browser, live_server):
    """A phone with a new account signed in (past the setup assistant), its console errors kept."""
    context = browser.new_context(viewport=PHONE, locale="en-US", timezone_id="Europe/Lisbon")
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    sign_up(page, live_server, "Noor", "a first habit at last")
    yield page
    context.close()


def test_a_new_user_creates_a_habit_without_a_category(newcomer, live_server):
    page, dialog = newcomer, newcomer.locator("#dialog")
    page.goto(f"{live_server}/habits")
    page.get_by_role("link", name="Create habit").first.click()
    dialog.get_by_label("Name").fill("Drink water")
    expect(dialog.get_by_text("Categories (optional)")).to_be_visible()
    dialog.get_by_role("button", name="Save habit").click()
    expect(page.locator("#toasts [role=status]", has_text="Habit created.")).to_be_visible()
    expect(dialog).to_be_hidden()
    expect(page.locator("#habit-list")).to_contain_text("Drink water")
    page.reload()
    expect(page.locator(".entity-card", has_text="Drink water")).to_be_visible()
    assert page.console_errors == []


def test_a_category_made_inside_the_habit_dialog_keeps_the_form(newcomer, live_server):
    page, dialog = newcomer, newcomer.locator("#dialog")
    page.goto(f"{live_server}/habits")
    page.get_by_role("link", name="Create habit").first.click()
    dialog.get_by_label("Name").fill("Stretch")
    dialog.get_by_label("Motivational phrase").fill("Loose and light")
    dialog.get_by_role("radio", name="Max").check()
    dialog.get_by_label("New category").fill("Body")
    dialog.get_by_label("New category").press("Enter")  # the name box belongs to no form: nothing is saved
    expect(dialog.get_by_label("Name")).to_have_value("Stretch")
    dialog.get_by_role("button", name="Add category").click()
    expect(dialog.get_by_role("checkbox", name="Body")).to_be_checked()
    expect(dialog.get_by_label("Name")).to_have_value("Stretch")
    expect(dialog.get_by_label("Motivational phrase")).to_have_value("Loose and light")
    expect(dialog.get_by_role("radio", name="Max")).to_be_checked()
    dialog.get_by_role("button", name="Save habit").click()
    card = page.locator(".entity-card", has_text="Stretch")
    expect(card).to_contain_text("Body")
    assert page.console_errors == []


def test_a_routine_created_with_todays_day_is_on_the_dashboard(newcomer, live_server):
    page, dialog = newcomer, newcomer.locator("#dialog")
    page.goto(f"{live_server}/routines")
    page.get_by_role("link", name="Create routine").first.click()
    dialog.get_by_label("Name", exact=True).fill("Easy mornings")
    dialog.get_by_label("Section name").fill("Wake up")
    today = page.evaluate("new Date().toLocaleDateString('en-US', {weekday: 'long', timeZone: 'Europe/Lisbon'})")
    days = dialog.get_by_test_id("routine-days")
    expect(days.get_by_role("checkbox", name=today)).to_be_checked()  # a first routine is offered every day
    dialog.get_by_role("button", name="Create routine").click()
    expect(dialog.get_by_test_id("routine-editor")).to_be_visible()
    page.goto(f"{live_server}/dashboard")
    expect(page.get_by_test_id("today-card")).to_contain_text("Easy mornings")
    expect(page.get_by_test_id("today-card")).not_to_contain_text("No routine scheduled for today")
    assert page.console_errors == []
