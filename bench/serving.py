"""Run the app the way production does — the Procfile's `web:` line — for the benches."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from sqlalchemy import Column, MetaData, String, Table, Text

ROOT = Path(__file__).resolve().parent.parent

# The rows of bench/floor.py's recorded round trip: a bench's own table beside the app's, created
# by the bench that serves that floor.
FLOOR_TURNS = Table(
    "bench_floor_turns",
    MetaData(),
    Column("id", String(36), primary_key=True),
    Column("text", Text, nullable=False),
    Column("status", String(16), nullable=False),
)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def real_model_or_exit():
    """For a bench that serves a real model (app.llm.local.served): none installed here exits 3
    after saying so (its smoke test skips on 3), and one that does not start exits with why."""
    from app.llm import local

    try:
        yield
    except local.ModelMissing as missing:
        print(f"no real model here: {missing}")
        sys.exit(3)
    except local.NotServing as failed:
        sys.exit(str(failed))


def web_command():
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("web:"):
            return line.removeprefix("web:").strip()
    raise RuntimeError("the Procfile has no web: line")


@contextlib.contextmanager
def procfile_server(env, workers=1, floor=False):
    """The Procfile's web process on a free port of 127.0.0.1; yields (base URL, its process).
    With `floor`, the app also serves the bare routes of bench/floor.py, measured beside it."""
    port = free_port()
    command = web_command().replace("0.0.0.0", "127.0.0.1")
    if floor:
        command = command.replace("wsgi:app", "bench.floor:app")
    environment = {
        **os.environ,
        **env,
        "PORT": str(port),
        "WEB_CONCURRENCY": str(workers),
        "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
    }
    log = _server_log()
    process = subprocess.Popen(
        ["sh", "-c", f"exec {command}"], cwd=ROOT, env=environment, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=log,
    )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(base_url + "/healthz", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError("the web process did not start:\n" + log.read().decode()[-3000:])
            time.sleep(0.2)
        yield base_url, process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()


def _server_log():
    """Where the server writes its log: BENCH_SERVER_LOG when set (to see why a bench's turns
    failed), else a temporary file. Left open: the server writes to it until it stops."""
    path = os.environ.get("BENCH_SERVER_LOG")
    return open(path, "ab") if path else tempfile.TemporaryFile()


def error_key(line):
    """The error key on a `failed` event's data line (`data-error="KEY"`), or None."""
    found = re.search(rb'data-error="([A-Z_]+)"', line)
    return found.group(1).decode() if found else None


def worker_pids(process):
    """The gunicorn workers under the master."""
    output = subprocess.run(["ps", "-o", "pid=", "--ppid", str(process.pid)], capture_output=True, text=True)
    return [int(pid) for pid in output.stdout.split()]


def cpu_seconds(pids):
    """User and system CPU time the processes have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def bench_database(kind, folder, name, url=None):
    """A database URL for a bench: a SQLite file in `folder`, or a schema of its own (`name`,
    emptied first) in the PostgreSQL database of `url`, else BEYOU_BENCH_DATABASE_URL or, failing
    that, BEYOU_TEST_DATABASE_URL — so a bench never touches the tables the test suite uses."""
    if kind == "sqlite":
        return f"sqlite:///{Path(folder) / (name + '.sqlite3')}"
    import sqlalchemy

    url = url or os.environ.get("BEYOU_BENCH_DATABASE_URL") or os.environ.get("BEYOU_TEST_DATABASE_URL")
    if not url:
        raise SystemExit("PostgreSQL benches need BEYOU_BENCH_DATABASE_URL (or BEYOU_TEST_DATABASE_URL)")
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text(f"DROP SCHEMA IF EXISTS {name} CASCADE"))
        connection.execute(sqlalchemy.text(f"CREATE SCHEMA {name}"))
    engine.dispose()
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{name}"


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
