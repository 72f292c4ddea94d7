"""Turns against providers that say nothing: Stop and the turn's deadline still end them, and a
tool runs only from a round that ended properly. Bounds are generous (a loaded machine)."""

import time

import pytest

from app.extensions import db
from app.tasks.models import Task
from tests.assistant.conftest import AgentClient, Reply, chain_env, make_user, wait_for_turn
from tests.fakes.script import FakeCall

KINDS = {"openai-compatible": "mistral", "gemini": "gemini"}
BOTH = pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
SILENCES = {
    "keepalive-only": lambda: Reply.keeps_alive(30, "never", every=0.2),
    "silent-before-first-byte": lambda: Reply.says("never", first_byte_delay=30),
}


def patient_app(make_agent_app, fake, order, **config):
    """Production-like budgets: only Stop or the turn's own deadline can end these turns early."""
    llm_env = {**chain_env(fake, order), "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "40", "BEYOU_LLM_TOTAL_TIMEOUT": "60"}
    app = make_agent_app(order, LLM_ENV=llm_env, **config)
    make_user(app)
    return app


def wait_for_request(fake, provider, seconds=5):
    deadline = time.monotonic() + seconds
    while not fake.requests(provider):
        assert time.monotonic() < deadline, f"{provider} was never called"
        time.sleep(0.05)
    return fake.requests(provider)[0]


@BOTH
@pytest.mark.parametrize("silence", SILENCES)
def test_stop_ends_a_turn_within_a_second_whatever_the_provider_does(make_agent_app, fake, first, silence):
    app = patient_app(make_agent_app, fake, first)
    ana = AgentClient(app)
    fake.script(first, SILENCES[silence]())
    turn_id = ana.send_ok(ana.new_chat(), "please make a task PD2")
    live = ana.open_stream(turn_id)
    request = wait_for_request(fake, first)
    time.sleep(0.5)
    asked = time.monotonic()
    assert ana.post(f"/ai/agent/turns/{turn_id}/cancel").status_code == 204
    ending = live.rest()[-1]
    assert time.monotonic() - asked < 3
    assert 'data-error="TURN_CANCELLED"' in ending["data"]
    assert wait_for_turn(app, turn_id).value == "ENDED"
    assert request.disconnected.wait(5), "the provider still holds the cancelled turn's connection"


@BOTH
def test_no_link_is_called_after_the_turns_deadline(make_agent_app, fake, first):
    second = "gemini" if first == "mistral" else "mistral"
    app = patient_app(make_agent_app, fake, f"{first},{second}", AGENT_TURN_SECONDS=1)
    ana = AgentClient(app)
    fake.script(first, Reply.keeps_alive(30, "never", every=0.2))
    started = time.monotonic()
    events = ana.stream(ana.send_ok(ana.new_chat(), "hello"))
    assert time.monotonic() - started < 5
    assert 'data-error="TIMEOUT"' in events[-1]["data"]
    assert fake.requests(second) == []


@BOTH
def test_a_tool_call_from_a_round_without_a_finish_reason_never_runs(make_agent_app, fake, first):
    second = "gemini" if first == "mistral" else "mistral"
    app = make_agent_app(f"{first},{second}")
    make_user(app)
    ana = AgentClient(app)
    task = FakeCall("createUserTask", {"name": "PD2", "importance": 2, "difficulty": 1})
    fake.script(first, Reply.calls(task, unfinished=True))
    fake.script(second, Reply.says("I could not do that."))
    events = ana.stream(ana.send_ok(ana.new_chat(), "please make a task PD2"))
    assert [e["name"] for e in events] == ["token", "done"]
    with app.app_context():
        assert db.session.scalars(db.select(Task)).all() == []
