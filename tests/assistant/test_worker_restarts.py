"""The real server — the Procfile's gunicorn with gevent workers and gunicorn.conf.py's hooks —
killed, stopped and starved of its database in the middle of a turn, and what the user finds."""

import os
import re
import runpy
import signal
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import uuid
from html import unescape
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests

from app.assistant.models.chats import ChatMessage, Ending, Turn, TurnStatus
from app.extensions import db
from app.tasks.models import Task
from tests.assistant.conftest import make_user, parse_frame, wait_for_turn
from tests.conftest import PASSWORD, TEST_DATABASE_URL, TEST_REDIS_URL
from tests.fakes import Reply
from tests.fakes.script import FakeCall

ROOT = Path(__file__).resolve().parents[2]
MAKE_PD2 = FakeCall("createUserTask", {"name": "PD2", "importance": 2, "difficulty": 1})


def web_command():
    line = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    return line.removeprefix("web:").strip().replace("0.0.0.0", "127.0.0.1")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(fake, database_url, **extra):
    env = {name: value for name, value in os.environ.items() if not name.startswith("BEYOU_")}
    env.update(
        PATH=f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        WEB_CONCURRENCY="1",
        BEYOU_ENV="development",
        BEYOU_DATABASE_URL=database_url,
        BEYOU_LLM_ORDER="mistral",
        BEYOU_LLM_MISTRAL_API_KEY="key-mistral",
        BEYOU_LLM_MISTRAL_BASE_URL=fake.base_url("mistral"),
        BEYOU_LLM_FIRST_EVENT_TIMEOUT="5",
        BEYOU_AGENT_HEARTBEAT_SECONDS="0.5",
        BEYOU_AGENT_LEASE_SECONDS="1.5",
    )
    if TEST_REDIS_URL:
        env["BEYOU_REDIS_URL"] = TEST_REDIS_URL
    env.update(extra)
    return env


class WebProcess:
    """The Procfile's web process on a free port of 127.0.0.1."""

    def __init__(self, env):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 — the server writes to it until it stops
        self.process = subprocess.Popen(
            ["sh", "-c", f"exec {web_command()}"], cwd=ROOT, env={**env, "PORT": str(self.port)},
            start_new_session=True, stdout=subprocess.DEVNULL, stderr=self.log,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(self.url + "/healthz", timeout=5).ok:
                    return
            except requests.RequestException:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop(signal.SIGKILL)
                raise RuntimeError("the web process did not start:\n" + self.output())
            time.sleep(0.2)

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def stop(self, how=signal.SIGTERM):
        """SIGTERM: the master stops its workers gracefully; SIGKILL: everything dies at once."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, how) if how == signal.SIGKILL else self.process.send_signal(how)
        if how == signal.SIGKILL:
            self.process.wait(timeout=60)

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        if self.process.poll() is None:
            self.stop(signal.SIGKILL)
        self.log.close()


class Browser:
    """A signed-in browser over HTTP, reduced to what the assistant's panel does."""

    def __init__(self, url):
        self.url = url
        self.http = requests.Session()
        login = self.http.get(f"{url}/login").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', login).group(1)
        self.http.post(f"{url}/login", data={"email": "ana@example.com", "password": PASSWORD, "csrf_token": token})
        dashboard = self.http.get(f"{url}/dashboard").text
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', dashboard).group(1)

    def post(self, path, **form):
        return self.http.post(self.url + path, data=form, headers={"X-CSRFToken": self.csrf, "HX-Request": "true"})

    def new_chat(self):
        return re.search(r'data-chat-id="([0-9a-f-]{36})"', self.post("/ai/agent/chats").text).group(1)

    def send(self, chat_id, text):
        answer = self.post(f"/ai/agent/chats/{chat_id}/messages", message=text)
        assert answer.status_code == 200, answer.text
        return re.search(r'id="turn-([0-9a-f-]{36})"', answer.text).group(1)

    def watch(self, turn_id, last_event_id=None):
        headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
        response = self.http.get(f"{self.url}/ai/agent/turns/{turn_id}/stream", headers=headers, stream=True,
                                 timeout=(5, 60))  # fmt: skip
        return EventStream(response)

    def chat(self, chat_id):
        return unescape(self.http.get(f"{self.url}/ai/agent/chats/{chat_id}").text)


class EventStream:
    """Events as they come, for a minute at most: a turn that never ends pings for ever."""

    def __init__(self, response, seconds=60):
        self.response = response
        self.deadline = time.monotonic() + seconds
        self._frames = self._read()
        self.events = []

    def _read(self):
        buffer = ""
        try:
            for chunk in self.response.iter_content(chunk_size=None, decode_unicode=True):
                if time.monotonic() > self.deadline:
                    return
                buffer += chunk
                while "\n\n" in buffer:
                    frame, buffer = buffer.split("\n\n", 1)
                    if event := parse_frame(frame):
                        yield event
        except requests.RequestException:  # the server went away
            return

    def until(self, test):
        for event in self._frames:
            self.events.append(event)
            if test(event):
                return event
        return None

    def until_id(self, event_id):
        return self.until(lambda event: event["id"] is not None and event["id"] >= event_id)

    def until_terminal(self):
        return self.until(lambda event: event["name"] in ("done", "failed"))


@pytest.fixture
def ana_on_disk(make_agent_app):
    app = make_agent_app()  # the tables, on the database the server also uses
    make_user(app)
    return app


def test_a_worker_killed_mid_turn_leaves_the_turn_interrupted_with_what_it_did(ana_on_disk, fake, agent_db_url):
    fake.script("mistral", Reply.calls(MAKE_PD2), Reply.says("Created ", "PD2", *[" and then"] * 40, pace=0.3))
    env = server_env(fake, agent_db_url)
    with WebProcess(env) as web:
        browser = Browser(web.url)
        chat_id = browser.new_chat()
        turn_id = browser.send(chat_id, "please make a task PD2")
        live = browser.watch(turn_id)
        assert live.until_id(5)
        time.sleep(1.5)  # more text streams, and the journal catches up with it
        web.stop(signal.SIGKILL)
    with WebProcess(env) as web:
        browser.url = web.url  # the same browser, its session cookie still valid
        again = browser.watch(turn_id, last_event_id=5)
        ending = again.until_terminal()
        assert ending is not None and ending["name"] == "failed"
        assert 'data-error="TURN_INTERRUPTED"' in ending["data"]
        chat = browser.chat(chat_id)
    assert "please make a task PD2" in chat
    assert 'href="/tasks"' in chat and "Created PD2" in chat and "Interrupted" in chat
    with ana_on_disk.app_context():
        assert db.session.scalar(db.select(Task.name)) == "PD2"  # the side effect, shown above
        turn = db.session.get(Turn, uuid.UUID(turn_id))
        assert (turn.status, turn.error_key) == (TurnStatus.ENDED, "TURN_INTERRUPTED")
    assert len(fake.requests("mistral")) == 2  # the reconnect never called a model


def test_a_worker_stopped_gracefully_ends_its_turn_interrupted_with_the_partial_answer(ana_on_disk, fake, agent_db_url):
    fake.script("mistral", Reply.calls(MAKE_PD2), Reply.says("Created ", "PD2", *[" and then"] * 40, pace=0.3))
    with WebProcess(server_env(fake, agent_db_url)) as web:
        browser = Browser(web.url)
        turn_id = browser.send(browser.new_chat(), "please make a task PD2")
        live = browser.watch(turn_id)
        assert live.until_id(5)
        web.stop(signal.SIGTERM)
        ending = live.until_terminal()
        assert ending is not None and 'data-error="TURN_INTERRUPTED"' in ending["data"], web.output()
    with ana_on_disk.app_context():
        turn = db.session.get(Turn, uuid.UUID(turn_id))
        answer = db.session.get(ChatMessage, turn.answer_id)
        assert (turn.status, turn.error_key) == (TurnStatus.ENDED, "TURN_INTERRUPTED")
        assert (answer.ending, answer.link) == (Ending.INTERRUPTED, "mistral")
        assert answer.segments[0]["tool"] == "createUserTask"
        assert answer.segments[1]["text"].startswith("Created PD2")


@pytest.mark.skipif(bool(TEST_DATABASE_URL), reason="SQLite's write lock")
def test_a_locked_database_at_the_end_of_a_turn_never_freezes_the_worker(ana_on_disk, fake, agent_db_url):
    fake.script("mistral", Reply.says("Almost ", "there", pace=0.3))
    with WebProcess(server_env(fake, agent_db_url)) as web:
        browser = Browser(web.url)
        turn_id = browser.send(browser.new_chat(), "go")
        live = browser.watch(turn_id)
        assert live.until(lambda event: event["name"] == "token")
        locker = sqlite3.connect(agent_db_url.removeprefix("sqlite:///"), isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
        ended = threading.Event()
        threading.Thread(target=lambda: (live.until_terminal(), ended.set()), daemon=True).start()
        waits = []
        try:
            deadline = time.monotonic() + 60
            while not ended.is_set() and time.monotonic() < deadline:
                started = time.monotonic()
                assert requests.get(web.url + "/healthz", timeout=60).ok
                waits.append(time.monotonic() - started)
                time.sleep(0.2)
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        assert max(waits) < 2.5, waits  # every other request went on (it froze ~10 s before)
        assert ended.is_set()  # the watcher heard the end while the database was still locked
        assert 'data-error="TRANSCRIPT_PERSIST_FAILED"' in live.events[-1]["data"]
        assert wait_for_turn(ana_on_disk, turn_id, seconds=30) == TurnStatus.DONE  # saved once the lock is gone


# More than one worker process needs Redis in production ----------------------------------


def test_production_refuses_two_worker_processes_without_redis():
    env = {name: value for name, value in os.environ.items() if not name.startswith("BEYOU_")}
    env.update(
        PATH=f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        BEYOU_ENV="production",
        BEYOU_SECRET_KEY="a-production-secret",
        WEB_CONCURRENCY="2",
        PORT=str(free_port()),
    )
    refused = subprocess.run(["sh", "-c", f"exec {web_command()}"], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=60)  # fmt: skip
    assert refused.returncode != 0
    assert "2 worker processes need BEYOU_REDIS_URL in production" in refused.stderr


def test_one_worker_or_redis_or_development_may_start():
    hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    refusal = hooks["more_workers_than_memory_can_share"]

    def settings(env="production", redis=None):
        return SimpleNamespace(ENV_NAME=env, REDIS_URL=redis)

    assert refusal(2, settings()) is not None
    assert refusal(1, settings()) is None
    assert refusal(4, settings(redis="redis://cache:6379/0")) is None
    assert refusal(2, settings(env="development")) is None
