"""How many idle live channels (`/live` websockets) the Procfile's server holds, what each costs
in memory, and how long an announcement takes to reach every open channel.

    .venv/bin/python -m bench.live_channels [--channels 10000] [--per-user 5] [--workers 2]
                                            [--rounds 3] [--hold 10] [--smoke]

`--channels` sockets are opened, `--per-user` for each user (tabs and devices of one person),
with signed session cookies (what a browser holds after signing in). Once all are open they are
held idle for `--hold` seconds: the channels still open then are the ones the server holds, and
the workers' resident memory grown since before the first socket, divided by them, is the memory
per channel. Then, `--rounds` times, every user writes at once (`POST /ideas`, a real write, its
commit and its announcement) and every open channel of theirs waits for `domain:ideas`: the delay
of a channel is from just before its user's POST was sent to the message's arrival — the write's
own time included, so an upper bound of the fan-out.

With BEYOU_BENCH_REDIS_URL (or BEYOU_TEST_REDIS_URL) the server runs `--workers` processes that
share Redis pub/sub, as production does; without it, one worker and the in-memory fan-out.
Target: ≥ 10,000 open channels, < 50 KB each, p99 fan-out < 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time

from websockets.asyncio.client import connect

from app import create_app
from app.extensions import db
from app.live import HEARTBEAT, REDIS_CHANNEL
from app.profile import accounts
from app.profile.models import User
from bench.serving import bench_database, procfile_server, rss_kib, worker_pids

SECRET = "bench-secret"
OPEN_AT_ONCE = 50  # sockets opened together: a ramp as pages load, not one SYN flood
WRITES_AT_ONCE = 20  # users writing together in a round


def prepare(database_url, users):
    """Users, each with one sign-in, its session cookie and the CSRF token that goes with it."""
    from flask import g, session
    from flask_wtf.csrf import generate_csrf

    app = create_app("development", SQLALCHEMY_DATABASE_URI=database_url, SECRET_KEY=SECRET, REDIS_URL=None)
    signer = app.session_interface.get_signing_serializer(app)
    people = []
    with app.app_context():
        db.create_all()
        for index in range(users):
            user = User(name=f"Bench {index}", email=f"live{index}@example.com", password_hash="!unusable")
            db.session.add(user)
            db.session.commit()
            accounts.start_session(user)
            with app.test_request_context():
                g.pop("csrf_token", None)  # generate_csrf caches it in the app context's g
                session["_user_id"] = user.get_id()
                session["_fresh"] = False
                token = generate_csrf()
                people.append((signer.dumps(dict(session)), token, str(user.id)))
        db.engine.dispose()
    return people


async def open_channel(base_url, cookie, opened, lost):
    url = base_url.replace("http://", "ws://") + "/live?tab=bench"
    try:
        socket = await connect(
            url, origin=base_url, additional_headers={"Cookie": f"session={cookie}"}, compression=None,
            ping_interval=None, open_timeout=120, max_queue=4,
        )  # fmt: skip
    except Exception:
        lost.append(cookie)
        return None
    opened.append(socket)
    return socket


async def write(port, cookie, token, text):
    """POST /ideas on a raw connection; returns when the answer's headers are read."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = f"text={text}".encode()
    writer.write(
        (
            f"POST /ideas HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: session={cookie}\r\nX-CSRFToken: {token}\r\n"
            f"HX-Request: true\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode()
        + body
    )
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        answer = await reader.read(-1)
        raise RuntimeError(f"a write was refused: {status!r} {answer!r}")
    writer.close()


async def hear(socket, timeout=30):
    """When the socket's next announcement arrived (None: it did not) and what it said. The
    server's heartbeat (every HEARTBEAT_SECONDS on every page) is not one: it is skipped, or a
    round would count it and leave its own message for the next round to find."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            message = await asyncio.wait_for(socket.recv(), max(deadline - time.monotonic(), 0))
            if message != HEARTBEAT:
                return time.monotonic(), message
    except Exception:  # closed, or silent for `timeout`
        return None, None


async def announcement_round(redis_url, people, channels_of):
    """Every user's announcement published at once, as the server publishes one after a commit;
    the delay of each open channel, from its user's publish to the message's arrival."""
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(redis_url)
    channel = REDIS_CHANNEL.format(
        database=client.connection_pool.connection_kwargs.get("db", 0)
    )  # as the app names it
    listening, published = [], {}
    for cookie, _token, user_id in people:
        for socket in channels_of[cookie]:
            listening.append((user_id, asyncio.create_task(hear(socket))))
    await asyncio.sleep(0.1)  # every listener is waiting
    for cookie, _token, user_id in people:
        if channels_of[cookie]:
            message = json.dumps({"user": user_id, "domains": ["ideas"], "origin": None})
            published[user_id] = time.monotonic()
            await client.publish(channel, message)
    await client.aclose()
    return await arrivals(listening, published)


async def write_round(port, people, channels_of, number):
    """Every user writes once (`POST /ideas`); the delay of each of their channels, from just
    before the POST was sent to the message's arrival. A refused write counts its channels as
    missed."""
    delays, missed = [], 0
    gate = asyncio.Semaphore(WRITES_AT_ONCE)

    async def one(cookie, token, _user_id):
        nonlocal missed
        async with gate:
            listening = [asyncio.create_task(hear(socket)) for socket in channels_of[cookie]]
            sent = time.monotonic()
            try:
                await write(port, cookie, token, f"round-{number}")
            except (OSError, RuntimeError):
                for task in listening:
                    task.cancel()
                missed += len(listening)
                return
        for task in listening:
            arrived, message = await task
            if arrived is None or '"ideas"' not in message:
                missed += 1
            else:
                delays.append(arrived - sent)

    await asyncio.gather(*(one(*person) for person in people if channels_of[person[0]]))
    return delays, missed


async def arrivals(listening, started):
    delays, missed = [], 0
    for user_id, task in listening:
        arrived, message = await task
        if arrived is None or '"ideas"' not in message:
            missed += 1
        else:
            delays.append(arrived - started[user_id])
    return delays, missed


def report(label, delays, missed):
    print(
        f"  {label}: {len(delays)} arrivals, {missed} missed, p50 {percentile(delays, 0.5) * 1000:.0f} ms, "
        f"p99 {percentile(delays, 0.99) * 1000:.0f} ms, max {max(delays, default=float('nan')) * 1000:.0f} ms",
        flush=True,
    )


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * fraction), len(ordered) - 1)] if ordered else float("nan")


async def open_all(base_url, cookies, channels_of, opened, lost):
    for index in range(0, len(cookies), OPEN_AT_ONCE):
        batch = cookies[index : index + OPEN_AT_ONCE]
        sockets = await asyncio.gather(*(open_channel(base_url, cookie, opened, lost) for cookie in batch))
        for cookie, socket in zip(batch, sockets, strict=True):
            if socket is not None:
                channels_of[cookie].append(socket)


async def run(options):
    redis_url = os.environ.get("BEYOU_BENCH_REDIS_URL") or os.environ.get("BEYOU_TEST_REDIS_URL")
    workers = options.workers if redis_url else 1
    users = -(-options.channels // options.per_user)
    with tempfile.TemporaryDirectory() as folder:
        database_url = bench_database("sqlite", folder, "live")
        print(f"preparing {users} users …", flush=True)
        people = prepare(database_url, users)
        env = {
            "BEYOU_ENV": "development",
            "BEYOU_SECRET_KEY": SECRET,
            "BEYOU_DATABASE_URL": database_url,
            "BEYOU_WORKER_CONNECTIONS": str(options.channels + 1000),
        }
        if redis_url:
            env["BEYOU_REDIS_URL"] = redis_url
        with procfile_server(env, workers=workers) as (base_url, process):
            port = int(base_url.rsplit(":", 1)[1])
            pids = worker_pids(process)
            opened, lost = [], []
            channels_of = {cookie: [] for cookie, _token, _user_id in people}
            wanted = [cookie for cookie, _token, _user_id in people for _ in range(options.per_user)]
            wanted = wanted[: options.channels]
            # A first tenth opened before measuring: the workers' first sockets warm caches and
            # allocators once; what each further channel costs is what grows after them.
            warm = max(len(wanted) // 10, 1)
            await open_all(base_url, wanted[:warm], channels_of, opened, lost)
            await asyncio.sleep(2)
            before, warm_open = sum(rss_kib(pid) for pid in pids), len(opened)
            started = time.monotonic()
            await open_all(base_url, wanted[warm:], channels_of, opened, lost)
            ramp = time.monotonic() - started
            await asyncio.sleep(options.hold)
            held = sum(1 for socket in opened if socket.close_code is None)
            after = sum(rss_kib(pid) for pid in pids)
            kib_each = (after - before) / max(len(opened) - warm_open, 1)
            print(
                f"\n{held} of {len(wanted)} channels open after {options.hold:g} s idle ({len(lost)} refused), "
                f"{len(pids)} worker(s), {'Redis pub/sub' if redis_url else 'in memory'}; "
                f"{len(wanted) - warm} opened in {ramp:.0f} s after {warm} to warm up"
            )
            print(f"  memory: {kib_each:.1f} KiB per channel (workers' RSS {before:,} → {after:,} KiB)")
            all_delays, all_missed = [], 0
            for number in range(options.rounds):
                if redis_url:
                    delays, missed = await announcement_round(redis_url, people, channels_of)
                    report(f"announcement round {number + 1}, fan-out", delays, missed)
                    all_delays += delays
                    all_missed += missed
                delays, missed = await write_round(port, people, channels_of, number)
                report(f"write round {number + 1}, POST → arrival", delays, missed)
                if not redis_url:
                    all_delays += delays
                    all_missed += missed
            p99 = percentile(all_delays, 0.99)
            print(f"  p99 fan-out {p99 * 1000:.0f} ms over {len(all_delays)} arrivals ({all_missed} missed)")
            met = held >= 10_000 and kib_each * 1.024 < 50 and p99 < 1.0 and all_missed == 0
            print(f"  target (≥ 10,000 open, < 50 KB each, p99 < 1 s): {'OK' if met else 'UNDER'}", flush=True)
            await asyncio.gather(*(socket.close() for socket in opened), return_exceptions=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=10_000)
    parser.add_argument("--per-user", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hold", type=float, default=10)
    parser.add_argument("--smoke", action="store_true", help="what CI runs: tiny sizes, the same code paths")
    options = parser.parse_args()
    if options.smoke:
        options.channels, options.rounds, options.hold = 20, 1, 1
    asyncio.run(run(options))


if __name__ == "__main__":
    main()
