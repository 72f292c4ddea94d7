"""How many simultaneous answer streams the Procfile's server holds, beside a bare Flask SSE
generator on the same server in the same run.

    .venv/bin/python -m bench.sse_streams [--streams 5000] [--heartbeats 1,15] [--databases sqlite,postgresql]
                                          [--seconds 32] [--workers 2] [--smoke]

Each assistant stream is a claimed turn whose model never answers (a local server that accepts
and stays silent), so only heartbeats flow — the worst case for a dead-client detector, and each
stream holds its running turn. The floor is `GET /_floor/stream` (bench/floor.py): the same
heartbeats from a bare generator. For each database and heartbeat, the bare streams are opened,
measured and closed, then the assistant's; over `--seconds` (at least two beats) every gap
between two heartbeats on every stream is measured: lateness = gap − heartbeat. Prints per side
the streams connected and lost, p50/p99/max lateness, memory per stream, the workers' CPU, the
ramp (seconds until every stream was open and its turn waiting on its model), and
the assistant's figures as ratios to the floor's. PostgreSQL runs in a schema of its own in
BEYOU_BENCH_DATABASE_URL (or BEYOU_TEST_DATABASE_URL). Target: ≥ 5,000 assistant streams,
< 100 KB each, p99 lateness < 1 s, 0 lost.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import socket
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from app import create_app
from app.assistant import services as assistant
from app.extensions import db
from app.profile import accounts
from app.profile.models import User
from bench.serving import bench_database, cpu_seconds, error_key, free_port, procfile_server, rss_kib, worker_pids

SECRET = "bench-secret"
RAMP_SECONDS = 300  # a stream not connected by then (its turn not waiting on its model) counts as lost


def silent_provider(port):
    """Accepts connections and never says a word: every turn waits for its first token."""
    listener = socket.create_server(("127.0.0.1", port), backlog=8192)
    held = []

    def accept_forever():
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:  # closed at the end of the bench
                return

    threading.Thread(target=accept_forever, daemon=True).start()
    return listener, held


def prepare(database_url, streams):
    """Users (two streams each, the per-user cap), their pending turns, and signed session cookies
    (what a browser would hold after signing in; a bench has no use for thousands of password
    checks)."""
    app = create_app("development", SQLALCHEMY_DATABASE_URI=database_url, SECRET_KEY=SECRET)
    signer = app.session_interface.get_signing_serializer(app)
    cookies = []
    with app.app_context():
        db.create_all()
        for index in range((streams + 1) // 2):
            user = User(name=f"Bench {index}", email=f"bench{index}@example.com", password_hash="!unusable")
            db.session.add(user)
            db.session.commit()
            accounts.start_session(user)
            cookie = signer.dumps({"_user_id": user.get_id(), "_fresh": False})
            for _ in range(2):  # one chat per turn: a new turn in a chat cancels the one running there
                chat = assistant.create_chat(user, "bench")
                turn = assistant.start_turn(user, chat.id, f"hold on {uuid.uuid4()}")
                cookies.append((cookie, f"/ai/agent/turns/{turn.id}/stream"))
        db.engine.dispose()
    return cookies[:streams]


def prepared(database, heartbeat, streams, folder):
    """A database holding `streams` pending turns, and how to watch them. SQLite's is prepared
    once and copied for each heartbeat (preparing thousands of users takes minutes)."""
    if database != "sqlite":
        url = bench_database(database, folder, f"bench_sse_{int(heartbeat)}")
        return url, prepare(url, streams)
    template = Path(folder) / "streams-template.sqlite3"
    if not template.exists():
        url = bench_database(database, folder, "streams-template")
        _PREPARED[template] = prepare(url, streams)
    copy = Path(folder) / f"streams-{heartbeat:g}.sqlite3"
    shutil.copyfile(template, copy)
    return f"sqlite:///{copy}", _PREPARED[template]


_PREPARED = {}


@dataclass
class Side:
    name: str
    wanted: int
    connected: int = 0
    lost: int = 0
    gaps: list = None
    kib_per_stream: float = 0.0
    ramp: float = 0.0  # seconds from the first stream opened to all connected (and their turns waiting)
    cpu: float = 0.0  # of one core, over the window
    why_lost: collections.Counter = None  # what the lost streams got instead of heartbeats

    def p(self, fraction):
        values = sorted(self.gaps)
        return values[min(int(len(values) * fraction), len(values) - 1)] if values else float("nan")


async def watch(port, cookie, path, heartbeat, gaps, ready, lost):
    """Follows one stream; when it ends early, `lost` gets (whether it had connected, what it got:
    the status line, the `failed` event's error key, or how the connection ended)."""
    connected, error = False, None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**16)
    except OSError as refused:
        lost.append((connected, type(refused).__name__))
        return
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: bench\r\nCookie: session={cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    last = None
    try:
        await writer.drain()
        status = await reader.readline()
        if not status.startswith(b"HTTP/1.1 200"):
            lost.append((connected, status.decode(errors="replace").strip() or "closed at once"))
            return
        while True:
            line = await reader.readline()
            if not line:
                lost.append((connected, error or "closed"))
                return
            if line.startswith(b"data: ") and error is None:
                error = error_key(line)
            if line.startswith(b": ping"):
                now = time.monotonic()
                if last is not None:
                    gaps.append(now - last - heartbeat)
                last = now
            elif line.startswith(b": connected"):
                ready.append(path)
                connected = True
    except (OSError, asyncio.IncompleteReadError) as broken:
        lost.append((connected, error or type(broken).__name__))
    finally:
        writer.close()


async def measure(side, port, streams, heartbeat, seconds, process, settled=lambda: True):
    """Open `streams`, wait until they are `settled` (every turn waiting on its model), measure a
    window of beats, close them."""
    pids = worker_pids(process)
    before = sum(rss_kib(pid) for pid in pids)
    ready, gaps, lost = [], [], []
    tasks = []
    for cookie, path in streams:
        tasks.append(asyncio.create_task(watch(port, cookie, path, heartbeat, gaps, ready, lost)))
        if len(tasks) % 100 == 0:
            await asyncio.sleep(0.05)  # a ramp, as users arrive; not one SYN flood
    opened = time.monotonic()
    deadline = opened + RAMP_SECONDS

    def never_connected():
        return sum(1 for had_connected, _why in lost if not had_connected)

    while (len(ready) + never_connected() < len(streams) or not settled()) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    side.ramp = time.monotonic() - opened
    await asyncio.sleep(heartbeat * 1.5)
    gaps.clear()
    cpu_before, started = cpu_seconds(pids), time.monotonic()
    await asyncio.sleep(seconds)
    side.cpu = (cpu_seconds(pids) - cpu_before) / (time.monotonic() - started)
    side.gaps = list(gaps)
    # held to the end: connected and never lost; lost: ended early, or not connected by the deadline
    side.connected = len(ready) - (len(lost) - never_connected())
    side.lost = len(lost) + max(len(streams) - len(ready) - never_connected(), 0)
    side.why_lost = collections.Counter(why for _connected, why in lost)
    side.kib_per_stream = (sum(rss_kib(pid) for pid in pids) - before) / max(len(ready), 1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(heartbeat + 1)  # the server notices the closed streams at their next beat


async def run_one(database, heartbeat, options, folder):
    provider_port = free_port()
    listener, held = silent_provider(provider_port)
    database_url, streams = prepared(database, heartbeat, options.streams, folder)
    env = {
        "BEYOU_ENV": "development",
        "BEYOU_SECRET_KEY": SECRET,
        "BEYOU_DATABASE_URL": database_url,
        "BEYOU_LLM_ORDER": "local",
        "BEYOU_LLM_LOCAL_BASE_URL": f"http://127.0.0.1:{provider_port}/v1",
        "BEYOU_LLM_LOCAL_MODEL": "silent",
        "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "3600",
        "BEYOU_LLM_TOTAL_TIMEOUT": "3600",
        "BEYOU_AGENT_TURN_SECONDS": "3600",
        "BEYOU_AGENT_HEARTBEAT_SECONDS": str(heartbeat),
        # A gevent worker holds this many requests; both sides need streams / workers of them.
        "BEYOU_WORKER_CONNECTIONS": str(options.streams + 500),
    }
    seconds = max(options.seconds, 2 * heartbeat + 2)
    with procfile_server(env, workers=options.workers, floor=True) as (base_url, process):
        port = int(base_url.rsplit(":", 1)[1])
        time.sleep(1)
        bare = Side("bare generator", options.streams)
        await measure(bare, port, [("", "/_floor/stream")] * options.streams, heartbeat, seconds, process)
        agent = Side("assistant", options.streams)
        await measure(agent, port, streams, heartbeat, seconds, process, lambda: len(held) >= len(streams))
    listener.close()
    print_rows(database, heartbeat, bare, agent)
    return agent


def print_rows(database, heartbeat, bare, agent):
    print(f"\n{database}, a heartbeat every {heartbeat:g} s, {bare.wanted} streams")
    print(f"  {'':16}{'connected':>10}{'lost':>6}{'beats':>8}{'p50 late':>11}{'p99 late':>11}{'max late':>11}"
          f"{'KiB/stream':>12}{'CPU':>7}{'ramp':>8}")  # fmt: skip
    for side in (bare, agent):
        print(
            f"  {side.name:16}{side.connected:>10}{side.lost:>6}{len(side.gaps):>8}{side.p(0.5) * 1000:>9.1f}ms"
            f"{side.p(0.99) * 1000:>9.1f}ms{max(side.gaps, default=float('nan')) * 1000:>9.1f}ms"
            f"{side.kib_per_stream:>12.1f}{side.cpu * 100:>6.0f}%{side.ramp:>7.0f}s"
        )
    floor_p99 = max(bare.p(0.99), 0.001)  # a floor of a millisecond: no ratio to a clock's resolution
    print(
        f"  ratio to the floor: p99 lateness ×{agent.p(0.99) / floor_p99:.1f}, memory "
        f"×{agent.kib_per_stream / max(bare.kib_per_stream, 0.1):.1f}, CPU ×{agent.cpu / max(bare.cpu, 0.01):.1f}"
    )
    held = agent.connected >= agent.wanted and agent.lost == 0 and agent.p(0.99) < 1.0
    small = agent.kib_per_stream * 1.024 < 100
    if agent.why_lost:
        print(f"  lost or refused, by what they got: {dict(agent.why_lost)}")
    print(f"  target (all held, 0 lost, p99 < 1 s, < 100 KB each): {'OK' if held and small else 'UNDER'}", flush=True)


async def run(options):
    with tempfile.TemporaryDirectory() as folder:
        for database in options.databases:
            for heartbeat in options.heartbeats:
                await run_one(database, heartbeat, options, folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--heartbeats", default="1,15", type=lambda v: [float(x) for x in v.split(",")])
    parser.add_argument("--databases", default="sqlite,postgresql", type=lambda v: v.split(","))
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="a few streams, a few seconds (CI)")
    options = parser.parse_args()
    if options.smoke:
        options.streams, options.heartbeats, options.databases = 20, [1.0], ["sqlite"]
        options.seconds, options.workers = 3, 1
    asyncio.run(run(options))


if __name__ == "__main__":
    main()
