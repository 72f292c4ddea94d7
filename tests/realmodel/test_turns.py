"""Real turns with a real model: the assistant's whole path — the POST, the SSE stream, the
chain's `local` link, llama.cpp's server — ends every turn `done`, its answer stored."""

import uuid

import pytest

from app.assistant.models.chats import Turn, TurnStatus
from app.extensions import db
from tests.assistant.conftest import AgentClient, make_user

pytestmark = pytest.mark.realmodel


def test_three_turns_of_one_chat_end_done_with_an_answer(local_app):
    app = local_app()
    make_user(app)
    ana = AgentClient(app)
    chat = ana.new_chat()
    for said in ("Hello!", "What can you help me with?", "Thanks, that is all."):
        events = ana.stream(ana.send_ok(chat, said, page="/dashboard"))
        assert events[-1]["name"] == "done", events[-3:]
    with app.app_context():
        turns = db.session.scalars(db.select(Turn).where(Turn.chat_id == uuid.UUID(chat))).all()
        assert [turn.status for turn in turns] == [TurnStatus.DONE] * 3
        db.session.remove()
