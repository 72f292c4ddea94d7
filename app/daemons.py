"""Daemon threads for work that outlives its request (a turn's runner, a model link's reader, a
study source being indexed or embedded, a daily briefing being written).

Under gevent (the Procfile's server) each is a bare greenlet: a patched `threading.Thread` also
carries its own locks, a started event and an entry in threading's registry, which thousands of
turns waiting on their models do not need (app/web/live.py's socket readers do the same).
Elsewhere (tests, the CLI, a threaded server) it is a named daemon thread.
"""

import threading
import time


def start(target, name):
    """Run `target()` in the background; nothing waits for it."""
    if _under_gevent():
        import gevent

        gevent.spawn_raw(target)
    else:
        threading.Thread(target=target, name=name, daemon=True).start()


def let_others_run():
    """Give way to whatever else is ready to run (under gevent, the other greenlets) before going
    on. A greenlet runs until it waits: a turn's runner that sent text and goes on to write the
    answer's end would otherwise do so before the watcher wrote that text to its browser."""
    time.sleep(0)


def _under_gevent():
    try:
        from gevent import monkey
    except ImportError:
        return False
    return monkey.is_module_patched("threading")


class Tracked:
    """Background threads kept by key while they run (a source's indexing, its embedding, a day's
    briefing), so that a caller can tell one is running, and a test or a CLI can wait for it to end."""

    def __init__(self, kind):
        self.kind = kind
        self._running = {}  # str(key) -> its thread, until it ends
        self._lock = threading.Lock()
        _TRACKED.append(self)

    def start(self, key, work, *args):
        """Run `work(*args)` on a daemon thread of its own (a greenlet under gevent), inside the
        caller's app (its context, and the database session that context closes)."""
        from flask import current_app

        key, app = str(key), current_app._get_current_object()

        def run():
            try:
                with app.app_context():
                    work(*args)
            finally:
                with self._lock:
                    self._running.pop(key, None)

        thread = threading.Thread(target=run, name=f"{self.kind}-{key}", daemon=True)
        with self._lock:
            self._running[key] = thread
        thread.start()
        return thread

    def running(self, key):
        with self._lock:
            return str(key) in self._running

    def wait_for(self, key, seconds=30):
        """Block until the key's thread, if one runs in this process, has ended."""
        with self._lock:
            thread = self._running.get(str(key))
        if thread is not None:
            thread.join(seconds)

    def wait_for_all(self, seconds=30):
        with self._lock:
            threads = list(self._running.values())
        for thread in threads:
            thread.join(seconds)


_TRACKED = []


def wait_for_tracked(seconds=30):
    """Block until every tracked thread of this process has ended: a test's cleanup waits for the
    background work the test started before it empties the tables under it."""
    for tracked in _TRACKED:
        tracked.wait_for_all(seconds)
