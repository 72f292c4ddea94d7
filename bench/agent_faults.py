"""The fault table of issue 8: every way a provider, a worker or the database can fail a turn,
tried from outside against the server the Procfile runs, with what the user ends up with.

    .venv/bin/python -m bench.agent_faults [--only keepalive-only] [--skip-special] [--smoke]

The app runs as the Procfile's `web:` line (gunicorn, one gevent worker) on a SQLite file in a
temporary folder; the fake providers run as their own process (`python -m tests.fakes`),
scripted over HTTP for each row. Every row is a fresh chat: "please make a task PD-<row>" is
sent, the turn's SSE stream is read like a browser would (bounded in time), then the chat is
reloaded and the database looked at. Faults × phases × chains:

- faults: 429, 500, hang (open, not a byte), reset, an error inside a 200, garbage, keep-alive
  comments only, silent before the first byte;
- phases: before the first token, mid-text (after two text chunks), after a tool ran (the first
  round creates the task, the next round fails before its first token);
- chains: one link (mistral), two links (mistral, then gemini).

(A status code cannot come mid-text: there 429 and 500 are error events with that code inside the
200. Silence before the first byte has no mid-text row: after text, silence is "hang".)

Then the special rows: a Mistral reasoning model's stream, whose content comes as typed `thinking`
and `text` pieces around a tool round (the answer must be the text alone, no thinking sent back
to the model, the chat must open again); the worker killed mid-turn (SIGTERM, SIGKILL), the
server restarted and the turn watched again with `Last-Event-ID: 5`; the database locked
(`BEGIN IMMEDIATE` from another connection) while the turn ends; and, with the turn log and live
channel in a Redis of the bench's own, that Redis restarted (2 s down) mid-answer, the watcher
reconnecting from its last id as a browser's EventSource does (it must see every word once).

`--smoke` (what CI runs) is a 500 in every phase on one link and the typed-content row: one server.

A row is LOST when the user's text is neither in the chat nor handed back to the composer,
HIDDEN when the task exists and the chat does not show the tool that made it, HANGING when the
turn has no ending within the row's bound. The last lines count them.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import requests

from app import create_app
from app.assistant.models.chats import Turn
from app.extensions import db
from app.profile import accounts
from app.tasks.models import Task
from bench.agent_ttft import signed_in_client
from bench.serving import ROOT, free_port, web_command

ROW_SECONDS = 20  # a turn with no ending by then is hanging
SETTLE_SECONDS = 15  # a turn told "not saved" may still save: it must stop running by then
LEASE_SECONDS = 30  # the production lease: a killed worker's turn must end within a minute
BUDGETS = {
    "BEYOU_LLM_CONNECT_TIMEOUT": "2",
    "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "2",
    "BEYOU_LLM_IDLE_TIMEOUT": "2",
    "BEYOU_LLM_TOTAL_TIMEOUT": "10",
    "BEYOU_LLM_COOLDOWN_RATE_LIMIT": "0.001",  # every row starts with rested links
    "BEYOU_LLM_COOLDOWN_ERROR": "0.001",
    "BEYOU_AGENT_TURN_SECONDS": "15",
    "BEYOU_AGENT_HEARTBEAT_SECONDS": "1",
}
TEXT = ["Here is ", "the start", " and the rest."]
LONG = 60  # a stall the chain must cut: far past every budget and the row's bound

CREATES_TASK = {"tool_calls": [{"name": "createUserTask", "arguments": {"name": "PD-row", "importance": 2,
                                                                     "difficulty": 1}}]}  # fmt: skip

FAULTS = ("429", "500", "hang", "reset", "error-in-200", "garbage", "keepalive-only", "silent-before-first-byte")
PHASES = ("before first token", "mid-text", "after a tool ran")
CHAINS = {"one link": "mistral", "two links": "mistral,gemini"}


def faulty_reply(fault, after):
    """The reply that breaks after `after` text chunks (0: before the first token)."""
    never = {"text": TEXT if after else ["never"]}
    if fault in ("429", "500"):
        if not after:
            return {"status": int(fault)}
        return {**never, "error_after": after, "error_code": int(fault)}  # a status cannot come mid-text
    return {
        "hang": {**never, "stall_after": after, "stall_for": LONG},
        "reset": {**never, "cut_after": after},
        "error-in-200": {**never, "error_after": after},
        "garbage": {**never, "garbage_after": after},
        "keepalive-only": {**never, "stall_after": after, "stall_for": LONG, "keepalive_every": 0.5},
        "silent-before-first-byte": {**never, "first_byte_delay": LONG},
    }[fault]


def script_for(fault, phase, order):
    """The fake's replies for a row; `PD-row` becomes the row's task name."""
    if phase == "before first token":
        mistral = [faulty_reply(fault, 0)]
    elif phase == "mid-text":
        mistral = [faulty_reply(fault, 2)]
    else:
        mistral = [CREATES_TASK, faulty_reply(fault, 0)]
    script = {"mistral": mistral}
    if "," in order:
        script["gemini"] = [{"text": ["Done", ", as you asked."]}]
    return script


@dataclass
class Row:
    fault: str
    phase: str
    chain: str
    ended: str = "-"
    shows: str = "-"
    effect: str = "-"
    calls: str = "-"
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def verdict(self):
        return " ".join(self.problems) or "ok"


class FakeProcess:
    """`python -m tests.fakes` on a free port, scripted over HTTP."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes", "--port", str(self.port)], cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while True:
            with contextlib.suppress(requests.RequestException):
                requests.post(self.url + "/_fake/reset", timeout=1)
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the fake providers did not start")
            time.sleep(0.1)

    def script(self, script):
        requests.post(self.url + "/_fake/reset", timeout=5)
        requests.post(self.url + "/_fake/script", json=script, timeout=5)

    def requests(self):
        return requests.post(self.url + "/_fake/requests", timeout=5).json()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class WebServer:
    """The Procfile's web process, which a row may kill and start again on the same port."""

    def __init__(self, env):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env
        self.process = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (the server writes to it for its whole life)

    def start(self):
        command = web_command().replace("0.0.0.0", "127.0.0.1")
        environment = {**os.environ, **self.env, "PORT": str(self.port), "WEB_CONCURRENCY": "1",
                       "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}  # fmt: skip
        self.process = subprocess.Popen(["sh", "-c", f"exec {command}"], cwd=ROOT, env=environment,
                                        start_new_session=True, stdout=subprocess.DEVNULL, stderr=self.log)  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(self.url + "/healthz", timeout=2).ok:
                    return
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.log.seek(0)
                raise RuntimeError("the web process did not start:\n" + self.log.read().decode()[-3000:])
            time.sleep(0.2)

    def signal(self, signum, seconds):
        """Sends `signum` to the master; kills the whole group if it is not gone within `seconds`."""
        os.kill(self.process.pid, signum)
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            return False
        with contextlib.suppress(ProcessLookupError):  # workers a killed master left behind
            os.killpg(self.process.pid, signal.SIGKILL)
        return True

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.signal(signal.SIGTERM, 30)


class Stream:
    """A turn's SSE stream read like a browser: events as dicts, comments skipped, bounded."""

    def __init__(self, client, turn_id, last_event_id=None):
        headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
        self.response = client.get(f"/ai/agent/turns/{turn_id}/stream", headers=headers, stream=True,
                                   timeout=(5, ROW_SECONDS))  # fmt: skip
        self.lines = self.response.iter_lines(decode_unicode=True)
        self.events = []
        self.broken = False

    def read(self, until=None, seconds=ROW_SECONDS):
        """Reads until a terminal event, `until` events, or `seconds`; returns the terminal event."""
        deadline = time.monotonic() + seconds
        event = {}
        try:
            for line in self.lines:
                if line.startswith("event: "):
                    event["name"] = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    event["data"] = event.get("data", "") + line.removeprefix("data: ") + "\n"
                elif line.startswith("id: "):
                    event["id"] = int(line.removeprefix("id: "))
                elif not line and event:
                    self.events.append(event)
                    if event["name"] in ("done", "failed"):
                        return event
                    event = {}
                    if until is not None and len(self.events) >= until:
                        return None
                if time.monotonic() > deadline:
                    return None
        except requests.RequestException:
            self.broken = True
        return None

    def close(self):
        self.response.close()


class Bench:
    def __init__(self, folder):
        self.database = Path(folder) / "faults.sqlite3"
        self.fake = FakeProcess()
        self.env = {
            "BEYOU_ENV": "development",
            "BEYOU_DATABASE_URL": f"sqlite:///{self.database}",
            "BEYOU_AGENT_RATE_LIMIT": "100000 per hour",
            "BEYOU_AUTH_IP_LIMIT": "1000 per minute",
            **BUDGETS,
        }
        for name, protocol_path in (("mistral", "/mistral/v1"), ("gemini", "/gemini")):
            self.env[f"BEYOU_LLM_{name.upper()}_API_KEY"] = "bench"
            self.env[f"BEYOU_LLM_{name.upper()}_BASE_URL"] = self.fake.url + protocol_path
        self.app = create_app("development", SQLALCHEMY_DATABASE_URI=self.env["BEYOU_DATABASE_URL"],
                              LLM_ENV={**self.env, "BEYOU_LLM_ORDER": "mistral"})  # fmt: skip
        with self.app.app_context():
            db.create_all()
            accounts.register(name="Bench", email="bench@example.com", password="bench password 1")
        self.servers = {}
        self.numbers = itertools.count(1)

    def server(self, order):
        if order not in self.servers:
            self.servers[order] = WebServer({**self.env, "BEYOU_LLM_ORDER": order})
            self.servers[order].start()
        return self.servers[order]

    def close(self):
        for server in self.servers.values():
            server.stop()
        self.fake.stop()

    # -- one turn ----------------------------------------------------------------------------

    def begin(self, server, script):
        number = next(self.numbers)
        task_name = f"PD-{number}"
        client = signed_in_client(server.url)
        chat_id = re.search(r'data-chat-id="([^"]+)"', client.post("/ai/agent/chats").text).group(1)
        self.fake.script(json.loads(json.dumps(script).replace("PD-row", task_name)))
        text = f"please make a task {task_name}"
        posted = client.post(f"/ai/agent/chats/{chat_id}/messages", data={"message": text, "page": "/tasks"})
        turn_id = re.search(r'id="turn-([0-9a-f-]{36})"', posted.text).group(1)
        return client, chat_id, turn_id, text, task_name

    def judge(self, row, client, chat_id, turn_id, text, task_name, ending, stream):
        """What the user ends up with: how the turn ended, what the chat shows, the task."""
        calls = [r["provider"] for r in self.fake.requests()]
        row.calls = ", ".join(f"{name}×{calls.count(name)}" for name in dict.fromkeys(calls)) or "none"
        if ending is None:
            row.ended = "stream broke, no ending" if stream.broken else "no ending"
            row.problems.append("HANGING")
        else:
            key = re.search(r'data-error="([A-Z_]+)"', ending.get("data", ""))
            row.ended = f"error {key.group(1)}" if ending["name"] == "failed" and key else ending["name"]
        settle_by = time.monotonic() + SETTLE_SECONDS
        while self.turn_running(turn_id) and time.monotonic() < settle_by:
            time.sleep(0.25)
        try:
            chat = client.get(f"/ai/agent/chats/{chat_id}", timeout=15).text
        except requests.RequestException:
            chat = ""
        said = text in chat
        handed_back = ending is not None and f">{text}</textarea>" in ending.get("data", "")
        tool_shown = "Created a task" in chat
        answered = "bubble-text" in chat.split(text, 1)[-1] if said else False
        row.shows = ("message" if said else "handed back" if handed_back else "nothing") + (
            " + answer" if answered else ""
        ) + (" + tool card" if tool_shown else "")  # fmt: skip
        task_made = self.task_exists(task_name)
        row.effect = "none" if not task_made else "task, shown" if tool_shown else "task, NOT shown"
        if not said and not handed_back:
            row.problems.append("LOST")
        if task_made and not tool_shown:
            row.problems.append("HIDDEN")
        if self.turn_running(turn_id) and "HANGING" not in row.problems:
            row.problems.append("HANGING")

    def task_exists(self, name):
        with self.app.app_context():
            found = db.session.scalar(db.select(Task.id).where(Task.name == name))
            db.session.remove()
            return found is not None

    def turn_running(self, turn_id):
        with self.app.app_context():
            status = db.session.scalar(db.select(Turn.status).where(Turn.id == uuid.UUID(turn_id)))
            db.session.remove()
            return status is not None and status.value in ("PENDING", "RUNNING")

    # -- the rows ----------------------------------------------------------------------------

    def provider_row(self, fault, phase, chain):
        row = Row(fault, phase, chain)
        started = time.monotonic()
        server = self.server(CHAINS[chain])
        client, chat_id, turn_id, text, task_name = self.begin(server, script_for(fault, phase, CHAINS[chain]))
        stream = Stream(client, turn_id)
        ending = stream.read()
        stream.close()
        self.judge(row, client, chat_id, turn_id, text, task_name, ending, stream)
        row.seconds = time.monotonic() - started
        return row

    def worker_kill_row(self, signum):
        """A slow answer after a tool ran; the signal after 5 events; restart; watch from id 5."""
        name = signal.Signals(signum).name
        row = Row(f"worker {name}", "mid-text, after a tool ran", "one link")
        started = time.monotonic()
        server = WebServer({**self.env, "BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_TOTAL_TIMEOUT": "60",
                            "BEYOU_AGENT_TURN_SECONDS": "60"})  # fmt: skip
        server.start()
        slow = {"text": ["word "] * 40, "pace": 0.4}
        client, chat_id, turn_id, text, task_name = self.begin(server, {"mistral": [CREATES_TASK, slow]})
        stream = Stream(client, turn_id)
        stream.read(until=5)
        with contextlib.suppress(Exception):
            stream.close()
        graceful = server.signal(signum, 25)
        server.start()
        again = Stream(client, turn_id, last_event_id=5)
        ending = again.read(seconds=2 * LEASE_SECONDS)  # the lease of the dead worker lapses first
        again.close()
        self.judge(row, client, chat_id, turn_id, text, task_name, ending, again)
        if signum == signal.SIGTERM and not graceful:
            row.ended += " (graceful stop overran)"
        server.stop()
        row.seconds = time.monotonic() - started
        return row

    def database_lock_row(self):
        """The answer ends while another connection holds `BEGIN IMMEDIATE` for 10 s; meanwhile
        `/healthz` is asked every half second (a blocked worker freezes every stream it holds)."""
        row = Row("database locked", "at the end of the turn", "one link")
        started = time.monotonic()
        server = self.server("mistral")
        script = {"mistral": [{"text": ["Locked ", "out ", "for ", "a ", "while."], "pace": 0.3}]}
        client, chat_id, turn_id, text, task_name = self.begin(server, script)
        stream = Stream(client, turn_id)
        stream.read(until=1)
        locker = sqlite3.connect(self.database, timeout=1, check_same_thread=False)
        locker.execute("BEGIN IMMEDIATE")
        slowest = []
        lock_over = threading.Event()

        def probe():
            while not lock_over.is_set():
                asked = time.monotonic()
                with contextlib.suppress(requests.RequestException):
                    requests.get(server.url + "/healthz", timeout=15)
                slowest.append(time.monotonic() - asked)
                lock_over.wait(0.5)

        prober = threading.Thread(target=probe)
        prober.start()
        ending = stream.read(seconds=10)
        lock_left = 10 - (time.monotonic() - started)
        if lock_left > 0:
            time.sleep(lock_left)
        locker.rollback()
        locker.close()
        lock_over.set()
        prober.join()
        if ending is None and not stream.broken:
            ending = stream.read(seconds=ROW_SECONDS - 10)
        stream.close()
        self.judge(row, client, chat_id, turn_id, text, task_name, ending, stream)
        row.ended += f" (/healthz up to {max(slowest, default=0):.1f}s)"
        row.seconds = time.monotonic() - started
        return row

    def typed_content_row(self):
        """Magistral's wire: each round thinks first, in typed pieces, then calls a tool or answers
        with typed text pieces."""
        row = Row("typed content (Magistral)", "every round", "one link")
        started = time.monotonic()
        server = self.server("mistral")
        thinking = ["Okay, the user ", "wants a task made."]
        script = {"mistral": [
            {**CREATES_TASK, "thinking": thinking},
            {"thinking": ["It is made; ", "say so briefly."], "typed_text": True, "text": ["Made it", ", as asked."]},
        ]}  # fmt: skip
        client, chat_id, turn_id, text, task_name = self.begin(server, script)
        stream = Stream(client, turn_id)
        ending = stream.read()
        stream.close()
        self.judge(row, client, chat_id, turn_id, text, task_name, ending, stream)
        reopened = client.get(f"/ai/agent/chats/{chat_id}", timeout=15)
        if reopened.status_code != 200 or "Made it, as asked." not in reopened.text:
            row.problems.append(f"UNOPENABLE({reopened.status_code})")
        sent_back = json.dumps(self.fake.requests())
        if "wants a task" in reopened.text or "wants a task" in sent_back:
            row.problems.append("THINKING-LEAKED")
        row.seconds = time.monotonic() - started
        return row

    def redis_restart_row(self, down_for=2):
        """A slow answer with `BEYOU_REDIS_URL` set; after 5 events the Redis stops, and starts
        again `down_for` seconds later; the watcher reconnects from its last event id whenever its
        stream breaks."""
        row = Row(f"redis restarted ({down_for:g} s)", "mid-text", "one link")
        started = time.monotonic()
        if shutil.which("redis-server") is None:
            row.ended = "skipped: no redis-server"
            return row
        with tempfile.TemporaryDirectory() as folder, RedisServer(folder) as redis_server:
            server = WebServer({**self.env, "BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_TOTAL_TIMEOUT": "60",
                                "BEYOU_AGENT_TURN_SECONDS": "60", "BEYOU_REDIS_URL": redis_server.url})  # fmt: skip
            server.start()
            words = [f"w{number} " for number in range(40)]
            client, chat_id, turn_id, text, task_name = self.begin(server, {"mistral": [{"text": words, "pace": 0.15}]})
            stream = Stream(client, turn_id)
            stream.read(until=5)
            back = redis_server.restart_later(down_for)  # the stream is read while Redis is away
            ending = stream.read()
            for _ in range(10):  # as EventSource does: a broken stream is asked again from its last id
                if ending is not None or not stream.broken:
                    break
                stream.close()
                last_id = max((event["id"] for event in stream.events if "id" in event), default=0)
                seen, stream = stream.events, Stream(client, turn_id, last_event_id=last_id)
                stream.events = seen
                ending = stream.read()
            stream.close()
            self.judge(row, client, chat_id, turn_id, text, task_name, ending, stream)
            tokens = " ".join(event.get("data", "") for event in stream.events if event["name"] == "token").split()
            missing = sum(tokens.count(word.strip()) == 0 for word in words)
            twice = sum(tokens.count(word.strip()) > 1 for word in words)
            if missing or twice:
                row.problems.append(f"WORDS({missing} missing, {twice} twice)")
            chat = client.get(f"/ai/agent/chats/{chat_id}", timeout=15).text
            if not all(word.strip() in chat for word in words):
                row.problems.append("ANSWER-CUT")
            if back.is_alive():  # Redis still away: a new message must still be answered
                again, _chat, next_turn, _text, _task = self.begin(server, {"mistral": [{"text": ["Still ", "here."]}]})
                next_stream = Stream(again, next_turn)
                next_ending = next_stream.read()
                next_stream.close()
                row.ended += f"; next turn, Redis still away: {next_ending['name'] if next_ending else 'no ending'}"
                if next_ending is None or next_ending["name"] != "done":
                    row.problems.append("NEXT-TURN")
            server.stop()
            back.join()
        row.seconds = time.monotonic() - started
        return row


class RedisServer:
    """A redis-server of the bench's own on a free port, which a row may stop and start again."""

    def __init__(self, folder):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = folder
        self.process = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).stdout != b"PONG\n":
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def restart_later(self, down_for):
        """Stops the server now and starts it again `down_for` seconds later (join the thread)."""
        self.stop()
        back = threading.Timer(down_for, self.start)
        back.start()
        return back


def print_row(row):
    print(f"{row.fault:<26}{row.phase:<28}{row.chain:<10}{row.ended:<54}{row.shows:<30}{row.effect:<16}"
          f"{row.calls:<22}{row.seconds:>6.1f}s  {row.verdict}", flush=True)  # fmt: skip


SPECIALS = ("typed-content", "worker-sigterm", "worker-sigkill", "database-lock", "redis-restart")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=FAULTS, help="one provider fault only")
    parser.add_argument("--special", choices=SPECIALS, action="append", help="only these special rows")
    parser.add_argument("--skip-special", action="store_true", help="no worker, database or Redis rows")
    parser.add_argument("--redis-down", type=float, default=2, help="seconds the Redis row keeps Redis away")
    parser.add_argument("--smoke", action="store_true", help="what CI runs: one fault's rows and one special row")
    options = parser.parse_args()
    chains = ("one link",) if options.smoke else CHAINS
    if options.smoke:
        options.only, options.special = "500", ["typed-content"]
    specials = [] if options.skip_special else options.special or list(SPECIALS)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(folder)
        rows_of = {
            "typed-content": bench.typed_content_row,
            "worker-sigterm": lambda: bench.worker_kill_row(signal.SIGTERM),
            "worker-sigkill": lambda: bench.worker_kill_row(signal.SIGKILL),
            "database-lock": bench.database_lock_row,
            "redis-restart": lambda: bench.redis_restart_row(options.redis_down),
        }
        try:
            print(f"{'fault':<26}{'phase':<28}{'chain':<10}{'ended':<54}{'the chat shows':<30}{'tool effect':<16}"
                  f"{'model calls':<22}{'time':>7}  verdict")  # fmt: skip
            for fault, phase, chain in itertools.product(FAULTS, PHASES, chains):
                if (options.only and fault != options.only) or (options.special and not options.only):
                    continue
                if fault == "silent-before-first-byte" and phase == "mid-text":
                    continue  # a first byte was sent with the text: this is "hang" mid-text
                rows.append(bench.provider_row(fault, phase, chain))
                print_row(rows[-1])
            for special in specials:
                rows.append(rows_of[special]())
                print_row(rows[-1])
        finally:
            bench.close()
    problems = ("LOST", "HIDDEN", "HANGING", "WORDS")
    counts = {problem: sum(problem in row.verdict for row in rows) for problem in problems}
    print(f"\n{len(rows)} rows: {counts['LOST']} lost, {counts['HIDDEN']} hidden, {counts['HANGING']} hanging, "
          f"{counts['WORDS']} with words missing or twice")  # fmt: skip


if __name__ == "__main__":
    main()
