"""A real server on 127.0.0.1 and a real headless Chromium (Debian's, at /usr/bin/chromium)."""

import os
import re
import threading
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


@contextmanager
def serve(app):
    """`app` on a threaded server on 127.0.0.1; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def mistral_at(fake, first_event_timeout=5):
    """`LLM_ENV` for a journey's app: a chain of one link, Mistral's protocol, at the wire fake."""
    return {
        "BEYOU_LLM_ORDER": "mistral",
        "BEYOU_LLM_FIRST_EVENT_TIMEOUT": str(first_event_timeout),
        "BEYOU_LLM_MISTRAL_API_KEY": "test",
        "BEYOU_LLM_MISTRAL_BASE_URL": fake.base_url("mistral", "openai"),
    }


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
