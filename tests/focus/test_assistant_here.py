"""On the Focus page the assistant knows which entry is open: the prompt names it as "here", and a
tool call that forgets the entry is refused with that entry named, so the model can call again
(the model is the wire fake; the turn runs the real chain, runner and tools)."""

import json

from app.extensions import db
from app.focus.models import MicroTask
from app.profile.models import User
from tests.assistant.conftest import (
    AgentClient,
    Reply,
    agent_app,
    agent_db_url,
    fake,
    fake_providers,
    make_agent_app,
    turn_id_in,
)
from tests.builders import a_habit, an_everyday_routine
from tests.conftest import make_user
from tests.fakes.script import FakeCall

__all__ = ["agent_app", "agent_db_url", "fake", "fake_providers", "make_agent_app"]  # the assistant's fixtures


def test_add_a_step_here_resolves_through_the_open_entry(fake, agent_app):
    make_user(agent_app)
    with agent_app.app_context():
        ana = db.session.scalar(db.select(User).where(User.email == "ana@example.com"))
        entry_id = str(an_everyday_routine(ana, a_habit(ana, "Write"))[0].id)
    fake.script(
        "mistral",
        Reply.calls(FakeCall("addMicroTask", {"text": "Outline"})),
        Reply.calls(FakeCall("addMicroTask", {"entry_id": entry_id, "text": "Outline"})),
        Reply.says("Added **Outline**."),
    )
    client = AgentClient(agent_app)
    chat_id = client.new_chat()

    sent = client.post(
        f"/ai/agent/chats/{chat_id}/messages", message="add a step here: Outline", page=f"/focus/{entry_id}",
        focus_entry=entry_id,
    )  # fmt: skip
    client.stream(turn_id_in(sent.get_data(as_text=True)))

    first, second, _third = fake.requests("mistral")
    assert "addMicroTask" in {tool["function"]["name"] for tool in first.body["tools"]}, "the page's tools come first"
    system = first.messages[0]["content"]
    assert entry_id in system and "Focus mode" in system
    refusal = json.loads(second.messages[-1]["content"])
    assert refusal["error"] == "FOCUS_ENTRY_REQUIRED_OPEN"
    assert "Write" in refusal["message"] and entry_id in refusal["message"]
    with agent_app.app_context():
        assert [step.text for step in db.session.scalars(db.select(MicroTask))] == ["Outline"]
