"""A turn, end to end: posted, watched, streamed, saved — and watched again without a second call."""

from app.assistant.models.chats import ChatMessage, Ending
from app.extensions import db
from tests.assistant.conftest import Reply, spoken, wait_for_turn


def test_a_message_streams_tokens_then_done_and_is_saved(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Hello ", "**Ana**", "!"))
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "hi there")
    events = ana.stream(turn_id)
    assert spoken(events) == "Hello **Ana**!"
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    done = events[-1]["data"]
    assert "<strong>Ana</strong>" in done
    assert "answered by mistral" in done
    with agent_app.app_context():
        rows = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()
        assert [(r.seq, r.role.value) for r in rows] == [(1, "USER"), (2, "ASSISTANT")]
        assert rows[1].segments == [{"type": "text", "text": "Hello **Ana**!"}]
        assert rows[1].link == "mistral" and rows[1].ending == Ending.COMPLETE


def test_watching_again_replays_and_never_calls_the_model_twice(ana, fake, agent_app):
    fake.script("mistral", Reply.says("one ", "two ", "three", pace=0.1))  # slower than the gather: three tokens
    chat_id = ana.new_chat()
    turn_id = ana.send_ok(chat_id, "count")
    first = ana.stream(turn_id)
    again = ana.stream(turn_id, last_event_id=1)  # a reconnect after the first token
    assert [e["id"] for e in again] == [e["id"] for e in first[1:]]
    assert spoken(first[:1] + again) == "one two three"
    assert again[-1]["name"] == "done"
    assert len(fake.requests("mistral")) == 1
    assert first[-1]["data"] == again[-1]["data"]
    wait_for_turn(agent_app, turn_id)


def test_a_nul_character_from_the_model_is_dropped_so_the_answer_is_saved(ana, fake, agent_app):
    """PostgreSQL text cannot hold NUL: a model that sends one must not cost the user the answer."""
    fake.script("mistral", Reply.says("Hel\x00lo", " there"))
    turn_id = ana.send_ok(ana.new_chat(), "hi")
    events = ana.stream(turn_id)
    assert spoken(events) == "Hello there"
    with agent_app.app_context():
        answer = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()[1]
        assert answer.segments == [{"type": "text", "text": "Hello there"}]
        assert answer.ending == Ending.COMPLETE
