"""The hourly budget counts only turns that reach a model; the two live streams a user may have
count turns, not connections; a dead client's stream is noticed at the first heartbeat."""

import socket
import threading
import time
import uuid
from contextlib import contextmanager

from werkzeug.serving import WSGIRequestHandler, make_server

from app.assistant import services as assistant
from app.assistant.models.chats import Turn, TurnStatus
from app.assistant.stream import _client_gone
from app.extensions import db
from app.profile.models import User
from tests.assistant.conftest import AgentClient, Reply, make_user, turn_id_in, wait_for_turn


def user_id_of(app, email="ana@example.com"):
    with app.app_context():
        return db.session.scalar(db.select(User.id).where(User.email == email))


def held_open(ana, turn_id):
    """A stream the test keeps open (a browser tab watching the turn)."""
    response = ana.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False)
    next(iter(response.response))  # ": connected": the slot is held
    return response


@contextmanager
def two_turns_streaming(make_agent_app, fake):
    """Ana watches two slow answers in two tabs; yields her client and a third, unwatched turn."""
    app = make_agent_app()
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("a", " b", pace=0.5), Reply.says("c", " d", pace=0.5))
    turns = [ana.send_ok(ana.new_chat(), "hello") for _ in range(3)]
    streams = [held_open(ana, turn) for turn in turns[:2]]
    try:
        yield ana, turns, streams
    finally:
        for response in streams:
            response.close()
        for turn in turns[:2]:
            wait_for_turn(app, turn)


def wait_until(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# The budget -------------------------------------------------------------------------------


def test_refused_messages_spend_no_budget(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="3 per hour")
    make_user(app)
    ana = AgentClient(app)
    chat_id = ana.new_chat()
    for _ in range(10):
        assert ana.send(chat_id, "   ").status_code == 422
    assert ana.send(chat_id, "x" * 4001).status_code == 422
    for text in ("one", "two", "three"):
        assert ana.stream(ana.send_ok(chat_id, text))[-1]["name"] == "done"
    refused = ana.send(chat_id, "four")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0


def test_a_turn_refused_for_too_many_streams_spends_no_budget(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="3 per hour")
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("slow", " one", pace=0.5), Reply.says("slow", " two", pace=0.5))
    turns = [ana.send_ok(ana.new_chat(), "hello") for _ in range(3)]
    streams = [held_open(ana, turn) for turn in turns[:2]]
    (refused,) = ana.stream(turns[2])
    assert 'data-error="TOO_MANY_STREAMS"' in refused["data"]
    for response in streams:
        response.close()
    for turn in turns[:2]:
        wait_for_turn(app, turn)
    assert ana.stream(ana.send_ok(ana.new_chat(), "the third that runs"))[-1]["name"] == "done"
    assert ana.send(ana.new_chat(), "a fourth").status_code == 429


def test_the_budget_is_spent_when_a_turn_is_claimed_so_a_posted_backlog_cannot_overrun_it(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="2 per hour")
    make_user(app)
    ana = AgentClient(app)
    turns = [ana.send_ok(ana.new_chat(), f"message {n}") for n in range(3)]  # nothing has run yet
    assert ana.stream(turns[0])[-1]["name"] == "done"
    assert ana.stream(turns[1])[-1]["name"] == "done"
    (refused,) = ana.stream(turns[2])
    assert refused["name"] == "failed" and 'data-error="AGENT_BUDGET_SPENT"' in refused["data"]
    assert f'id="msg-user-{turns[2]}" hx-swap-oob="delete"' in refused["data"]
    assert ">message 2</textarea>" in refused["data"]  # the text goes back to the box
    assert len(fake.requests("mistral")) == 2
    assert wait_for_turn(app, turns[2]) == TurnStatus.ENDED


def test_a_turn_no_model_answered_gives_its_message_back(make_agent_app, fake):
    """Every link failed before any output: the message goes back to the box, and the hour's
    budget is as it was (a provider's outage is not billed to the user)."""
    app = make_agent_app(AGENT_RATE_LIMIT="1 per hour")
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.fails(503))
    fake.script("gemini", Reply.fails(500))
    (failed,) = ana.stream(ana.send_ok(ana.new_chat(), "during the outage"))[-1:]
    assert 'data-error="AI_UNAVAILABLE"' in failed["data"]
    assert ana.stream(ana.send_ok(ana.new_chat(), "once it is back"))[-1]["name"] == "done"
    assert ana.send(ana.new_chat(), "and no more").status_code == 429  # an answer is still counted


def test_a_turn_whose_time_ran_out_before_any_answer_gives_its_message_back(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="1 per hour", AGENT_TURN_SECONDS=1)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.hangs(3))
    assert 'data-error="TIMEOUT"' in ana.stream(ana.send_ok(ana.new_chat(), "silence"))[-1]["data"]
    fake.script("mistral", Reply.says("here", " now"))
    assert ana.send(ana.new_chat(), "again").status_code != 429


def test_watching_a_turn_again_spends_nothing_more(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="2 per hour")
    make_user(app)
    ana = AgentClient(app)
    first = ana.send_ok(ana.new_chat(), "first")
    ana.stream(first)
    ana.stream(first, last_event_id=0)  # a reconnect replays
    ana.stream(first, last_event_id=1)
    assert ana.stream(ana.send_ok(ana.new_chat(), "second"))[-1]["name"] == "done"
    assert ana.send(ana.new_chat(), "third").status_code == 429


def test_an_assistant_without_a_model_spends_no_budget(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="1 per hour", LLM_ENV={})
    make_user(app)
    ana = AgentClient(app)
    chat_id = ana.new_chat()
    for text in ("hello?", "anyone?"):
        assert 'data-error="AI_NOT_CONFIGURED"' in ana.stream(ana.send_ok(chat_id, text))[-1]["data"]


def test_a_first_message_refused_by_the_budget_leaves_no_empty_chat(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="1 per hour")
    make_user(app)
    ana = AgentClient(app)
    ana.stream(turn_id_in(ana.post("/ai/agent/chats", message="first").get_data(as_text=True)))
    assert ana.post("/ai/agent/chats", message="second").status_code == 429
    with app.app_context():
        assert len(assistant.list_chats(db.session.get(User, user_id_of(app)))) == 1


# Stream slots -----------------------------------------------------------------------------


def test_watchers_of_one_turn_share_its_stream_slot(make_agent_app, fake):
    app = make_agent_app()
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("first", " answer", pace=0.5), Reply.says("second", " answer", pace=0.5))
    first, second = (ana.send_ok(ana.new_chat(), "hello") for _ in range(2))
    streams = [held_open(ana, first), held_open(ana, second)]
    other_tab = ana.stream(first)  # a second tab on a turn already streamed
    assert [e["name"] for e in other_tab] == ["token", "token", "done"]
    assert app.extensions["stream_slots"].live(user_id_of(app)) == 2
    assert len(fake.requests("mistral")) == 2
    for response in streams:
        response.close()
    wait_for_turn(app, second)


def test_two_turns_streaming_still_refuse_a_third_turn(make_agent_app, fake):
    with two_turns_streaming(make_agent_app, fake) as (ana, turns, streams):
        streams.append(held_open(ana, turns[0]))  # a second tab on the first turn takes no slot
        assert 'data-error="TOO_MANY_STREAMS"' in ana.stream(turns[2])[0]["data"]


def slots_a_dead_machine_held(app):
    """Two of Ana's turns answered, whose watchers' slots a killed machine never released."""
    make_user(app)
    ana = AgentClient(app)
    ended = [ana.send_ok(ana.new_chat(), f"answered {n}") for n in range(2)]
    for turn in ended:
        assert ana.stream(turn)[-1]["name"] == "done"
    slots, user_id = app.extensions["stream_slots"], user_id_of(app)
    for turn in ended:
        assert slots.acquire(user_id, uuid.UUID(turn)) is not None
    return ana, slots, user_id, ended


def test_slots_a_dead_machine_held_for_ended_turns_do_not_refuse_the_next_stream(make_agent_app, fake):
    """A machine killed mid-answer releases nothing: its watchers' slots would stay taken for
    their whole lease, though the other machines ended its turns as interrupted long before."""
    ana, slots, user_id, ended = slots_a_dead_machine_held(make_agent_app())
    assert slots.live(user_id) == 2
    assert ana.stream(ana.send_ok(ana.new_chat(), "the next one"))[-1]["name"] == "done"
    assert slots.turns(user_id).isdisjoint(ended)


def test_a_stream_refused_while_another_frees_the_dead_machines_slots_still_streams(make_agent_app, fake):
    """Two streams opened at once after a crash are both refused at first; the first to look
    frees the ended turns' slots, so the second finds none to free, and must try again anyway."""
    ana, slots, user_id, ended = slots_a_dead_machine_held(make_agent_app())
    acquire = slots.acquire
    tries = []

    def refused_while_the_other_request_frees_them(*args):
        tries.append(args)
        if len(tries) == 1:
            slots.forget(user_id, set(ended))  # the other request, between this refusal and its look
            return None
        return acquire(*args)

    slots.acquire = refused_while_the_other_request_frees_them
    try:
        assert ana.stream(ana.send_ok(ana.new_chat(), "the next one"))[-1]["name"] == "done"
    finally:
        del slots.acquire
    assert len(tries) == 2


def test_slots_held_for_turns_not_ended_still_refuse_a_third(make_agent_app, fake):
    app = make_agent_app()
    make_user(app)
    ana = AgentClient(app)
    waiting = [ana.send_ok(ana.new_chat(), f"posted {n}") for n in range(3)]  # pending, not ended
    slots, user_id = app.extensions["stream_slots"], user_id_of(app)
    for turn in waiting[:2]:
        assert slots.acquire(user_id, uuid.UUID(turn)) is not None
    assert 'data-error="TOO_MANY_STREAMS"' in ana.stream(waiting[2])[0]["data"]
    assert slots.turns(user_id) == set(waiting[:2])


def test_a_closed_connection_is_told_apart_from_a_quiet_one():
    quiet, quiet_peer = socket.socketpair()
    chatty, chatty_peer = socket.socketpair()
    closed, closed_peer = socket.socketpair()
    try:
        chatty_peer.sendall(b"x")
        closed_peer.close()
        assert _client_gone(None) is False  # no socket to look at: leave it to the writes
        assert _client_gone(quiet) is False
        assert _client_gone(chatty) is False
        assert _client_gone(closed) is True
        assert chatty.recv(1) == b"x"  # looking did not consume what the client sent
    finally:
        for sock in (quiet, quiet_peer, chatty, chatty_peer, closed):
            sock.close()


class OneWritePerFrame(WSGIRequestHandler):
    """Sends each frame in one write, as gunicorn does: the dev server splits an HTTP/1.1 chunk
    into three writes, and the second would fail at once on a closed connection."""

    protocol_version = "HTTP/1.0"


def test_a_dead_client_frees_its_slot_at_the_first_production_heartbeat(make_agent_app, fake):
    """15 s heartbeat: a write into a connection the client has closed still succeeds once, so
    without looking at the connection the slot would be held until the second beat (30 s)."""
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=15)
    make_user(app)
    ana = AgentClient(app)
    turn_id = ana.send_ok(ana.new_chat(), "think hard")
    with app.app_context():  # another worker runs it and says nothing for now
        assert assistant.claim(db.session.get(Turn, uuid.UUID(turn_id)))
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=OneWritePerFrame)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    slots = app.extensions["stream_slots"]
    try:
        cookie = ana.http.get_cookie("session").value
        sock = socket.create_connection(("127.0.0.1", server.server_port))
        request = f"GET /ai/agent/turns/{turn_id}/stream HTTP/1.1\r\nHost: localhost\r\nCookie: session={cookie}\r\n"
        sock.sendall(f"{request}\r\n".encode())
        received = b""
        while b": connected\n\n" not in received:  # read all that was sent: the close is a clean FIN
            received += sock.recv(4096)
        assert received.startswith(b"HTTP/1.0 200")
        assert slots.live(user_id_of(app)) == 1
        closed_at = time.monotonic()
        sock.close()
        assert wait_until(lambda: slots.live(user_id_of(app)) == 0, seconds=24)
        assert time.monotonic() - closed_at < 24  # one heartbeat (15 s) and change, not two (30 s)
    finally:
        server.shutdown()
        with app.app_context():
            assistant.withdraw_turn(db.session.get(Turn, uuid.UUID(turn_id)), "TURN_CANCELLED")


def test_a_refused_stream_says_failed_on_the_wire_never_error(make_agent_app, fake):
    """EventSource treats an event named `error` as its own connection failure."""
    with two_turns_streaming(make_agent_app, fake) as (ana, turns, _streams):
        raw = ana.http.get(f"/ai/agent/turns/{turns[2]}/stream").get_data(as_text=True)
        assert "event: failed\n" in raw and "event: error" not in raw


def test_a_failed_turn_replayed_from_the_database_says_failed(make_agent_app, fake):
    app = make_agent_app()
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.fails(503, {"error": "overloaded"}))
    fake.script("gemini", Reply.fails(500, {"error": {"code": 500, "message": "down"}}))
    turn_id = ana.send_ok(ana.new_chat(), "plan my week")
    ana.stream(turn_id)
    (replayed,) = ana.stream(turn_id, last_event_id=99)  # past the live log: answered from the database
    assert replayed["name"] == "failed" and 'data-error="AI_UNAVAILABLE"' in replayed["data"]
