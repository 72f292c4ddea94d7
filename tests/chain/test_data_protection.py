"""What is sent is exactly what the caller built; a blocked link never receives a byte."""

import pytest

from app.llm import ChainExhausted, ChatRequest, Message
from tests.fakes import Reply


def test_blocked_link_receives_nothing_even_when_the_others_fail(fake, make_chain):
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(500))
    chain = make_chain("mistral,deepseek,gemini", BEYOU_LLM_BLOCKED="deepseek")
    with pytest.raises(ChainExhausted):
        list(chain.stream(ChatRequest(messages=[Message.user("my diary")])))
    assert fake.requests("deepseek") == []
    assert "deepseek" not in chain.link_names


def test_production_blocked_links_receive_nothing(fake, make_chain):
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(500))
    chain = make_chain("mistral,glm,gemini,deepseek", BEYOU_ENV="production", BEYOU_LLM_BLOCKED="")
    with pytest.raises(ChainExhausted):
        list(chain.stream(ChatRequest(messages=[Message.user("my diary")])))
    assert fake.requests("glm") == [] and fake.requests("deepseek") == []


def test_openai_compatible_link_receives_exactly_the_callers_request(fake, make_chain):
    fake.script("mistral", Reply.says("ok"))
    request = ChatRequest(
        system="You are Beyou.",
        messages=[Message.user("Hi"), Message(role="assistant", content="Hello")],
        temperature=0.2,
    )
    list(make_chain("mistral").stream(request))
    body = fake.requests("mistral")[0].body
    assert body == {
        "model": "mistral-small-latest",
        "messages": [
            {"role": "system", "content": "You are Beyou."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
        ],
        "stream": True,
        "temperature": 0.2,
    }


def test_gemini_link_receives_exactly_the_callers_request(fake, make_chain):
    fake.script("gemini", Reply.says("ok"))
    request = ChatRequest(system="You are Beyou.", messages=[Message.user("Hi")])
    list(make_chain("gemini").stream(request))
    body = fake.requests("gemini")[0].body
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]
    assert body["systemInstruction"]["parts"] == [{"text": "You are Beyou."}]
    assert set(body) <= {"contents", "systemInstruction", "generationConfig"}


def test_each_link_gets_its_own_key_and_no_other(fake, make_chain):
    fake.script("mistral", Reply.fails(500))
    list(make_chain("mistral,gemini").stream(ChatRequest(messages=[Message.user("Hi")])))
    assert fake.requests("mistral")[0].headers["authorization"] == "Bearer key-mistral"
    gemini_headers = fake.requests("gemini")[0].headers
    assert gemini_headers["x-goog-api-key"] == "key-gemini"
    assert "authorization" not in gemini_headers


def test_sdk_retries_are_off(fake, make_chain):
    fake.script("mistral", Reply.fails(503))
    fake.script("gemini", Reply.fails(503))
    with pytest.raises(ChainExhausted):
        list(make_chain("mistral,gemini").stream(ChatRequest(messages=[Message.user("Hi")])))
    assert len(fake.requests("mistral")) == 1 and len(fake.requests("gemini")) == 1
