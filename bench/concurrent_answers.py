"""How many answers one worker streams at once, each from a model that sends a token a second.

    .venv/bin/python -m bench.concurrent_answers [--answers 250,1000] [--tokens 15] [--databases sqlite,postgresql]

One gevent worker (the Procfile's line, WEB_CONCURRENCY=1) answers against the scripted wire
fake of the tests (`python -m tests.fakes`, its own process): every turn's model says `--tokens`
words, one a second. All the turns are watched at once, as browsers would; an answer counts
when its stream carried every word and ended `done`. Beside it, in the same run, the floor: as
many bare SSE streams (bench/floor.py) sending a beat a second. Prints, per step, the answers
that streamed cleanly, those that failed or were cut (with why), the p99 gap between two words
against the floor's p99 gap between two beats, and the worker's CPU. Target: ≥ 1,000.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import subprocess
import sys
import tempfile
import time

import requests

from bench.serving import bench_database, cpu_seconds, error_key, free_port, procfile_server, worker_pids
from bench.sse_streams import SECRET, prepare


@contextlib.contextmanager
def wire_fake():
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "tests.fakes", "--port", str(port)],
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


async def read_stream(port, cookie, path, ending, gaps, reasons):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
    except OSError as error:
        reasons[type(error).__name__] += 1
        return
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nCookie: session={cookie}\r\n\r\n".encode())
    last, name = None, None
    try:
        await writer.drain()
        while True:
            line = await reader.readline()
            if not line:
                reasons["closed before its end"] += 1
                return
            if line.startswith(b"event: "):
                name = line[7:].strip().decode()
                if name == "token":
                    now = time.monotonic()
                    if last is not None:
                        gaps.append(now - last)
                    last = now
                elif name == "done":
                    ending.append(name)
                    return
            elif name == "failed" and (key := error_key(line)):  # on one of the bubble's first lines
                ending.append(name)
                reasons[f"failed: {key}"] += 1
                return
    except (OSError, asyncio.IncompleteReadError) as error:
        reasons[type(error).__name__] += 1
    finally:
        writer.close()


async def floor_stream(port, gaps, stop):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /_floor/stream HTTP/1.1\r\nHost: bench\r\n\r\n")
    last = None
    try:
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b": ping"):
                now = time.monotonic()
                if last is not None:
                    gaps.append(now - last)
                last = now
    finally:
        writer.close()


def p99(values):
    values = sorted(values)
    return values[min(int(len(values) * 0.99), len(values) - 1)] if values else float("nan")


async def step(port, process, streams, tokens):
    floor_gaps, stop = [], asyncio.Event()
    floors = [asyncio.create_task(floor_stream(port, floor_gaps, stop)) for _ in range(len(streams))]
    await asyncio.sleep(3)
    endings, gaps, reasons = [], [], collections.Counter()
    pids = worker_pids(process)
    cpu, started = cpu_seconds(pids), time.monotonic()
    readers = []
    for cookie, path in streams:
        readers.append(asyncio.create_task(read_stream(port, cookie, path, endings, gaps, reasons)))
        if len(readers) % 100 == 0:
            await asyncio.sleep(0.05)
    await asyncio.wait(readers, timeout=tokens + 120)
    cpu = (cpu_seconds(pids) - cpu) / (time.monotonic() - started)
    stop.set()
    for task in [*floors, *readers]:
        task.cancel()
    await asyncio.gather(*floors, *readers, return_exceptions=True)
    return endings.count("done"), reasons, gaps, floor_gaps, cpu


async def run(options):
    with tempfile.TemporaryDirectory() as folder, wire_fake() as fake_url:
        for database in options.databases:
            for answers in options.answers:
                database_url = bench_database(database, folder, f"bench_answers_{answers}")
                streams = prepare(database_url, answers)
                requests.post(f"{fake_url}/_fake/reset", timeout=5)
                words = [f"word{n} " for n in range(options.tokens)]
                script = {"mistral": [{"text": words, "pace": 1.0}] * answers}
                requests.post(f"{fake_url}/_fake/script", json=script, timeout=30)
                env = {
                    "BEYOU_ENV": "development",
                    "BEYOU_SECRET_KEY": SECRET,
                    "BEYOU_DATABASE_URL": database_url,
                    "BEYOU_LLM_ORDER": "mistral",
                    "BEYOU_LLM_MISTRAL_API_KEY": "bench",
                    "BEYOU_LLM_MISTRAL_BASE_URL": f"{fake_url}/mistral/v1",
                    "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "120",
                    "BEYOU_LLM_TOTAL_TIMEOUT": "600",
                    "BEYOU_AGENT_TURN_SECONDS": "600",
                    "BEYOU_AGENT_HEARTBEAT_SECONDS": "1",  # the floor beats as often as the model speaks
                    "BEYOU_WORKER_CONNECTIONS": str(2 * answers + 100),
                }
                with procfile_server(env, workers=1, floor=True) as (base_url, process):
                    port = int(base_url.rsplit(":", 1)[1])
                    done, reasons, gaps, floor_gaps, cpu = await step(port, process, streams, options.tokens)
                verdict = "OK" if done == answers else "UNDER"
                print(
                    f"{database:10} {answers:>5} answers at once, {options.tokens} words each at 1/s: "
                    f"{done:>5} streamed cleanly {dict(reasons) or ''}; word gap p99 {p99(gaps):.2f} s vs the "
                    f"floor's beat gap p99 {p99(floor_gaps):.2f} s (×{p99(gaps) / p99(floor_gaps):.2f}); "
                    f"worker CPU {cpu * 100:.0f}% -> {verdict}",
                    flush=True,
                )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", default="250,1000", type=lambda v: [int(x) for x in v.split(",")])
    parser.add_argument("--tokens", type=int, default=15)
    parser.add_argument("--databases", default="sqlite,postgresql", type=lambda v: v.split(","))
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
