"""Structured output for the non-streaming doors (onboarding, briefing, notebook AI)."""

import json

import pytest

from app.llm import ChainExhausted, ChatRequest, Message
from app.llm.chain import JSON_RETRY_WARNING
from tests.chain.shapes import HabitSuggestion
from tests.fakes import Reply

GOOD = json.dumps({"name": "Read", "importance": 4})


def ask():
    return ChatRequest(system="Suggest one habit.", messages=[Message.user("I like books")])


@pytest.mark.parametrize("link", ["mistral", "gemini"])
def test_structured_answer_is_validated_into_the_model(fake, make_chain, link):
    fake.script(link, Reply.says(GOOD))
    suggestion = make_chain(link).structured(ask(), HabitSuggestion)
    assert suggestion == HabitSuggestion(name="Read", importance=4)
    (request,) = fake.requests(link)
    assert request.streamed is False


def test_openai_compatible_links_ask_for_json_mode_with_the_schema(fake, make_chain):
    fake.script("mistral", Reply.says(GOOD))
    make_chain("mistral").structured(ask(), HabitSuggestion)
    body = fake.requests("mistral")[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert '"importance"' in body["messages"][0]["content"]


def test_gemini_asks_for_json_with_a_response_schema(fake, make_chain):
    fake.script("gemini", Reply.says(GOOD))
    make_chain("gemini").structured(ask(), HabitSuggestion)
    config = fake.requests("gemini")[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert set(config["responseSchema"]["properties"]) == {"name", "importance"}


def test_answer_in_code_fences_is_accepted(fake, make_chain):
    fake.script("mistral", Reply.says(f"```json\n{GOOD}\n```"))
    assert make_chain("mistral").structured(ask(), HabitSuggestion).name == "Read"


def test_malformed_answer_is_retried_once_with_a_json_only_warning(fake, make_chain):
    fake.script("mistral", Reply.says("Sure! Reading is great."), Reply.says(GOOD))
    suggestion = make_chain("mistral").structured(ask(), HabitSuggestion)
    assert suggestion.name == "Read"
    first, second = fake.requests("mistral")
    assert JSON_RETRY_WARNING not in first.body["messages"][0]["content"]
    assert JSON_RETRY_WARNING in second.body["messages"][0]["content"]


def test_second_malformed_answer_raises_ai_unavailable(fake, make_chain):
    fake.script("mistral", Reply.says("nope"), Reply.says('{"name": "Read"}'))
    with pytest.raises(ChainExhausted) as unavailable:
        make_chain("mistral").structured(ask(), HabitSuggestion)
    assert unavailable.value.key == "AI_UNAVAILABLE"
    assert unavailable.value.failures[0].kind.value == "malformed"
    assert len(fake.requests("mistral")) == 2


def test_caller_may_refuse_the_retry(fake, make_chain):
    fake.script("mistral", Reply.says("nope"))
    with pytest.raises(ChainExhausted):
        make_chain("mistral").structured(ask(), HabitSuggestion, retry=False)
    assert len(fake.requests("mistral")) == 1


def test_structured_call_falls_through_failed_links(fake, make_chain):
    fake.script("mistral", Reply.fails(429))
    fake.script("gemini", Reply.says("", garbage_after=0))
    fake.script("glm", Reply.says(GOOD))
    assert make_chain("mistral,gemini,glm").structured(ask(), HabitSuggestion).importance == 4
