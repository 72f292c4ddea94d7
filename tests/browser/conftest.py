"""A real server on 127.0.0.1 and a real headless Chromium (Debian's, at /usr/bin/chromium).

Every browser test fails on any console error or uncaught page error in any of its pages, during
the whole test and not only on load (`watch_the_console`): a policy refusal or a broken script
after a click is a bug even when the journey's assertions pass. A test that provokes an error on
purpose (a refused form's 422 that Chromium notes) declares it with
`@pytest.mark.console_errors_expected("... 422 (UNPROCESSABLE ENTITY)")`: each argument is a piece
of text an allowed error contains.
"""

import os
import re
import threading
import time
import uuid
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server

from app import create_app
from app.extensions import db

CHROMIUM = os.environ.get("BEYOU_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# A served app's base URL -> the mail it sent, where a journey reads its sign-up link.
OUTBOXES = {}


@contextmanager
def serve(app):
    """`app` on a threaded server on 127.0.0.1; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{server.server_port}"
    OUTBOXES[base_url] = app.extensions["mail"].outbox
    try:
        yield base_url
    finally:
        server.shutdown()
        OUTBOXES.pop(base_url)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "console_errors_expected(*texts): the console errors this browser test provokes on purpose "
        "(each a piece of the error's text); any other console or page error fails it",
    )


def _watch(context, errors):
    """Note every console error and uncaught page error of every page `context` opens."""

    def console(message):
        if message.type == "error":
            where = message.page.url if message.page else "?"
            errors.append(f"console error on {where}: {message.text}")

    def page_error(web_error):
        where = web_error.page.url if web_error.page else "?"
        errors.append(f"page error on {where}: {web_error.error.message}")

    context.on("console", console)
    context.on("weberror", page_error)
    return context


CONSOLE_ERRORS = pytest.StashKey[list]()


@pytest.fixture(autouse=True)
def watch_the_console(request, monkeypatch):
    """Every context a browser test opens (its `page`, or its own `browser.new_context()`) is
    watched; `pytest_runtest_call` below fails the test on what is not expected."""
    request.node.stash[CONSOLE_ERRORS] = errors = []
    if "browser" in request.fixturenames:
        browser = request.getfixturevalue("browser")
        new_context = browser.new_context
        monkeypatch.setattr(browser, "new_context", lambda *a, **kw: _watch(new_context(*a, **kw), errors))
    yield errors


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """After a browser test that passed: fail it on any console error it did not declare."""
    result = yield
    expected = [text for marker in item.iter_markers("console_errors_expected") for text in marker.args]
    unexpected = [error for error in item.stash.get(CONSOLE_ERRORS, []) if not any(text in error for text in expected)]
    if unexpected:
        pytest.fail("console errors during the test:\n" + "\n".join(unexpected), pytrace=False)
    return result


def mistral_at(fake, first_event_timeout=5):
    """`LLM_ENV` for a journey's app: a chain of one link, Mistral's protocol, at the wire fake."""
    return {
        "BEYOU_LLM_ORDER": "mistral",
        "BEYOU_LLM_FIRST_EVENT_TIMEOUT": str(first_event_timeout),
        "BEYOU_LLM_MISTRAL_API_KEY": "test",
        "BEYOU_LLM_MISTRAL_BASE_URL": fake.base_url("mistral", "openai"),
    }


def wait_until_quiet(*pages, quiet_for=0.5, timeout=15):
    """Until no htmx request has been in flight on any of the pages for `quiet_for` seconds (a
    live update's refresh included). Playwright's "networkidle" cannot say this: on a page that
    reached it once it answers at once. Measured on the test's clock: a page's may be Playwright's."""
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    while True:
        now = time.monotonic()
        if any(page.evaluate("() => document.querySelector('.htmx-request') !== null") for page in pages):
            quiet_since = now
        elif now - quiet_since >= quiet_for:
            return
        if now > deadline:
            raise AssertionError(f"htmx requests still in flight after {timeout} s")
        time.sleep(0.05)


def sign_in(page, base_url, email, password):
    """Through the login form, as a person would; lands on the dashboard."""
    page.goto(f"{base_url}/login")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/dashboard$"))
    # The URL changes as the dashboard starts to arrive; its deferred scripts (the launchers'
    # handlers, htmx) run only by "load", and a click before then does nothing, as for a person.
    page.wait_for_load_state("load")


def sign_up(page, base_url, name, password, email=None, language=None, timezone=None):
    """Through the sign-up pages, as a person would: the address (and language), then the link
    the mail brings, the name and the password (`timezone`: what the page must have read from the
    browser); lands on the setup assistant. Returns the email."""
    email = email or f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.com"
    page.goto(f"{base_url}/register")
    page.fill("#email", email)
    if language:
        page.select_option("#language", language)
    page.click("button[type=submit]")
    expect(page.get_by_test_id("sign-up-sent")).to_be_visible()
    mail = next(message for message in reversed(OUTBOXES[base_url]) if message["To"] == email)
    page.goto(base_url + re.search(r"https?://[^/\s]+(/register/\S+)", mail.get_content()).group(1))
    page.fill("#name", name)
    page.fill("#password", password)
    if timezone:
        assert page.input_value("input[name=timezone]") == timezone  # filled by static/js/app.js
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/onboarding$"))  # a new account lands on the setup assistant
    return email


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """The app served from a thread, on its own SQLite file; yields its base URL."""
    database = tmp_path_factory.mktemp("e2e") / "e2e.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
    with serve(app) as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium (make test's CI does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="en-US", timezone_id="Europe/Lisbon")
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    yield page
    context.close()
