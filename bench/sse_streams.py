"""How many simultaneous answer streams the Procfile's server holds, heartbeats flowing.

    .venv/bin/python -m bench.sse_streams [--steps 250,500,1000,1500] [--seconds 15] [--workers 2]

Each stream is a turn whose model never answers (a local server that accepts and stays silent),
so only heartbeats flow — the worst case for a dead-client detector. The heartbeat is set to 1 s;
at each step more streams are opened and, over `--seconds`, every gap between two heartbeats on
every stream is measured: lateness = gap − 1 s. Prints, per step, the p50/p99/max lateness and
the memory the web workers added per stream. Target: at least 1,000 streams with p99 under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

from app import create_app
from app.extensions import db
from app.models import User
from app.services import assistant
from bench.serving import free_port, procfile_server, rss_kib, worker_pids

SECRET = "bench-secret"
HEARTBEAT = 1.0


def silent_provider(port):
    """Accepts connections and never says a word: every turn waits for its first token."""
    listener = socket.create_server(("127.0.0.1", port), backlog=4096)
    held = []

    def accept_forever():
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:  # closed at the end of the bench
                return

    threading.Thread(target=accept_forever, daemon=True).start()
    return listener


def prepare(database_url, streams):
    """Users (two streams each, the per-user cap), their pending turns, and signed session cookies
    (what a browser would hold after signing in; a bench has no use for 500 password checks)."""
    app = create_app("development", SQLALCHEMY_DATABASE_URI=database_url, SECRET_KEY=SECRET)
    signer = app.session_interface.get_signing_serializer(app)
    cookies = []
    with app.app_context():
        db.create_all()
        for index in range((streams + 1) // 2):
            user = User(name=f"Bench {index}", email=f"bench{index}@example.com", password_hash="!unusable")
            db.session.add(user)
            db.session.commit()
            cookie = signer.dumps({"_user_id": user.get_id(), "_fresh": False})
            for _ in range(2):  # one chat per turn: a new turn in a chat cancels the one running there
                chat = assistant.create_chat(user, "bench")
                turn = assistant.start_turn(user, chat.id, f"hold on {uuid.uuid4()}")
                cookies.append((cookie, turn.id))
    return cookies[:streams]


async def watch(port, cookie, turn_id, gaps, ready):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**16)
    writer.write(
        f"GET /ai/agent/turns/{turn_id}/stream HTTP/1.1\r\nHost: bench\r\nCookie: session={cookie}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    last = None
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b": ping"):
                now = time.monotonic()
                if last is not None:
                    gaps.append(now - last - HEARTBEAT)
                last = now
            elif line.startswith(b": connected"):
                ready.append(turn_id)
    finally:
        writer.close()


async def run(options):
    provider_port = free_port()
    listener = silent_provider(provider_port)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        database_url = f"sqlite:///{Path(folder) / 'streams.sqlite3'}"
        streams = prepare(database_url, max(options.steps))
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
            "BEYOU_AGENT_HEARTBEAT_SECONDS": str(HEARTBEAT),
        }
        with procfile_server(env, workers=options.workers) as (base_url, process):
            port = int(base_url.rsplit(":", 1)[1])
            time.sleep(1)
            baseline = sum(rss_kib(pid) for pid in worker_pids(process))
            tasks, ready, gaps, opened = [], [], [], 0
            for step in options.steps:
                for cookie, turn_id in streams[opened:step]:
                    tasks.append(asyncio.create_task(watch(port, cookie, turn_id, gaps, ready)))
                opened = step
                deadline = time.monotonic() + 30
                while len(ready) < step and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                await asyncio.sleep(HEARTBEAT * 1.5)
                gaps.clear()
                await asyncio.sleep(options.seconds)
                measured = sorted(gaps)  # every open stream's heartbeats in the window
                memory = sum(rss_kib(pid) for pid in worker_pids(process)) - baseline
                results.append((step, len(ready), measured, memory))
                print_row(*results[-1])
            for task in tasks:
                task.cancel()
    listener.close()
    print_verdict(results)


def percentile(values, fraction):
    return values[min(int(len(values) * fraction), len(values) - 1)] if values else float("nan")


def print_row(step, connected, gaps, memory_kib):
    print(
        f"{step:>7} streams ({connected:>5} connected)  heartbeats {len(gaps):>6}  lateness "
        f"p50 {statistics.median(gaps) * 1000 if gaps else float('nan'):7.1f} ms  "
        f"p99 {percentile(gaps, 0.99) * 1000:7.1f} ms  max {max(gaps, default=float('nan')) * 1000:7.1f} ms  "
        f"memory {memory_kib / max(connected, 1):6.1f} KiB/stream",
        flush=True,
    )


def print_verdict(results):
    held = [step for step, connected, gaps, _ in results if connected >= step and percentile(gaps, 0.99) < 1.0]
    best = max(held, default=0)
    verdict = "OK" if best >= 1000 else "UNDER"
    print(f"held with p99 heartbeat lateness under 1 s: {best} streams (target ≥ 1000) -> {verdict}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="250,500,1000,1500", type=lambda v: [int(x) for x in v.split(",")])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--workers", type=int, default=2)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
