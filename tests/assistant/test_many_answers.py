"""Many answers at once on one worker: a turn waiting on its model holds no database connection,
cancellation is one question for all of a process's turns however many run, and a watcher of a
silent turn run in this process reads nothing from the database at its beats."""

import threading
import time
import uuid

from sqlalchemy import event

from app.assistant import services as assistant
from app.extensions import db
from app.llm.chain import WAITING_EVERY_WITH_WAKE
from tests.assistant.conftest import AgentClient, make_user, wait_for_turn
from tests.fakes import Reply

SILENCE = 4.0  # seconds the fake model keeps quiet once its stream is open


def held_connections(app):
    """The pooled connections checked out now, by the name of the thread holding each."""
    held = {}
    with app.app_context():
        engine = db.engine

    def checkout(_dbapi, record, _proxy):
        held[id(record)] = threading.current_thread().name

    def checkin(_dbapi, record):
        held.pop(id(record), None)

    event.listen(engine, "checkout", checkout)
    event.listen(engine, "checkin", checkin)
    return held


def until(condition, seconds=15):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def test_a_turn_waiting_on_a_silent_model_holds_no_database_connection(ana, fake, agent_app):
    fake.script("mistral", Reply.hangs(SILENCE, "Late."))
    held = held_connections(agent_app)
    turn_id = ana.send_ok(ana.new_chat(), "take your time")
    live = ana.open_stream(turn_id)
    assert until(lambda: fake.requests("mistral"))
    time.sleep(0.3)  # the runner is now reading a stream that says nothing
    holders = set(held.values()) - {"turn-lease-keeper"}  # its cancellation question lasts a moment
    assert not [name for name in holders if name.startswith(("turn-", "llm-"))], held
    assert [e["name"] for e in live.rest()][-1] == "done"


def test_one_cancellation_question_covers_every_running_turn(make_agent_app, fake):
    """The keeper asks for the running turns asked to stop: one statement, the same whatever the
    number of turns, carrying none of their ids; a Stop ends its own turn and no other."""
    app = make_agent_app(order="mistral", AGENT_STREAMS_PER_USER=3)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", *[Reply.hangs(SILENCE, "Late.") for _ in range(3)])
    seen = []
    with app.app_context():
        engine = db.engine

    def record(_conn, _cursor, statement, parameters, _context, _many):
        if "cancel_requested" in statement and statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, str(parameters)))

    event.listen(engine, "before_cursor_execute", record)
    turns = [ana.send_ok(ana.new_chat(), f"question {n}") for n in range(3)]
    streams = [ana.open_stream(turn_id) for turn_id in turns]
    assert until(lambda: len(fake.requests("mistral")) == 3)
    seen.clear()
    assert until(lambda: len(seen) >= 2)
    assert len({statement for statement, _parameters in seen}) == 1
    for statement, parameters in seen:
        assert not [t for t in turns if uuid.UUID(t).hex in statement + parameters or t in statement + parameters]

    ana.post(f"/ai/agent/turns/{turns[0]}/cancel")
    cancelled = streams[0].rest()
    assert cancelled[-1]["name"] == "failed" and 'data-error="TURN_CANCELLED"' in cancelled[-1]["data"]
    assert [stream.rest()[-1]["name"] for stream in streams[1:]] == ["done", "done"]
    event.remove(engine, "before_cursor_execute", record)


def test_the_cancellation_question_is_answered_from_the_index_of_stopped_running_turns(agent_app):
    """Its statement writes the index's condition out, with no parameter a planner would have to
    guess (PostgreSQL's generic plan, SQLite's partial-index rule), so the index can answer it."""
    sent = []
    with agent_app.app_context():
        engine = db.engine

        def record(_conn, _cursor, statement, parameters, _context, _many):
            sent.append((statement, parameters))

        event.listen(engine, "before_cursor_execute", record)
        assistant.cancelled_running()
        event.remove(engine, "before_cursor_execute", record)
        [(statement, parameters)] = sent
        assert not parameters
        with engine.connect() as connection:
            if engine.dialect.name == "postgresql":
                connection.exec_driver_sql("SET enable_seqscan = off")  # a near-empty table: the index if it can
                plan = connection.exec_driver_sql(f"EXPLAIN {statement}").scalars().all()
            else:
                plan = [row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}")]
    assert "ix_turns_cancelled_running" in " ".join(plan), plan


def test_a_turn_asked_to_stop_while_its_model_is_silent_ends_at_once(ana, fake, agent_app):
    """A silent model's stream wakes its turn only every few seconds (thousands wait at once), so
    the keeper that finds the turn cancelled wakes it: the Stop button does not wait for that."""
    fake.script("mistral", Reply.hangs(WAITING_EVERY_WITH_WAKE + 5, "Late."))
    turn_id = ana.send_ok(ana.new_chat(), "take your time")
    live = ana.open_stream(turn_id)
    assert until(lambda: fake.requests("mistral"))
    time.sleep(0.5)  # the runner is now reading a stream that says nothing

    asked = time.monotonic()
    ana.post(f"/ai/agent/turns/{turn_id}/cancel")
    ending = live.rest()[-1]

    assert 'data-error="TURN_CANCELLED"' in ending["data"]
    assert time.monotonic() - asked < WAITING_EVERY_WITH_WAKE / 2


def test_a_silent_watcher_of_a_turn_run_here_reads_no_database_at_its_beats(make_agent_app, fake):
    app = make_agent_app(order="mistral", AGENT_HEARTBEAT_SECONDS=0.05)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.hangs(SILENCE, "Late."))
    turn_id = ana.send_ok(ana.new_chat(), "take your time")
    response = ana.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False)
    chunks = iter(response.response)
    assert until(lambda: fake.requests("mistral"))
    seen = []
    with app.app_context():
        engine = db.engine

    def record(_conn, _cursor, statement, _parameters, _context, _many):
        seen.append((threading.current_thread().name, statement))

    event.listen(engine, "before_cursor_execute", record)
    beats = 0
    while beats < 10:
        chunk = next(chunks)
        beats += (chunk.decode() if isinstance(chunk, bytes) else chunk).count(": ping")
    event.remove(engine, "before_cursor_execute", record)
    response.close()
    assert [s for s in seen if s[0] != "turn-lease-keeper"] == []
    wait_for_turn(app, turn_id)
