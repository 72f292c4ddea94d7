"""Mood in a real browser: log how today felt with a journal on /mood, see the day marked in the
month view and in the dashboard's "mood week" widget; a refused save keeps the words; the page
fits a phone without sideways scrolling."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "a quiet evening walk"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def mood_server(tmp_path_factory):
    database = tmp_path_factory.mktemp("mood-e2e") / "mood.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for email, language in (("noa@example.com", "en"), ("rita@example.com", "pt")):
            user = accounts.register(name="Noa", email=email, password=PASSWORD, language=language,
                                     timezone_name="Europe/Lisbon")  # fmt: skip
            configuration.update(user, tutorial_done=True, widgets=["moodWeek"])
    with serve(app) as base_url:
        yield base_url


def sign_in(page, base_url, email="noa@example.com"):
    signed_in_as(page, base_url, email, PASSWORD)


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_a_mood_with_a_journal_is_marked_in_the_month_and_the_mood_week(browser, mood_server, viewport):
    context = browser.new_context(viewport=viewport, locale="en-US", timezone_id="Europe/Lisbon")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    sign_in(page, mood_server)
    page.goto(f"{mood_server}/mood")
    levels = page.get_by_role("group", name="Your mood")
    expect(levels.get_by_role("radio")).to_have_count(5)
    expect(page.get_by_text("Private: only you can read this")).to_be_visible()

    # Keyboard: into the radio group, arrows move the choice.
    levels.get_by_label("Okay").focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    expect(levels.get_by_label("Good")).to_be_checked()
    page.get_by_role("textbox", name="Journal").fill("Coffee with Ines, then a long walk.")
    page.get_by_role("button", name="Save").click()

    expect(page.locator("#toasts")).to_contain_text("Mood saved for today.")
    today = page.locator("#mood-month a.is-today")
    expect(today).to_have_class(re.compile(r"mood-level-4"))  # the month refreshed itself on domain:mood
    expect(today.locator(".mood-text-mark")).to_have_count(1)
    expect(today).to_have_attribute("aria-label", re.compile(r"Good · journal written$"))
    expect(page.get_by_role("textbox", name="Journal")).to_have_value("Coffee with Ines, then a long walk.")
    assert no_sideways_scroll(page), "the mood page scrolls sideways"

    page.goto(f"{mood_server}/dashboard")
    widget = page.get_by_test_id("widget-moodWeek")
    expect(widget.get_by_test_id("mood-week-day")).to_have_count(7)
    expect(widget.get_by_test_id("mood-week-day").last).to_have_attribute("data-level", "4")
    expect(widget).not_to_contain_text("Coffee with Ines")
    assert no_sideways_scroll(page), "the dashboard scrolls sideways"
    assert errors == []
    context.close()


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)")
def test_a_refused_save_keeps_the_journal_and_a_past_day_opens_from_the_month(browser, mood_server):
    context = browser.new_context(viewport=PHONE, locale="pt-BR", timezone_id="Europe/Lisbon")
    page = context.new_page()
    sign_in(page, mood_server, email="rita@example.com")
    page.goto(f"{mood_server}/mood")
    page.get_by_role("textbox", name="Diário").fill("Palavras que não posso perder")
    page.get_by_role("button", name="Salvar").click()  # no level chosen
    expect(page.locator("#mood-entry .field-error")).to_contain_text("de 1 (péssimo) a 5 (ótimo)")
    expect(page.get_by_role("textbox", name="Diário")).to_have_value("Palavras que não posso perder")

    first = page.locator("#mood-month a.month-day").first
    if "is-today" in (first.get_attribute("class") or ""):  # the 1st of a month: a day of the last one
        this_month = page.locator("#mood-month h2").inner_text()
        page.get_by_role("link", name="Mês anterior").click()
        expect(page.locator("#mood-month h2")).not_to_have_text(this_month)
        first = page.locator("#mood-month a.month-day").first
    first.click()
    expect(page.get_by_role("link", name="Voltar para hoje")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/mood\?day=\d{4}-\d{2}-\d{2}"))
    assert no_sideways_scroll(page)
    context.close()
