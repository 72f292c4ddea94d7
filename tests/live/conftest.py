"""A real server (the app on a werkzeug thread) and real websocket clients for the live channel."""

import contextlib
import re
import uuid
from urllib.parse import urlsplit

import pytest
import requests
from simple_websocket import Client

from app import create_app
from app.extensions import db
from app.profile import accounts
from tests.browser.conftest import serve
from tests.conftest import PASSWORD

QUIET = 0.5  # how long a page that must hear nothing is listened to


@pytest.fixture
def live_app(tmp_path):
    """One process: the in-memory fan-out (no Redis, whatever the environment says)."""
    app = create_app(
        "test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'live.sqlite3'}", REDIS_URL=None,
        RATELIMIT_STORAGE_URI="memory://",
    )  # fmt: skip
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def server(live_app):
    with serve(live_app) as base_url:
        yield base_url


OPEN_PAGES = []  # every socket a test opened, closed after it


@pytest.fixture(autouse=True)
def pages_closed():
    """Each page's socket is closed after its test. A client's reader thread, started by the test
    (not a daemon), would otherwise wait on its socket for ever and hold the interpreter's exit:
    the PostgreSQL pass, in one process, never ended."""
    yield
    while OPEN_PAGES:
        with contextlib.suppress(Exception):  # already closed by the test, or by the server (a sign-out)
            OPEN_PAGES.pop().close()


def register(app, name):
    with app.app_context():
        email = f"{name.lower()}-{uuid.uuid4().hex[:6]}@example.com"
        accounts.register(name=name, email=email, password=PASSWORD, language="en", timezone_name="Europe/Lisbon")
        return email


class Browser:
    """One signed-in browser (one sign-in, its cookie): opens pages' sockets and writes."""

    def __init__(self, base_url, email):
        self.base_url = base_url
        self.http = requests.Session()
        login = self.http.get(f"{base_url}/login")
        token = re.search(r'name="csrf-token" content="([^"]+)"', login.text).group(1)
        signed = self.http.post(f"{base_url}/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
        assert signed.url.endswith("/dashboard"), "the sign-in did not land on the dashboard"
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', signed.text).group(1)

    def open_page(self, tab=None, origin=None):
        """A page's socket, as live.js opens it."""
        url = self.base_url.replace("http://", "ws://") + "/live" + (f"?tab={tab}" if tab else "")
        headers = {"Cookie": "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())}
        # simple_websocket's client sends `Host` without the port; a browser's Origin matches its Host.
        headers["Origin"] = origin or f"http://{urlsplit(self.base_url).hostname}"
        page = Client.connect(url, headers=headers)
        OPEN_PAGES.append(page)
        return page

    def post(self, path, tab=None, **data):
        headers = {"X-CSRFToken": self.csrf, "HX-Request": "true"}
        if tab:
            headers["X-Beyou-Tab"] = tab
        response = self.http.post(self.base_url + path, data=data, headers=headers)
        assert response.status_code < 400, response.text[:300]
        return response
