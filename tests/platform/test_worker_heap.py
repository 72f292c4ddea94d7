"""A server worker freezes what the built app holds, so the garbage collector's full passes walk
only what requests make (docs/performance.md, "Memory")."""

import gc
import runpy
import signal
from pathlib import Path
from types import SimpleNamespace

import pytest

from app import freeze_startup_objects
from app.assistant import runner

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def unfrozen_afterwards():
    yield
    gc.unfreeze()


def test_objects_alive_at_the_freeze_leave_the_collector_s_generations(unfrozen_afterwards):
    held = [["a list the app would hold"]]
    assert any(found is held for found in gc.get_objects())
    freeze_startup_objects()
    assert gc.get_freeze_count() > 0
    assert not any(found is held for found in gc.get_objects())


def test_the_worker_hook_freezes_once_the_worker_is_set_up(app, monkeypatch, unfrozen_afterwards):
    hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    monkeypatch.setattr(runner, "keep_leases", lambda app, resident: None)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        hooks["post_worker_init"](SimpleNamespace(wsgi=app))
        assert gc.get_freeze_count() > 0
    finally:
        signal.signal(signal.SIGTERM, previous)
