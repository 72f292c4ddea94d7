"""Every bench runs at its smoke size (`python -m bench.<name> --smoke`: tiny sizes, the same code
paths, seconds), so a bench that breaks fails the suite instead of waiting for the next person
who measures. Each must exit 0 and print the line that carries its figures or its verdict; the
figures themselves are not judged (a smoke size meets no speed target), except where a wrong
one is a bug at any size: a fault row lost, a check of two machines failed.

Marked `bench`: the Makefile's SQLite pass runs them, the PostgreSQL/Redis pass leaves them out.
bench.two_machines needs PostgreSQL, Redis and HAProxy (or nginx): .ci/run installs HAProxy and
names the servers in BEYOU_BENCH_DATABASE_URL and BEYOU_BENCH_REDIS_URL. The benches of REAL_MODEL
serve SmolLM2-135M here (requirements-realmodel.txt), one model at work at a time with
tests/realmodel; where it is not installed they exit 3, and their test skips, saying why.
"""

import os
import re
import subprocess
import sys
from contextlib import nullcontext

import pytest

from bench.serving import ROOT
from tests.realmodel.serial import model_at_work

pytestmark = pytest.mark.bench

TIMEOUT = 240  # seconds: a smoke run takes a few, more on a loaded 2-core machine
REAL_MODEL = {"local_model_path", "window_estimate"}  # they serve a model: their exit 3 says none is here
REAL_MODEL_TIMEOUT = 900  # seconds: prompts of thousands of tokens read on a loaded 2-core CPU

# Each bench module, and what its smoke run must print; the longest first (the real model's two,
# minutes each, then bench.two_machines, about a minute), so that under `pytest -n` the others
# run beside them rather than after them.
PRINTS = {
    "window_estimate": r"estimate / server: ×[\d.]+( … ×[\d.]+)* \(target",
    "local_model_path": r"first token, app / straight: ×[\d.]+ \(target ≤ ×1\.1\) -> (OK|OVER)",
    "two_machines": r"7 checks in \d+ s: 7 OK, 0 failed",
    "live_channels": r"p99 fan-out \d+ ms over \d+ arrivals \(0 missed\)",
    # a difference of two medians of three runs: below zero when the machine is busy
    "agent_ttft": r"the stack's time \(app less the bare SDK\) / floor at the median: -?[\d.]+ ms, ×-?[\d.]+",
    "check_rate": r"this tree / \w+: ×[\d.]+ wall, ×[\d.]+ CPU",
    "agent_faults": r"\d+ rows: 0 lost, 0 hidden, 0 hanging, 0 with words missing or twice",
    "concurrent_answers": r"the app +: +5 whole",  # every word of every answer, once, in order
    "sse_streams": r"target \(all held, 0 lost, p99 < 1 s, < 100 KB each\): (OK|UNDER)",
    "stream_memory": r"Python heap grown per stream: [\d.]+ KiB",
    "notebook_search": r"target \(search p95 < 50 ms\): (met|MISSED)",
    "notebook_retrieval": r"blended with embeddings: p50 \d+ ms, p95 \d+ ms",
    "pages": r"Target page p95 <= 6x the floor's \(CPU\): GET /dashboard [\d.]+x",
    "agent_eval": r"pass\^1 \(every try of a task\): (\d+)/\1 tasks",  # the fake passes every task
    "chain_overhead": r"gemini \(5 runs each.*\n.*\ntime to first token ms +[\d.]+ +[\d.]+",
    "prompt_budget": r"target: every page's tools <= 10,000 bytes: holds",
}


def servers_for_two_machines():
    return all(
        os.environ.get(f"BEYOU_BENCH_{kind}_URL") or os.environ.get(f"BEYOU_TEST_{kind}_URL")
        for kind in ("DATABASE", "REDIS")
    )


def test_every_bench_has_a_smoke_run():
    # Not benches: the servers' set-up, and the bare routes the benches measure the app against.
    benches = {path.stem for path in (ROOT / "bench").glob("*.py")} - {"__init__", "serving", "floor"}
    assert benches == set(PRINTS)


@pytest.mark.parametrize("name", list(PRINTS))
def test_the_bench_runs_at_its_smoke_size_and_prints_its_figures(name, tmp_path_factory):
    if name == "two_machines" and not servers_for_two_machines():
        pytest.skip("bench.two_machines needs BEYOU_BENCH_DATABASE_URL and BEYOU_BENCH_REDIS_URL")
    with model_at_work(tmp_path_factory) if name in REAL_MODEL else nullcontext():
        done = subprocess.run(
            [sys.executable, "-m", f"bench.{name}", "--smoke"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=REAL_MODEL_TIMEOUT if name in REAL_MODEL else TIMEOUT,
        )
    output = f"{done.stdout}\n--- stderr ---\n{done.stderr[-3000:]}"
    if name in REAL_MODEL and done.returncode == 3:
        pytest.skip(f"bench.{name}: {done.stdout.strip()}")
    assert done.returncode == 0, f"bench.{name} --smoke exited {done.returncode}:\n{output}"
    assert re.search(PRINTS[name], done.stdout), f"bench.{name} --smoke did not print its figures:\n{output}"
