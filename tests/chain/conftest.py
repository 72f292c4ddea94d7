"""Fixtures for the chain's tests: one fake-providers server, chains pointed at it."""

from __future__ import annotations

import socket

import pytest
from prometheus_client import REGISTRY

from app.llm import ChainSettings, build_chain
from tests.fakes import FakeProviders

LINKS = ("mistral", "gemini", "glm", "nvidia", "deepseek", "local")

# Budgets a healthy fake answer never gets near, even on a loaded machine (`pytest -n 8` on two
# shared cores, where the first request through a new SDK client has taken over 3 s): a test
# that wants a timeout scripts a provider slower than these, or sets its own.
TEST_TIMEOUTS = {
    "BEYOU_LLM_CONNECT_TIMEOUT": "5",
    "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "10",
    "BEYOU_LLM_TOTAL_TIMEOUT": "30",
}


class FakeClock:
    """Cooldowns read time through this, so a test can let five minutes pass instantly."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="session")
def fake_server():
    with FakeProviders() as fake:
        yield fake


@pytest.fixture
def fake(fake_server):
    fake_server.reset()
    yield fake_server
    fake_server.reset()


def env_for(fake: FakeProviders, order: str, **overrides: str) -> dict[str, str]:
    """Every link keyed and pointed at the fake; `order` picks the line-up."""
    env = {"BEYOU_ENV": "development", "BEYOU_LLM_ORDER": order, **TEST_TIMEOUTS}
    for name in LINKS:
        prefix = f"BEYOU_LLM_{name.upper()}_"
        env[prefix + "API_KEY"] = f"key-{name}"
        env[prefix + "BASE_URL"] = fake.base_url(name, "gemini" if name == "gemini" else "openai")
    env["BEYOU_LLM_LOCAL_MODEL"] = "llama3.2"
    env.update(overrides)
    return env


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def make_chain(fake, clock):
    """`make_chain("mistral,gemini", **env)` builds a chain against the fake and closes it after."""
    chains = []

    def make(order: str = "mistral,gemini", **overrides: str):
        chain = build_chain(ChainSettings.from_env(env_for(fake, order, **overrides)), clock=clock)
        chains.append(chain)
        return chain

    yield make
    for chain in chains:
        chain.close()


@pytest.fixture
def refused_url():
    """A base URL where nothing listens: connecting fails at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class MetricReader:
    """Counts changes of a metric since the reader was made (the registry is process-wide)."""

    def __init__(self) -> None:
        self._start: dict[tuple, float] = {}

    def _value(self, name: str, labels: dict[str, str]) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    def mark(self, name: str, **labels: str) -> None:
        self._start[(name, tuple(sorted(labels.items())))] = self._value(name, labels)

    def delta(self, name: str, **labels: str) -> float:
        start = self._start.get((name, tuple(sorted(labels.items()))), 0.0)
        return self._value(name, labels) - start


@pytest.fixture
def metric():
    return MetricReader()
