"""Turns that survive anything: what was typed, said and done is in the chat whatever stops a turn
— a worker that dies or stops, a save that fails, a locked database — and every watcher hears
how it ended."""

import json
import sqlite3
import time
import uuid
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from sqlalchemy import event, update

from app.assistant import runner
from app.assistant import services as assistant
from app.assistant.models.chats import ChatMessage, Ending, Turn, TurnStatus
from app.extensions import db
from app.profile import configuration
from app.profile.models import User
from app.routines import services as routines
from app.tasks import services as tasks
from tests.assistant.conftest import AgentClient, make_user, wait_for_turn
from tests.conftest import TEST_DATABASE_URL
from tests.fakes import Reply
from tests.fakes.script import FakeCall

MAKE_PD2 = FakeCall("createUserTask", {"name": "PD2", "importance": 2, "difficulty": 1})


def saved_messages(app):
    with app.app_context():
        rows = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()
        return [(r.role.value, r.segments, r.ending, r.link) for r in rows]


def turn_row(app, turn_id):
    with app.app_context():
        turn = db.session.get(Turn, uuid.UUID(str(turn_id)))
        db.session.expunge(turn)
        return turn


def lease_lapses(app, turn_id):
    """What a killed worker leaves behind: its turn RUNNING, a lease nobody renews."""
    with app.app_context():
        db.session.execute(
            update(Turn).where(Turn.id == uuid.UUID(str(turn_id))).values(lease_until=datetime.now(UTC) - timedelta(1))
        )
        db.session.commit()


def sweep_until_ended(app, turn_id, seconds=20):
    """Run the clock's sweep until it ends the turn (once its lease has lapsed)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with app.app_context():
            assistant.end_abandoned_turns()
            db.session.remove()
        if (status := turn_row(app, turn_id).status) != TurnStatus.RUNNING:
            return status
        time.sleep(0.1)
    return TurnStatus.RUNNING


def ana_user(app):
    return db.session.scalar(db.select(User).where(User.email == "ana@example.com"))


# The user's message is stored when it is accepted ------------------------------------------


def test_the_users_message_is_in_the_chat_as_soon_as_it_is_accepted(ana, fake, agent_app):
    chat_id = ana.new_chat()
    ana.send_ok(chat_id, "please make a task PD2")  # nobody watches: no model is called
    assert saved_messages(agent_app) == [("USER", [{"type": "text", "text": "please make a task PD2"}], None, None)]
    assert "please make a task PD2" in ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True)
    assert fake.requests() == []


def test_the_export_carries_a_message_the_assistant_never_answered(ana, fake, agent_app):
    chat_id = ana.new_chat()
    ana.send_ok(chat_id, "remind me to call mum")
    with agent_app.app_context():
        (chat,) = configuration.export(ana_user(agent_app))["assistant"]["chats"]
    assert [(m["role"], m["segments"]) for m in chat["messages"]] == [
        ("USER", [{"type": "text", "text": "remind me to call mum"}])
    ]


def test_the_window_carries_the_message_being_answered_once(ana, fake, agent_app):
    chat_id = ana.new_chat()
    ana.stream(ana.send_ok(chat_id, "first question"))
    ana.stream(ana.send_ok(chat_id, "second question"))
    sent = [m for m in fake.requests("mistral")[-1].body["messages"] if m["role"] == "user"]
    assert [m["content"] for m in sent] == ["first question", "second question"]


def test_a_turn_that_reached_no_model_takes_its_message_back_to_the_composer(ana, fake, agent_app):
    """Every link failed before any output: the stored message is deleted in the transaction that
    ends the turn, since the client puts the text back in the composer to be sent again."""
    fake.script("mistral", Reply.fails(503, {"error": "overloaded"}))
    fake.script("gemini", Reply.fails(500, {"error": {"code": 500, "message": "boom"}}))
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "plan my week")
    (error,) = ana.stream(turn_id)
    assert ">plan my week</textarea>" in error["data"]
    assert saved_messages(agent_app) == []
    assert "plan my week" not in ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True)
    turn = turn_row(agent_app, turn_id)
    assert (turn.status, turn.error_key, turn.question_id, turn.answer_id) == (
        TurnStatus.ENDED, "AI_UNAVAILABLE", None, None
    )  # fmt: skip


def test_a_refused_third_stream_leaves_no_message_and_gives_the_text_back(ana, fake, agent_app):
    fake.script("mistral", Reply.says("slow", " one", pace=0.6), Reply.says("slow", " two", pace=0.6))
    chats = [ana.new_chat() for _ in range(3)]
    turns = [ana.send_ok(chat, f"hello {n}") for n, chat in enumerate(chats)]
    held = [ana.open_stream(turn) for turn in turns[:2]]
    for live in held:
        live.until("token")
    (refused,) = ana.stream(turns[2])
    assert 'data-error="TOO_MANY_STREAMS"' in refused["data"] and ">hello 2</textarea>" in refused["data"]
    for live in held:
        live.rest()
    assert "hello 2" not in ana.http.get(f"/ai/agent/chats/{chats[2]}").get_data(as_text=True)
    asked = [segments[0]["text"] for role, segments, *_ in saved_messages(agent_app) if role == "USER"]
    assert asked == ["hello 0", "hello 1"]


def test_a_turn_cancelled_before_anyone_watched_keeps_its_message_in_the_chat(ana, fake, agent_app):
    chat_id = ana.new_chat()
    first = ana.send_ok(chat_id, "first")
    ana.send_ok(chat_id, "actually, second")  # the first had not started: it ends here, unanswered
    (ending,) = ana.stream(first)
    assert 'data-error="TURN_CANCELLED"' in ending["data"]
    assert "</textarea>" not in ending["data"]  # its text stays where it is, in the chat
    assert [r[1][0]["text"] for r in saved_messages(agent_app)] == ["first", "actually, second"]


def test_a_focus_entry_of_another_user_is_not_found_like_an_unknown_one(ana, fake, agent_app):
    make_user(agent_app, email="bruno@example.com", name="Bruno")
    with agent_app.app_context():
        bruno = db.session.scalar(db.select(User).where(User.email == "bruno@example.com"))
        task = tasks.create(bruno, name="Run", importance=2, difficulty=2)
        brunos_entry = routines.create_list(bruno, "Morning", entries=[{"task_id": task.id}]).entries[0].id
        mine = tasks.create(ana_user(agent_app), name="Read", importance=2, difficulty=2)
        my_entry = routines.create_list(ana_user(agent_app), "Evening", entries=[{"task_id": mine.id}]).entries[0].id
    chat_id = ana.new_chat()
    answers = [
        ana.post(f"/ai/agent/chats/{chat_id}/messages", message="what is this?", focus_entry=str(entry))
        for entry in (brunos_entry, uuid.uuid4())
    ]
    assert [a.status_code for a in answers] == [404, 404]
    assert answers[0].get_data(as_text=True) == answers[1].get_data(as_text=True)
    with agent_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Turn)) == 0
    accepted = ana.post(f"/ai/agent/chats/{chat_id}/messages", message="and this?", focus_entry=str(my_entry))
    assert accepted.status_code == 200
    with agent_app.app_context():
        assert db.session.scalar(db.select(Turn.focus_entry_id)) == my_entry


# A turn whose runner is gone ------------------------------------------------------------


def claimed_by_a_worker_that_died(app, turn_id, segments, link=None):
    """A turn claimed and journaled by a worker that was then killed."""
    with app.app_context():
        turn = db.session.get(Turn, uuid.UUID(turn_id))
        assert assistant.claim(turn)
        app.extensions["answer_journal"].write_now(turn, segments, [], link)
    lease_lapses(app, turn_id)


TOOL_CARD = {"type": "tool", "tool": "createUserTask", "kind": "write", "domains": ["tasks"], "page": "/tasks"}


def test_a_turn_whose_worker_died_is_ended_interrupted_and_a_reconnect_hears_it(ana, fake, agent_app):
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "please make a task PD2")
    claimed_by_a_worker_that_died(agent_app, turn_id, [TOOL_CARD, {"type": "text", "text": "Created **PD2**, and"}],
                                  link="mistral")  # fmt: skip
    events = ana.stream(turn_id, last_event_id=5)
    assert [e["name"] for e in events] == ["failed"]
    ending = events[0]["data"]
    assert 'data-error="TURN_INTERRUPTED"' in ending
    assert "Created <strong>PD2</strong>, and" in ending and 'href="/tasks"' in ending
    assert "answered by mistral" in ending
    chat = unescape(ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True))
    assert "please make a task PD2" in chat
    assert "Created <strong>PD2</strong>, and" in chat and 'href="/tasks"' in chat and "Interrupted" in chat
    assert turn_row(agent_app, turn_id).error_key == "TURN_INTERRUPTED"
    assert fake.requests() == []  # ending it never calls a model


def test_a_tool_the_dead_worker_was_running_shows_that_it_may_have_acted(ana, fake, agent_app):
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "make a task PD2")
    claimed_by_a_worker_that_died(agent_app, turn_id, [{**TOOL_CARD, "domains": [], "unfinished": True}])
    assert ana.stream(turn_id)[-1]["name"] == "failed"
    chat = ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True)
    assert "interrupted while it ran: check the result" in chat
    assert 'href="/tasks"' not in chat  # not shown as done


def test_the_sweep_ends_abandoned_turns_and_leaves_live_ones_alone(ana, fake, agent_app):
    abandoned, alive = ana.new_chat(), ana.new_chat()
    dead_turn = ana.send_ok(abandoned, "one")
    live_turn = ana.send_ok(alive, "two")
    claimed_by_a_worker_that_died(agent_app, dead_turn, [{"type": "text", "text": "Half an"}])
    with agent_app.app_context():
        assert assistant.claim(db.session.get(Turn, uuid.UUID(live_turn)))  # its runner renews the lease
    result = agent_app.test_cli_runner().invoke(args=["end-abandoned-turns"])
    assert "Ended 1 abandoned turn(s)." in result.output
    assert turn_row(agent_app, dead_turn).status == TurnStatus.ENDED
    assert turn_row(agent_app, live_turn).status == TurnStatus.RUNNING
    assert ("ASSISTANT", [{"type": "text", "text": "Half an"}], Ending.INTERRUPTED, None) in saved_messages(agent_app)
    with agent_app.app_context():  # let the fixture's clean-up find nothing running
        assistant.interrupt_turn(uuid.UUID(live_turn))


def test_a_running_turn_renews_its_lease(make_agent_app, fake):
    app = make_agent_app(AGENT_LEASE_SECONDS=0.9)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says(*["word "] * 12, pace=0.25))  # three seconds: several leases long
    events = ana.stream(ana.send_ok(ana.new_chat(), "talk slowly"))
    assert events[-1]["name"] == "done"  # never taken for a dead worker's turn


def test_the_journal_keeps_a_tool_outcome_and_the_text_so_far_while_the_turn_runs(ana, fake, agent_app):
    fake.script("mistral", Reply.calls(MAKE_PD2), Reply.says("Created ", "PD2", *[" and more"] * 8, pace=0.3))
    turn_id = ana.send_ok(ana.new_chat(), "please make a task PD2")
    live = ana.open_stream(turn_id)
    for _ in range(6):
        live.until("token")
    (_user, (_role, segments, ending, link)) = saved_messages(agent_app)  # while it still runs
    assert ending is None and link == "mistral"
    assert segments[0]["tool"] == "createUserTask" and "unfinished" not in segments[0]
    assert segments[1]["text"].startswith("Created PD2")
    live.rest()


# A worker that stops --------------------------------------------------------------------


def test_a_stopping_worker_ends_its_turns_as_interrupted_with_their_partial_answer(ana, fake, agent_app):
    fake.script("mistral", Reply.calls(MAKE_PD2), Reply.says("Created ", "PD2", *[" and more"] * 10, pace=0.3))
    turn_id = ana.send_ok(ana.new_chat(), "please make a task PD2")
    live = ana.open_stream(turn_id)
    live.until("token")
    runner.stop_running_turns()
    ending = live.rest()[-1]
    assert ending["name"] == "failed" and 'data-error="TURN_INTERRUPTED"' in ending["data"]
    assert "answered by mistral" in ending["data"]
    (_user, (_role, segments, saved_ending, link)) = saved_messages(agent_app)
    assert saved_ending == Ending.INTERRUPTED and link == "mistral"
    assert [s["type"] for s in segments] == ["tool", "text"] and segments[1]["text"].startswith("Created")
    assert turn_row(agent_app, turn_id).error_key == "TURN_INTERRUPTED"


def test_a_stopping_worker_ends_a_turn_stuck_on_a_silent_provider_exactly_once(make_agent_app, fake):
    app = make_agent_app(order="mistral")
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("Late", " answer", first_byte_delay=2.0))
    turn_id = ana.send_ok(ana.new_chat(), "hello?")
    live = ana.open_stream(turn_id)
    deadline = time.monotonic() + 10
    while not fake.requests("mistral") and time.monotonic() < deadline:
        time.sleep(0.05)
    runner.stop_running_turns(grace=0.2)  # the runner is waiting for a first byte: ended from outside
    events = live.rest()
    assert [e["name"] for e in events] == ["failed"] and 'data-error="TURN_INTERRUPTED"' in events[0]["data"]
    deadline = time.monotonic() + 15  # the runner wakes up later and must add nothing
    while runner.RUNNING.of(app) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not runner.RUNNING.of(app)
    assert [e["name"] for e in ana.stream(turn_id)] == ["failed"]
    assert [(role, ending) for role, _s, ending, _l in saved_messages(app)] == [
        ("USER", None), ("ASSISTANT", Ending.INTERRUPTED)
    ]  # fmt: skip


# Storing the exchange and ending the turn are one transaction ---------------------------


def refuse_turn_endings(app):
    """Stands in for a trigger that refuses the turn's status update."""

    def refuse(_conn, _cursor, statement, parameters, _context, _many):
        values = parameters.values() if isinstance(parameters, dict) else parameters or ()
        if statement.lstrip().upper().startswith("UPDATE TURNS SET STATUS") and "DONE" in [str(v) for v in values]:
            raise RuntimeError("refused by a trigger")

    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", refuse)
    return lambda: event.remove(db.engine, "before_cursor_execute", refuse)


def test_a_failed_turn_ending_stores_nothing_twice_and_says_it_was_not_saved(make_agent_app, fake):
    app = make_agent_app(AGENT_LEASE_SECONDS=1.5)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.calls(MAKE_PD2), Reply.says("Created ", "PD2."))
    turn_id = ana.send_ok(ana.new_chat(), "please make a task PD2")
    with app.app_context():
        allow = refuse_turn_endings(app)
        try:
            events = ana.stream(turn_id)
            assert turn_row(app, turn_id).status == TurnStatus.RUNNING
            rows = saved_messages(app)
        finally:
            allow()
    assert "done" not in [e["name"] for e in events]
    assert 'data-error="TRANSCRIPT_PERSIST_FAILED"' in events[-1]["data"]
    assert [role for role, *_ in rows] == ["USER", "ASSISTANT"]
    assert [s["tool"] for s in rows[1][1] if s["type"] == "tool"] == ["createUserTask"]  # the card once
    assert wait_for_turn(app, turn_id, seconds=20) == TurnStatus.DONE  # saved on a later try
    rows = saved_messages(app)
    assert [role for role, *_ in rows] == ["USER", "ASSISTANT"]
    assert [s["type"] for s in rows[1][1]] == ["tool", "text"]
    assert rows[1][1][1] == {"type": "text", "text": "Created PD2."} and rows[1][2] == Ending.COMPLETE


def test_a_turn_whose_answer_can_never_be_saved_is_ended_from_its_journal(make_agent_app, fake):
    app = make_agent_app(AGENT_LEASE_SECONDS=1.5)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.calls(MAKE_PD2), Reply.says("Created ", "PD2."))
    turn_id = ana.send_ok(ana.new_chat(), "please make a task PD2")
    with app.app_context():
        allow = refuse_turn_endings(app)
        try:
            assert 'data-error="TRANSCRIPT_PERSIST_FAILED"' in ana.stream(turn_id)[-1]["data"]
            deadline = time.monotonic() + 20  # the runner gives up after a lease's length
            while runner.RUNNING.runs(uuid.UUID(turn_id)) and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            allow()
    assert sweep_until_ended(app, turn_id) == TurnStatus.ENDED
    (_user, (_role, segments, ending, link)) = saved_messages(app)
    assert [s["type"] for s in segments] == ["tool", "text"] and segments[1]["text"] == "Created PD2."
    assert (ending, link) == (Ending.INTERRUPTED, "mistral")


# The answered-by link of an interrupted answer --------------------------------------------


def test_an_answer_cut_by_its_provider_says_who_answered(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Here is ", "the start", " and more", cut_after=2))
    chat_id = ana.new_chat()
    events = ana.stream(ana.send_ok(chat_id, "explain"))
    assert "answered by mistral" in events[-1]["data"]
    assert saved_messages(agent_app)[-1][2:] == (Ending.INTERRUPTED, "mistral")
    assert "answered by mistral" in ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True)


# A locked SQLite database at the end of a turn --------------------------------------------


@pytest.mark.skipif(bool(TEST_DATABASE_URL), reason="SQLite's write lock")
def test_a_turn_ending_on_a_locked_database_still_ends_and_is_saved_later(make_agent_app, fake, agent_db_url):
    app = make_agent_app(AGENT_LEASE_SECONDS=1.5)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("Almost ", "there", pace=0.3))
    turn_id = ana.send_ok(ana.new_chat(), "go")
    live = ana.open_stream(turn_id)
    live.until("token")
    locker = sqlite3.connect(agent_db_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        locker.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
        ending = live.rest()[-1]  # the watcher hears how it ended while the lock is still held
        assert 'data-error="TRANSCRIPT_PERSIST_FAILED"' in ending["data"]
        status = locker.execute("SELECT status FROM turns WHERE id = ?", (uuid.UUID(turn_id).hex,)).fetchone()
        assert status == ("RUNNING",)
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert wait_for_turn(app, turn_id, seconds=20) == TurnStatus.DONE  # saved once the lock is gone
    (_user, (_role, segments, saved_ending, _link)) = saved_messages(app)
    assert segments == [{"type": "text", "text": "Almost there"}] and saved_ending == Ending.COMPLETE


def test_the_export_and_history_agree_on_an_interrupted_turn(ana, fake, agent_app):
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "one thing")
    claimed_by_a_worker_that_died(agent_app, turn_id, [{"type": "text", "text": "Part"}], link="mistral")
    ana.stream(turn_id)
    with agent_app.app_context():
        (chat,) = configuration.export(ana_user(agent_app))["assistant"]["chats"]
    assert [(m["role"], m["ending"], m["answered_by"]) for m in chat["messages"]] == [
        ("USER", None, None), ("ASSISTANT", "INTERRUPTED", "mistral")
    ]  # fmt: skip
    assert json.dumps(chat)  # JSON all the way


# A pool with no connection free -------------------------------------------------------------

# One connection, and a wait for it long enough that the test's own reads, the turn keeper's and
# the runner's, each brief, never time out on one another: only holding it does.
ONE_CONNECTION = {"pool_size": 1, "max_overflow": 0, "pool_timeout": 2}


def claimed_turn(app, ana, text):
    turn_id = ana.send_ok(ana.new_chat(), text)
    with app.app_context():
        assert assistant.claim(db.session.get(Turn, uuid.UUID(turn_id)))
        db.session.remove()
    return uuid.UUID(turn_id)


def test_a_runner_waits_for_a_free_connection_instead_of_dying(make_agent_app, fake):
    """Thousands of turns claimed at once can leave the pool empty when a runner starts: its
    first read times out, and it must wait its turn, not die and leave the turn to its lease."""
    app = make_agent_app(SQLALCHEMY_ENGINE_OPTIONS=ONE_CONNECTION)
    make_user(app)
    turn_id = claimed_turn(app, AgentClient(app), "hello")
    with app.app_context(), db.engine.connect():  # the pool's only connection, held elsewhere
        runner.start_in_background(turn_id)
        time.sleep(4.5)  # the runner's first tries time out (2 s each)
        assert runner.RUNNING.runs(turn_id)
    assert wait_for_turn(app, turn_id) == TurnStatus.DONE
    role, segments, _ending, _link = saved_messages(app)[-1]
    assert role == "ASSISTANT" and segments[0]["type"] == "text"


def test_a_runner_that_never_gets_a_connection_tells_its_watchers_at_once(make_agent_app, fake):
    app = make_agent_app(SQLALCHEMY_ENGINE_OPTIONS=ONE_CONNECTION, AGENT_TURN_SECONDS=1)
    make_user(app)
    turn_id = claimed_turn(app, AgentClient(app), "hello")
    with app.app_context(), db.engine.connect():
        runner.start_in_background(turn_id)
        events = app.extensions["turn_log"].read(turn_id, 0, wait=10)
    assert [e.name for e in events] == ["failed"] and 'data-error="TURN_INTERRUPTED"' in events[0].data
    assert fake.requests() == []  # no model call for a turn it could not read
    with app.app_context():  # the message stays in the chat; the sweep ends the turn once its lease lapses
        assert db.session.get(Turn, turn_id).status == TurnStatus.RUNNING
        db.session.execute(update(Turn).where(Turn.id == turn_id).values(lease_until=None))
        db.session.commit()
        assert assistant.end_abandoned_turns() == 1


def test_a_request_that_finds_no_connection_free_is_told_to_come_back_not_a_500(make_agent_app, fake):
    """A burst of thousands of streams can keep every pooled connection taken past the pool's
    timeout: the watcher's sign-in lookup then gets a 503 with Retry-After, which the SSE
    extension's EventSource reconnects after; nothing was done, so nothing is lost."""
    app = make_agent_app(SQLALCHEMY_ENGINE_OPTIONS=ONE_CONNECTION)
    make_user(app)
    ana = AgentClient(app)
    turn_id = ana.send_ok(ana.new_chat(), "hello")
    with app.app_context():
        engine = db.engine
    with engine.connect():  # the pool's only connection, held elsewhere (no app context: each request has its own)
        busy = ana.http.get(f"/ai/agent/turns/{turn_id}/stream")
        page = ana.http.get("/dashboard", headers={"Accept-Language": "pt"})
    assert busy.status_code == page.status_code == 503 and busy.headers["Retry-After"] == "2"
    assert "Seus dados estão seguros" in page.get_data(as_text=True)
    assert turn_row(app, turn_id).status == TurnStatus.PENDING  # untouched: the reconnect claims it
    assert ana.stream(turn_id)[-1]["name"] == "done"
    assert ana.http.get("/dashboard").status_code == 200  # still signed in
