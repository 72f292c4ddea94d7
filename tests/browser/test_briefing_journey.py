"""The daily briefing in a real browser: the dialog opens with the facts, says the text is
coming while a slow model writes, then shows it, without reloading the dashboard; it says when the
model's answer could not be used; and it fits a phone in Portuguese."""

import json
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.shared.days import today_for
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.builders import a_habit
from tests.fakes import FakeProviders, Reply

pytestmark = pytest.mark.browser

PASSWORD = "a quiet morning coffee"
TEXT = "Running held steady; flossing is the one to bring back tonight."


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


def a_fortnight(user):
    run, floss = a_habit(user, "Run"), a_habit(user, "Floss")
    current = today_for(user)
    for habit, days in ((run, ("DONE", "DONE", "DONE")), (floss, ("MISSED", "MISSED", "DONE"))):
        for back, outcome in enumerate(days, start=2):
            db.session.add(DayOutcome(user_id=user.id, owner_type=OwnerType.HABIT, owner_id=habit.id,
                                      day=current - timedelta(days=back), outcome=Outcome(outcome)))  # fmt: skip
    db.session.commit()


@pytest.fixture(scope="module")
def briefing_server(tmp_path_factory, fake):
    database = tmp_path_factory.mktemp("briefing-e2e") / "briefing.sqlite3"
    env = mistral_at(fake, first_event_timeout=20)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env,
                     BRIEFING_WAIT_SECONDS=1, BRIEFING_POLL_SECONDS=1)  # fmt: skip
    with app.app_context():
        db.create_all()
        for email, language in (("bea@example.com", "en"), ("bia@example.com", "pt"), ("ben@example.com", "en")):
            user = accounts.register(name="Bea", email=email, password=PASSWORD, language=language,
                                     timezone_name="Europe/Lisbon")  # fmt: skip
            configuration.update(user, tutorial_done=True)
            a_fortnight(user)
    with serve(app) as base_url:
        yield base_url


def answer():
    return json.dumps({"picks": [{"signal": "left_open", "meaning": TEXT}]})


def test_the_dialog_shows_the_facts_at_once_then_pending_then_the_text(page, briefing_server, fake):
    signed_in_as(page, briefing_server, "bea@example.com", PASSWORD)
    page.evaluate("window.__stayed = true")
    fake.script("mistral", Reply(text=[answer()], first_byte_delay=3))
    page.get_by_test_id("open-briefing").click()
    dialog = page.locator("#dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("briefing-facts")).to_contain_text("67% done")
    expect(dialog.get_by_test_id("briefing-facts")).to_contain_text("Floss")
    text = dialog.get_by_test_id("briefing-text")
    expect(text).to_have_attribute("data-briefing-status", "PENDING")
    expect(text).to_contain_text("Writing a few lines")
    expect(text).to_have_attribute("data-briefing-status", "READY", timeout=15_000)
    expect(text).to_contain_text(TEXT)
    assert len(fake.requests("mistral")) == 1
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate("window.__stayed") is True
    assert page.console_errors == []


def test_the_briefing_fits_a_phone_in_portuguese_and_opens_from_the_keyboard(browser, briefing_server, fake):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR", timezone_id="Europe/Lisbon")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    signed_in_as(page, briefing_server, "bia@example.com", PASSWORD)
    fake.script("mistral", Reply.says(answer()))
    page.get_by_test_id("open-briefing").focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#dialog")
    expect(dialog.get_by_role("heading", name="Seu resumo do dia")).to_be_visible()
    expect(dialog.get_by_test_id("briefing-facts")).to_contain_text("67% concluído")
    expect(dialog.get_by_test_id("briefing-text")).to_contain_text(TEXT)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []
    context.close()


def test_an_answer_that_cannot_be_used_is_said_as_such_beside_the_facts(page, briefing_server, fake):
    """The model answered, twice, with nothing readable: the facts stand, and the line says the
    answer could not be used (not that no model could be reached)."""
    signed_in_as(page, briefing_server, "ben@example.com", PASSWORD)
    fake.script("mistral", Reply.says("Great fortnight!"), Reply.says('{"picks": "left_open"}'))
    page.get_by_test_id("open-briefing").click()
    dialog = page.locator("#dialog")
    expect(dialog.get_by_test_id("briefing-facts")).to_contain_text("67% done")
    text = dialog.get_by_test_id("briefing-text")
    expect(text).to_have_attribute("data-briefing-status", "UNUSABLE", timeout=15_000)
    expect(text).to_have_text(
        "The AI answered, but its words for today's briefing could not be used: the numbers above are the whole story."
    )
    assert page.console_errors == []
