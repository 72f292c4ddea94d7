"""The one door services take to the chain (`app.llm.model`): the app's chain, pointed here at the
wire fakes, seen under the door's own metrics label and rate bucket."""

import json
from types import SimpleNamespace

import pytest
from prometheus_client import REGISTRY

from app import create_app
from app.llm import BudgetSpent, ChainExhausted, ChatRequest, Message, RateBucket, TextDelta, model
from tests.chain.conftest import env_for
from tests.chain.shapes import HabitSuggestion
from tests.conftest import settings_for_tests
from tests.fakes import Reply

ANA = SimpleNamespace(id="ana-door-test")


@pytest.fixture
def door_app(fake):
    app = create_app("test", **settings_for_tests(LLM_ENV=env_for(fake, "mistral,gemini"),
                                                  SUGGESTIONS_RATE_LIMIT="1 per hour"))  # fmt: skip
    yield app
    app.extensions["llm_chain"].close()


def door_calls(door, outcome):
    return REGISTRY.get_sample_value("beyou_llm_door_calls_total", {"door": door, "outcome": outcome}) or 0


def ask():
    return ChatRequest(system="Suggest one habit.", messages=[Message.user("I like books")])


def test_structured_call_through_the_door_returns_a_validated_object_from_the_app_chain(door_app, fake):
    fake.script("mistral", Reply.says(json.dumps({"name": "Read", "importance": 4})))
    before = door_calls("suggestions", "ok")
    with door_app.app_context():
        suggestion = model("suggestions").structured(ask(), HabitSuggestion)
    assert suggestion == HabitSuggestion(name="Read", importance=4)
    (request,) = fake.requests("mistral")
    assert request.streamed is False
    assert door_calls("suggestions", "ok") == before + 1


def test_a_failed_structured_call_is_counted_under_its_door_with_the_error_key(door_app, fake):
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(500))
    before = door_calls("suggestions", "ai_unavailable")
    with door_app.app_context(), pytest.raises(ChainExhausted):
        model("suggestions").structured(ask(), HabitSuggestion)
    assert door_calls("suggestions", "ai_unavailable") == before + 1


def test_a_door_with_a_bucket_refuses_before_asking_any_model_once_the_user_spent_it(door_app, fake):
    fake.script("mistral", Reply.says(json.dumps({"name": "Read", "importance": 4})))
    door = RateBucket("suggestions", "SUGGESTIONS_RATE_LIMIT")
    with door_app.app_context():
        model("suggestions", bucket=door).structured(ask(), HabitSuggestion, user=ANA)
        with pytest.raises(BudgetSpent) as spent:
            model("suggestions", bucket=door).structured(ask(), HabitSuggestion, user=ANA)
    assert spent.value.door == "suggestions"
    assert len(fake.requests("mistral")) == 1


def test_streaming_through_the_door_passes_the_chain_events_and_counts_the_call(door_app, fake):
    fake.script("mistral", Reply.says("Hello there"))
    before = door_calls("agent", "ok")
    with door_app.app_context():
        events = list(model("agent").stream(ask()))
    assert "".join(event.text for event in events if isinstance(event, TextDelta)) == "Hello there"
    assert door_calls("agent", "ok") == before + 1


def test_a_stream_the_caller_closes_early_is_counted_as_cancelled(door_app, fake):
    fake.script("mistral", Reply.says("one ", "two ", "three", pace=0.2))
    before = door_calls("agent", "cancelled")
    with door_app.app_context():
        stream = model("agent").stream(ask())
        next(event for event in stream if isinstance(event, TextDelta))
        stream.close()
    assert door_calls("agent", "cancelled") == before + 1
