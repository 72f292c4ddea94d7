"""Under gevent (the Procfile's server) a greenlet runs until it waits. A model that sends its
whole answer in one burst was once read, parsed and ended by the turn's reader and runner before
its watcher got to write any of it: the text reached the browser with the answer's end, after the
answer was stored. The chain now gives the text it read as one piece, and the runner gives way
before it stores the answer (docs/performance.md, "The model's wire"), so the watcher's first
read holds the text, alone, before the turn ends."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

A_TURN_WATCHED_UNDER_GEVENT = """
from gevent import monkey
monkey.patch_all()

import json, os, sys, tempfile
import gevent
from app import create_app
from app.assistant import runner
from app.extensions import db
from app.assistant import services as assistant
from app.profile import accounts
from tests.assistant.conftest import chain_env
from tests.fakes import FakeProviders, Reply

with FakeProviders() as fake, tempfile.TemporaryDirectory() as folder:
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/turns.db", RATELIMIT_STORAGE_URI="memory://",
                     LLM_ENV=chain_env(fake, "mistral"))
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Ana Lima", email="ana@example.com", password="a long password 1")
        chat = assistant.create_chat(user)
        turn_id = assistant.start_turn(user, chat.id, "What should I focus on today?").id
        assert assistant.claim(assistant.get_turn(user, turn_id))
    fake.script("mistral", Reply.says("Start ", "with ", "the ", "hardest ", "task."))
    log = app.extensions["turn_log"]
    reads = []

    def watch():
        after = 0
        while True:
            events = log.read(turn_id, after, wait=10)
            reads.append([[event.name, event.data] for event in events])
            after = events[-1].id
            if events[-1].terminal:
                return

    watcher = gevent.spawn(watch)
    gevent.sleep(0)  # the watcher is waiting before the runner starts, as the GET's is
    with app.app_context():
        runner.start_in_background(turn_id)
    watcher.join(20)
    print(json.dumps(reads))
"""


def test_a_burst_of_text_reaches_the_watcher_before_the_turn_ends():
    done = subprocess.run(
        [sys.executable, "-c", A_TURN_WATCHED_UNDER_GEVENT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    reads = json.loads(done.stdout.strip().splitlines()[-1])
    assert [name for name, _data in reads[0]] == ["token"], reads
    events = [event for read in reads for event in read]
    assert [name for name, _data in events][-1] == "done", reads
    assert "".join(data for name, data in events if name == "token") == "Start with the hardest task.", reads
