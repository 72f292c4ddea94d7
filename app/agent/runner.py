"""Running one turn: stream from the chain, run tool calls as they complete, feed the results
back, until the model answers — then persist, and only then say `done`.

Every event goes through `Turn.send`, which records it in the turn log before any watcher can
write it to a socket: a dead client never costs the transcript, and a reconnect replays it.
The turn runs in the background, so it finishes and is saved even when nobody is watching.
"""

import logging
import threading
import time
from dataclasses import dataclass, field

from flask import current_app, render_template
from flask_babel import force_locale
from flask_babel import gettext as _
from markupsafe import escape
from prometheus_client import Counter

from app.agent import markdown, prompt
from app.agent.tools import registry
from app.extensions import db
from app.llm import ChainExhausted, LLMNotConfigured, Message, StreamInterrupted, TextDelta, ToolCallReady
from app.llm import Completed as ModelCompleted
from app.models import User
from app.models.agent import Chat, Ending, Turn, TurnStatus
from app.services import assistant

log = logging.getLogger("beyou.agent")

TURNS = Counter("beyou_agent_turns_total", "Agent turns by how they ended", ["ending"])


class TurnStopped(Exception):
    """The turn must end now: `key` says why (TURN_CANCELLED, TIMEOUT)."""

    def __init__(self, key, ending):
        super().__init__(key)
        self.key, self.ending = key, ending


@dataclass
class Segments:
    """The official pieces of an answer, in order: text runs and tool results."""

    items: list = field(default_factory=list)

    def text(self, chunk):
        if self.items and self.items[-1]["type"] == "text":
            self.items[-1]["text"] += chunk
        else:
            self.items.append({"type": "text", "text": chunk})

    def tool(self, outcome):
        tool = outcome.tool
        segment = {
            "type": "tool",
            "tool": outcome.name,
            "kind": tool.kind if tool else "read",
            "domains": list(outcome.domains),
        }
        if tool and tool.page:
            segment["page"] = tool.page
        if outcome.error_key:
            segment["error"] = outcome.error_key
        self.items.append(segment)

    @property
    def empty(self):
        return not self.items


class TurnRun:
    """One turn being answered, on a background thread, under the app and the user's language."""

    def __init__(self, app, turn_id):
        self.app = app
        self.turn_id = turn_id
        self.segments = Segments()
        self.transcript = []  # this turn's portable messages: the user's, then each round's
        self.link = None
        self.tool_count = 0
        self.text = ""
        self._last_cancel_check = time.monotonic()  # the turn was just claimed: no need to ask at once

    # The one send function -------------------------------------------------------------

    def send(self, name, html):
        self.app.extensions["turn_log"].send(self.turn_id, name, html)

    # -------------------------------------------------------------------------------------

    def run(self):
        with self.app.app_context():
            # One query for the turn, its user and its chat (start_turn checked the chat is theirs).
            turn, user, chat = db.session.execute(
                db.select(Turn, User, Chat)
                .join(User, User.id == Turn.user_id)
                .join(Chat, Chat.id == Turn.chat_id)
                .where(Turn.id == self.turn_id)
            ).one()
            with force_locale(user.language):
                try:
                    self._answer(user, chat, turn)
                finally:
                    db.session.remove()

    def _answer(self, user, chat, turn):
        config = self.app.config
        deadline = time.monotonic() + config["AGENT_TURN_SECONDS"]
        context = registry.ToolContext(user=user, chat=chat, page=turn.page, focus_entry_id=turn.focus_entry_id)
        self.text = turn.text
        self.transcript.append(Message.user(turn.text))
        chain = self.app.extensions["llm_chain"]
        try:
            for _round in range(config["AGENT_MAX_ROUNDS"]):
                calls = self._model_round(chain, user, chat, turn, context, deadline)
                if not calls:
                    break
            else:
                self._say(_("I stopped here: this took more steps than I am allowed in one answer. "
                            "Tell me to continue if you want me to go on."))  # fmt: skip
            self._finish(turn, Ending.COMPLETE)
        except LLMNotConfigured:
            self._end_without_answer(turn, "AI_NOT_CONFIGURED")
        except ChainExhausted:
            if self.segments.empty:
                self._end_without_answer(turn, "AI_UNAVAILABLE")
            else:
                self._end_with_partial(turn, Ending.FAILED, "AI_UNAVAILABLE")
        except StreamInterrupted:
            self._end_with_partial(turn, Ending.INTERRUPTED, "AI_STREAM_INTERRUPTED")
        except TurnStopped as stopped:
            self._end_with_partial(turn, stopped.ending, stopped.key)
        except Exception:
            log.exception("turn %s failed", self.turn_id)
            db.session.rollback()
            self._end_with_partial(turn, Ending.FAILED, "TURN_FAILED")

    def _model_round(self, chain, user, chat, turn, context, deadline):
        """One model call; runs the tool calls it makes. Returns those calls (none: answered)."""
        request = prompt.request_for(user, chat, turn, self.transcript)
        # End the read transaction before waiting on the model: a turn must not hold a database
        # connection through a long, silent first token (thousands of turns share the pool).
        db.session.commit()
        text, calls, results, extras = [], [], [], {}
        stream = chain.stream(request, deadline=deadline)
        try:
            for event in stream:
                self._check_still_wanted(turn, deadline)
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    self.segments.text(event.text)
                    self.send("token", str(escape(event.text)))
                elif isinstance(event, ToolCallReady):
                    calls.append(event.call)
                    results.append(self._run_tool(context, event.call))
                elif isinstance(event, ModelCompleted):
                    self.link = event.link
                    extras = event.provider_extras
        finally:
            stream.close()
        self.transcript.append(
            Message(role="assistant", content="".join(text), tool_calls=calls, provider_extras=dict(extras))
        )
        self.transcript.extend(results)
        return calls

    def _run_tool(self, context, call):
        self.tool_count += 1
        chip_id = f"tool-{self.turn_id}-{self.tool_count}"
        found = registry.REGISTRY.get(call.name)
        self.send("tool", render_template("agent/_tool.html", chip_id=chip_id, tool=found, name=call.name,
                                          running=True))  # fmt: skip
        outcome = registry.run(context, call.name, call.arguments)
        self.segments.tool(outcome)
        self.send(
            "tool",
            render_template("agent/_tool.html", chip_id=chip_id, tool=found, name=call.name, running=False,
                            outcome=outcome, oob=True),
        )  # fmt: skip
        return Message.tool_result(call, outcome.as_model_content)

    def _check_still_wanted(self, turn, deadline):
        if time.monotonic() > deadline:
            raise TurnStopped("TIMEOUT", Ending.TIMEOUT)
        now = time.monotonic()
        if now - self._last_cancel_check >= 0.25:
            self._last_cancel_check = now
            if assistant.cancel_requested(turn.id):
                raise TurnStopped("TURN_CANCELLED", Ending.CANCELLED)

    def _say(self, text):
        self.segments.text(text)
        self.send("token", str(escape(text)))

    # Endings -----------------------------------------------------------------------------

    def _persist(self, turn, ending):
        try:
            assistant.record_exchange(
                turn, self.segments.items, [m.model_dump(exclude_defaults=True) for m in self.transcript],
                self.link, ending,
            )  # fmt: skip
        except Exception:
            log.exception("turn %s could not be persisted", self.turn_id)
            db.session.rollback()
            return False
        return True

    def _finish(self, turn, ending):
        if not self._persist(turn, ending):
            self._error(turn, "TRANSCRIPT_PERSIST_FAILED", keep_bubble=True)
            return
        assistant.end_turn(turn, TurnStatus.DONE)
        TURNS.labels("done").inc()
        self.send("done", render_template("agent/_assistant.html", turn_id=self.turn_id, segments=self.segments.items,
                                          link=self.link, ending=ending, render=markdown.render))  # fmt: skip

    def _end_with_partial(self, turn, ending, key):
        """Keep what was said and done, marked with how it ended; then tell the client why."""
        if not self._persist(turn, ending):
            key = "TRANSCRIPT_PERSIST_FAILED"
        self._error(turn, key, keep_bubble=True)

    def _end_without_answer(self, turn, key):
        """Nothing happened: nothing is saved; the client takes the message back to the composer."""
        self._error(turn, key, keep_bubble=False)

    def _error(self, turn, key, keep_bubble):
        db.session.rollback()
        try:
            assistant.end_turn(turn, TurnStatus.ENDED, key)
        except Exception:  # the chat (and with it the turn) may be gone; the client still hears why
            log.warning("turn %s: could not record its ending %s", self.turn_id, key)
            db.session.rollback()
        TURNS.labels(key.lower()).inc()
        self.send("error", render_error(self.turn_id, self.text, key, self.segments.items, self.link, keep_bubble))


def render_error(turn_id, text, key, segments, link, keep_bubble):
    return render_template("agent/_turn_error.html", turn_id=turn_id, text=text, key=key, segments=segments,
                           link=link, keep_bubble=keep_bubble, render=markdown.render)  # fmt: skip


def start_in_background(turn_id):
    """Run the claimed turn on its own thread (a greenlet under gevent)."""
    run = TurnRun(current_app._get_current_object(), turn_id)
    thread = threading.Thread(target=run.run, name=f"turn-{turn_id}", daemon=True)
    thread.start()
    return thread
