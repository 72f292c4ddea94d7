"""Study cycles in a real browser: a cycle made in the editor from two notebook pages, a session
logged in the "Log session" dialog, the lap advancing on the open page without a reload and the
dashboard's "study today" widget changing; the pages at 390 and 1280 px, in English and Portuguese."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "a week of careful study"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@pytest.fixture(scope="module")
def cycles_server(tmp_path_factory):
    database = tmp_path_factory.mktemp("cycles-e2e") / "cycles.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for email, language in (("lia@example.com", "en"), ("ines@example.com", "pt")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, timezone_name="Europe/Lisbon")
            configuration.update(user, tutorial_done=True, widgets=["studyToday"], language=language)
            topic = notebook.create_topic(user, "Biology")
            cells = notebook.create_page(user, topic.id, "Cells")
            notebook.create_page(user, topic.id, "Mitosis", parent_id=cells.id)
            notebook.create_page(user, topic.id, "Genetics")
    with serve(app) as base_url:
        yield base_url


def fits(page):
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def make_a_cycle(page, base_url, name):
    page.goto(f"{base_url}/notebook/cycles/new")
    page.locator("#name").fill(name)
    for weekday in range(7):
        page.locator(f"#minutes_{weekday}").fill("60")
    page.locator("#largest_block").fill("30")
    page.get_by_role("checkbox", name="Cells").check()
    page.get_by_role("checkbox", name="Genetics").check()
    page.get_by_test_id("save-cycle").click()


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)")
def test_a_cycle_from_two_pages_advances_when_a_session_is_logged(page, cycles_server):
    signed_in_as(page, cycles_server, "lia@example.com", PASSWORD)
    widget = page.get_by_test_id("widget-studyToday")
    expect(widget).to_contain_text("No study cycle yet.")

    page.goto(f"{cycles_server}/notebook/cycles/new")
    page.locator("#name").fill("Exams")
    page.get_by_role("checkbox", name="Cells").check()
    page.get_by_role("checkbox", name="Mitosis").check()
    page.get_by_test_id("save-cycle").click()
    expect(page.get_by_role("alert")).to_contain_text("“Mitosis” is inside “Cells”")
    expect(page.locator("#name")).to_have_value("Exams")

    make_a_cycle(page, cycles_server, "Exams")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Exams")
    expect(page.get_by_test_id("block")).to_have_count(14)
    expect(page.get_by_test_id("lap-figures")).to_have_text("0 of 420 min")

    page.goto(f"{cycles_server}/dashboard")
    expect(widget).to_contain_text("0 of 60 min today")

    page.goto(f"{cycles_server}/notebook/cycles")
    page.get_by_test_id("log-session").first.click()
    dialog = page.get_by_test_id("session-form")
    expect(dialog).to_be_visible()
    page.get_by_label("Page studied").select_option(label="Cells · Biology")
    page.get_by_label("Minutes").fill("30")
    dialog.get_by_role("button", name="Log session").click()
    expect(page.locator("#toasts")).to_contain_text("30 minutes of Cells logged.")
    expect(page.get_by_test_id("lap-figures")).to_have_text("30 of 420 min")  # refreshed, no reload
    expect(page.get_by_test_id("cycle-card")).to_contain_text("Next: block 2 of 14, Genetics")

    page.goto(f"{cycles_server}/dashboard")
    expect(widget).to_contain_text("30 of 60 min today")
    # The browser's own line for the refused form (answered 422, as a refusal is); nothing else.
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)"
    ]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_the_pages_fit_and_speak_portuguese(page, cycles_server, viewport):
    page.set_viewport_size(viewport)
    signed_in_as(page, cycles_server, "ines@example.com", PASSWORD)
    make_a_cycle(page, cycles_server, f"Provas {viewport['width']}")
    expect(page.get_by_role("heading", name="Fila")).to_be_visible()
    assert fits(page)
    for path in ("/notebook/cycles", "/notebook/cycles/new", "/notebook/cycles/sessions"):
        page.goto(f"{cycles_server}{path}")
        expect(page.locator("html")).to_have_attribute("lang", "pt")
        assert fits(page), path
    page.goto(f"{cycles_server}/notebook/cycles")
    expect(page.get_by_role("heading", name="Ciclos de estudo")).to_be_visible()
    page.get_by_test_id("log-session").first.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("session-form")).to_be_visible()
    expect(page.get_by_label("Página estudada")).to_be_visible()
    page.keyboard.press("Escape")
    assert page.console_errors == []
    assert re.search(r"/notebook/cycles$", page.url)
