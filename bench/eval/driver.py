"""The app an eval talks to, as a person's browser does: signed in, a chat opened, each message
POSTed and its answer read from the turn's SSE stream (the whole path: the route, the turn's
claim, the runner, the chain, the tools, the journal, the stream), a card's Confirm clicked.

The app runs in this process on a SQLite file of its own (or `--database`), so the eval reads the
rows before and after each conversation and the chain's token counters directly; its turns run on
their background threads as under any server.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass, field

from app import create_app
from app.assistant.models.chats import ChatMessage, Turn, TurnStatus
from app.assistant.models.pending_actions import ActionState, PendingAction
from app.extensions import db
from app.llm import metrics
from app.profile import accounts
from app.profile.models import User

PASSWORD = "eval password 1"
TERMINAL = ("done", "failed")


def tokens_so_far():
    """(prompt, completion) tokens every link of the chain reported so far, in this process."""
    totals = {"prompt": 0.0, "completion": 0.0}
    for family in metrics.TOKENS.collect():
        for sample in family.samples:
            if sample.name.endswith("_total"):
                totals[sample.labels["direction"]] = totals.get(sample.labels["direction"], 0.0) + sample.value
    return int(totals["prompt"]), int(totals["completion"])


@dataclass
class TurnResult:
    """One message's answer as the person saw it, and as it was stored."""

    turn_id: str | None
    ending: str  # "done", "failed", "timeout" (nothing terminal within the turn's time), "refused"
    error_key: str | None = None
    first_event: float | None = None  # seconds from the POST to the first token or tool event
    first_token: float | None = None  # ... to the first token event
    seconds: float = 0.0  # ... to the terminal event (or the deadline)
    text: str = ""  # the answer's text, as stored (Markdown)
    calls: list[dict] = field(default_factory=list)  # [{name, arguments, error}] in order
    link: str | None = None

    def as_data(self):
        return {
            "ending": self.ending,
            "error_key": self.error_key,
            "first_event": _rounded(self.first_event),
            "first_token": _rounded(self.first_token),
            "seconds": _rounded(self.seconds),
            "tools": [call["name"] for call in self.calls],
            "calls": self.calls,
            "link": self.link,
            "text": self.text,
        }


def _rounded(value):
    return round(value, 3) if value is not None else None


class EvalApp:
    """The app under evaluation, with a fresh pair of users for every try of a task."""

    def __init__(self, database_url, chain_env, turn_seconds, config=None):
        settings = {
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_STORAGE_URI": "memory://",
            "LLM_ENV": chain_env,
            "AGENT_TURN_SECONDS": max(1, int(turn_seconds)),
            "AGENT_HEARTBEAT_SECONDS": 0.5,  # the watcher hears from the stream at least this often
            "AGENT_RATE_LIMIT": "100000 per hour",
            "AUTH_IP_LIMIT": "100000 per hour",
            **(config or {}),
        }
        self.app = create_app("test", **settings)
        self.turn_seconds = turn_seconds
        self._made = 0
        with self.app.app_context():
            db.create_all()

    @property
    def chain(self):
        return self.app.extensions["llm_chain"]

    def close(self):
        self.chain.close()
        with self.app.app_context():
            db.engine.dispose()

    def new_user(self, name, language):
        """A new account (its own email): its id."""
        self._made += 1
        email = f"eval-{self._made}-{uuid.uuid4().hex[:8]}@example.com"
        with self.app.app_context():
            user = accounts.register(name=name, email=email, password=PASSWORD, language=language,
                                     timezone_name="UTC")  # fmt: skip
            return user.id, email

    def user(self, user_id):
        return db.session.get(User, user_id)

    def browser(self, email):
        return Browser(self.app, email)

    def turn(self, browser, chat_id, text, page, seconds):
        """POST the message, read its stream to the end (or until `seconds`), then the stored answer."""
        started = time.perf_counter()
        response = browser.post(f"/ai/agent/chats/{chat_id}/messages", message=text, page=page)
        html = response.get_data(as_text=True)
        found = re.search(r'id="turn-([0-9a-f-]{36})"', html)
        if response.status_code != 200 or not found:
            key = re.search(r'data-error="([A-Z_]+)"', html)
            return TurnResult(None, "refused", key.group(1) if key else f"HTTP_{response.status_code}",
                              seconds=time.perf_counter() - started)  # fmt: skip
        turn_id = found.group(1)
        result = TurnResult(turn_id, "timeout")
        deadline = started + seconds
        stream = browser.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False)
        try:
            for name, data in _events(stream):
                moment = time.perf_counter() - started
                if name in ("token", "tool") and result.first_event is None:
                    result.first_event = moment
                if name == "token" and result.first_token is None:
                    result.first_token = moment
                if name in TERMINAL:
                    result.ending = name
                    key = re.search(r'data-error="([A-Z_]+)"', data)
                    result.error_key = key.group(1) if key else None
                    break
                if time.perf_counter() > deadline:
                    break
        finally:
            stream.close()
        result.seconds = time.perf_counter() - started
        if result.ending == "timeout":
            browser.post(f"/ai/agent/turns/{turn_id}/cancel")
        self._wait_for_end(turn_id)
        self._read_answer(result)
        return result

    def _wait_for_end(self, turn_id, seconds=30):
        deadline = time.monotonic() + seconds
        with self.app.app_context():
            while time.monotonic() < deadline:
                turn = db.session.get(Turn, uuid.UUID(turn_id))
                status = turn.status if turn else None
                db.session.remove()
                if status not in (TurnStatus.PENDING, TurnStatus.RUNNING):
                    return
                time.sleep(0.05)

    def _read_answer(self, result):
        """The answer as stored: its text and its tool calls, each with its arguments and the
        refusal its result carried (from the transcript the model reads next time)."""
        with self.app.app_context():
            turn = db.session.get(Turn, uuid.UUID(result.turn_id))
            if result.error_key is None and turn is not None:
                result.error_key = turn.error_key
            answer = db.session.get(ChatMessage, turn.answer_id) if turn and turn.answer_id else None
            if answer is None:
                return
            result.link = answer.link
            result.text = "".join(s.get("text", "") for s in answer.segments or [] if s.get("type") == "text")
            outcomes = {}
            for message in answer.transcript or []:
                if message.get("role") == "tool":
                    outcomes[message.get("tool_call_id")] = message.get("content")
            for message in answer.transcript or []:
                for call in message.get("tool_calls") or []:
                    result.calls.append({
                        "name": call.get("name"),
                        "arguments": call.get("arguments") or {},
                        "error": _refusal(outcomes.get(call.get("id"))),
                    })  # fmt: skip

    def pending_actions(self, user_id):
        with self.app.app_context():
            rows = db.session.scalars(
                db.select(PendingAction).where(PendingAction.user_id == user_id).order_by(PendingAction.created_at)
            ).all()
            found = [(str(row.id), row.tool, row.state) for row in rows]
            db.session.remove()
            return found

    def confirm(self, browser, user_id, tool):
        """Click Confirm on the newest waiting card of `tool` (any tool when None): the status
        code and the action's id, or (None, None) when no card waits."""
        waiting = [(action_id, name) for action_id, name, state in self.pending_actions(user_id)
                   if state == ActionState.PENDING and (tool is None or name == tool)]  # fmt: skip
        if not waiting:
            return None, None
        action_id = waiting[-1][0]
        return browser.post(f"/ai/agent/actions/{action_id}/confirm").status_code, action_id


def _refusal(content):
    """The error key a tool result carried (None: it succeeded, or asked for a confirmation)."""
    import json

    try:
        parsed = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return None
    return parsed.get("error") if isinstance(parsed, dict) else None


class Browser:
    """A signed-in test client that sends the CSRF header and `HX-Request` as htmx does."""

    def __init__(self, app, email):
        self.http = app.test_client()
        page = self.http.get("/login").get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        signed = self.http.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
        if signed.status_code not in (200, 302, 303):
            raise RuntimeError(f"signing in answered {signed.status_code}")
        page = self.http.get("/habits").get_data(as_text=True)
        found = re.search(r'name="csrf-token" content="([^"]+)"', page)
        if found is None:
            raise RuntimeError("no CSRF token after signing in (did the sign-in fail?)")
        self.csrf = found.group(1)

    def post(self, url, **form):
        return self.http.post(url, data=form, headers={"X-CSRFToken": self.csrf, "HX-Request": "true"})

    def new_chat(self):
        page = self.post("/ai/agent/chats").get_data(as_text=True)
        return re.search(r'data-chat-id="([0-9a-f-]{36})"', page).group(1)


def _events(response):
    """(name, data) of each SSE event of a streamed test-client response; a heartbeat comment
    yields ("", "") so the reader can look at its clock in a silent stretch."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            name, data = "", []
            for line in frame.split("\n"):
                field_name, _, value = line.partition(": ")
                if field_name == "event":
                    name = value
                elif field_name == "data":
                    data.append(value)
            yield name, "\n".join(data)
