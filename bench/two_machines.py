"""Two app machines behind a real reverse proxy, one PostgreSQL, one Redis: what docs/production.md's
scaling out promises, tried from outside.

    .venv/bin/python -m bench.two_machines [--proxy haproxy|nginx] [--turns 6] [--rounds 3] [--lease 6]
                                           [--database-url URL] [--redis-url URL] [--smoke]

Each "machine" is the Procfile's `web:` line (a gunicorn master, two gevent workers) bound on its
own address, 127.0.0.2 and 127.0.0.3; HAProxy or nginx from Debian's packages stands in front
(bench/proxy/haproxy.cfg, bench/proxy/nginx.conf: docs/production.md's example) and balances round robin,
without stickiness. A request with `X-Bench-Machine: a` or `b` is steered to that machine, so
"posted on A, watched on B" is deterministic; the proxy says which machine answered
(`X-Served-By`). The database is a schema of its own in BEYOU_BENCH_DATABASE_URL (or
BEYOU_TEST_DATABASE_URL), migrated with `flask db upgrade` as the Procfile's release step does;
the users are made by the app's own `accounts.register` and sign in through the proxy's forms.
The model is the scripted wire fake of the tests (`python -m tests.fakes`, its own process).

The checks, one row each, with their figures:

- relay: turns posted through A, claimed and run by a watcher on B, followed on A from the turn
  log; each follower leaves mid-answer and comes back through B with `Last-Event-ID`.
- live: a page's socket open on B hears a write made through A (and the other way round), and a
  task the assistant made in a turn running on A.
- budget: a user's hourly budget (BEYOU_AGENT_RATE_LIMIT) spent by turns claimed two at a time,
  one on each machine: exactly the budget answered, the rest refused, then 429 on both machines.
- cap: four streams of one user opened at once, two on each machine: exactly two stream
  (AGENT_STREAMS_PER_USER), and a second watcher of a streaming turn on the other machine shares it.
- machine killed: turns running on A, watched on B; A's process group (master and workers)
  SIGKILLed mid-answer. B's watchers are told TURN_INTERRUPTED once the lease lapses (bound:
  the lease, a third of it until a watcher's next look, and a heartbeat); A's watchers reconnect
  through the proxy (which sends them to B) with `Last-Event-ID`; turns running on B meanwhile
  end whole; requests through the balancer keep being answered.
- streams after the crash: a user whose two answers were watched on A, once they have ended,
  opens two new streams on B: both should stream at once (the cap counts live turns only).
- lost: every word of every turn that survived, at every watcher and in the database; every
  event once.

Exits non-zero when a check fails, or when neither proxy is installed (it says how to install one).
Small, for CI: `--smoke` (`--turns 2 --rounds 1`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

import redis
import requests
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app import create_app
from app.assistant.models.chats import ChatMessage, Turn
from app.extensions import db
from app.profile import accounts
from app.profile.models import User
from bench.concurrent_answers import wire_fake
from bench.serving import ROOT, bench_database, error_key, web_command

STEER = "X-Bench-Machine"
PASSWORD = "bench password 1"
SECRET = "bench-two-machines"
HEARTBEAT = 2.0  # BEYOU_AGENT_HEARTBEAT_SECONDS: a watcher of a silent turn looks at the database between beats
STREAM_CAP = 2  # AGENT_STREAMS_PER_USER
WORKERS = 2  # per machine
TURN_ID = re.compile(r'id="turn-([0-9a-f-]{36})"')
INSTALL = (
    "two_machines needs a reverse proxy from Debian's packages: `apt-get install -y haproxy` "
    "(or `apt-get install -y nginx-light` and --proxy nginx), then run it again."
)


def words(prefix, count):
    return [f"{prefix}{n:02d} " for n in range(1, count + 1)]


# The machines, the proxy ----------------------------------------------------------------


def port_free_on(*hosts):
    """One port free on every host: each machine listens on its own address, the same port."""
    while True:
        with socket.socket() as first:
            first.bind((hosts[0], 0))
            port = first.getsockname()[1]
            try:
                for host in hosts[1:]:
                    with socket.socket() as other:
                        other.bind((host, port))
            except OSError:
                continue
            return port


def wait_until_up(url, process, log_path, what):
    deadline = time.monotonic() + 40
    while True:
        with contextlib.suppress(requests.RequestException):
            if requests.get(url + "/healthz", timeout=2).ok:
                return
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start:\n" + Path(log_path).read_text(errors="replace")[-3000:])
        time.sleep(0.2)


class Machine:
    """The Procfile's web process on its own address: a gunicorn master and its workers, in a
    process group of their own (so one SIGKILL takes the whole machine)."""

    def __init__(self, name, host, port, env, folder):
        self.name, self.host, self.port = name, host, port
        self.address = f"{host}:{port}"
        self.url = f"http://{self.address}"
        self.env = env
        self.log_path = Path(folder) / f"machine-{name}.log"
        self.process = None

    def start(self):
        command = web_command().replace("0.0.0.0", self.host)
        environment = {**os.environ, **self.env, "PORT": str(self.port), "WEB_CONCURRENCY": str(WORKERS),
                       "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}  # fmt: skip
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(["sh", "-c", f"exec {command}"], cwd=ROOT, env=environment,
                                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip

    def wait_ready(self):
        wait_until_up(self.url, self.process, self.log_path, f"machine {self.name}")

    def group(self):
        """The processes of the machine: the master and its workers (its session)."""
        listed = subprocess.run(["ps", "-o", "pid=", "--sid", str(self.process.pid)], capture_output=True, text=True)
        return [int(pid) for pid in listed.stdout.split()]

    def kill(self):
        """SIGKILL to the whole process group at once, as a machine that loses power; returns how
        many processes it held and how many are left."""
        held = self.group()
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        time.sleep(0.2)
        return len(held), sum(alive(pid) for pid in held)


def alive(pid):
    """Whether the process still runs (a killed worker whose parent died too stays a zombie until
    the container's init reaps it: it runs nothing and holds no socket)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def stop_groups(processes, seconds):
    """SIGTERM to each process group at once, SIGKILL to what is not gone within `seconds`."""
    processes = [process for process in processes if process is not None]
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(deadline - time.monotonic(), 0.1))
        with contextlib.suppress(ProcessLookupError):  # what a killed master left behind
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)


def proxy_binary(choice):
    """The proxy to run and its path; says how to install one when none is there."""
    for kind in [choice] if choice else ["haproxy", "nginx"]:
        found = shutil.which(kind) or shutil.which(kind, path="/usr/sbin:/usr/local/sbin")
        if found:
            return kind, found
    raise SystemExit(INSTALL)


class Proxy:
    """HAProxy or nginx with the committed configuration, the machines' addresses filled in."""

    NAMES = ("BENCH_PROXY", "BENCH_MACHINE_A", "BENCH_MACHINE_B", "BENCH_RUN")

    def __init__(self, kind, binary, machines, folder):
        self.kind, self.binary = kind, binary
        self.port = port_free_on("127.0.0.1")
        self.url = f"http://127.0.0.1:{self.port}"
        self.folder = Path(folder)
        self.values = {"BENCH_PROXY": f"127.0.0.1:{self.port}", "BENCH_MACHINE_A": machines["a"].address,
                       "BENCH_MACHINE_B": machines["b"].address, "BENCH_RUN": str(self.folder)}  # fmt: skip
        self.machine_at = {machine.address: name for name, machine in machines.items()}
        self.log_path = self.folder / f"{kind}.log"
        self.process = None

    def version(self):
        answer = subprocess.run([self.binary, "-v"], capture_output=True, text=True)
        first = (answer.stdout or answer.stderr).splitlines()[0]
        return " ".join(first.replace("nginx version: nginx/", "nginx ").split()[:3])

    def start(self):
        if self.kind == "haproxy":
            command = [self.binary, "-db", "-f", str(ROOT / "bench" / "proxy" / "haproxy.cfg")]
        else:
            text = (ROOT / "bench" / "proxy" / "nginx.conf").read_text()
            for name in self.NAMES:
                text = text.replace("${" + name + "}", self.values[name])
            config = self.folder / "nginx.conf"
            config.write_text(text)
            command = [self.binary, "-c", str(config), "-e", str(self.folder / "nginx-error.log")]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, env={**os.environ, **self.values}, start_new_session=True,
                                            stdout=log, stderr=log)  # fmt: skip
        wait_until_up(self.url, self.process, self.log_path, self.kind)

    def machine_of(self, response_headers):
        """Which machine answered: HAProxy names its server, nginx gives the address (the last one
        tried, when it went on to the next)."""
        served = (response_headers.get("X-Served-By") or "?").split(",")[-1].strip()
        return self.machine_at.get(served, served)


# A person in a browser -------------------------------------------------------------------


class Person(requests.Session):
    """A signed-in browser going through the proxy; `machine="a"` steers one request."""

    def __init__(self, base_url, email):
        super().__init__()
        self.base_url, self.email = base_url, email
        self.user_id = None

    def request(self, method, url, *args, machine=None, **kwargs):
        if machine:
            kwargs["headers"] = {**(kwargs.get("headers") or {}), STEER: machine}
        kwargs.setdefault("timeout", (5, 60))
        return super().request(method, self.base_url + url, *args, **kwargs)

    def sign_in(self):
        """Signs in through A; the CSRF token for htmx requests comes from a page served by B."""
        page = self.get("/login", machine="a").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        self.post("/login", data={"email": self.email, "password": PASSWORD, "csrf_token": token}, machine="a")
        dashboard = self.get("/dashboard", machine="b").text
        token = re.search(r'name="csrf-token" content="([^"]+)"', dashboard).group(1)
        self.headers.update({"X-CSRFToken": token, "HX-Request": "true"})
        return self

    def post_turn(self, text, machine=None):
        """A new chat and a message in it; (turn id or None, the message's response)."""
        chat = self.post("/ai/agent/chats", machine=machine)
        chat_id = re.search(r'data-chat-id="([^"]+)"', chat.text).group(1)
        posted = self.post(f"/ai/agent/chats/{chat_id}/messages", data={"message": text, "page": "/tasks"},
                           machine=machine)  # fmt: skip
        found = TURN_ID.search(posted.text) if posted.status_code == 200 else None
        return (found.group(1) if found else None), posted

    def cookie_header(self):
        return "; ".join(f"{cookie.name}={cookie.value}" for cookie in self.cookies)


@dataclass
class Event:
    at: float
    id: int | None
    name: str
    data: str


class Watcher(threading.Thread):
    """A turn's event stream read as a browser's EventSource would, on its own thread: every
    event with when it came; `leave_after` events, it hangs up (a closed laptop, a lost network)."""

    def __init__(self, proxy, person, turn_id, machine=None, after=None, leave_after=None):
        super().__init__(daemon=True)
        self.proxy, self.person, self.turn_id = proxy, person, turn_id
        self.machine, self.after, self.leave_after = machine, after, leave_after
        self.events = []
        self.connected = threading.Event()  # `: connected` came (or the stream ended without it)
        self.accepted = False
        self.served_by = None
        self.broken = None  # how the connection broke, when it did

    def run(self):
        headers = {"Accept": "text/event-stream"}
        if self.after is not None:
            headers["Last-Event-ID"] = str(self.after)
        try:
            with self.person.get(f"/ai/agent/turns/{self.turn_id}/stream", headers=headers, machine=self.machine,
                                 stream=True, timeout=(5, 30)) as response:  # fmt: skip
                self.served_by = self.proxy.machine_of(response.headers)
                self._read(response)
        except requests.RequestException as broken:
            self.broken = type(broken).__name__
        finally:
            self.connected.set()

    def _read(self, response):
        event = {}
        for line in response.iter_lines(decode_unicode=True):
            if line.startswith(": connected"):
                self.accepted = True
                self.connected.set()
            elif line.startswith("id: "):
                event["id"] = int(line.removeprefix("id: "))
            elif line.startswith("event: "):
                event["name"] = line.removeprefix("event: ")
            elif line.startswith("data: "):
                event["data"] = (event["data"] + "\n" if "data" in event else "") + line.removeprefix("data: ")
            elif not line and event:
                self.events.append(Event(time.monotonic(), event.get("id"), event["name"], event.get("data", "")))
                if self.ending or (self.leave_after and len(self.events) >= self.leave_after):
                    return
                event = {}

    @property
    def text(self):
        return "".join(event.data for event in self.events if event.name == "token")

    @property
    def ids(self):
        return [event.id for event in self.events if event.id is not None]

    @property
    def ending(self):
        """`done`, `failed: KEY`, or None while the turn goes on."""
        last = self.events[-1] if self.events else None
        if last is None or last.name not in ("done", "failed"):
            return None
        return "done" if last.name == "done" else f"failed: {error_key(last.data.encode()) or '?'}"

    def tokens(self):
        return sum(event.name == "token" for event in self.events)


def once_each(*watchers):
    """Whether the watchers of one turn, one after the other (each from the last id the one
    before saw), got every event once: ids 1..n without a gap or a repeat, one ending."""
    ids = [event_id for watcher in watchers for event_id in watcher.ids]
    endings = sum(watcher.ending is not None for watcher in watchers)
    return ids == list(range(1, len(ids) + 1)) and endings == 1


class Page(threading.Thread):
    """One open page's live socket (`/live`), on a chosen machine, collecting what it hears."""

    def __init__(self, proxy, person, machine):
        super().__init__(daemon=True)
        url = proxy.url.replace("http://", "ws://") + f"/live?tab=bench-{machine}"
        self.socket = connect(url, origin=proxy.url, additional_headers={"Cookie": person.cookie_header(),
                              STEER: machine}, compression=None, open_timeout=10)  # fmt: skip
        self.served_by = proxy.machine_of(self.socket.response.headers)
        self.heard = queue.Queue()
        self.start()

    def run(self):
        with contextlib.suppress(ConnectionClosed, OSError):
            for message in self.socket:
                if message != "{}":  # the channel's heartbeat
                    self.heard.put((time.monotonic(), json.loads(message)))

    def hear(self, domain, timeout=10):
        """When the page heard of `domain` (None: not within `timeout`) and the message."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                at, message = self.heard.get(timeout=left)
            except queue.Empty:
                break
            if domain in message.get("domains", []):
                return at, message
        return None, None

    def close(self):
        with contextlib.suppress(Exception):
            self.socket.close()


# The bench -------------------------------------------------------------------------------


@dataclass
class Row:
    check: str
    figures: str = ""
    problems: list = field(default_factory=list)

    @property
    def verdict(self):
        return "OK" if not self.problems else "FAILED: " + "; ".join(self.problems)


@dataclass
class Survivor:
    """A turn that must end whole: its reply's words, the watchers that followed it."""

    turn_id: str
    text: str
    watchers: list


class Bench:
    def __init__(self, options):
        self.options = options
        self.rows = []
        self.survivors = []
        self.redis = redis.Redis.from_url(options.redis_url)
        self.budget = options.budget
        run = uuid.uuid4().hex[:8]
        self.users = 0
        self.env = {
            "BEYOU_ENV": "development",
            "BEYOU_SECRET_KEY": SECRET,
            "BEYOU_DATABASE_URL": options.database_url,
            "BEYOU_REDIS_URL": options.redis_url,
            "BEYOU_PUBLIC_URL": "",  # filled once the proxy has its port
            "BEYOU_PROXY_COUNT": "1",
            "BEYOU_AUTH_IP_LIMIT": "1000 per minute",
            "BEYOU_AGENT_RATE_LIMIT": f"{self.budget} per hour",
            "BEYOU_AGENT_LEASE_SECONDS": str(options.lease),
            "BEYOU_AGENT_HEARTBEAT_SECONDS": str(HEARTBEAT),
            "BEYOU_LLM_ORDER": "mistral",
            "BEYOU_LLM_MISTRAL_API_KEY": "bench",
            "BEYOU_LLM_REDIS_PREFIX": f"bench:machines:{run}:cooldown:",  # no cooldown left by an earlier run
        }

    # -- setting up ----------------------------------------------------------------------

    def migrate(self):
        environment = {**os.environ, **self.env, "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}
        done = subprocess.run(["flask", "--app", "wsgi", "db", "upgrade"], cwd=ROOT, env=environment,
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode:
            raise RuntimeError("flask db upgrade failed:\n" + done.stderr[-3000:])
        self.app = create_app("development", SQLALCHEMY_DATABASE_URI=self.options.database_url, REDIS_URL=None,
                              LLM_ENV=self.env)  # fmt: skip

    def people(self, label, count):
        """New accounts (the app's own registration), signed in through the proxy."""
        emails = []
        with self.app.app_context():
            for _ in range(count):
                self.users += 1
                emails.append(f"{label}{self.users}@example.com")
                accounts.register(name=f"{label} {self.users}", email=emails[-1], password=PASSWORD)
            ids = dict(db.session.execute(db.select(User.email, User.id).where(User.email.in_(emails))).all())
            db.session.remove()
        signed_in = []
        for email in emails:
            person = Person(self.proxy.url, email).sign_in()
            person.user_id = ids[email]
            signed_in.append(person)
        return signed_in

    def script(self, *replies):
        requests.post(self.fake + "/_fake/reset", timeout=5)
        requests.post(self.fake + "/_fake/script", json={"mistral": list(replies)}, timeout=10)

    def stored(self, turn_id):
        """The turn as the database has it: status, error key, its answer's text, its lease."""
        with self.app.app_context():
            turn = db.session.get(Turn, uuid.UUID(turn_id))
            answer = db.session.get(ChatMessage, turn.answer_id) if turn.answer_id else None
            text = "".join(piece.get("text", "") for piece in (answer.segments if answer else [])
                           if isinstance(piece, dict) and piece.get("type") == "text")  # fmt: skip
            found = (turn.status.value, turn.error_key, text, turn.lease_until)
            db.session.remove()
        return found

    def slots_free(self, person, seconds=5):
        """Waits until the user streams nothing (a stream's slot is released just after its last
        event is written, so a client can read the ending a moment before)."""
        deadline = time.monotonic() + seconds
        key = f"beyou:streams:{person.user_id}"
        while self.redis.zcount(key, time.time(), "+inf") and time.monotonic() < deadline:
            time.sleep(0.05)

    def add(self, row):
        self.rows.append(row)
        print(f"{row.check:<26}{row.figures}\n{'':<26}-> {row.verdict}", flush=True)

    # -- the checks ----------------------------------------------------------------------

    def relay(self):
        """Posted on A, claimed and run by a watcher on B; followed on A, which leaves after a
        few events and comes back through B from its last id."""
        turns = self.options.turns
        row = Row("posted on A, watched on B")
        reply = words("r", 30)
        self.script(*[{"text": reply, "pace": 0.1}] * turns)
        people = self.people("relay", -(-turns // STREAM_CAP))
        started = [(person, *person.post_turn(f"relay {n}", machine="a"))
                   for n, person in enumerate((people * STREAM_CAP)[:turns])]  # fmt: skip
        runners, followers, returns = [], [], []
        for person, turn_id, _posted in started:
            runner = Watcher(self.proxy, person, turn_id, machine="b")
            runner.start()
            runner.connected.wait(10)
            follower = Watcher(self.proxy, person, turn_id, machine="a", leave_after=8)
            follower.start()
            runners.append(runner)
            followers.append(follower)
        for person, follower in zip([p for p, _t, _r in started], followers, strict=True):
            follower.join(30)
            back = Watcher(
                self.proxy, person, follower.turn_id, machine="b", after=follower.ids[-1] if follower.ids else 0
            )
            back.start()
            returns.append(back)
        for watcher in [*runners, *returns]:
            watcher.join(60)
        text = "".join(reply)
        whole = 0
        for (_person, turn_id, posted), runner, follower, back in zip(
            started, runners, followers, returns, strict=True
        ):
            status, _key, stored_text, _lease = self.stored(turn_id)
            self.survivors.append(Survivor(turn_id, text, [[runner], [follower, back]]))
            where = (self.proxy.machine_of(posted.headers), runner.served_by, follower.served_by, back.served_by)
            ok = where == ("a", "b", "a", "b") and runner.ending == "done" and status == "DONE" and stored_text == text
            whole += ok and runner.text == follower.text + back.text == text
        row.figures = (f"{whole} of {turns} turns posted on A, run on B and followed on A, whole; the followers "
                       f"left after 8 events and came back through B with Last-Event-ID")  # fmt: skip
        if whole != turns:
            row.problems.append(f"{turns - whole} turn(s) not whole or not where steered")
        self.add(row)

    def live(self):
        """Pages open on A and on B; writes through one machine heard by the page on the other."""
        rounds = self.options.rounds
        row = Row("live update across")
        (person,) = self.people("live", 1)
        pages = {machine: Page(self.proxy, person, machine) for machine in "ab"}
        try:
            where = {machine: page.served_by for machine, page in pages.items()}
            if where != {"a": "a", "b": "b"}:
                row.problems.append(f"the pages' sockets landed on {where}")
            # One write first, unmeasured: a socket joins its channel a moment after its handshake.
            person.post("/ideas", data={"text": "warm up"}, machine="a")
            for page in pages.values():
                page.hear("ideas")
            delays = {"a→b": [], "b→a": []}
            missed = 0
            for number in range(rounds):
                for writer, reader in (("a", "b"), ("b", "a")):
                    sent = time.monotonic()
                    written = person.post("/ideas", data={"text": f"idea {number} via {writer}"}, machine=writer)
                    heard, _message = pages[reader].hear("ideas")
                    pages[writer].hear("ideas", timeout=2)  # its own copy, not measured
                    if written.status_code != 200 or heard is None:
                        missed += 1
                    else:
                        delays[f"{writer}→{reader}"].append(heard - sent)
            # The assistant's write: a turn run on A makes a task; the page on B hears "tasks".
            self.script({"tool_calls": [{"name": "createUserTask", "arguments": {"name": "Made on A",
                         "importance": 2, "difficulty": 1}}]}, {"text": ["Done."]})  # fmt: skip
            turn_id, _posted = person.post_turn("make a task", machine="a")
            sent = time.monotonic()
            runner = Watcher(self.proxy, person, turn_id, machine="a")
            runner.start()
            heard, message = pages["b"].hear("tasks", timeout=20)
            runner.join(30)
            tool_ok = heard is not None and message.get("origin") == f"turn:{turn_id}"
            if runner.ending == "done":
                self.survivors.append(Survivor(turn_id, "Done.", [[runner]]))
        finally:
            for page in pages.values():
                page.close()
        every = delays["a→b"] + delays["b→a"]
        row.figures = (f"{len(every)} of {2 * rounds} writes heard on the other machine's page, "
                       f"POST→arrival median {median(every) * 1000:.0f} ms, max {max(every, default=0) * 1000:.0f} ms; "
                       f"the assistant's task (turn on A) on B's page: "
                       f"{f'{(heard - sent) * 1000:.0f} ms' if tool_ok else 'NOT heard'}")  # fmt: skip
        if missed:
            row.problems.append(f"{missed} write(s) not heard across")
        if not tool_ok:
            row.problems.append("the assistant's change did not cross")
        self.add(row)

    def budget_check(self):
        """budget + 3 messages posted at once; their turns claimed two at a time, one watcher on
        each machine; then one more message on each machine."""
        budget, extra = self.budget, 3
        row = Row("hourly budget")
        reply = words("b", 5)
        self.script(*[{"text": reply}] * (budget + extra))
        (person,) = self.people("budget", 1)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            posted = list(pool.map(lambda n: person.post_turn(f"budget {n}"), range(budget + extra)))
        turn_ids = [turn_id for turn_id, _response in posted]
        posts_ok = all(turn_ids)
        watchers = []
        for index in range(0, len(turn_ids), 2):
            pair = [Watcher(self.proxy, person, turn_id, machine="ab"[n])
                    for n, turn_id in enumerate(turn_ids[index : index + 2])]  # fmt: skip
            for watcher in pair:
                watcher.start()
            for watcher in pair:
                watcher.join(30)
            watchers += pair
            self.slots_free(person)
        answered = [w for w in watchers if w.ending == "done"]
        refused = [w for w in watchers if w.ending == "failed: AGENT_BUDGET_SPENT"]
        after = [person.post_turn("one more", machine=machine)[1] for machine in "ab"]
        late = [response.status_code for response in after]
        retry_after = [response.headers.get("Retry-After") for response in after]
        for watcher in answered:
            self.survivors.append(Survivor(watcher.turn_id, "".join(reply), [[watcher]]))
        by_machine = {machine: sum(w.served_by == machine for w in answered) for machine in "ab"}
        row.figures = (
            f"BEYOU_AGENT_RATE_LIMIT={budget} per hour: {len(answered)} answered (claimed on A "
            f"{by_machine['a']}, on B {by_machine['b']}), {len(refused)} refused at their "
            f"claim, the next message {late[0]} on A and {late[1]} on B (Retry-After {retry_after[0]} s)"
        )
        if not posts_ok:
            row.problems.append("a message was refused before the budget was spent")
        if len(answered) != budget or len(refused) != extra:
            row.problems.append(f"{len(answered)} answered, {len(refused)} refused, not {budget} and {extra}")
        if late != [429, 429]:
            row.problems.append("a message past the budget was not refused")
        self.add(row)

    def cap_check(self):
        """Each round, a new user opens four streams at once, two on each machine."""
        rounds, tries = self.options.rounds, 2 * STREAM_CAP
        row = Row("two streams per user")
        reply = words("c", 12)
        accepted_counts, shared, problems = [], 0, []
        for _round in range(rounds):
            self.script(*[{"text": reply, "pace": 0.15}] * STREAM_CAP)
            (person,) = self.people("cap", 1)
            turn_ids = [person.post_turn(f"cap {n}")[0] for n in range(tries)]
            watchers = [Watcher(self.proxy, person, turn_id, machine="ab"[n % 2]) for n, turn_id in enumerate(turn_ids)]
            for watcher in watchers:
                watcher.start()
            for watcher in watchers:
                watcher.connected.wait(15)
            accepted = [w for w in watchers if w.accepted]
            refused = [w for w in watchers if w.ending == "failed: TOO_MANY_STREAMS"]
            accepted_counts.append(len(accepted))
            if len(accepted) != STREAM_CAP or len(refused) != tries - STREAM_CAP:
                problems.append(f"{len(accepted)} streamed and {len(refused)} refused of {tries}")
            seconds = []  # a second tab on the other machine shares its turn's slot
            for watcher in accepted:
                other = "b" if watcher.served_by == "a" else "a"
                second = Watcher(self.proxy, person, watcher.turn_id, machine=other)
                second.start()
                seconds.append(second)
            for watcher in [*accepted, *seconds]:
                watcher.join(30)
            shared += sum(second.accepted for second in seconds)
            for first, second in zip(accepted, seconds, strict=True):
                self.survivors.append(Survivor(first.turn_id, "".join(reply), [[first], [second]]))
            self.slots_free(person)
        row.figures = (f"{rounds} round(s) of {tries} streams opened at once, two on each machine: "
                       f"{'/'.join(map(str, accepted_counts))} streamed, the rest refused TOO_MANY_STREAMS; "
                       f"{shared} second watchers on the other machine shared their turn's slot")  # fmt: skip
        if shared != sum(accepted_counts):
            problems.append("a second watcher of a streaming turn was refused")
        row.problems += problems
        self.add(row)

    def kill_check(self):
        """Turns running on A (claimed there), watched from B; turns running on B beside them; A
        killed mid-answer."""
        turns = self.options.turns
        row = Row("machine A killed")
        reply = words("k", 40)
        survivors = max(turns // 2, 1)
        self.script(*[{"text": reply, "pace": 0.25}] * (turns + survivors))
        doomed_people = self.people("doomed", -(-turns // STREAM_CAP))
        spared_people = self.people("spared", -(-survivors // STREAM_CAP))
        doomed, spared = [], []
        for person in (doomed_people * STREAM_CAP)[:turns]:
            turn_id, _posted = person.post_turn("a long one", machine="a")
            on_a = Watcher(self.proxy, person, turn_id, machine="a")
            on_a.start()
            on_a.connected.wait(10)
            on_b = Watcher(self.proxy, person, turn_id, machine="b")
            on_b.start()
            doomed.append((person, turn_id, on_a, on_b))
        for person in (spared_people * STREAM_CAP)[:survivors]:
            turn_id, _posted = person.post_turn("a long one", machine="b")
            on_b = Watcher(self.proxy, person, turn_id, machine="b")
            on_b.start()
            spared.append((turn_id, on_b))
        deadline = time.monotonic() + 30
        while any(on_b.tokens() < 8 for *_rest, on_b in doomed) and time.monotonic() < deadline:
            time.sleep(0.05)
        seen_at_kill = {turn_id: on_b.text for _person, turn_id, _on_a, on_b in doomed}
        held, left = self.machines["a"].kill()
        killed_at, wall_at_kill = time.monotonic(), time.time()
        self.killed_at, self.doomed_people = killed_at, doomed_people
        lapses = {turn_id: self.stored(turn_id)[3] for _person, turn_id, _on_a, _on_b in doomed}
        probe = BalancerProbe(self.proxy.url)
        # A's watchers lose their connection; like EventSource, each comes back a moment later
        # with the last id it saw, through the balancer (no steering): the proxy must send it to B.
        returns = []
        for person, turn_id, on_a, _on_b in doomed:
            on_a.join(15)
            time.sleep(0.5)
            back = Watcher(self.proxy, person, turn_id, after=on_a.ids[-1] if on_a.ids else 0)
            back.start()
            returns.append(back)
        bound = self.options.lease * 4 / 3 + HEARTBEAT
        for watcher in [*(on_b for *_rest, on_b in doomed), *returns, *(on_b for _turn_id, on_b in spared)]:
            watcher.join(bound + 20)
        probe.stop()
        told, after_lapse, kept, problems = [], [], [], []
        for (_person, turn_id, on_a, on_b), back in zip(doomed, returns, strict=True):
            status, key, stored_text, _lease = self.stored(turn_id)
            if on_b.ending != "failed: TURN_INTERRUPTED" or back.ending != on_b.ending:
                problems.append(f"turn {turn_id[:8]} ended {on_b.ending} on B, {back.ending} after the reconnect")
                continue
            told.append(on_b.events[-1].at - killed_at)
            if lapses[turn_id] is not None:
                lapse = lapses[turn_id].replace(tzinfo=lapses[turn_id].tzinfo or UTC).timestamp()
                after_lapse.append(wall_at_kill + told[-1] - lapse)
            if not once_each(on_a, back) or back.served_by != "b" or not once_each(on_b):
                problems.append(f"turn {turn_id[:8]}: events missing or twice across the reconnect")
            if (status, key) != ("ENDED", "TURN_INTERRUPTED") or not "".join(reply).startswith(stored_text):
                problems.append(f"turn {turn_id[:8]} stored as {status} {key}")
            kept.append((len(stored_text.split()), len(seen_at_kill[turn_id].split())))
        for turn_id, on_b in spared:
            self.survivors.append(Survivor(turn_id, "".join(reply), [[on_b]]))
        if max(told, default=0) > bound:
            problems.append(f"told {max(told):.1f} s after the kill, over {bound:.1f} s")
        if left:
            problems.append(f"{left} process(es) of A outlived the SIGKILL")
        if probe.failed:
            problems.append(f"{probe.failed} request(s) through the balancer failed")
        row.figures = (
            f"SIGKILL to A's process group ({held} processes: master + {held - 1} workers) with {turns} turns "
            f"running on A and {survivors} on B; BEYOU_AGENT_LEASE_SECONDS={self.options.lease:g}: "
            f"{len(told)} of {turns} told TURN_INTERRUPTED on B "
            f"{min(told, default=0):.1f}–{max(told, default=0):.1f} s "
            f"after the kill ({max(after_lapse, default=0):.1f} s at most after their lease lapsed; bound "
            f"{bound:.1f} s); A's watchers came back through the balancer to B with Last-Event-ID: nothing "
            f"missed or twice; the stored partials kept {sum(k for k, _s in kept)} of the "
            f"{sum(s for _k, s in kept)} words B had seen at the kill; {probe.sent} requests through the "
            f"balancer meanwhile, {probe.failed} failed"
        )  # fmt: skip
        row.problems += problems
        self.add(row)

    def after_the_crash(self):
        """A user whose two answers were watched on A, once those have ended: two new answers,
        their streams opened at once through the balancer, which sends them to B (tried again
        every 2 s until both stream)."""
        row = Row("streams after the crash")
        person = self.doomed_people[0]
        first_try, streamed_at, tries = None, None, 0
        while streamed_at is None and time.monotonic() - self.killed_at < 90:
            tries += 1
            self.script(*[{"text": words("n", 3)}] * STREAM_CAP)
            watchers = [Watcher(self.proxy, person, person.post_turn(f"again {n}")[0]) for n in range(STREAM_CAP)]
            for watcher in watchers:
                watcher.start()
            for watcher in watchers:
                watcher.join(20)
            accepted = sum(watcher.accepted for watcher in watchers)
            first_try = accepted if first_try is None else first_try
            if accepted == STREAM_CAP:
                streamed_at = time.monotonic() - self.killed_at
            else:
                time.sleep(2)
        row.figures = f"first try {first_try} of {STREAM_CAP} streamed; both streamed " + (
            f"{streamed_at:.0f} s after the kill ({tries} tries)" if streamed_at else "never within 90 s"
        )
        if first_try != STREAM_CAP:
            row.problems.append("the stream slots of the dead machine's watchers outlived their ended turns")
        self.add(row)

    def lost_check(self):
        """Every turn that survived: every watcher (or a watcher and its reconnect) got every
        word and every event once, and the database holds the whole answer."""
        row = Row("0 lost")
        turns, words_sent, events, lost = len(self.survivors), 0, 0, []
        for survivor in self.survivors:
            status, _key, stored_text, _lease = self.stored(survivor.turn_id)
            for chain in survivor.watchers:
                words_sent += len(survivor.text.split())
                events += sum(len(watcher.events) for watcher in chain)
                if "".join(watcher.text for watcher in chain) != survivor.text or not once_each(*chain):
                    lost.append(f"turn {survivor.turn_id[:8]} at a watcher")
            if status != "DONE" or stored_text != survivor.text:
                lost.append(f"turn {survivor.turn_id[:8]} in the database ({status})")
        row.figures = (f"{turns} turns that survived, {words_sent} words and {events} events at their watchers: "
                       f"{len(lost)} lost, missing or twice")  # fmt: skip
        row.problems += lost[:5]
        self.add(row)


class BalancerProbe(threading.Thread):
    """Requests through the balancer, as the users' browsers keep sending them, while a machine dies."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.sent, self.failed = url, 0, 0
        self._done = threading.Event()
        self.start()

    def run(self):
        while not self._done.is_set():
            self.sent += 1
            try:
                self.failed += requests.get(self.url + "/healthz", timeout=5).status_code != 200
            except requests.RequestException:
                self.failed += 1
            self._done.wait(0.1)

    def stop(self):
        self._done.set()
        self.join(10)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")


def tail(path, lines=25):
    with contextlib.suppress(OSError):
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    return ""


def run(options, kind, binary, folder, fake_url):
    bench = Bench(options)
    bench.fake = fake_url
    bench.env["BEYOU_DATABASE_URL"] = options.database_url = bench_database(
        "postgresql", folder, "bench_machines", url=options.database_url
    )
    bench.env["BEYOU_LLM_MISTRAL_BASE_URL"] = f"{fake_url}/mistral/v1"
    port = port_free_on("127.0.0.2", "127.0.0.3")
    bench.machines = {name: Machine(name, host, port, bench.env, folder)
                      for name, host in (("a", "127.0.0.2"), ("b", "127.0.0.3"))}  # fmt: skip
    bench.proxy = Proxy(kind, binary, bench.machines, folder)
    bench.env["BEYOU_PUBLIC_URL"] = bench.proxy.url
    started = time.monotonic()
    bench.migrate()
    try:
        for machine in bench.machines.values():
            machine.start()
        for machine in bench.machines.values():
            machine.wait_ready()
        bench.proxy.start()
        print(f"{bench.proxy.version()} on {bench.proxy.url}, round robin without stickiness, in front of "
              f"A {bench.machines['a'].address} and B {bench.machines['b'].address} (each the Procfile's web line, "
              f"{WORKERS} gevent workers); PostgreSQL (schema bench_machines, migrated by flask db upgrade), "
              f"Redis {options.redis_url}; lease {options.lease:g} s, heartbeat {HEARTBEAT:g} s, "
              f"budget {bench.budget} per hour, {STREAM_CAP} streams per user\n", flush=True)  # fmt: skip
        for check in (bench.relay, bench.live, bench.budget_check, bench.cap_check, bench.kill_check,
                      bench.after_the_crash, bench.lost_check):  # fmt: skip
            try:
                check()
            except Exception as error:  # the row says so; the next check still runs
                import traceback

                traceback.print_exc()
                bench.add(Row(check.__name__, problems=[f"{type(error).__name__}: {error}"]))
    finally:
        failed = [row for row in bench.rows if row.problems]
        if failed or len(bench.rows) < 7:
            for name, path in [*((f"machine {n}", m.log_path) for n, m in bench.machines.items()),
                               (kind, bench.proxy.log_path)]:  # fmt: skip
                print(f"\n--- the end of {name}'s log ---\n{tail(path)}", file=sys.stderr)
        stop_groups([bench.proxy.process, *(machine.process for machine in bench.machines.values())], seconds=25)
    print(f"\n{len(bench.rows)} checks in {time.monotonic() - started:.0f} s: "
          f"{len(bench.rows) - len(failed)} OK, {len(failed)} failed", flush=True)  # fmt: skip
    return not failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proxy", choices=("haproxy", "nginx"), help="default: HAProxy if installed, else nginx")
    parser.add_argument("--turns", type=int, default=6, help="turns of the relay and of the killed machine")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the live updates and of the stream cap")
    parser.add_argument("--lease", type=float, default=6, help="BEYOU_AGENT_LEASE_SECONDS of both machines")
    parser.add_argument("--budget", type=int, default=5, help="BEYOU_AGENT_RATE_LIMIT, per hour")
    parser.add_argument("--database-url", help="PostgreSQL (default: BEYOU_BENCH_DATABASE_URL, "
                        "else BEYOU_TEST_DATABASE_URL); the bench works in a schema of its own")  # fmt: skip
    parser.add_argument("--redis-url", help="default: BEYOU_BENCH_REDIS_URL, else BEYOU_TEST_REDIS_URL")
    parser.add_argument("--smoke", action="store_true", help="what CI runs: --turns 2 --rounds 1")
    options = parser.parse_args()
    if options.smoke:
        options.turns, options.rounds = 2, 1
    kind, binary = proxy_binary(options.proxy)
    options.database_url = (options.database_url or os.environ.get("BEYOU_BENCH_DATABASE_URL")
                            or os.environ.get("BEYOU_TEST_DATABASE_URL"))  # fmt: skip
    options.redis_url = (options.redis_url or os.environ.get("BEYOU_BENCH_REDIS_URL")
                         or os.environ.get("BEYOU_TEST_REDIS_URL"))  # fmt: skip
    if not options.database_url or not options.redis_url:
        raise SystemExit("two_machines needs PostgreSQL and Redis: --database-url and --redis-url (or "
                         "BEYOU_BENCH_DATABASE_URL / BEYOU_BENCH_REDIS_URL).")  # fmt: skip
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped bench still stops what it started
    with tempfile.TemporaryDirectory(prefix="two-machines-") as folder, wire_fake() as fake_url:
        ok = run(options, kind, binary, folder, fake_url)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
