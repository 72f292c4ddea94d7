"""How many answers one worker streams at once at a real model's pace, and what each relayed chunk
costs it beside a lean relay's.

    .venv/bin/python -m bench.concurrent_answers [--answers 10,50,200,400] [--pace 50] [--tokens 250]
        [--databases sqlite,postgresql] [--rounds 3] [--redis URL --workers 2] [--smoke]

The Procfile's gevent workers (one, unless `--workers`) answer against the scripted wire fake of
the tests (`python -m tests.fakes --gevent`, its own process): every turn's model says `--tokens`
words, `--pace` chunks a second. All the turns are watched at once, as browsers would; an answer
counts when its stream carried every word, in order, once, and ended `done`.

Beside it, in the same run and on the same server, the lean relay (bench/floor.py): as many
streams of the same fake, read by the same `openai` call and the app's own line parsing, one SSE
write per chunk, nothing else. Prints, per step and for both: the answers delivered whole, the
p99 gap between two `token` events at a watcher (over the step, and once every answer was
streaming: the verdict's), the worker CPU per relayed chunk (µs; the idle worker's own CPU over
the same time left out) and the ratio of the app's to the lean relay's. Each step runs `--rounds`
rounds of both sides on the same server, the app first every other round; its verdict takes the
median round's figures, since a shared machine's speed moves between two runs of the same side.

Targets (issue 34): ≥ 400 answers per worker at 50 chunks/s with p99 gap ≤ 100 ms (≥ 300 per
worker with Redis and two workers); CPU per chunk ≤ 1.5× the lean relay's at 10, 50 and 200.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import requests

from bench.serving import bench_database, cpu_seconds, error_key, free_port, procfile_server, worker_pids
from bench.sse_streams import SECRET, prepare

TOKEN_EVENT = b"event: token"
END_OF_BODY = b"\r\n0\r\n\r\n"  # the last chunk of a chunked body


@contextlib.contextmanager
def wire_fake():
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "tests.fakes", "--gevent", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with contextlib.suppress(requests.RequestException):
            requests.get(url + "/_fake/requests", timeout=1)
            break
        time.sleep(0.2)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class Side:
    """What one side's watchers saw in one step."""

    name: str
    whole: int = 0
    gaps: list = field(default_factory=list)  # (when it ended, the gap) for every two `token` events
    streaming_at: float = 0.0  # when the last answer's first text arrived: every answer streams from then
    why: dict = field(default_factory=dict)
    cpu_seconds: float = 0.0
    seconds: float = 0.0  # from the first stream's opening to the last one's end
    chunks: int = 0

    def fail(self, reason):
        self.why[reason] = self.why.get(reason, 0) + 1

    def gap_p99(self, steady=False):
        """The p99 gap: over the whole step, or (`steady`) once every answer was streaming — the
        answers' starts (claims, prompts) all fall in the first second, which real arrivals spread."""
        return p99([gap for at, gap in self.gaps if not steady or at > self.streaming_at])

    @property
    def per_chunk_us(self):
        return self.cpu_seconds / self.chunks * 1e6 if self.chunks else float("nan")


async def watch(port, cookie, path, words, side):
    """Reads one stream as raw bytes (a parser per line would cost this process more than the
    server it measures), notes when each read brought a `token` event, then checks the words."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
    except OSError as error:
        side.fail(type(error).__name__)
        return
    cookie_header = f"Cookie: session={cookie}\r\n" if cookie else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n{cookie_header}\r\n".encode())
    body, last, tail = bytearray(), None, b""
    try:
        await writer.drain()
        while not body.endswith(END_OF_BODY):
            piece = await reader.read(65536)
            if not piece:
                side.fail("closed before its end")
                return
            body += piece
            if TOKEN_EVENT in tail + piece:
                now = time.monotonic()
                if last is not None:
                    side.gaps.append((now, now - last))
                else:
                    side.streaming_at = max(side.streaming_at, now)
                last = now
            tail = piece[-16:]
    except (OSError, asyncio.IncompleteReadError) as error:
        side.fail(type(error).__name__)
        return
    finally:
        writer.close()
    said = _said(bytes(body))
    if said is None:
        side.fail(f"failed: {error_key(bytes(body)) or 'unknown'}")
    elif said != words:
        side.fail("words missing or twice")
    else:
        side.whole += 1


def _said(body):
    """The words of the stream's `token` events in order, or None when it did not end `done`.
    The body is HTTP/1.1 chunked: each chunk is whole events (one `yield` of the server)."""
    _head, _, chunked = body.partition(b"\r\n\r\n")
    text, rest = bytearray(), chunked
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        length = int(size, 16) if size.strip() else 0
        if not length:
            break
        text += rest[:length]
        rest = rest[length + 2 :]
    events = bytes(text).split(b"\n\n")
    if not any(event.startswith((b"event: done", b"id:")) and b"event: done" in event for event in events):
        return None
    said = []
    for event in events:
        if TOKEN_EVENT in event:
            data = b"\n".join(line[6:] for line in event.split(b"\n") if line.startswith(b"data: "))
            said += data.decode().split()
    return said


def p99(values):
    values = sorted(values)
    return values[min(int(len(values) * 0.99), len(values) - 1)] if values else float("nan")


async def idle_cpu(process, seconds=3.0):
    """The workers' CPU a second with nothing streaming (their own beats and sweeps), which each
    side's figure leaves out: it is there whatever the answers."""
    pids = worker_pids(process)
    cpu, started = cpu_seconds(pids), time.monotonic()
    await asyncio.sleep(seconds)
    return (cpu_seconds(pids) - cpu) / (time.monotonic() - started)


async def measure(port, process, side, streams, words, idle=0.0):
    """Opens every stream (a hundred at a time, as a crowd's browsers would) and waits for them."""
    pids = worker_pids(process)
    cpu, started = cpu_seconds(pids), time.monotonic()
    watchers = []
    for cookie, path in streams:
        watchers.append(asyncio.create_task(watch(port, cookie, path, words, side)))
        if len(watchers) % 100 == 0:
            await asyncio.sleep(0.05)
    _finished, pending = await asyncio.wait(watchers, timeout=len(words) / 5 + 120)
    side.seconds = time.monotonic() - started
    for task in pending:
        task.cancel()
        side.fail("still streaming at the step's end")
    side.cpu_seconds = cpu_seconds(pids) - cpu - idle * (time.monotonic() - started)
    side.chunks = len(streams) * len(words)
    return side


def script(fake_url, provider, answers, words, pace):
    requests.post(f"{fake_url}/_fake/reset", timeout=5)
    body = {provider: [{"text": [word + " " for word in words], "pace": 1 / pace}] * answers}
    requests.post(f"{fake_url}/_fake/script", json=body, timeout=60)


def server_env(database_url, fake_url, answers, options):
    env = {
        "BEYOU_ENV": "development",
        "BEYOU_SECRET_KEY": SECRET,
        "BEYOU_DATABASE_URL": database_url,
        "BEYOU_LLM_ORDER": "mistral",
        "BEYOU_LLM_MISTRAL_API_KEY": "bench",
        "BEYOU_LLM_MISTRAL_BASE_URL": f"{fake_url}/mistral/v1",
        "BENCH_LEAN_BASE_URL": f"{fake_url}/lean/v1",
        "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "120",
        "BEYOU_LLM_TOTAL_TIMEOUT": "600",
        "BEYOU_AGENT_TURN_SECONDS": "600",
        "BEYOU_AGENT_HOURLY_BUDGET": str(10 * answers),
        "BEYOU_WORKER_CONNECTIONS": str(2 * answers + 100),
    }
    if options.redis:
        env["BEYOU_REDIS_URL"] = options.redis
    return env


async def step(options, fake_url, folder, database, answers):
    words = [f"w{n}" for n in range(options.tokens)]
    database_url = bench_database(database, folder, f"bench_answers_{answers}")
    *streams, warm_up = prepare(database_url, answers * options.rounds + 1)
    env = server_env(database_url, fake_url, answers, options)
    rounds = []
    with procfile_server(env, workers=options.workers, floor=True) as (base_url, process):
        port = int(base_url.rsplit(":", 1)[1])
        # One of each first, so neither side's figures carry its first call's imports and clients.
        script(fake_url, "lean", 1, words[:5], options.pace)
        await measure(port, process, Side("warm-up"), [(None, "/_floor/relay/0")], words[:5])
        script(fake_url, "mistral", 1, words[:5], options.pace)
        await measure(port, process, Side("warm-up"), [warm_up], words[:5])
        idle = await idle_cpu(process)
        for number in range(options.rounds):
            lean, app = Side("lean relay"), Side("the app")
            turns = streams[number * answers : (number + 1) * answers]
            sides = [side for side, key in ((lean, "lean"), (app, "app")) if key in options.sides]
            # Every other round the app goes first: a machine whose speed drifts over the step
            # favours neither side.
            for side in sides if number % 2 == 0 else reversed(sides):
                if side is lean:
                    script(fake_url, "lean", answers, words, options.pace)
                    relays = [(None, f"/_floor/relay/{n}") for n in range(answers)]
                    await measure(port, process, lean, relays, words, idle)
                else:
                    script(fake_url, "mistral", answers, words, options.pace)
                    await measure(port, process, app, turns, words, idle)
            rounds.append((lean, app))
    per_worker = answers / options.workers
    ratios = []
    for number, (lean, app) in enumerate(rounds, 1):
        # A smoke run's CPU may count no tick of the kernel's (10 ms) on the lean side.
        ratios.append(app.per_chunk_us / lean.per_chunk_us if lean.per_chunk_us > 0 else float("nan"))
        for side in (lean, app):
            if not side.chunks:
                continue
            print(
                f"{database:10} {answers:>4} answers ({per_worker:g}/worker) at {options.pace:g} chunks/s, "
                f"{options.tokens} each, round {number} — {side.name:10}: {side.whole:>4} whole {side.why or ''}; "
                f"gap p99 {side.gap_p99() * 1000:4.0f} ms, {side.gap_p99(steady=True) * 1000:4.0f} ms once all "
                f"stream; all ended in {side.seconds:4.1f} s (the model's pace alone: "
                f"{options.tokens / options.pace:g} s); CPU {side.per_chunk_us:5.1f} µs/chunk",
                flush=True,
            )
    apps = [app for _lean, app in rounds]
    ratio, gap = median(ratios), median([app.gap_p99(steady=True) for app in apps])
    met = all(app.whole == answers for app in apps) and gap <= 0.1 and not ratio > 1.5  # a smoke run's nan passes
    each = ", ".join(f"×{value:.2f}" for value in ratios)
    verdict = "OK" if met else "UNDER"
    print(f"{database:10} {answers:>4} answers: CPU per chunk ×{ratio:.2f} the lean relay's, the median of "
          f"{len(ratios)} round(s) ({each}); the app's gap p99 once all stream {gap * 1000:.0f} ms (median); "
          f"idle worker {idle * 100:.1f}% of a core, left out of both -> {verdict}", flush=True)  # fmt: skip


def median(values):
    """The middle value; nan when there is none, or when any is nan (a side that did not run)."""
    return statistics.median(values) if values and not any(math.isnan(value) for value in values) else math.nan


async def run(options):
    with tempfile.TemporaryDirectory() as folder, wire_fake() as fake_url:
        for database in options.databases:
            for answers in options.answers:
                await step(options, fake_url, folder, database, answers)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    numbers = lambda v: [int(x) for x in v.split(",")]  # noqa: E731
    parser.add_argument("--answers", default="10,50,200,400", type=numbers)
    parser.add_argument("--pace", type=float, default=50.0, help="chunks a second per answer")
    parser.add_argument("--tokens", type=int, default=250)
    parser.add_argument("--databases", default="sqlite,postgresql", type=lambda v: v.split(","))
    parser.add_argument("--redis", help="a Redis URL: the turn log, stream slots and limits in Redis")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sides", default="lean,app", help="which to run: lean, app or both (to profile one)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both sides per step; the median decides")
    parser.add_argument("--smoke", action="store_true", help="a few answers, a few seconds (CI)")
    options = parser.parse_args()
    if options.smoke:
        options.answers, options.tokens, options.databases, options.rounds = [5], 40, ["sqlite"], 1
    asyncio.run(run(options))


if __name__ == "__main__":
    main()
