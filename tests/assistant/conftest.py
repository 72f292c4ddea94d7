"""An app whose chain points at the fake providers, on a database that background turns can
share (a SQLite file, or PostgreSQL when BEYOU_TEST_DATABASE_URL is set), and helpers that post
messages and read the SSE stream the way a browser does."""

import re
import time
import uuid

import pytest

from app import create_app, daemons
from app.assistant.models.chats import Turn, TurnStatus
from app.extensions import db, limiter
from tests.conftest import TEST_DATABASE_URL, TEST_REDIS_URL, csrf_token_from, make_user, sign_in
from tests.fakes import FakeProviders, Reply

# Budgets no healthy fake answer gets near, even on a loaded machine (`pytest -n 8` on two
# cores): a test that wants a timeout scripts a provider slower than these, or sets its own.
FAST = {
    "BEYOU_LLM_CONNECT_TIMEOUT": "5",
    "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "20",
    "BEYOU_LLM_TOTAL_TIMEOUT": "60",
}


def chain_env(fake, order="mistral,gemini"):
    env = {"BEYOU_LLM_ORDER": order, **FAST}
    for name in ("mistral", "gemini", "glm", "nvidia", "deepseek"):
        env[f"BEYOU_LLM_{name.upper()}_API_KEY"] = f"key-{name}"
        env[f"BEYOU_LLM_{name.upper()}_BASE_URL"] = fake.base_url(name, "gemini" if name == "gemini" else "openai")
    return env


@pytest.fixture(scope="session")
def fake_providers():
    with FakeProviders() as fake:
        yield fake


@pytest.fixture
def fake(fake_providers):
    fake_providers.reset()
    yield fake_providers
    fake_providers.reset()


@pytest.fixture(scope="session")
def agent_db_url(tmp_path_factory):
    return TEST_DATABASE_URL or f"sqlite:///{tmp_path_factory.mktemp('agent') / 'agent.sqlite3'}"


@pytest.fixture
def make_agent_app(fake, agent_db_url):
    """`make_agent_app(**config)`: a fresh app on the shared test database, rows wiped afterwards."""
    made = []

    def make(order="mistral,gemini", **config):
        settings = {
            "SQLALCHEMY_DATABASE_URI": agent_db_url,
            "RATELIMIT_STORAGE_URI": TEST_REDIS_URL or "memory://",
            "REDIS_URL": TEST_REDIS_URL,
            "LLM_ENV": chain_env(fake, order),
            "AGENT_HEARTBEAT_SECONDS": 0.2,
        }
        settings.update(config)
        app = create_app("test", **settings)
        with app.app_context():
            db.create_all()
        made.append(app)
        return app

    yield make
    daemons.wait_for_tracked()  # a briefing or a source still being written
    for app in made:
        _wait_for_turns(app)
        with app.app_context():
            for table in reversed(db.metadata.sorted_tables):
                db.session.execute(table.delete())
            db.session.commit()
            limiter.reset()
            db.engine.dispose()
        app.extensions["llm_chain"].close()


def _wait_for_turns(app, seconds=30):
    """Let running turns end before the tables are wiped under them. A turn still pending has
    no runner (nobody watched it, or a test left it so on purpose): nothing to wait for."""
    deadline = time.monotonic() + seconds
    with app.app_context():
        while time.monotonic() < deadline:
            running = db.session.scalar(
                db.select(db.func.count()).select_from(Turn).where(Turn.status == TurnStatus.RUNNING)
            )
            db.session.remove()
            if not running:
                return
            time.sleep(0.05)


@pytest.fixture
def agent_app(make_agent_app):
    return make_agent_app()


class AgentClient:
    """A signed-in browser, reduced to what the panel does."""

    def __init__(self, app, email="ana@example.com"):
        self.app = app
        self.http = app.test_client()
        sign_in(self.http, email=email)
        self.csrf = csrf_token_from(self.http.get("/dashboard"))

    def post(self, url, **form):
        return self.http.post(url, data=form, headers={"X-CSRFToken": self.csrf, "HX-Request": "true"})

    def new_chat(self):
        page = self.post("/ai/agent/chats").get_data(as_text=True)
        return re.search(r'data-chat-id="([0-9a-f-]{36})"', page).group(1)

    def send(self, chat_id, text, page="/habits"):
        response = self.post(f"/ai/agent/chats/{chat_id}/messages", message=text, page=page)
        return response

    def send_ok(self, chat_id, text, page="/habits"):
        response = self.send(chat_id, text, page)
        assert response.status_code == 200, response.get_data(as_text=True)
        return turn_id_in(response.get_data(as_text=True))

    def open_stream(self, turn_id):
        return LiveStream(self.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False))

    def stream(self, turn_id, last_event_id=None, until_terminal=True):
        headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
        response = self.http.get(f"/ai/agent/turns/{turn_id}/stream", headers=headers, buffered=False)
        return read_events(response, until_terminal)


class LiveStream:
    """A stream held open by the test: read up to an event, act, then read the rest."""

    def __init__(self, response):
        self.response = response
        self._chunks = iter(response.response)
        self._buffer = ""
        self.events = []

    def _next_event(self):
        while "\n\n" not in self._buffer:
            chunk = next(self._chunks)
            self._buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        frame, self._buffer = self._buffer.split("\n\n", 1)
        return parse_frame(frame)

    def until(self, name):
        """Read until the first `name` event (returns it)."""
        while True:
            event = self._next_event()
            if event:
                self.events.append(event)
                if event["name"] == name:
                    return event

    def rest(self):
        """Read to the end of the stream; returns the events read from here."""
        start = len(self.events)
        try:
            while True:
                event = self._next_event()
                if event:
                    self.events.append(event)
                    if event["name"] in ("done", "failed"):
                        break
        except StopIteration:
            pass
        finally:
            self.response.close()
        return self.events[start:]


def turn_id_in(html):
    return re.search(r'id="turn-([0-9a-f-]{36})"', html).group(1)


def read_events(response, until_terminal=True):
    """The SSE frames of a streamed response as dicts: name, data, id (comments skipped)."""
    events, buffer = [], ""
    try:
        for chunk in response.response:
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buffer:
                frame, buffer = buffer.split("\n\n", 1)
                event = parse_frame(frame)
                if event:
                    events.append(event)
                    if until_terminal and event["name"] in ("done", "failed"):
                        return events
    finally:
        response.close()
    return events


def spoken(events, ending="done"):
    """The text a stream's `token` events carried, once it is checked that they came first and
    `ending` last. Text read together leaves together (one event for pieces a model sent within
    the runner's gather), so how many `token` events a text takes depends on the model's pace."""
    names = [e["name"] for e in events]
    assert names[-1] == ending and set(names[:-1]) <= {"token"}, names
    assert len(names) > 1, names
    return "".join(e["data"] for e in events[:-1])


def parse_frame(frame):
    name, data, event_id = None, [], None
    for line in frame.split("\n"):
        if line.startswith(":"):
            continue
        field, _, value = line.partition(": ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            event_id = int(value)
    if name is None:
        return None
    return {"name": name, "data": "\n".join(data), "id": event_id}


def wait_for_turn(app, turn_id, seconds=30):
    deadline = time.monotonic() + seconds
    with app.app_context():
        while time.monotonic() < deadline:
            turn = db.session.get(Turn, uuid.UUID(str(turn_id)))
            status = turn.status if turn else None
            db.session.remove()
            if status not in (TurnStatus.PENDING, TurnStatus.RUNNING):
                return status
            time.sleep(0.05)
    raise AssertionError(f"turn {turn_id} still running after {seconds}s")


@pytest.fixture
def ana(agent_app):
    make_user(agent_app)
    return AgentClient(agent_app)


__all__ = ["AgentClient", "Reply", "make_user", "read_events", "turn_id_in", "wait_for_turn"]
