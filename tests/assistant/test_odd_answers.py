"""No stored answer makes a chat unopenable: typed content pieces from a reasoning model are read as
the provider means them, and a row holding a list, a dict, None or 200 KB where a segment should
be is drawn, or says that part of the answer can't be shown."""

import json
import uuid
from html import unescape

import pytest
from sqlalchemy import insert

from app.assistant.models.chats import ChatMessage, Ending, Role
from app.extensions import db
from tests.assistant.conftest import Reply, spoken

THOUGHTS = ["Okay", ", the user", " says hi", ", I should greet back"]


def opened(client, chat_id):
    """The chat opened by itself and in the panel (the most recent chat): both pages, as text."""
    chat = client.http.get(f"/ai/agent/chats/{chat_id}")
    panel = client.http.get("/ai/agent/panel")
    assert (chat.status_code, panel.status_code) == (200, 200)
    return [unescape(page.get_data(as_text=True)) for page in (chat, panel)]


def store(app, chat_id, *answers, transcript=()):
    """Each answer written straight into the chat's table after a question, as a row may hold it."""
    chat = uuid.UUID(chat_id)
    with app.app_context():
        for seq, segments in enumerate(answers, start=1):
            question = {"type": "text", "text": f"question {seq}"}
            db.session.execute(
                insert(ChatMessage).values(
                    id=uuid.uuid4(), chat_id=chat, seq=2 * seq - 1, role=Role.USER, segments=[question], transcript=[]
                )
            )
            answer = {"segments": segments, "transcript": list(transcript), "ending": Ending.COMPLETE}
            db.session.execute(
                insert(ChatMessage).values(id=uuid.uuid4(), chat_id=chat, seq=2 * seq, role=Role.ASSISTANT, **answer)
            )
        db.session.commit()


def test_a_turn_on_a_reasoning_model_keeps_only_the_answer_and_the_chat_opens(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Hello", " **Ana**!", thinking=THOUGHTS, typed_text=True), Reply.fails(503))
    fake.script("gemini", Reply.says("Still here."))
    chat_id = ana.new_chat()
    events = ana.stream(ana.send_ok(chat_id, "hi"))
    assert spoken(events) == "Hello **Ana**!"
    assert "<strong>Ana</strong>" in events[-1]["data"] and "greet back" not in events[-1]["data"]
    with agent_app.app_context():
        answer = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()[1]
        assert answer.segments == [{"type": "text", "text": "Hello **Ana**!"}]
        assert answer.ending == Ending.COMPLETE
        assert "greet back" not in json.dumps(answer.transcript)

    events = ana.stream(ana.send_ok(chat_id, "still there?"))
    assert events[-1]["name"] == "done" and "answered by gemini" in events[-1]["data"]
    sent_to_the_next_link = json.dumps(fake.requests("gemini")[0].body)
    assert "Hello **Ana**!" in sent_to_the_next_link
    assert "greet back" not in sent_to_the_next_link and "thinking" not in sent_to_the_next_link

    for page in opened(ana, chat_id):
        assert "<strong>Ana</strong>" in page and "Still here." in page and "greet back" not in page


ODD_ANSWERS = {
    "text as typed pieces": [
        {
            "type": "text",
            "text": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "a private thought"}]},
                {"type": "text", "text": "The answer in pieces"},
            ],
        }
    ],
    "text as a dict": [{"type": "text", "text": {"text": "nested"}}],
    "text as None": [{"type": "text", "text": None}],
    "text as a number": [{"type": "text", "text": 42}],
    "a segment that is None": [None],
    "a segment that is a list": [["a", "b"]],
    "a segment that is a number": [7],
    "a segment of no known type": [{"type": "mystery", "text": "?"}],
    "a tool named by a list": [{"type": "tool", "tool": ["createHabit"]}],
    "a dict for segments": {"type": "text", "text": "One segment, not a list"},
    "a string for segments": "Just a string",
    "JSON null for segments": None,
}
UNREADABLE = sum(
    1 for name in ODD_ANSWERS if name.startswith(("text as", "a segment", "a tool")) and name != "text as typed pieces"
)


def test_odd_segments_are_drawn_or_say_they_cannot_be_shown(ana, agent_app):
    chat_id = ana.new_chat()
    store(agent_app, chat_id, *ODD_ANSWERS.values(), [{"type": "text", "text": "A plain **answer**"}])
    for page in opened(ana, chat_id):
        assert page.count('data-unshown="unreadable"') == UNREADABLE
        assert "Part of this answer can't be shown." in page
        assert "The answer in pieces" in page and "a private thought" not in page
        assert "One segment, not a list" in page and "Just a string" in page
        assert "A plain <strong>answer</strong>" in page
        assert "question 1" in page and f"question {len(ODD_ANSWERS) + 1}" in page


def test_a_tool_card_shows_what_of_it_is_readable(ana, agent_app):
    chat_id = ana.new_chat()
    odd_tool = {"type": "tool", "tool": "createHabit", "kind": "write", "domains": 5,
                "page": "javascript:alert(1)", "confirmation": {"id": 1}, "diagram": ["graph"]}  # fmt: skip
    store(agent_app, chat_id, [odd_tool])
    for page in opened(ana, chat_id):
        assert "javascript:" not in page and "this proposal is gone" not in page
        assert 'class="tool-chip"' in page


def test_two_hundred_kilobytes_of_text_show_their_start_and_say_the_rest_is_kept(ana, agent_app):
    chat_id = ana.new_chat()
    store(agent_app, chat_id, [{"type": "text", "text": "start " + "[" * 200_000 + " end-of-it"}])
    for page in opened(ana, chat_id):
        assert "start [[[" in page and "end-of-it" not in page
        assert 'data-unshown="cut"' in page and "too long to show here" in page


@pytest.mark.parametrize(
    "transcript",
    [
        [{"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]}]}],
        [{"role": "wizard", "content": "?"}],
        ["not a message"],
    ],
    ids=["content as pieces", "an unknown role", "a string"],
)
def test_a_chat_whose_stored_transcript_does_not_read_still_answers(ana, fake, agent_app, transcript):
    chat_id = ana.new_chat()
    store(agent_app, chat_id, [{"type": "text", "text": "Earlier answer"}], transcript=transcript)
    fake.script("mistral", Reply.says("Fine."))
    events = ana.stream(ana.send_ok(chat_id, "go on"))
    assert events[-1]["name"] == "done"
    assert "hmm" not in json.dumps(fake.requests("mistral")[0].body)
    assert all("Fine." in page for page in opened(ana, chat_id))
