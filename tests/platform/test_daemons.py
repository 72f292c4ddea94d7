"""Background work (a turn's runner, a model link's reader): a named daemon thread, or under
gevent a bare greenlet that leaves no thread object behind (docs/performance.md, "Memory")."""

import subprocess
import sys
import threading
from pathlib import Path

from app import daemons
from app.extensions import db

ROOT = Path(__file__).resolve().parents[2]

UNDER_GEVENT = """
from gevent import monkey
monkey.patch_all()
import threading
from app import daemons
from app.extensions import db

ran = threading.Event()
before = len(threading.enumerate())
seen = []
def work():
    seen.append(len(threading.enumerate()))
    ran.set()
daemons.start(work, "turn-under-gevent")
assert ran.wait(5), "the work never ran"
assert seen == [before], (before, seen)
print("bare greenlet")
"""


def test_without_gevent_the_work_runs_on_a_named_daemon_thread():
    ran = threading.Event()
    names = []

    def work():
        names.append((threading.current_thread().name, threading.current_thread().daemon))
        ran.set()

    daemons.start(work, "turn-1234")
    assert ran.wait(5)
    assert names == [("turn-1234", True)]


def test_under_gevent_the_work_runs_on_a_bare_greenlet_with_no_thread_object():
    done = subprocess.run([sys.executable, "-c", UNDER_GEVENT], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "bare greenlet"


def test_background_work_reads_the_database_on_a_connection_of_its_own(app):
    """As in production, where each thread checks its own connection out of the pool. An in-memory
    SQLite is a single connection for every thread: a background thread's commit there would end
    the transaction of the request that started it, under the request's feet."""
    theirs = []

    def read():
        with app.app_context():
            theirs.append(db.session.connection().connection.dbapi_connection)
            db.session.remove()

    with app.app_context():
        mine = db.session.connection().connection.dbapi_connection
        thread = threading.Thread(target=read)
        thread.start()
        thread.join(10)
        assert theirs and theirs[0] is not mine
        db.session.remove()
