"""Fixtures every test shares: the app, a clean database, signed-in clients.

The database is a SQLite file unless BEYOU_TEST_DATABASE_URL is set (CI runs both). A file, not
memory: an in-memory SQLite is one connection, which a request and the background thread it
starts (a briefing, an indexed source) would share, as production never does. Rate-limit storage
is in-process unless BEYOU_TEST_REDIS_URL is set. Under `pytest -n`, each worker gets a PostgreSQL
database and a Redis database of its own, so both passes run in parallel.
"""

import atexit
import functools
import inspect
import os
import re
import shutil
import tempfile
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import sqlalchemy as sa

from app import create_app, daemons, domains
from app.extensions import db, limiter
from app.profile import accounts
from app.profile.models import User

# Every table and every tool, as create_app registers them: test modules read the metadata and the
# tool registry when they are collected, before any app is built.
domains.load("models")
domains.load("tools")

WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # gw0, gw1 … under `pytest -n`; unset in one process


def _with_database(url, suffix):
    url = sa.make_url(url)
    return url.set(database=f"{url.database}{suffix}").render_as_string(hide_password=False)


def _for_this_worker(database_url, redis_url):
    """The given servers, with a database of this worker's own on each."""
    if not WORKER:
        return database_url, redis_url
    number = int(WORKER.removeprefix("gw"))
    if database_url:
        database_url = _with_database(database_url, f"_{WORKER}")
    if redis_url:
        url = urlsplit(redis_url)
        redis_url = urlunsplit(url._replace(path=f"/{int(url.path.strip('/') or 0) + number}"))
    return database_url, redis_url


TEST_DATABASE_URL, TEST_REDIS_URL = _for_this_worker(
    os.environ.get("BEYOU_TEST_DATABASE_URL"), os.environ.get("BEYOU_TEST_REDIS_URL")
)


# This process's SQLite files, in memory-backed storage where the machine has it.
SQLITE_FOLDER = Path(tempfile.mkdtemp(prefix="beyou-tests-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
atexit.register(shutil.rmtree, SQLITE_FOLDER, ignore_errors=True)


def sqlite_file(name):
    return f"sqlite:///{SQLITE_FOLDER / name}.sqlite3"


# The demo account's own database (see `demo_app`): beside this worker's, on the same server.
DEMO_DATABASE_URL = _with_database(TEST_DATABASE_URL, "_demo") if TEST_DATABASE_URL else sqlite_file("demo")


def pytest_configure(config):
    """Create this worker's PostgreSQL databases, its own and the demo account's, unless an earlier
    run did."""
    if not (TEST_DATABASE_URL or "").startswith("postgresql"):
        return
    if not WORKER and getattr(config.option, "numprocesses", None):
        return  # the controller of `pytest -n`: it runs no test
    names = [sa.make_url(DEMO_DATABASE_URL).database] + ([sa.make_url(TEST_DATABASE_URL).database] if WORKER else [])
    server = sa.create_engine(os.environ["BEYOU_TEST_DATABASE_URL"], isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        for name in names:
            if not connection.scalar(sa.text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}):
                connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    server.dispose()


# Fixtures that reach neither the database nor Redis: pytest's own, and the wire fakes with the
# chains pointed at them (tests/chain, tests/assistant, tests/notebook conftests).
SERVER_FREE_FIXTURES = {
    "request", "tmp_path", "tmp_path_factory", "monkeypatch", "caplog", "capsys", "_clean_state",
    "fake", "fake_server", "fake_providers", "outside_fake", "fake_outside", "make_chain", "clock", "metric",
    "refused_url",
}  # fmt: skip
# A module naming one of these may build an app, reach Redis or pick fixtures in its body.
REACHES_IN_ITS_BODY = re.compile(
    r"create_app|standalone_app|settings_for_tests|app_on_a_file|TEST_DATABASE_URL|TEST_REDIS_URL|BEYOU_TEST_"
    r"|redis|getfixturevalue",
    re.IGNORECASE,
)


@functools.cache
def _reaches_in_its_body(module):
    return bool(REACHES_IN_ITS_BODY.search(inspect.getsource(module)))


def pytest_collection_modifyitems(config, items):
    """On the PostgreSQL / Redis pass, leave out the tests that reach neither server: the SQLite
    pass ran them exactly as this one would. A test stays if any fixture it uses (its parameters
    aside) is not known to be server-free, or if its module builds an app or names Redis itself."""
    if not (TEST_DATABASE_URL or TEST_REDIS_URL):
        return
    kept, left_out = [], []
    for item in items:
        parameters = set(item.callspec.params) if hasattr(item, "callspec") else set()
        module = getattr(item, "module", None)
        server_free = set(item.fixturenames) - parameters <= SERVER_FREE_FIXTURES
        (left_out if server_free and module and not _reaches_in_its_body(module) else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


PASSWORD = "correct horse battery"


def settings_for_tests(**overrides):
    settings = {
        "SQLALCHEMY_DATABASE_URI": TEST_DATABASE_URL or sqlite_file("app"),
        "RATELIMIT_STORAGE_URI": TEST_REDIS_URL or "memory://",
        "REDIS_URL": TEST_REDIS_URL,
    }
    settings.update(overrides)
    return settings


def standalone_app(profile="test", **overrides):
    """A second, separate app (a SQLite file of its own) for tests that need other settings or
    extra routes; it shares the rate-limit storage with the main app."""
    database = sqlite_file(f"standalone-{uuid.uuid4().hex}")
    app = create_app(profile, **settings_for_tests(SQLALCHEMY_DATABASE_URI=database, **overrides))
    with app.app_context():
        db.create_all()
    return app


@pytest.fixture(scope="session")
def app():
    app = create_app("test", **settings_for_tests())
    with app.app_context():
        db.drop_all()
        db.create_all()
    yield app
    with app.app_context():
        db.drop_all()
        db.engine.dispose()


@pytest.fixture(scope="session")
def demo_app():
    """An app whose database holds the demo account after `flask seed-demo` (its first output in
    `.first_output`). Its life takes seconds to live, so each worker seeds it once and every test
    that reads it shares it; its database is its own, which the per-test cleanup leaves alone.
    Tests that change what they read seed a demo of their own."""
    app = create_app("test", **settings_for_tests(SQLALCHEMY_DATABASE_URI=DEMO_DATABASE_URL))
    with app.app_context():
        db.drop_all()
        db.create_all()
    result = app.test_cli_runner().invoke(args=["seed-demo"])
    assert result.exit_code == 0, result.output
    app.first_output = result.output
    yield app
    with app.app_context():
        db.drop_all()
        db.engine.dispose()


@pytest.fixture
def demo_account(demo_app):
    """The seeded demo account, inside a request context of its app."""
    with demo_app.test_request_context():
        yield db.session.scalar(db.select(User).where(User.email == demo_app.config["DEMO_EMAIL"]))
        db.session.remove()


@pytest.fixture(autouse=True)
def _clean_state(request):
    """Every test starts with empty tables, fresh limits and an empty outbox.

    Limits are reset whatever the test used: with Redis, every test app shares one storage.
    """
    yield
    if limiter._storage is not None:  # no public "is it bound yet?" in Flask-Limiter
        limiter.reset()
    if "app" not in request.fixturenames:
        return
    app = request.getfixturevalue("app")
    daemons.wait_for_tracked()  # a source still being indexed or embedded writes no more
    with app.app_context():
        db.session.remove()
        for table in reversed(db.metadata.sorted_tables):
            db.session.execute(table.delete())
        db.session.commit()
        app.extensions["mail"].outbox.clear()


@pytest.fixture
def app_context(app):
    with app.app_context():
        yield


@pytest.fixture
def client(app):
    return app.test_client()


def make_user(app, email="ana@example.com", name="Ana", language="en", timezone_name="Europe/Lisbon"):
    with app.app_context():
        user = accounts.register(
            name=name, email=email, password=PASSWORD, language=language, timezone_name=timezone_name
        )
        return user.id


@pytest.fixture
def user_id(app):
    return make_user(app)


@pytest.fixture
def other_user_id(app):
    return make_user(app, email="bruno@example.com", name="Bruno")


def hx(client):
    """The headers of an htmx request from a signed-in client whose `.csrf` holds its token."""
    return {"HX-Request": "true", "X-CSRFToken": client.csrf}


def csrf_token_from(response):
    match = re.search(rb'name="csrf-token" content="([^"]+)"', response.data) or re.search(
        rb'name="csrf_token" value="([^"]+)"', response.data
    )
    assert match, "the page carries no CSRF token"
    return match.group(1).decode()


def sign_in(client, email="ana@example.com", password=PASSWORD):
    token = csrf_token_from(client.get("/login"))
    return client.post("/login", data={"email": email, "password": password, "csrf_token": token})


@pytest.fixture
def signed_in(client, user_id):
    """A client signed in as Ana; `signed_in.csrf` is the token for unsafe requests."""
    sign_in(client)
    client.csrf = csrf_token_from(client.get("/dashboard"))
    return client


@pytest.fixture
def other_signed_in(app, other_user_id):
    other = app.test_client()
    sign_in(other, email="bruno@example.com")
    other.csrf = csrf_token_from(other.get("/dashboard"))
    return other


@pytest.fixture
def ana(app_context, user_id):
    """Ana's account, inside an app context."""
    return db.session.get(User, user_id)


@pytest.fixture
def bruno(app_context, other_user_id):
    """Bruno's account: the other user whose ids must behave like unknown ones."""
    return db.session.get(User, other_user_id)
