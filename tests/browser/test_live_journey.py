"""One person, two browsers (two contexts, two sign-ins): what one does appears in the other
without a reload — a habit checked, a note the assistant sticks on the Ideas board, and what
changed while the second one's connection was down."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.categories import services as categories
from app.extensions import db
from app.habits import services as habits
from app.profile import accounts, configuration
from app.routines import schedules
from app.routines import services as routines
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply
from tests.fakes.script import FakeCall

pytestmark = pytest.mark.browser

PASSWORD = "two windows one person"
EMAIL = "lia@example.com"
HABIT = "Drink water"


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, fake):
    """Lia's account: a habit in a routine open all day, every day, and a scripted assistant."""
    database = tmp_path_factory.mktemp("live-e2e") / "live.sqlite3"
    env = mistral_at(fake, first_event_timeout=5)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env, REDIS_URL=None)
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Lia", email=EMAIL, password=PASSWORD, timezone_name="UTC")
        configuration.update(user, tutorial_done=True)
        health = categories.create(user, name="Health", icon="heart")
        habit = habits.create(user, name=HABIT, importance=2, difficulty=1, categories=[health.id])
        day = [{"name": "All day", "starts_at": "00:00", "ends_at": "23:59", "entries": [{"habit_id": habit.id}]}]
        routine = routines.create_timed(user, "Every day", "sun", day)
        schedules.set_days(user, routine.id, list(range(7)))
    with serve(app) as base_url:
        yield base_url


@pytest.fixture
def two_browsers(browser, live_server):
    """Two signed-in pages of Lia's, each in its own browser context (its own cookies)."""
    contexts = [browser.new_context(locale="en-US", timezone_id="UTC") for _ in range(2)]
    pages = []
    for context in contexts:
        page = context.new_page()
        page.console_errors = []
        page.on(
            "console", lambda message, page=page: message.type == "error" and page.console_errors.append(message.text)
        )
        signed_in_as(page, live_server, EMAIL, PASSWORD)
        pages.append(page)
    yield pages
    for context in contexts:
        context.close()


def opened(page, url):
    """Go to `url` and wait until its live socket is open."""
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-live", "open")
    page.evaluate("window.__stayed = true")  # survives only if nothing reloads the page


def test_a_habit_checked_in_one_browser_is_checked_in_the_other_within_a_second(two_browsers, live_server):
    phone, laptop = two_browsers
    opened(phone, f"{live_server}/routines")
    opened(laptop, f"{live_server}/routines")
    phone.get_by_role("button", name=f"Check {HABIT}", exact=True).first.click()
    expect(phone.get_by_role("button", name=f"Uncheck {HABIT}", exact=True).first).to_be_visible()

    on_laptop = laptop.get_by_role("button", name=f"Uncheck {HABIT}", exact=True).first
    expect(on_laptop).to_have_attribute("aria-pressed", "true", timeout=1_000)
    assert laptop.evaluate("window.__stayed") is True  # refreshed in place, not reloaded
    assert phone.console_errors == [] and laptop.console_errors == []


def test_a_note_the_assistant_sticks_in_one_browser_appears_on_the_board_open_in_the_other(
    two_browsers, live_server, fake
):
    asking, board = two_browsers
    opened(board, f"{live_server}/ideas")
    opened(asking, f"{live_server}/routines")
    asking.get_by_role("button", name="Assistant").click()
    fake.script(
        "mistral",
        Reply.calls(FakeCall("createQuickNote", {"text": "Call the plumber about the tap"})),
        Reply.says("It is on your Ideas board."),
    )
    composer = asking.locator("#composer-input")
    expect(composer).to_be_focused()  # the panel is in and wired: Enter goes through htmx
    composer.fill("Note: call the plumber about the tap")
    composer.press("Enter")
    expect(asking.locator("a.tool-card")).to_contain_text("Added a note to your Ideas board")

    expect(board.get_by_test_id("idea-board")).to_contain_text("Call the plumber about the tap", timeout=2_000)
    assert board.evaluate("window.__stayed") is True
    assert asking.console_errors == [] and board.console_errors == []


def test_a_page_whose_connection_dropped_catches_up_when_it_reconnects(two_browsers, live_server):
    writer, away = two_browsers
    sockets, lost = [], {"messages": True}

    def through(socket):
        """The page's socket, through a proxy that can lose what the server says, then drop."""
        server = socket.connect_to_server()
        server.on_message(lambda message: None if lost["messages"] and len(sockets) == 1 else socket.send(message))
        sockets.append(socket)

    away.route_web_socket("**/live**", through)
    opened(away, f"{live_server}/ideas")
    opened(writer, f"{live_server}/ideas")

    writer.get_by_label("New note").fill("Written while the other was away")
    writer.get_by_role("button", name="Add note").click()
    expect(writer.get_by_test_id("idea-board")).to_contain_text("Written while the other was away")
    expect(away.get_by_test_id("idea-board")).not_to_contain_text("Written while the other was away")

    sockets[0].close(code=1012, reason="service restart")  # the ext reconnects with backoff
    expect(away.get_by_test_id("idea-board")).to_contain_text("Written while the other was away", timeout=5_000)
    assert len(sockets) == 2
    assert away.evaluate("window.__stayed") is True


def test_announcements_arriving_together_refresh_a_list_without_an_error(page, live_server):
    """Two writes announced back to back (a tab's own answer and another device's, say): the list
    refreshes once more after the first, rather than aborting it — htmx logs an abort as an error."""
    signed_in_as(page, live_server, EMAIL, PASSWORD)
    opened(page, f"{live_server}/categories")
    page.evaluate("""() => {
        let settled = 0;
        document.body.addEventListener("htmx:afterSettle", () => { document.body.dataset.settled = ++settled; });
        htmx.trigger(document.body, "domain:habits");
        htmx.trigger(document.body, "domain:categories");
    }""")
    expect(page.locator("body")).to_have_attribute("data-settled", re.compile(r"\d"))
    expect(page.locator(".htmx-request")).to_have_count(0)
    expect(page.locator("main")).to_contain_text("Health")
    assert page.evaluate("window.__stayed") is True
    assert page.console_errors == []
