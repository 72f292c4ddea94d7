"""The failure table: every way a turn can go wrong, and what the user is told and keeps."""

import socket
import threading
import time
import uuid
from html import unescape

from prometheus_client import REGISTRY
from werkzeug.serving import make_server

from app.assistant.models.chats import Chat, ChatMessage, Ending, Turn
from app.extensions import db
from tests.assistant.conftest import AgentClient, Reply, make_user, spoken, turn_id_in, wait_for_turn


def saved_messages(app):
    with app.app_context():
        rows = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()
        return [(r.role.value, r.segments, r.ending) for r in rows]


def exhausted_count():
    return REGISTRY.get_sample_value("beyou_llm_exhausted_total") or 0.0


def test_every_link_failing_gives_ai_unavailable_and_hands_the_text_back(ana, fake, agent_app):
    fake.script("mistral", Reply.fails(503, {"error": "overloaded"}))
    fake.script("gemini", Reply.fails(500, {"error": {"code": 500, "message": "boom"}}))
    before = exhausted_count()
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "plan my week")
    (error,) = ana.stream(turn_id)
    assert error["name"] == "failed"
    html = error["data"]
    assert 'data-error="AI_UNAVAILABLE"' in html
    assert "couldn't reach any AI model" in unescape(html)
    assert f'id="msg-user-{turn_id}" hx-swap-oob="delete"' in html  # the optimistic bubble goes
    assert 'hx-swap-oob="outerHTML"' in html and ">plan my week</textarea>" in html  # the text comes back
    assert exhausted_count() == before + 1
    assert saved_messages(agent_app) == []  # nothing happened, so nothing is kept
    assert len(fake.requests("mistral")) == len(fake.requests("gemini")) == 1


def test_a_link_failing_after_text_reached_the_client_keeps_the_partial_answer(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Here is ", "the start", " and more", cut_after=2))
    chat_id = ana.new_chat()
    events = ana.stream(ana.send_ok(chat_id, "explain"))
    assert spoken(events, ending="failed") == "Here is the start"
    assert 'data-error="AI_STREAM_INTERRUPTED"' in events[-1]["data"]
    assert "Here is the start" in events[-1]["data"]
    assert fake.requests("gemini") == []  # no silent switch to another model
    (_user, (_role, segments, ending)) = saved_messages(agent_app)
    assert segments == [{"type": "text", "text": "Here is the start"}]
    assert ending == Ending.INTERRUPTED


def test_a_third_simultaneous_stream_is_refused_without_a_model_call(ana, fake, agent_app):
    fake.script("mistral", Reply.says("slow", " one", pace=0.6), Reply.says("slow", " two", pace=0.6))
    chats = [ana.new_chat() for _ in range(3)]
    turns = [ana.send_ok(chat, "hello") for chat in chats]
    open_streams = [
        ana.http.get(f"/ai/agent/turns/{turn}/stream", buffered=False) for turn in turns[:2]
    ]  # two live streams, held open
    for response in open_streams:
        next(iter(response.response))
    time.sleep(0.2)
    third = ana.stream(turns[2])
    assert [e["name"] for e in third] == ["failed"]
    assert 'data-error="TOO_MANY_STREAMS"' in third[0]["data"]
    assert len(fake.requests("mistral")) == 2
    for response in open_streams:
        response.close()
    for turn in turns[:2]:
        wait_for_turn(agent_app, turn)
    assert wait_for_turn(agent_app, turns[2]).value == "ENDED"
    assert len(fake.requests()) == 2  # the refused turn never runs later


def test_a_failed_save_says_transcript_persist_failed_never_done(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Sure", ", one", ", two", ", three", ", done", pace=0.5))
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "hi")
    live = ana.open_stream(turn_id)
    live.until("token")
    with agent_app.app_context():  # the chat vanishes under the running turn: its save must fail
        db.session.execute(db.delete(Chat).where(Chat.id == uuid.UUID(chat_id)))
        db.session.commit()
    names = [e["name"] for e in live.rest()]
    assert "done" not in names
    assert 'data-error="TRANSCRIPT_PERSIST_FAILED"' in live.events[-1]["data"]


def test_thirty_turns_an_hour_then_429_with_retry_after(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="2 per hour")
    make_user(app)
    ana = AgentClient(app)
    chat_id = ana.new_chat()
    other_chat = ana.new_chat()
    ana.stream(ana.send_ok(chat_id, "one"))
    ana.stream(ana.send_ok(other_chat, "two"))  # one bucket for every chat
    refused = ana.send(chat_id, "three")
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert "You can send again at" in refused.get_data(as_text=True)


def test_the_rate_limit_message_is_translated(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="1 per hour")
    make_user(app, language="pt")
    ana = AgentClient(app)
    chat_id = ana.new_chat()
    ana.stream(ana.send_ok(chat_id, "um"))
    refused = ana.send(chat_id, "dois")
    assert refused.status_code == 429
    assert "Poderá enviar de novo às" in refused.get_data(as_text=True)


def test_a_dead_client_in_a_silent_pause_frees_its_slot_and_the_turn_is_still_saved(make_agent_app, fake):
    """A real server and a socket that goes away: only the heartbeat can notice."""
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=0.1)
    make_user(app)
    ana = AgentClient(app)
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "think hard")
    fake.script("mistral", Reply.says("Thought it", " through", first_byte_delay=1.0))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cookie = ana.http.get_cookie("session").value
        sock = socket.create_connection(("127.0.0.1", server.server_port))
        request = f"GET /ai/agent/turns/{turn_id}/stream HTTP/1.1\r\nHost: localhost\r\nCookie: session={cookie}\r\n"
        sock.sendall(f"{request}\r\n".encode())
        assert b"200" in sock.recv(200)
        sock.close()  # the client dies while the model has not said anything yet
        slots = app.extensions["stream_slots"]
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and slots.live(ana_user_id(app)):
            time.sleep(0.05)
        assert slots.live(ana_user_id(app)) == 0
        assert wait_for_turn(app, turn_id).value == "DONE"
        assert saved_messages(app)[-1][1] == [{"type": "text", "text": "Thought it through"}]
    finally:
        server.shutdown()


def ana_user_id(app):
    from app.profile.models import User

    with app.app_context():
        return db.session.scalar(db.select(User.id).where(User.email == "ana@example.com"))


def test_sending_again_in_the_same_chat_cancels_the_running_turn(ana, fake, agent_app):
    fake.script("mistral", Reply.says(*"abcdefghijkl", pace=0.5), Reply.says("second answer"))
    chat_id = ana.new_chat()
    first = ana.send_ok(chat_id, "first")
    live = ana.open_stream(first)
    live.until("token")
    second = ana.send_ok(chat_id, "actually, second")
    assert 'data-error="TURN_CANCELLED"' in live.rest()[-1]["data"]
    assert ana.stream(second)[-1]["name"] == "done"
    endings = [m[2] for m in saved_messages(agent_app) if m[0] == "ASSISTANT"]
    assert endings == [Ending.CANCELLED, Ending.COMPLETE]
    assert len(fake.requests("mistral")) == 2


def test_the_stop_button_cancels_and_keeps_the_partial_answer(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Let ", "me ", "see ", *["more "] * 8, "words", pace=0.5))
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "go")
    live = ana.open_stream(turn_id)
    live.until("token")
    assert ana.post(f"/ai/agent/turns/{turn_id}/cancel").status_code == 204
    (*_tokens, ending) = live.rest()
    assert 'data-error="TURN_CANCELLED"' in ending["data"] and "<p>Let" in ending["data"]
    (_user, (_role, segments, ending)) = saved_messages(agent_app)
    assert ending == Ending.CANCELLED and segments[0]["text"].startswith("Let")


def test_signing_out_cancels_the_running_turn(ana, fake, agent_app):
    fake.script("mistral", Reply.says(*"abcdefghijkl", pace=0.5))
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "go")
    live = ana.open_stream(turn_id)
    live.until("token")
    ana.post("/logout")
    assert 'data-error="TURN_CANCELLED"' in live.rest()[-1]["data"]


def test_a_turn_past_its_time_limit_ends_with_timeout_keeping_the_partial(make_agent_app, fake):
    app = make_agent_app(AGENT_TURN_SECONDS=1)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("slowly", " slowly", " slowly", " slowly", pace=0.45))
    turn_id = ana.send_ok(ana.new_chat(), "go")
    events = ana.stream(turn_id)
    assert 'data-error="TIMEOUT"' in events[-1]["data"]
    (_user, (_role, segments, ending)) = saved_messages(app)
    assert ending == Ending.TIMEOUT and segments[0]["text"].startswith("slowly")


def test_an_unconfigured_assistant_says_so(make_agent_app, fake):
    app = make_agent_app(LLM_ENV={})
    make_user(app)
    ana = AgentClient(app)
    events = ana.stream(ana.send_ok(ana.new_chat(), "hello?"))
    assert 'data-error="AI_NOT_CONFIGURED"' in events[-1]["data"]


def test_an_empty_or_oversized_message_is_refused_and_kept(ana):
    chat_id = ana.new_chat()
    empty = ana.send(chat_id, "   ")
    assert empty.status_code == 422 and "Write a message first." in empty.get_data(as_text=True)
    huge = ana.send(chat_id, "x" * 4001)
    assert huge.status_code == 422 and "at most 4000 characters" in huge.get_data(as_text=True)


def test_turn_ids_are_visible_only_to_their_owner(ana, fake, agent_app):
    turn_id = ana.send_ok(ana.new_chat(), "mine")
    make_user(agent_app, email="bruno@example.com", name="Bruno")
    bruno = AgentClient(agent_app, email="bruno@example.com")
    assert bruno.http.get(f"/ai/agent/turns/{turn_id}/stream").status_code == 404
    assert bruno.post(f"/ai/agent/turns/{turn_id}/cancel").status_code == 404
    assert bruno.http.get(f"/ai/agent/turns/{uuid.uuid4()}/stream").status_code == 404
    assert ana.stream(turn_id)[-1]["name"] == "done"
    with agent_app.app_context():
        assert db.session.get(Turn, uuid.UUID(turn_id)).cancel_requested is False


def test_a_first_message_from_an_empty_panel_spends_the_same_budget(make_agent_app, fake):
    app = make_agent_app(AGENT_RATE_LIMIT="1 per hour")
    make_user(app)
    ana = AgentClient(app)
    first = ana.post("/ai/agent/chats", message="first")
    assert first.status_code == 200
    ana.stream(turn_id_in(first.get_data(as_text=True)))
    refused = ana.post("/ai/agent/chats", message="second")
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert ana.post("/ai/agent/chats").status_code == 200  # an empty new chat calls no model
