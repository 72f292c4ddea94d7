"""A person registers, reaches the dashboard shell, signs out and back in — in a real browser."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_up

pytestmark = pytest.mark.browser


def test_register_sign_in_and_out(page, live_server):
    sign_up(page, live_server, "Dora", "sunrise over the bay", email="dora@example.com", timezone="Europe/Lisbon")
    page.get_by_test_id("onboarding-skip").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))
    expect(page.get_by_test_id("greeting")).to_have_text("Hello, Dora")
    expect(page.locator(".sidebar nav")).to_contain_text("Habits")

    page.get_by_test_id("logout").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    expect(page.locator(".flash")).to_contain_text("You are signed out.")

    page.fill("#email", "dora@example.com")
    page.fill("#password", "sunrise over the bay")
    page.click("button[type=submit]")
    expect(page.get_by_test_id("greeting")).to_be_visible()
    assert page.evaluate("typeof htmx") == "object"  # the vendored htmx loaded under the CSP
    assert page.console_errors == []  # nothing refused by the Content-Security-Policy


def test_phones_get_the_bottom_bar(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    sign_up(page, live_server, "Eva", "a walk in the park")
    expect(page.locator(".bottom-bar")).to_be_visible()
    expect(page.locator(".sidebar")).to_be_hidden()
    context.close()
