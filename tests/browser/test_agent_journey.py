"""The assistant in a real browser: a message streams in, a tool card appears and the page's own
list refreshes; when every model fails, the typed text comes back to the composer."""

import pytest
from playwright.sync_api import expect

from app import create_app
from app.categories import services as categories
from app.extensions import db
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply
from tests.fakes.script import FakeCall

pytestmark = pytest.mark.browser

PASSWORD = "a long morning walk"


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def agent_server(tmp_path_factory, fake):
    database = tmp_path_factory.mktemp("agent-e2e") / "agent.sqlite3"
    env = {"BEYOU_LLM_ORDER": "mistral,gemini", "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "5"}
    for name, protocol in (("mistral", "openai"), ("gemini", "gemini")):
        env[f"BEYOU_LLM_{name.upper()}_API_KEY"] = "test"
        env[f"BEYOU_LLM_{name.upper()}_BASE_URL"] = fake.base_url(name, protocol)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Iris", email="iris@example.com", password=PASSWORD, timezone_name="UTC")
        configuration.update(user, tutorial_done=True)
        categories.create(user, name="Health", icon="heart")
    with serve(app) as base_url:
        yield base_url


def sign_in(page, base_url):
    signed_in_as(page, base_url, "iris@example.com", PASSWORD)


def test_an_answer_streams_a_tool_acts_and_the_page_refreshes_then_a_failure_gives_the_text_back(
    page, agent_server, fake
):
    sign_in(page, agent_server)
    page.goto(f"{agent_server}/habits")
    page.evaluate("window.__stayed = true")  # survives only if nothing reloads the page
    page.get_by_role("button", name="Assistant").click()
    composer = page.locator("#composer-input")
    expect(composer).to_be_visible()
    expect(composer).to_be_focused()  # a keyboard user types at once
    expect(page.locator("[data-error=AI_NOT_CONFIGURED]")).to_have_count(0)

    fake.script(
        "mistral",
        Reply.calls(FakeCall("createUserHabit", {"name": "Evening stretch", "importance": 2, "difficulty": 1,
                                                 "categories": ["Health"]})),
        Reply.says("I created ", "**Evening stretch** ", "in Health. ", "Anything else?", pace=0.35),
    )  # fmt: skip
    composer.fill("Add an evening stretch habit")
    composer.press("Enter")

    expect(page.locator(".bubble-user").last).to_have_text("Add an evening stretch habit")
    expect(page.locator("#composer-input")).to_be_focused()  # the emptied box keeps the keyboard
    expect(page.locator("a.tool-card")).to_contain_text("Created a habit")
    expect(page.locator("#habit-list")).to_contain_text("Evening stretch")  # the page's own list refreshed
    live = page.locator(".bubble-assistant.is-live .live-segments")
    expect(live).to_contain_text("I created")  # tokens arrive before the answer is done
    expect(page.locator(".bubble-assistant.is-live")).to_have_count(0, timeout=10_000)
    expect(page.locator(".bubble-assistant strong", has_text="Evening stretch")).to_be_visible()
    expect(page.locator(".bubble-meta").last).to_contain_text("answered by mistral")

    fake.script("mistral", Reply.fails(503, {"error": "overloaded"}))
    fake.script("gemini", Reply.fails(500, {"error": {"code": 500, "message": "down"}}))
    composer = page.locator("#composer-input")
    composer.fill("Plan my whole week please")
    composer.press("Enter")
    expect(page.locator("[data-error=AI_UNAVAILABLE]")).to_be_visible()
    expect(page.locator("#composer-input")).to_have_value("Plan my whole week please")
    expect(page.locator("#composer-input")).to_be_focused()
    expect(page.locator(".bubble-user", has_text="Plan my whole week please")).to_have_count(0)
    assert page.evaluate("window.__stayed") is True
    assert page.console_errors == []  # no `[object MessageEvent]`: a failed turn is not a broken connection


def test_the_panel_opens_with_the_keyboard_in_the_text_box_after_closing_and_reopening(page, agent_server):
    sign_in(page, agent_server)
    launcher = page.get_by_role("button", name="Assistant")
    launcher.click()
    expect(page.locator("#composer-input")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#agent-panel")).to_be_hidden()
    launcher.click()
    expect(page.locator("#composer-input")).to_be_focused()
    page.get_by_role("button", name="New chat").click()
    expect(page.locator("#composer-input")).to_be_focused()


def test_an_unconfigured_assistant_says_so_as_the_panel_opens(page, tmp_path):
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'bare.sqlite3'}", LLM_ENV={})
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Iris", email="iris@example.com", password=PASSWORD, timezone_name="UTC")
        configuration.update(user, tutorial_done=True)
    with serve(app) as base_url:
        sign_in(page, base_url)
        page.get_by_role("button", name="Assistant").click()
        notice = page.locator("[data-error=AI_NOT_CONFIGURED]")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("isn't configured on this server yet")
        expect(page.locator("#composer-input")).to_be_disabled()
        assert page.console_errors == []
