"""The privacy page in a real browser: reached by keyboard from sign-up before there is an account,
then from the shell (the sidebar on a desktop, the More sheet on a phone), in English and in
Portuguese, within the screen's width at 1280 and 390 px, and without one console error."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_up

pytestmark = pytest.mark.browser

SCREENS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
WORDS = {
    "en": {"locale": "en-US", "title": "Privacy", "providers": "The assistant's AI providers", "more": "More"},
    "pt": {"locale": "pt-BR", "title": "Privacidade", "providers": "Os provedores de IA do assistente", "more": "Mais"},
}


def tab_to(page, selector, presses=30):
    """Press Tab until `selector` has the focus, as a keyboard user would reach it."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
    raise AssertionError(f"{selector} cannot be reached with the keyboard")


def assert_fits(page):
    width = page.viewport_size["width"]
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= width, f"{page.url} is {scrolled} px wide on a {width} px screen"


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("language", WORDS)
def test_the_privacy_page_from_sign_up_and_from_the_shell(browser, live_server, language, screen):
    words = WORDS[language]
    context = browser.new_context(locale=words["locale"], timezone_id="Europe/Lisbon", viewport=SCREENS[screen])
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    try:
        page.goto(f"{live_server}/register")
        tab_to(page, "[data-testid=privacy-link]")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/privacy$"))
        expect(page.get_by_role("heading", level=1)).to_have_text(words["title"])
        expect(page.get_by_role("heading", name=words["providers"])).to_be_visible()
        expect(page.locator("[data-testid=privacy-no-chain]")).to_be_visible()  # the test server has no chain
        assert_fits(page)

        sign_up(page, live_server, "Pia", "private by design", language=language)
        if screen == "phone":
            page.get_by_test_id("more-menu").click()
            page.locator(".more-sheet").get_by_role("link", name=words["title"]).click()
        else:
            page.locator(".sidebar").get_by_role("link", name=words["title"]).click()
        expect(page).to_have_url(re.compile(r"/privacy$"))
        expect(page.get_by_role("heading", level=1)).to_have_text(words["title"])
        expect(page.get_by_test_id("privacy-export")).to_be_visible()
        assert_fits(page)
        page.get_by_test_id("privacy-delete").click()
        expect(page).to_have_url(re.compile(r"/configuration#config-danger$"))
        assert errors == []
    finally:
        context.close()
