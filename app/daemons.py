"""Daemon threads for work that outlives its request (a turn's runner, a model link's reader).

Under gevent (the Procfile's server) each is a bare greenlet: a patched `threading.Thread` also
carries its own locks, a started event and an entry in threading's registry, which thousands of
turns waiting on their models do not need (app/web/live.py's socket readers do the same).
Elsewhere (tests, the CLI, a threaded server) it is a named daemon thread.
"""

import threading


def start(target, name):
    """Run `target()` in the background; nothing waits for it."""
    if _under_gevent():
        import gevent

        gevent.spawn_raw(target)
    else:
        threading.Thread(target=target, name=name, daemon=True).start()


def _under_gevent():
    try:
        from gevent import monkey
    except ImportError:
        return False
    return monkey.is_module_patched("threading")
