"""One real model at work at a time. Under `pytest -n`, each worker serves its own model (the
session's `model_server`), and whatever makes a model compute — a test of tests/realmodel, a
real-model bench's smoke run — takes its turn: two llama.cpp servers sharing a 2-core CPU each run
several times slower than one alone, and every deadline would be a loaded machine's."""

import fcntl
import os
from contextlib import contextmanager


@contextmanager
def model_at_work(tmp_path_factory):
    """Hold this run's turn of the model (every worker of one `pytest -n` run shares the folder
    above its own temporary one) for the `with` block."""
    own = tmp_path_factory.getbasetemp()
    shared = own.parent if os.environ.get("PYTEST_XDIST_WORKER") else own
    with open(shared / "realmodel.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
        yield
