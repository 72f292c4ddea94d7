"""The daily check's rate on this tree beside an older commit's, measured in the same run.

    .venv/bin/python -m bench.check_rate [--before 5447c1e] [--runs 100] [--rounds 3] [--warmup 10] [--smoke]

Issue 17 asks for "≥ 4× today's checks/s in the same run", today being the code it was filed
against (5447c1e, main before the check was rewritten). Absolute rates swing with the shared
machine's load, so both versions are measured side by side: the older commit is extracted with
`git archive` into a temporary folder (the repository is only read), and each tree runs in a
process of its own, with its own heavy account built by its own `bench/pages.py` in a fresh
SQLite file. The parent then asks the two processes in turn for a round of `--runs` check
toggles (the htmx POST the routines page sends, check and uncheck alternating, after the
warm-up), so that both see the same load minute by minute. Each round reports the toggle's
median wall and CPU time (`time.process_time`); the rates are 1,000 / median, and the verdict
compares this tree's CPU rate with the older one's.

The measuring half of this file (`serve`) is copied into the extracted tree and run there, so
both sides time the check with the same code. `--smoke` (what CI runs) gives both sides
bench.pages' small account (`pages.SMOKE`'s shape) and one round of a few toggles.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

BASELINE = "5447c1e"  # main when issue 17 was filed: 61 statements per check
TARGET = 4.0
EMAIL = "heavy@bench.example.com"
ROOT = Path(__file__).resolve().parent.parent


def serve(warmup, shape):
    """In a tree's own process: build the account (`shape`: bench.pages.Shape's fields, {} for
    the heavy one), sign in, warm up, then answer each "<runs>" line on stdin with one JSON line
    of timings."""
    from app.extensions import db
    from bench import pages

    with tempfile.TemporaryDirectory(prefix="beyou-check-rate-") as folder:
        app = pages.bench_app(f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        with app.app_context():
            user_id = pages.build(EMAIL, pages.Shape(**shape))
        client = pages.signed_in_client(app, EMAIL)
        method, url, options = pages.requests_for(pages.first_entry_today(app, user_id))["POST check toggle"]
        for _ in range(warmup):
            pages.send(client, method, url, options)
        try:
            from app import freeze_startup_objects  # as its server workers do, where the tree has it
        except ImportError:
            pass
        else:
            freeze_startup_objects()
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            wall, cpu = [], []
            for _ in range(int(line)):
                began, began_cpu = time.perf_counter(), time.process_time()
                pages.send(client, method, url, options)
                wall.append((time.perf_counter() - began) * 1000)
                cpu.append((time.process_time() - began_cpu) * 1000)
            print(json.dumps({"wall": statistics.median(wall), "cpu": statistics.median(cpu)}), flush=True)
        with app.app_context():
            db.engine.dispose()


class Side:
    """One tree's measuring process, building its account as soon as it starts."""

    def __init__(self, label, tree, warmup, shape):
        self.label, self.rounds = label, []
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.check_rate",
                "--serve",
                "--warmup",
                str(warmup),
                "--shape",
                json.dumps(shape),
            ],
            cwd=tree,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def ready(self):
        self._answer()

    def _answer(self):
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"{self.label}: the measuring process ended early")
        return json.loads(line)

    def round(self, runs):
        self.process.stdin.write(f"{runs}\n")
        self.process.stdin.flush()
        self.rounds.append(self._answer())
        return self.rounds[-1]

    def median(self, key):
        return statistics.median(figures[key] for figures in self.rounds)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def extract(commit, folder):
    """The tree at `commit`, unpacked into `folder` (read from the repository, nothing written to it)."""
    archive = Path(folder) / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(Path(folder) / "tree", filter="data")
    shutil.copy(Path(__file__), Path(folder) / "tree" / "bench" / "check_rate.py")
    return Path(folder) / "tree"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BASELINE, help="the older commit (default: issue 17's main)")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="what CI runs: a small account, one round of a few")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--shape", type=json.loads, default={}, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.warmup, args.shape)
        return
    if args.smoke:
        from bench.pages import SMOKE

        args.runs, args.rounds, args.warmup, args.shape = 5, 1, 1, dataclasses.asdict(SMOKE)

    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.before], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="beyou-check-rate-") as folder:
        print(
            f"Building the {'small' if args.smoke else 'heavy'} account in each tree ({commit} and this one)...",
            flush=True,
        )
        sides = [
            Side(label, tree, args.warmup, args.shape)
            for label, tree in ((commit, extract(commit, folder)), ("this tree", ROOT))
        ]
        try:
            for side in sides:  # both built at once, then measured in turn
                side.ready()
            print(f"\n{'round':<7}" + "".join(f"{side.label + ' wall / CPU ms':>34}" for side in sides))
            for number in range(1, args.rounds + 1):
                figures = [side.round(args.runs) for side in sides]
                print(f"{number:<7}" + "".join(f"{f['wall']:>24.1f} / {f['cpu']:>7.1f}" for f in figures), flush=True)
        finally:
            for side in sides:
                side.close()
    before, now = sides
    print(f"\n{'checks/s (1,000 / median)':<28}{'wall':>10}{'CPU':>10}   ({args.rounds} rounds of {args.runs} toggles)")
    for side in sides:
        print(f"{side.label:<28}{1000 / side.median('wall'):>10.1f}{1000 / side.median('cpu'):>10.1f}")
    wall_ratio = before.median("wall") / now.median("wall")
    cpu_ratio = before.median("cpu") / now.median("cpu")
    verdict = "met" if cpu_ratio >= TARGET else "NOT met"
    print(f"this tree / {commit}: ×{wall_ratio:.2f} wall, ×{cpu_ratio:.2f} CPU (target ≥ ×{TARGET:.0f}: {verdict})")


if __name__ == "__main__":
    main()
