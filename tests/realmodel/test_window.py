"""A chat longer than the model's window, with the real model: the link cuts the history, oldest
messages first, to its window (app/llm/windows.py), the turn is answered, and what the server read
fits the window by the server's own count."""

import logging
import re
import uuid

import pytest

from app.assistant.models.chats import ChatMessage, Ending, Role
from app.extensions import db
from app.llm import Message
from app.llm.windows import message_tokens
from bench.eval.driver import tokens_so_far
from tests.assistant.conftest import AgentClient, make_user, spoken

pytestmark = pytest.mark.realmodel

WINDOW = 2048  # the link's: a few times less than the history (the server itself holds more)
CUT = re.compile(r"request cut to its window of (?P<window>\d+) tokens \((?P<left_out>\d+) messages")

PARAGRAPH = (
    "On day {n} I walked along the river before work, counted the herons on the far bank, and "
    "wrote down what the morning looked like: the fog over the water, the cyclists on the bridge, "
    "the bakery that opens at seven and the smell of bread that reaches the corner. I want to keep "
    "doing this every day, so please remember that mornings by the river matter to me, that I "
    "prefer walking to running, and that I would rather plan my week around these walks than "
    "around the gym. "
)


def long_history():
    """Twenty earlier messages, a person's and the assistant's in turn: eighteen of over two
    thousand characters, then a short exchange, which the window holds."""
    said = []
    for n in range(18):
        text = (PARAGRAPH.format(n=n + 1) * 4).strip()
        said.append(Message.user(text) if n % 2 == 0 else Message(role="assistant", content=f"Noted, day {n}. {text}"))
    return [*said, Message.user("And in the evenings?"), Message(role="assistant", content="You read, most days.")]


def test_a_chat_longer_than_the_window_is_cut_to_it_and_answered(local_app, caplog):
    # No tools: one model round, so the server's count of the turn's prompt is the one request's.
    app = local_app(LLM_ENV={"BEYOU_LLM_LOCAL_CONTEXT": str(WINDOW), "BEYOU_LLM_LOCAL_MAX_TOOLS": "0"})
    make_user(app)
    ana = AgentClient(app)
    chat = ana.new_chat()
    history = long_history()
    assert sum(map(message_tokens, history)) > 3 * WINDOW
    with app.app_context():
        for seq, message in enumerate(history, start=1):
            user = message.role == "user"
            db.session.add(ChatMessage(
                chat_id=uuid.UUID(chat), seq=seq, role=Role.USER if user else Role.ASSISTANT,
                segments=[{"type": "text", "text": message.content}], transcript=[message.model_dump()],
                ending=None if user else Ending.COMPLETE,
            ))  # fmt: skip
        db.session.commit()
        db.session.remove()
    prompt_before = tokens_so_far()[0]
    with caplog.at_level(logging.INFO, logger="app.llm.windows"):
        events = ana.stream(ana.send_ok(chat, "What do I like to do in the mornings?", page="/dashboard"))
    assert spoken(events).strip()
    [cut] = [found for record in caplog.records if (found := CUT.search(record.getMessage()))]
    assert int(cut.group("window")) == WINDOW and 0 < int(cut.group("left_out")) < len(history)
    prompt = tokens_so_far()[0] - prompt_before  # as the server counted it
    assert 0 < prompt <= WINDOW
