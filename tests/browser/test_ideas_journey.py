"""The Ideas board in a real browser: a note typed in place, moved with the keyboard and by drag
and drop, turned into a task that is then on /tasks, and the page without sideways scrolling on a phone; and a note the
assistant adds (the wire fake calls createQuickNote) appearing on the open board without a reload."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply
from tests.fakes.script import FakeCall

pytestmark = pytest.mark.browser

PASSWORD = "a board full of thoughts"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def ideas_server(tmp_path_factory, fake):
    database = tmp_path_factory.mktemp("ideas-e2e") / "ideas.sqlite3"
    env = mistral_at(fake, first_event_timeout=5)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    with app.app_context():
        db.create_all()
        for email in ("iris@example.com", "rui@example.com"):
            user = accounts.register(name="Iris", email=email, password=PASSWORD, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
    with serve(app) as base_url:
        yield base_url


def sign_in(page, base_url, email):
    signed_in_as(page, base_url, email, PASSWORD)


def test_a_note_typed_in_place_moves_by_keyboard_and_becomes_a_task(page, ideas_server):
    sign_in(page, ideas_server, "iris@example.com")
    page.goto(f"{ideas_server}/ideas")
    page.get_by_label("New note").fill("Renew the passport before June")
    page.get_by_role("radio", name="Green").check()
    page.get_by_role("button", name="Add note").click()
    note = page.get_by_role("article", name="Note at row 1, column 1")
    expect(note).to_contain_text("Renew the passport before June")
    expect(note).to_have_class(re.compile(r"idea-green"))
    expect(page.get_by_label("New note")).to_have_value("")
    expect(page.get_by_label("New note")).to_be_focused()

    note.focus()
    page.keyboard.press("Alt+ArrowRight")
    moved = page.get_by_role("article", name="Note at row 1, column 2")
    expect(moved).to_contain_text("Renew the passport")
    expect(moved).to_be_focused()  # the keyboard stays on the note it moved
    page.keyboard.press("Alt+ArrowDown")
    moved = page.get_by_role("article", name="Note at row 2, column 2")
    expect(moved).to_be_focused()
    expect(page.locator("#toasts")).to_contain_text("“Renew the passport before June” moved to row 2, column 2.")

    moved.drag_to(page.locator('.idea-cell[data-cell="8"]'))  # row 2, column 3
    moved = page.get_by_role("article", name="Note at row 2, column 3")
    expect(moved).to_contain_text("Renew the passport")

    moved.get_by_label("More for the note at row 2, column 3").click()
    moved.get_by_role("button", name="Turn into task").click()
    toast = page.locator("#toasts .toast", has_text="Task created from your note")
    expect(toast).to_be_visible()
    expect(page.get_by_test_id("note")).to_have_count(0)
    expect(page.get_by_test_id("archive-link")).to_contain_text("Archive (1 note)")
    toast.get_by_role("link", name="Open your tasks").click()
    expect(page).to_have_url(re.compile(r"/tasks$"))
    expect(page.get_by_test_id("task-list")).to_contain_text("Renew the passport before June")

    page.set_viewport_size(PHONE)
    page.goto(f"{ideas_server}/ideas/archive")
    page.get_by_role("button", name=re.compile("^Restore")).click()
    expect(page.get_by_test_id("archived-note")).to_have_count(0)
    page.goto(f"{ideas_server}/ideas")
    expect(page.get_by_role("article", name="Note at row 1, column 1")).to_be_visible()
    page.wait_for_load_state("networkidle")
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= PHONE["width"], f"/ideas is {scrolled} px wide on a {PHONE['width']} px screen"
    assert page.console_errors == []


def test_a_note_the_assistant_adds_appears_on_the_open_board_without_a_reload(page, ideas_server, fake):
    sign_in(page, ideas_server, "rui@example.com")
    page.goto(f"{ideas_server}/ideas")
    page.evaluate("window.__stayed = true")  # survives only if nothing reloads the page
    expect(page.get_by_test_id("note")).to_have_count(0)
    page.get_by_role("button", name="Assistant").click()
    composer = page.locator("#composer-input")
    expect(composer).to_be_focused()

    fake.script(
        "mistral",
        Reply.calls(FakeCall("createQuickNote", {"text": "A podcast about old maps", "colour": "PURPLE"})),
        Reply.says("Stuck it on your board."),
    )
    composer.fill("Note this: a podcast about old maps, purple")
    composer.press("Enter")

    expect(page.locator("a.tool-card")).to_contain_text("Added a note to your Ideas board")
    note = page.get_by_role("article", name="Note at row 1, column 1")
    expect(note).to_contain_text("A podcast about old maps")
    expect(note).to_have_class(re.compile(r"idea-purple"))
    assert page.evaluate("window.__stayed") is True
    assert page.console_errors == []
