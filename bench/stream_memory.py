"""What each open assistant stream holds in Python memory, by owner, on a gevent-patched process.

    .venv/bin/python -m bench.stream_memory [--streams 200] [--resident] [--smoke]

Every stream is a claimed turn whose model never answers (`bench.sse_streams`' silent provider
and prepared turns), watched through the Flask test client with gevent's monkey patching, as a
worker holds it. A few streams are opened first (they warm the allocators and caches once);
tracemalloc then compares the heap before and after `--streams` more, and prints the growth per
stream, grouped by who holds it: the system prompt, the request's JSON body, the turn's
SQLAlchemy rows, the greenlets and queues, httpx, the SDK, the chain, the watcher's request.
With `--resident`, no tracemalloc: the process's resident memory grown per stream instead. The
streams open one after the other, so both are the steady state; `bench.sse_streams`' resident
memory per stream also keeps the high-water mark of thousands of turns starting at once.
"""

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import gc  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

from app import create_app  # noqa: E402
from bench.serving import free_port, rss_kib  # noqa: E402
from bench.sse_streams import SECRET, prepare, silent_provider  # noqa: E402

WARM = 6

OWNERS = [  # (label, where the allocation was made: a path fragment of the innermost frame or of any frame)
    ("the system prompt (one string)", "inner", "jinja2/"),
    ("the request's JSON body (bytes)", "inner", "openai/_utils/_json.py"),
    ("the turn's SQLAlchemy rows and session", "any", "sqlalchemy/"),
    ("greenlets, their saved stacks, locks and queues", "inner", ("gevent/", "threading.py", "queue.py")),
    ("httpx / httpcore (request, connection)", "any", ("httpx2/", "httpcore2/")),
    ("the openai SDK (params, transformed copies)", "any", "openai/"),
    ("the watcher's request (Flask, werkzeug)", "any", ("werkzeug/", "flask/")),
]


def owner(traceback):
    frames = [frame.filename for frame in traceback]
    for label, where, fragments in OWNERS:
        fragments = fragments if isinstance(fragments, tuple) else (fragments,)
        looked = frames[-1:] if where == "inner" else frames
        if any(fragment in filename for filename in looked for fragment in fragments):
            return label
    app_frames = [filename.split("/app/", 1)[1] for filename in frames if "/app/" in filename]
    return f"app/{app_frames[-1]}" if app_frames else "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument(
        "--resident",
        action="store_true",
        help="only the resident memory grown per stream, without tracemalloc (its records weigh more)",
    )
    parser.add_argument("--smoke", action="store_true", help="a few streams (CI)")
    options = parser.parse_args()
    if options.smoke:
        options.streams = 10
    streams, tracing = options.streams, not options.resident
    with tempfile.TemporaryDirectory() as folder:
        database_url = f"sqlite:///{folder}/streams.sqlite3"
        watches = prepare(database_url, streams + WARM)
        port = free_port()
        listener, held = silent_provider(port)
        app = create_app(
            "development", SQLALCHEMY_DATABASE_URI=database_url, SECRET_KEY=SECRET, AGENT_TURN_SECONDS=3600,
            AGENT_HEARTBEAT_SECONDS=30,
            LLM_ENV={"BEYOU_LLM_ORDER": "local", "BEYOU_LLM_LOCAL_BASE_URL": f"http://127.0.0.1:{port}/v1",
                     "BEYOU_LLM_LOCAL_MODEL": "silent", "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "3600",
                     "BEYOU_LLM_TOTAL_TIMEOUT": "3600"},
        )  # fmt: skip
        cookie_name = app.config["SESSION_COOKIE_NAME"]
        opened = []

        def open_stream(cookie, path):
            client = app.test_client()
            client.set_cookie(cookie_name, cookie)
            response = client.get(path, buffered=False)
            chunks = iter(response.response)
            next(chunks)  # ": connected": the turn is claimed and its runner started
            opened.append((client, response, chunks))

        def wait_for_models(count):
            deadline = time.monotonic() + 120
            while len(held) < count and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)  # every runner past its request, waiting on the silent model
            if len(held) < count:
                raise SystemExit(f"only {len(held)} of {count} turns reached their model")

        for cookie, path in watches[:WARM]:
            open_stream(cookie, path)
        wait_for_models(WARM)
        gc.collect()
        if tracing:
            tracemalloc.start(25)
            before = tracemalloc.take_snapshot()
        resident_before = rss_kib(os.getpid())
        for cookie, path in watches[WARM:]:
            open_stream(cookie, path)
        wait_for_models(streams + WARM)
        gc.collect()
        resident_grown = rss_kib(os.getpid()) - resident_before
        listener.close()
        if not tracing:
            print(f"{streams} assistant streams open: resident memory grown {resident_grown / streams:.1f} KiB each")
            return
        after = tracemalloc.take_snapshot()

    grown = after.compare_to(before, "traceback")
    by_owner = {}
    for stat in grown:
        label = owner(stat.traceback)
        by_owner[label] = by_owner.get(label, 0) + stat.size_diff
    total = sum(by_owner.values())
    print(f"{streams} assistant streams open, each a claimed turn waiting on a silent model")
    print(f"Python heap grown per stream: {total / streams / 1024:.1f} KiB")
    for label, size in sorted(by_owner.items(), key=lambda item: -item[1]):
        if size / streams >= 100:
            print(f"  {size / streams / 1024:7.1f} KiB  {label}")


if __name__ == "__main__":
    main()
