"""Before the first output is committed, any failure moves the call to the next link."""

import pytest

from app.llm import AssistantReply, ChainExhausted, ChatRequest, Completed, Message, TextDelta, ToolSpec
from tests.chain.shapes import HabitArgs
from tests.fakes import FakeCall, Reply
from tests.fakes.wire import gemini_error_body

# (first link, next link): one line-up per provider kind failing first.
LINE_UPS = {"openai-compatible": ("mistral", "gemini"), "gemini": ("gemini", "mistral")}

FAILURES = {
    "429": (Reply.fails(429), "rate_limited"),
    "500": (Reply.fails(500), "unavailable"),
    "503-overloaded": (Reply.fails(503), "unavailable"),
    "401": (Reply.fails(401), "auth"),
    "400": (Reply.fails(400), "bad_request"),
    "slow-first-byte": (Reply.says("too late", first_byte_delay=15.0), "timeout"),
    "error-inside-200": (Reply.says("never", error_after=0), "unavailable"),
    "garbage": (Reply.says("never", garbage_after=0), "malformed"),
    "cut-before-first-token": (Reply.says("never", cut_after=0), "connection"),
}


def ask(text="How is my week?"):
    return ChatRequest(system="You are Beyou's assistant.", messages=[Message.user(text)])


def answer(chain, request=None):
    reply = AssistantReply()
    for event in chain.stream(request or ask()):
        reply.absorb(event)
    return reply


@pytest.mark.parametrize("kind", LINE_UPS)
@pytest.mark.parametrize("failure", FAILURES)
def test_chain_falls_through_before_first_token(fake, make_chain, kind, failure):
    first, second = LINE_UPS[kind]
    reply, expected_kind = FAILURES[failure]
    fake.script(first, reply)
    fake.script(second, Reply.says("Fine", " thanks"))
    # A first byte 15 s late runs into a first-event budget of its own, not the suite's 10 s.
    budget = {"BEYOU_LLM_FIRST_EVENT_TIMEOUT": "2"} if failure == "slow-first-byte" else {}
    chain = make_chain(f"{first},{second}", **budget)

    result = answer(chain)

    assert result.text == "Fine thanks"
    assert result.completed.link == second
    state = {s.name: s for s in chain.link_states()}[first]
    assert state.last_error.kind == expected_kind


def test_chain_falls_through_on_429_before_first_token(fake, make_chain):
    fake.script("mistral", Reply.fails(429, headers={"Retry-After": "20"}))
    chain = make_chain("mistral,gemini")
    assert answer(chain).completed.link == "gemini"
    assert len(fake.requests("mistral")) == 1


@pytest.mark.parametrize("first", ["mistral", "gemini"])
def test_chain_falls_through_on_connection_refused(fake, make_chain, refused_url, first):
    second = "glm"
    chain = make_chain(f"{first},{second}", **{f"BEYOU_LLM_{first.upper()}_BASE_URL": refused_url})
    result = answer(chain)
    assert result.completed.link == second
    assert {s.name: s for s in chain.link_states()}[first].last_error.kind == "connection"


def test_quota_failure_is_typed_as_quota(fake, make_chain):
    body = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": 429}}
    fake.script("mistral", Reply.fails(429, body=body))
    fake.script("glm", Reply.fails(402))
    chain = make_chain("mistral,glm,gemini")
    assert answer(chain).completed.link == "gemini"
    kinds = {s.name: s.last_error.kind for s in chain.link_states() if s.last_error}
    assert kinds == {"mistral": "quota", "glm": "quota"}


def test_gemini_resource_exhausted_quota_is_typed_as_quota(fake, make_chain):
    body = gemini_error_body(429)
    body["error"]["message"] = "Quota exceeded for metric generate_content_free_tier_requests"
    fake.script("gemini", Reply.fails(429, body=body))
    chain = make_chain("gemini,mistral")
    assert answer(chain).completed.link == "mistral"
    assert {s.name: s for s in chain.link_states()}["gemini"].last_error.kind == "quota"


@pytest.mark.parametrize("first", ["mistral", "gemini"])
def test_empty_well_formed_completion_is_success(fake, make_chain, first):
    fake.script(first, Reply.says())
    chain = make_chain(f"{first},glm")
    events = list(chain.stream(ask()))
    assert [type(e) for e in events] == [Completed]
    assert events[0].link == first
    assert fake.requests("glm") == []


@pytest.mark.parametrize("first", ["mistral", "gemini"])
def test_completion_that_only_calls_tools_is_success(fake, make_chain, first):
    fake.script(first, Reply.calls(FakeCall("createHabit", {"name": "Read"})))
    chain = make_chain(f"{first},glm")
    request = ChatRequest(messages=[Message.user("add reading")], tools=[ToolSpec("createHabit", "Create", HabitArgs)])
    result = answer(chain, request)
    assert result.completed.link == first
    assert result.completed.finish_reason == "tool_calls"
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("createHabit", {"name": "Read"})]


def test_every_link_failing_raises_chain_exhausted_with_each_failure(fake, make_chain):
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(401))
    chain = make_chain("mistral,gemini")
    with pytest.raises(ChainExhausted) as exhausted:
        answer(chain)
    assert exhausted.value.key == "AI_UNAVAILABLE"
    assert [(f.provider, f.kind.value, f.status) for f in exhausted.value.failures] == [
        ("mistral", "unavailable", 500),
        ("gemini", "auth", 401),
    ]


def test_no_sdk_exception_escapes_the_chain(fake, make_chain):
    fake.script("deepseek", Reply.says("x", garbage_after=0))
    chain = make_chain("deepseek")
    with pytest.raises(ChainExhausted) as exhausted:
        list(chain.stream(ask()))
    assert exhausted.value.failures[0].kind.value == "malformed"
    assert type(exhausted.value.__cause__).__module__.startswith("app.llm") or exhausted.value.__cause__ is None


def test_text_deltas_arrive_in_order(fake, make_chain):
    fake.script("mistral", Reply.says("One", " two", " three"))
    events = list(make_chain("mistral").stream(ask()))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["One", " two", " three"]
