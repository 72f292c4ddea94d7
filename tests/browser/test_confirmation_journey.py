"""A delete the assistant proposes waits for the person, in a real browser: the model asks to
delete a habit and a card shows what will change; Cancel deletes nothing; asked again, Confirm
(pressed from the keyboard) deletes it and the habits page refreshes by itself. The card keeps
its final state after a reload. On a phone and a desktop, in English and Portuguese."""

import pytest
from playwright.sync_api import expect

from app import create_app
from app.categories import services as categories
from app.extensions import db
from app.habits import services as habits
from app.profile import accounts, configuration
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply
from tests.fakes.script import FakeCall

pytestmark = pytest.mark.browser

PASSWORD = "a long morning walk"

WORDS = {
    "en": {"cancelled": "Cancelled: nothing was changed.", "deleted": "Deleted a habit", "done": "Done",
           "summary": "Delete the habit “Stretch”", "waiting": "Waiting for your confirmation"},
    "pt": {"cancelled": "Cancelado: nada foi alterado.", "deleted": "Excluiu um hábito", "done": "Feito",
           "summary": "Excluir o hábito “Stretch”", "waiting": "Aguardando sua confirmação"},
}  # fmt: skip


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def served(tmp_path_factory, fake):
    database = tmp_path_factory.mktemp("confirm-e2e") / "confirm.sqlite3"
    env = mistral_at(fake, first_event_timeout=5)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    with app.app_context():
        db.create_all()
    with serve(app) as base_url:
        yield app, base_url


def someone_with_a_stretch_habit(app, email, language):
    with app.app_context():
        user = accounts.register(name="Iris", email=email, password=PASSWORD, language=language, timezone_name="UTC")
        configuration.update(user, tutorial_done=True)
        health = categories.create(user, name="Health", icon="heart")
        for name in ("Stretch", "Run"):
            habits.create(user, name=name, importance=2, difficulty=1, categories=[health.id])
        db.session.remove()


def ask_to_delete_stretch(page, fake, text):
    fake.script(
        "mistral",
        Reply.calls(FakeCall("deleteUserHabit", {"ref": "Stretch"})),
        Reply.says("Deleting **Stretch** awaits your confirmation on the card."),
    )
    composer = page.locator("#composer-input")
    composer.fill(text)
    composer.press("Enter")
    card = page.locator(".action-card").last
    expect(card).to_have_attribute("data-action-state", "PENDING")
    expect(page.locator(".bubble-assistant.is-live")).to_have_count(0, timeout=10_000)  # the answer is in
    return page.locator(".action-card").last


@pytest.mark.parametrize(("width", "language"), [(390, "en"), (1280, "en"), (390, "pt"), (1280, "pt")])
def test_cancel_deletes_nothing_and_confirm_deletes_and_refreshes_the_page(served, fake, browser, width, language):
    app, base_url = served
    email = f"iris-{width}-{language}@example.com"
    someone_with_a_stretch_habit(app, email, language)
    words = WORDS[language]
    context = browser.new_context(viewport={"width": width, "height": 860}, locale="en-US", timezone_id="UTC")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    try:
        signed_in_as(page, base_url, email, PASSWORD)
        page.goto(f"{base_url}/habits")
        habit_list = page.locator("#habit-list")
        expect(habit_list).to_contain_text("Stretch")
        page.locator("[data-agent-open]:visible").first.click()
        expect(page.locator("#composer-input")).to_be_focused()

        card = ask_to_delete_stretch(page, fake, "delete my Stretch habit")
        expect(card).to_contain_text(words["waiting"])
        expect(card).to_contain_text(words["summary"])
        box = card.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, "the card fits the screen"
        card.get_by_test_id("action-cancel").click()
        cancelled = page.locator(".action-card").last
        expect(cancelled).to_have_attribute("data-action-state", "CANCELLED")
        expect(page.get_by_test_id("toast").last).to_have_text(words["cancelled"])
        expect(cancelled.get_by_test_id("action-confirm")).to_have_count(0)
        expect(habit_list).to_contain_text("Stretch")

        card = ask_to_delete_stretch(page, fake, "yes, delete Stretch")
        confirm = card.get_by_test_id("action-confirm")
        confirm.focus()
        page.keyboard.press("Enter")  # reachable and usable from the keyboard
        done = page.locator(".action-card").last
        expect(done).to_have_attribute("data-action-state", "CONFIRMED")
        expect(done).to_contain_text(words["done"])
        expect(page.get_by_test_id("toast").last).to_have_text(words["deleted"])
        expect(habit_list).not_to_contain_text("Stretch")  # the page refreshed itself
        expect(habit_list).to_contain_text("Run")

        page.reload()
        page.locator("[data-agent-open]:visible").first.click()
        states = page.locator(".action-card")
        expect(states).to_have_count(2)
        expect(states.first).to_have_attribute("data-action-state", "CANCELLED")
        expect(states.last).to_have_attribute("data-action-state", "CONFIRMED")
        assert errors == []
    finally:
        context.close()
