"""The wire fake for the notebook's calls outside the chain (embeddings, web source search), the
settings that point the app at it for one test, and an app whose request and background threads
share one database."""

from contextlib import contextmanager

import pytest

from app import create_app
from app.extensions import db, limiter
from app.notebook import services as notebook
from tests.builders import as_user
from tests.conftest import TEST_DATABASE_URL, csrf_token_from, make_user, settings_for_tests, sign_in
from tests.fakes import FakeProviders

EMBEDDINGS = "embeddings"  # the fake's path prefix for the embeddings endpoint
TAVILY = "tavily"
GEMINI_SEARCH = "gemini-search"


@pytest.fixture(scope="session")
def outside_fake():
    with FakeProviders() as fake:
        yield fake


@pytest.fixture
def fake_outside(outside_fake):
    outside_fake.reset()
    yield outside_fake
    outside_fake.reset()


@pytest.fixture
def embeddings_on(app, fake_outside, monkeypatch):
    """Embeddings configured, at the fake: the test's `fake_outside.requests("embeddings")`."""
    monkeypatch.setitem(app.config, "EMBEDDINGS_API_KEY", "embed-key")
    monkeypatch.setitem(app.config, "EMBEDDINGS_BASE_URL", fake_outside.base_url(EMBEDDINGS))
    monkeypatch.setitem(app.config, "EMBEDDINGS_MODEL", "fake-embed")
    monkeypatch.setitem(app.config, "EMBEDDINGS_TIMEOUT", 10.0)
    return fake_outside


@pytest.fixture
def web_search_on(app, fake_outside, monkeypatch):
    """Source search configured, at the fake's Tavily."""
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_API_KEY", "tvly-key")
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_BASE_URL", f"{fake_outside.url}/{TAVILY}")
    return fake_outside


@pytest.fixture
def gemini_search_on(app, fake_outside, monkeypatch):
    """Source search by Gemini with Google Search, at the fake's Gemini (its own key and address)."""
    monkeypatch.setitem(app.config, "SOURCE_SEARCH", "gemini")
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_GEMINI_API_KEY", "gemini-search-key")
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_GEMINI_BASE_URL", fake_outside.base_url(GEMINI_SEARCH, "gemini"))
    return fake_outside


@contextmanager
def app_on_a_file(tmp_path, name, **settings):
    """An app on a database file (or PostgreSQL), which a request and a background thread share
    as in production (an in-memory SQLite is one connection); emptied after."""
    url = TEST_DATABASE_URL or f"sqlite:///{tmp_path / f'{name}.sqlite3'}"
    app = create_app("test", **settings_for_tests(SQLALCHEMY_DATABASE_URI=url, **settings))
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        for table in reversed(db.metadata.sorted_tables):
            db.session.execute(table.delete())
        db.session.commit()
        limiter.reset()
        db.engine.dispose()


def signed_in_with_a_page(app, title):
    """Ana signed in, with a page `title` in her topic "Biology"; `.page_id` and `.user_id` are hers."""
    client = app.test_client()
    client.user_id = make_user(app)
    sign_in(client)
    client.csrf = csrf_token_from(client.get("/dashboard"))
    with as_user(app, client.user_id) as user:
        client.page_id = notebook.create_page(user, notebook.create_topic(user, "Biology").id, title).id
    return client
