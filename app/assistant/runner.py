"""Running one turn: stream from the chain, run tool calls as they complete, feed the results
back, until the model answers — then persist, and only then say `done`.

Every event goes through `Turn.send`, which records it in the turn log before any watcher can
write it to a socket: a dead client never costs the transcript, and a reconnect replays it.
Sending never waits on Redis (the log keeps this process's copy and relays it), so a Redis that
restarts or stays away costs the turn nothing.
The turn runs in the background, so it finishes and is saved even when nobody is watching.

What the turn says and does is also journaled on its answer row as it goes — each tool call
before it runs and after, and about every second of text — and this process renews the turn's
lease while it runs, so a worker that dies mid-turn leaves a record that a watcher or the sweep
ends as INTERRUPTED. A worker shutting down (SIGTERM) ends its turns the same way, itself.
"""

import logging
import threading
import time
import weakref
from dataclasses import dataclass, field

from flask import current_app, render_template
from flask_babel import force_locale
from flask_babel import gettext as _
from markupsafe import escape
from prometheus_client import Counter
from sqlalchemy import bindparam
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app import daemons, events
from app.agent import registry
from app.assistant import prompt, tool_calls, turn_budget
from app.assistant import services as assistant
from app.assistant.models.chats import Chat, Ending, Turn, TurnStatus
from app.extensions import db, sqlite_patience
from app.llm import (
    ChainExhausted,
    ContextTooSmall,
    DeadlineReached,
    LLMNotConfigured,
    Message,
    StreamInterrupted,
    TextDelta,
    ToolCallReady,
    Wake,
    model,
)
from app.llm import Completed as ModelCompleted
from app.profile.models import User
from app.web import markdown

log = logging.getLogger("beyou.agent")

TURNS = Counter("beyou_agent_turns_total", "Agent turns by how they ended", ["ending"])

JOURNAL_EVERY = 1.0  # seconds of streaming text between two notes in the journal
# A turn's text leaves at most this often, the pieces read meanwhile together: one event where a
# model sent one or two, and a watcher cannot tell the difference.
GATHER_SECONDS = 0.03
CANCEL_POLL_SECONDS = 0.25  # how often one query asks which of this process's turns were cancelled
SHUTDOWN_GRACE = 3.0  # seconds a stopping worker lets its turns end themselves


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

    def tool_started(self, name, tool):
        """A tool about to run: journaled before it runs, so a crash while it runs still shows
        that it may have acted (the card reads "interrupted" until its outcome replaces it)."""
        self.items.append({"type": "tool", "tool": name, "kind": tool.kind if tool else "read", "domains": [],
                           "unfinished": True})  # fmt: skip

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
        elif outcome.pending_action_id:
            segment["confirmation"] = outcome.pending_action_id  # its card: Confirm or Cancel, then what came of it
        elif isinstance(outcome.result, dict) and outcome.result.get("diagram"):
            segment["diagram"] = outcome.result["diagram"]  # showDiagram: drawn in the answer
        if self.items and self.items[-1].get("unfinished"):
            self.items[-1] = segment
        else:
            self.items.append(segment)

    @property
    def empty(self):
        return not self.items


@dataclass(frozen=True)
class TurnRef:
    """The ids a running turn is written through (no ORM row to refresh, or to vanish)."""

    id: object
    chat_id: object
    question_id: object
    answer_id: object


# Built once (a bound parameter): every turn runs it first.
_TURN_USER_CHAT = (
    db.select(Turn, User, Chat)
    .join(User, User.id == Turn.user_id)
    .join(Chat, Chat.id == Turn.chat_id)
    .where(Turn.id == bindparam("turn"))
)


class TurnRun:
    """One turn being answered, on a background thread, under the app and the user's language."""

    def __init__(self, app, turn_id):
        self.app = app
        self.turn_id = turn_id
        self._log_id = str(turn_id)  # the turn log's key, made once rather than for every event
        self.turn = None  # a TurnRef once loaded
        self.user_id = None
        self.language = None
        self._loaded = None  # the rows read at the start, until the first round takes them
        self.segments = Segments()
        self.transcript = []  # this turn's portable messages: the user's, then each round's
        self.round = None  # the round being streamed: (text chunks, calls, results)
        self.link = None
        self.tool_count = 0
        self.offered = ()  # the names of the tools the round's request carried
        self.unreadable_calls = set()  # the tools this turn called with arguments that could not be read
        self.gave_up = False  # one of them twice: the turn stops asking the model
        self.text = ""
        self.cancel_requested = False  # set by the process's turn keeper, which asks for every turn at once
        self.wake = Wake()  # a silent model's stream yields at once when the turn is asked to stop
        self._journaled_at = time.monotonic()
        self._shutting_down = False
        self._ending = threading.Lock()
        self._ended = False

    # The one send function -------------------------------------------------------------

    def send(self, name, html):
        """An event for the turn's watchers. They write it when the runner next waits: the chain's
        gather after text, or a `daemons.let_others_run()` before work that holds the process (a
        tool, the answer's end)."""
        self.app.extensions["turn_log"].send(self._log_id, name, html)

    # -------------------------------------------------------------------------------------

    def run(self):
        try:
            # What the turn's tools change reaches the user's other pages; the panel watching it
            # refreshes its own page from the tool events (app/events.py, app/web/live.py).
            with self.app.app_context(), events.acting_from(f"turn:{self.turn_id}"):
                if not self._load():
                    return
                with force_locale(self.language):
                    try:
                        self._answer()
                    finally:
                        db.session.remove()
        finally:
            RUNNING.discard(self)

    def _load(self):
        """Whether the turn could be read: its ids, its user's, its text and the user's language
        are kept; no row is (each round reads its rows again, and lets them go before waiting on
        its model).

        Thousands of turns claimed at once can leave none of the pool's connections free for a
        while: the runner waits its turn (its lease is renewed meanwhile) until the turn's own
        time is up, rather than dying and leaving the watcher to wait out the lease. If it still
        cannot read the turn, the watchers hear so now; the sweep ends the turn from its record."""
        give_up = time.monotonic() + self.app.config["AGENT_TURN_SECONDS"]
        pause = 0.25
        while True:
            try:
                self._loaded = self._rows()  # the first round's rows
                turn, user, _chat = self._loaded
                self.turn = TurnRef(turn.id, turn.chat_id, turn.question_id, turn.answer_id)
                self.user_id, self.language, self.text = user.id, user.language, turn.text
                return True
            except PoolTimeout:
                db.session.rollback()
                if time.monotonic() + pause < give_up:
                    log.warning("turn %s: no database connection free yet, waiting", self.turn_id)
                    time.sleep(pause)
                    pause = min(pause * 2, 2.0)
                    continue
                log.error("turn %s: no database connection within its time", self.turn_id)
            except Exception:
                log.exception("turn %s could not be read", self.turn_id)
                db.session.rollback()
            db.session.remove()
            if self._first_to_end():
                self._send_error("TURN_INTERRUPTED", keep_bubble=True)
            return False

    def _rows(self):
        """The turn, its user and its chat in one query (start_turn checked the chat is theirs)."""
        return db.session.execute(_TURN_USER_CHAT, {"turn": self.turn_id}).one()

    def _answer(self):
        config = self.app.config
        deadline = time.monotonic() + config["AGENT_TURN_SECONDS"]
        self.transcript.append(Message.user(self.text))
        the_model = model("agent")
        try:
            for _round in range(config["AGENT_MAX_ROUNDS"]):
                calls = self._model_round(the_model, deadline)
                if self.gave_up:
                    self._say(_("I could not do this: twice I sent the app an action it could not read. "
                                "Please ask again, perhaps in other words."))  # fmt: skip
                    break
                if not calls:
                    break
            else:
                self._say(_("I stopped here: this took more steps than I am allowed in one answer. "
                            "Tell me to continue if you want me to go on."))  # fmt: skip
            self._end(Ending.COMPLETE)
        except LLMNotConfigured:
            self._withdraw("AI_NOT_CONFIGURED")
        except DeadlineReached:  # the turn's own time ran out while no link had answered yet
            if self.segments.empty:
                self._give_back_budget()
            self._end(Ending.TIMEOUT, "TIMEOUT")
        except ContextTooSmall:  # no link's window holds the prompt and this turn's messages: nothing was sent
            if self.segments.empty:
                self._give_back_budget()
                self._withdraw("AI_CONTEXT_TOO_SMALL")
            else:
                self._end(Ending.FAILED, "AI_CONTEXT_TOO_SMALL")
        except ChainExhausted:
            if self.segments.empty:
                self._give_back_budget()
                self._withdraw("AI_UNAVAILABLE")
            else:
                self._end(Ending.FAILED, "AI_UNAVAILABLE")
        except StreamInterrupted as cut:
            self.link = cut.link  # the link that was answering: "answered by" shows on the partial
            self._end(Ending.INTERRUPTED, "AI_STREAM_INTERRUPTED")
        except TurnStopped as stopped:
            if stopped.key == "TIMEOUT" and self.segments.empty:  # the model was silent all along
                self._give_back_budget()
            self._end(stopped.ending, stopped.key)
        except Exception:
            log.exception("turn %s failed", self.turn_id)
            db.session.rollback()
            self._end(Ending.FAILED, "TURN_FAILED")

    def _model_round(self, the_model, deadline):
        """One model call; runs the tool calls it makes. Returns those calls (none: answered)."""
        request = self._request()
        self.offered = tuple(spec.name for spec in request.tools)
        context = None
        text, calls, results, extras = [], [], [], {}
        self.round = (text, calls, results)
        stream = the_model.stream(request, deadline=deadline, wake=self.wake, gather=GATHER_SECONDS)
        try:
            for event in stream:
                self._check_still_wanted(deadline)
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    self.segments.text(event.text)
                    self.send("token", str(escape(event.text)))
                    if time.monotonic() - self._journaled_at >= JOURNAL_EVERY:
                        self._note()
                elif isinstance(event, ToolCallReady):
                    context = context or self._tool_context()
                    self._run_tool(context, event.call)
                elif isinstance(event, ModelCompleted):
                    self.link = event.link
                    extras = event.provider_extras
        finally:
            stream.close()
        self.round = None
        self.transcript.append(
            Message(role="assistant", content="".join(text), tool_calls=calls, provider_extras=dict(extras))
        )
        self.transcript.extend(results)
        return calls

    def _request(self):
        """The round's request, from the turn's rows as they are now. The read transaction ends
        and the rows are let go before the turn waits on its model: a turn must hold neither a
        database connection nor its rows through a long, silent first token (thousands of turns
        wait at once). Its tools read them again."""
        turn, user, chat = self._loaded or self._rows()
        self._loaded = None
        request = prompt.request_for(user, chat, turn, self.transcript)
        db.session.commit()
        db.session.remove()
        return request

    def _tool_context(self):
        turn, user, chat = self._rows()
        return registry.ToolContext(user=user, chat=chat, page=turn.page, focus_entry_id=turn.focus_entry_id)

    def _run_tool(self, context, call):
        """Run one call of the current round, journaled before it runs and after."""
        _text, calls, results = self.round
        found = tool_calls.resolve(call.name)
        if found is not None and found.name != call.name:  # the transcript names the tool as it is declared
            call = call.model_copy(update={"name": found.name})
        calls.append(call)
        self.tool_count += 1
        chip_id = f"tool-{self.turn_id}-{self.tool_count}"
        self.segments.tool_started(call.name, found)
        self._journal()
        self.send("tool", render_template("assistant/_tool.html", chip_id=chip_id, tool=found, name=call.name,
                                          running=True))  # fmt: skip
        daemons.let_others_run()  # the watchers show the chip before the tool runs
        outcome = tool_calls.run(context, call.name, call.arguments, unreadable=call.unreadable, offered=self.offered)
        if outcome.error_key == tool_calls.ARGUMENTS_UNREADABLE:
            self._note_unreadable(call.name)
        self.segments.tool(outcome)
        results.append(Message.tool_result(call, outcome.as_model_content))
        self._journal()
        self.send(
            "tool",
            render_template("assistant/_tool.html", chip_id=chip_id, tool=found, name=call.name, running=False,
                            outcome=outcome, oob=True),
        )  # fmt: skip

    def _note_unreadable(self, name):
        """The model is told once what was wrong with a call; the same tool's arguments unreadable
        again in this turn means it is not fixing them, so the turn ends after this round."""
        self.gave_up = self.gave_up or name in self.unreadable_calls
        self.unreadable_calls.add(name)

    def _check_still_wanted(self, deadline):
        if self._shutting_down:
            raise TurnStopped("TURN_INTERRUPTED", Ending.INTERRUPTED)
        if time.monotonic() > deadline:
            raise TurnStopped("TIMEOUT", Ending.TIMEOUT)
        if self.cancel_requested:
            raise TurnStopped("TURN_CANCELLED", Ending.CANCELLED)

    def _say(self, text):
        self.segments.text(text)
        self.send("token", str(escape(text)))

    # The journal -------------------------------------------------------------------------

    def _answer_transcript(self):
        """The portable messages of the answer so far (the user's message is its own row): the
        finished rounds, then what the current round said and the tool calls it has answered."""
        messages = self.transcript[1:]
        if self.round is not None:
            text, calls, results = self.round
            answered = calls[: len(results)]
            if text or answered:
                messages = [*messages, Message(role="assistant", content="".join(text), tool_calls=answered),
                            *results]  # fmt: skip
        return [m.model_dump(exclude_defaults=True) for m in messages]

    def _note(self):
        """Note what the turn has said so far: the process's journal writes it shortly, with
        every other turn's (app/assistant/answer_journal.py)."""
        self._journaled_at = time.monotonic()
        self.app.extensions["answer_journal"].note(self.turn, [dict(item) for item in self.segments.items],
                                                   self._answer_transcript(), self.link)  # fmt: skip

    def _journal(self):
        """Write what the turn has said and done so far on its answer row, now: a tool is about
        to act, or has. Best effort: a locked database is waited for briefly, then the next write
        catches up."""
        self._journaled_at = time.monotonic()
        try:
            self.app.extensions["answer_journal"].write_now(self.turn, self.segments.items, self._answer_transcript(),
                                                            self.link)  # fmt: skip
        except Exception:
            log.warning("turn %s: its journal could not be written this time", self.turn_id, exc_info=True)
            db.session.rollback()

    # Endings: each turn ends exactly once, by its runner or by a worker shutting down -----

    def _first_to_end(self):
        with self._ending:
            first, self._ended = not self._ended, True
            return first

    def _end(self, ending, key=None):
        """Store the answer as it ended and end the turn (one transaction); only then tell the
        watchers: `done`, or `error` with the key and what was kept."""
        if not self._first_to_end():
            return
        daemons.let_others_run()  # the watchers write the last text before the answer is stored
        db.session.rollback()
        self.app.extensions["answer_journal"].forget(self.turn)
        status = TurnStatus.ENDED if key else TurnStatus.DONE
        try:
            self._store(ending, status, key)
        except Exception as failure:
            log.warning("turn %s could not be persisted", self.turn_id, exc_info=True)
            db.session.rollback()
            self._send_error("TRANSCRIPT_PERSIST_FAILED", keep_bubble=True)
            if not isinstance(failure, assistant.TurnAlreadyEnded):
                self._keep_trying_to_store(ending, status, key)
            return
        if key:
            self._send_error(key, keep_bubble=True)
            return
        TURNS.labels("done").inc()
        self.send("done", render_template("assistant/_assistant.html", turn_id=self.turn_id,
                                          segments=self.segments.items, link=self.link, ending=ending,
                                          render=markdown.render))  # fmt: skip

    def _store(self, ending, status, key):
        assistant.end_turn_with_answer(
            self.turn, segments=self.segments.items, transcript=self._answer_transcript(), link=self.link,
            ending=ending, status=status, error_key=key,
        )  # fmt: skip

    def _keep_trying_to_store(self, ending, status, key):
        """The watchers were told the answer was not saved, but it may still be: a locked
        database frees up, a write that failed once succeeds. Try again for a lease's length (the
        turn is still this process's, so its lease is renewed and the sweep spares it), then leave
        the journal behind for the sweep."""
        give_up = time.monotonic() + self.app.config["AGENT_LEASE_SECONDS"]
        pause = 0.25
        while time.monotonic() < give_up:
            time.sleep(pause)
            pause = min(pause * 2, 1.0)  # a freed lock is taken within a second
            try:
                self._store(ending, status, key)
                return
            except assistant.TurnAlreadyEnded:
                return
            except Exception:
                db.session.rollback()
        log.error("turn %s: gave up saving its answer; the sweep ends it from its journal", self.turn_id)
        self._journal()

    def _give_back_budget(self):
        """No model answered: the message spent when the turn was claimed is the user's again."""
        turn_budget.refund(self.user_id)

    def _withdraw(self, key):
        """Nothing happened: the user's message leaves the chat and goes back to the composer."""
        if not self._first_to_end():
            return
        try:
            assistant.withdraw_turn(self.turn, key)
        except Exception:  # the chat (and with it the turn) may be gone; the client still hears why
            log.warning("turn %s: could not record its ending %s", self.turn_id, key)
            db.session.rollback()
        self._send_error(key, keep_bubble=False)

    def cancelled(self):
        """The turn keeper found the turn cancelled: it ends at its next event, which comes now."""
        self.cancel_requested = True
        self.wake()

    def stop_for_shutdown(self):
        """Ask the turn to end as INTERRUPTED at its next event, which comes now (a worker is stopping)."""
        self._shutting_down = True
        self.wake()

    def end_for_shutdown(self):
        """End the turn from outside, INTERRUPTED with what it has, when its runner is stuck
        waiting on a provider and the worker cannot wait any longer."""
        if self.turn is None:
            return
        with self.app.app_context(), force_locale(self.language):
            try:
                self._end(Ending.INTERRUPTED, "TURN_INTERRUPTED")
            finally:
                db.session.remove()

    def _send_error(self, key, keep_bubble):
        TURNS.labels(key.lower()).inc()
        self.send("failed", render_error(self.turn_id, self.text, key, self.segments.items, self.link, keep_bubble))


def render_error(turn_id, text, key, segments, link, keep_bubble):
    return render_template("assistant/_turn_error.html", turn_id=turn_id, text=text, key=key, segments=segments,
                           link=link, keep_bubble=keep_bubble, render=markdown.render)  # fmt: skip


def start_in_background(turn_id):
    """Run the claimed turn on its own thread (a bare greenlet under gevent: app/daemons.py)."""
    app = current_app._get_current_object()
    run = TurnRun(app, turn_id)
    RUNNING.add(run)  # before its keeper looks: a keeper with no turn to keep stops
    app.extensions["turn_log"].begin(turn_id)  # its watchers here follow this process's copy, Redis or not
    daemons.start(run.run, f"turn-{turn_id}")
    keep_leases(app)


# This process's running turns ------------------------------------------------------------


class RunningTurns:
    """The turns this process is running, by turn id: their leases are renewed and their
    cancellations asked for from here, a watcher asks whether a turn is run here at every beat
    (a lookup, not a scan), and a worker that is stopping ends them."""

    def __init__(self):
        self._runs = weakref.WeakValueDictionary()  # str(turn id) -> TurnRun
        self._lock = threading.Lock()

    def add(self, run):
        with self._lock:
            self._runs[str(run.turn_id)] = run

    def discard(self, run):
        with self._lock:
            if self._runs.get(str(run.turn_id)) is run:
                del self._runs[str(run.turn_id)]

    def of(self, app=None):
        with self._lock:
            return [run for run in self._runs.values() if app is None or run.app is app]

    def runs(self, turn_id):
        """Whether this process is running the turn (then it is not abandoned, whatever its lease)."""
        return str(turn_id) in self._runs


RUNNING = RunningTurns()


def keep_leases(app, resident=False):
    """Start the app's turn keeper unless it runs already. A few times a second it asks, in one
    query, which of the turns this process runs were cancelled, and flags them; every third of
    the lease it renews their leases. A `resident` keeper (a server worker's) runs for good and
    also ends abandoned turns, whoever ran them (the sweep, like the clock's); any other keeper
    stops when this process runs no turn."""
    with _keepers_lock:
        keeper = app.extensions.get("turn_lease_keeper")
        if keeper is not None and keeper.is_alive():
            return keeper
        keeper = threading.Thread(target=_keep, args=(app, resident), name="turn-lease-keeper", daemon=True)
        app.extensions["turn_lease_keeper"] = keeper
        keeper.start()
        return keeper


_keepers_lock = threading.Lock()


def _keep(app, resident):
    every = app.config["AGENT_LEASE_SECONDS"] / 3
    tick = min(CANCEL_POLL_SECONDS, every)
    next_renewal = time.monotonic() + every
    idle_rounds = 0
    while True:
        time.sleep(tick)
        runs = RUNNING.of(app)
        if runs:
            _flag_cancelled(app, runs)
        if time.monotonic() < next_renewal:
            continue
        next_renewal = time.monotonic() + every
        _renew(app, runs, resident)
        idle_rounds = 0 if runs else idle_rounds + 1
        if not resident and idle_rounds >= 2:
            with _keepers_lock:
                if not RUNNING.of(app):
                    app.extensions.pop("turn_lease_keeper", None)
                    return


def _flag_cancelled(app, runs):
    """One query for every running turn of the app, however many run: the running turns asked to
    stop, of which this process flags its own."""
    asking = {str(run.turn_id): run for run in runs if not run.cancel_requested}
    with app.app_context():
        try:
            for turn_id in assistant.cancelled_running():
                if str(turn_id) in asking:
                    asking[str(turn_id)].cancelled()
        except Exception:
            log.warning("turn cancellations could not be read this time", exc_info=True)


def _renew(app, runs, resident):
    with app.app_context():
        try:
            with sqlite_patience(app.config["AGENT_LEASE_SECONDS"] / 6):
                assistant.renew_leases([run.turn_id for run in runs])
                if resident:
                    assistant.end_abandoned_turns(sparing=[run.turn_id for run in RUNNING.of()])
        except Exception:
            log.warning("turn leases could not be renewed this time", exc_info=True)
        finally:
            db.session.remove()


def stop_running_turns(grace=SHUTDOWN_GRACE):
    """A worker is stopping: each turn it runs ends as INTERRUPTED with its partial answer, by
    itself at its next event if it can within `grace` seconds, else from here."""
    for run in RUNNING.of():
        run.stop_for_shutdown()
    deadline = time.monotonic() + grace
    while RUNNING.of() and time.monotonic() < deadline:
        time.sleep(0.05)
    for run in RUNNING.of():
        run.end_for_shutdown()
