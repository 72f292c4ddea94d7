"""The panel tells the truth before anyone types: whether the assistant can answer at all, and,
when an answer fails, where the message the user typed now is."""

import re
import time
import uuid
from html import unescape

from app.assistant.models.chats import ChatMessage, Ending, Turn, TurnStatus
from app.extensions import db
from app.llm.settings import NOT_CONFIGURED_HINT
from app.profile import accounts
from tests.assistant.conftest import AgentClient, Reply, make_user, spoken, wait_for_turn
from tests.fakes.script import FakeCall


def test_an_unconfigured_assistant_says_so_when_the_panel_opens(make_agent_app, fake):
    app = make_agent_app(LLM_ENV={})
    make_user(app)
    panel = AgentClient(app).http.get("/ai/agent/panel").get_data(as_text=True)
    assert 'data-error="AI_NOT_CONFIGURED"' in panel
    assert "isn't configured on this server yet" in unescape(panel)
    assert "Ask whoever runs this server" in panel
    assert NOT_CONFIGURED_HINT not in panel and "/admin/llm" not in panel  # how to fix it is for admins
    assert '<textarea id="composer-input"' in panel and "required disabled" in panel
    assert 'disabled aria-describedby="composer-off"' in panel  # Send says why it is off, beside it
    assert re.search(r'id="composer-off"[^>]*>Sending is off: no AI model is set up on this server\.<', panel)


def test_an_admin_is_told_how_to_configure_a_provider(make_agent_app, fake):
    app = make_agent_app(LLM_ENV={})
    make_user(app)
    with app.app_context():
        accounts.make_admin("ana@example.com")
    panel = AgentClient(app).http.get("/ai/agent/panel").get_data(as_text=True)
    assert 'data-error="AI_NOT_CONFIGURED"' in panel
    assert unescape(NOT_CONFIGURED_HINT) in unescape(panel)
    assert 'href="/admin/llm"' in panel

    assert unescape(panel).index("make run-local") < unescape(panel).index("MISTRAL_API_KEY")  # local first

    chain_page = AgentClient(app).http.get("/admin/llm").get_data(as_text=True)
    assert 'data-error="AI_NOT_CONFIGURED"' in chain_page
    said = unescape(re.sub(r"<[^>]+>", "", chain_page))
    assert "run make run-local (a model served here, no key)" in said
    assert "BEYOU_LLM_ORDER=local" in said
    assert said.index("make run-local") < said.index("BEYOU_LLM_MISTRAL_API_KEY")  # the private way first


def test_with_the_operator_s_own_model_the_panel_says_messages_stay_on_this_server(make_agent_app, fake):
    own_model = {"BEYOU_LLM_ORDER": "local", "BEYOU_LLM_LOCAL_MODEL": "qwen2.5-coder-1.5b",
                 "BEYOU_LLM_LOCAL_BASE_URL": fake.base_url("local")}  # fmt: skip
    app = make_agent_app(order="local", LLM_ENV=own_model)
    make_user(app)
    panel = AgentClient(app).http.get("/ai/agent/panel").get_data(as_text=True)
    assert 'data-testid="chat-kept-here"' in panel and "are sent to an AI provider" not in panel


def test_with_a_provider_the_panel_says_messages_are_sent_to_it(ana):
    panel = ana.http.get("/ai/agent/panel").get_data(as_text=True)
    assert "are sent to an AI provider" in panel and "chat-kept-here" not in panel


def test_a_configured_assistant_opens_ready_to_type(ana):
    panel = ana.http.get("/ai/agent/panel").get_data(as_text=True)
    assert "AI_NOT_CONFIGURED" not in panel
    assert "disabled" not in panel


def test_a_failure_with_nothing_to_keep_says_the_message_is_back_in_the_box(ana, fake):
    fake.script("mistral", Reply.fails(503, {"error": "overloaded"}))
    fake.script("gemini", Reply.fails(500, {"error": {"code": 500, "message": "down"}}))
    (failed,) = ana.stream(ana.send_ok(ana.new_chat(), "plan my week"))
    assert "Your message is back in the box." in failed["data"]
    assert ">plan my week</textarea>" in failed["data"]


def test_ai_unavailable_after_a_tool_round_keeps_the_exchange_and_says_only_what_is_true(ana, fake, agent_app):
    fake.script(
        "mistral",
        Reply.calls(FakeCall("updateGlobalContext", {"note": "Trains on Tuesdays."})),
        Reply.fails(503, {"error": "overloaded"}),
    )
    fake.script("gemini", Reply.fails(500, {"error": {"code": 500, "message": "down"}}))
    events = ana.stream(ana.send_ok(ana.new_chat(), "remember I train on Tuesdays"))
    failed = events[-1]
    assert failed["name"] == "failed" and 'data-error="AI_UNAVAILABLE"' in failed["data"]
    assert "couldn't reach any AI model" in unescape(failed["data"])
    assert "back in the box" not in failed["data"]  # the message stays in the chat, the box as it is
    assert "composer-input" not in failed["data"] and 'hx-swap-oob="delete"' not in failed["data"]
    with agent_app.app_context():
        rows = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()
        assert rows[0].segments == [{"type": "text", "text": "remember I train on Tuesdays"}]
        assert rows[1].ending == Ending.FAILED and rows[1].segments[0]["type"] == "tool"


def test_the_first_message_of_a_new_chat_shows_once(ana, fake):
    fake.script("mistral", Reply.says("Hello!"))
    html = ana.post("/ai/agent/chats", message="hello there", page="/habits").get_data(as_text=True)
    assert html.count(">hello there</article>") == 1
    ana.stream(re.search(r'id="turn-([0-9a-f-]{36})"', html).group(1))


def journaled_text(app, turn_id, seconds=10):
    """What the turn's answer row holds so far, once its journal has written some text."""
    deadline = time.monotonic() + seconds
    with app.app_context():
        while time.monotonic() < deadline:
            answer_id = db.session.scalar(db.select(Turn.answer_id).where(Turn.id == uuid.UUID(turn_id)))
            segments = db.session.scalar(db.select(ChatMessage.segments).where(ChatMessage.id == answer_id))
            db.session.remove()
            if segments:
                return "".join(segment.get("text", "") for segment in segments)
            time.sleep(0.05)
    raise AssertionError("the journal wrote nothing")


def test_a_chat_opened_again_while_its_answer_runs_shows_it_live_and_its_stream_replays_every_word_once(
    ana, fake, agent_app
):
    answer = [f"part{number:02d} " for number in range(16)]
    fake.script("mistral", Reply.says(*answer, pace=0.25))
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "walk me through my week")
    first_watcher = ana.open_stream(turn_id)
    first_watcher.until("token")
    assert journaled_text(agent_app, turn_id).startswith("part00")  # the answer row holds words already

    for view in (f"/ai/agent/chats/{chat_id}", "/ai/agent/panel"):  # the chat from the history, or the panel
        shown = ana.http.get(view).get_data(as_text=True)
        assert "part00" not in shown  # not the journal's words: the stream brings them
        live = re.findall(r'<article class="bubble bubble-assistant[^"]*"[^>]*>', shown)
        assert live == [re.search(r'<article class="bubble bubble-assistant is-live"[^>]*>', shown).group(0)]
        assert f'id="turn-{turn_id}"' in live[0] and 'aria-busy="true"' in live[0]
        assert f'sse-connect="/ai/agent/turns/{turn_id}/stream"' in live[0]
        assert 'aria-label="The assistant is answering"' in shown
        assert f'hx-post="/ai/agent/turns/{turn_id}/cancel"' in shown  # its Stop
        assert shown.count("walk me through my week</article>") == 1
        assert f'<article class="bubble bubble-user" id="msg-user-{turn_id}">walk me through my week</article>' in shown
        assert "How can I help today?" not in shown

    with agent_app.app_context():
        assert db.session.get(Turn, uuid.UUID(turn_id)).status == TurnStatus.RUNNING  # all the above while it ran
    reopened = ana.stream(turn_id)  # the live bubble's EventSource: no Last-Event-ID, from the first event
    assert spoken(reopened) == "".join(answer)  # every word once, in order, then done
    first_watcher.rest()
    assert wait_for_turn(agent_app, turn_id) == TurnStatus.DONE

    finished = ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True)
    assert "sse-connect" not in finished and "is-live" not in finished
    assert finished.count("part00") == 1 and "answered by mistral" in finished
    assert len(fake.requests("mistral")) == 1


def test_a_message_nobody_watched_yet_opens_live_and_is_shown_once(ana, fake):
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "plan my day")  # the page went away before its stream opened
    shown = ana.http.get(f"/ai/agent/chats/{chat_id}").get_data(as_text=True)
    assert shown.count(">plan my day</article>") == 1
    assert f'sse-connect="/ai/agent/turns/{turn_id}/stream"' in shown  # opening it starts the answer
    assert fake.requests() == []  # drawing the chat called no model
