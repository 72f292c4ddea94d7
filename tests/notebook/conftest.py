"""The wire fake for the notebook's calls outside the chain (embeddings, web source search), and
the settings that point the app at it for one test."""

import pytest

from tests.fakes import FakeProviders

EMBEDDINGS = "embeddings"  # the fake's path prefix for the embeddings endpoint
TAVILY = "tavily"


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
