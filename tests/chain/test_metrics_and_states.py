"""What the chain counts, and what the admin page shows per link."""

import pytest

from app.llm import ChainExhausted, ChatRequest, LinkState, Message, StreamInterrupted
from tests.fakes import Reply


def ask():
    return ChatRequest(messages=[Message.user("hello")])


def test_attempts_fallbacks_and_cooldowns_are_counted(fake, make_chain, metric):
    for name, labels in [
        ("beyou_llm_attempts_total", {"link": "mistral", "outcome": "rate_limited"}),
        ("beyou_llm_attempts_total", {"link": "gemini", "outcome": "ok"}),
        ("beyou_llm_fallbacks_total", {"from_link": "mistral", "kind": "rate_limited"}),
        ("beyou_llm_cooldowns_total", {"link": "mistral", "kind": "rate_limited"}),
        ("beyou_llm_attempts_total", {"link": "mistral", "outcome": "skipped_cooldown"}),
    ]:
        metric.mark(name, **labels)
    fake.script("mistral", Reply.fails(429))
    chain = make_chain("mistral,gemini")
    list(chain.stream(ask()))
    list(chain.stream(ask()))

    assert metric.delta("beyou_llm_attempts_total", link="mistral", outcome="rate_limited") == 1
    assert metric.delta("beyou_llm_attempts_total", link="gemini", outcome="ok") == 2
    assert metric.delta("beyou_llm_fallbacks_total", from_link="mistral", kind="rate_limited") == 1
    assert metric.delta("beyou_llm_cooldowns_total", link="mistral", kind="rate_limited") == 1
    assert metric.delta("beyou_llm_attempts_total", link="mistral", outcome="skipped_cooldown") == 1


def test_exhausted_chains_are_counted(fake, make_chain, metric):
    metric.mark("beyou_llm_exhausted_total")
    fake.script("mistral", Reply.fails(500))
    with pytest.raises(ChainExhausted):
        list(make_chain("mistral").stream(ask()))
    assert metric.delta("beyou_llm_exhausted_total") == 1


def test_latency_and_tokens_are_recorded_by_link(fake, make_chain, metric):
    metric.mark("beyou_llm_time_to_first_token_seconds_count", link="glm")
    metric.mark("beyou_llm_call_seconds_count", link="glm")
    metric.mark("beyou_llm_tokens_total", link="glm", direction="prompt")
    metric.mark("beyou_llm_tokens_total", link="glm", direction="completion")
    fake.script("glm", Reply.says("Hi", usage=(40, 3)))
    list(make_chain("glm").stream(ask()))

    assert metric.delta("beyou_llm_time_to_first_token_seconds_count", link="glm") == 1
    assert metric.delta("beyou_llm_call_seconds_count", link="glm") == 1
    assert metric.delta("beyou_llm_tokens_total", link="glm", direction="prompt") == 40
    assert metric.delta("beyou_llm_tokens_total", link="glm", direction="completion") == 3


def test_interrupted_and_cancelled_streams_are_neither_ok_nor_fallbacks(fake, make_chain, metric):
    metric.mark("beyou_llm_attempts_total", link="nvidia", outcome="interrupted")
    metric.mark("beyou_llm_attempts_total", link="nvidia", outcome="cancelled")
    metric.mark("beyou_llm_attempts_total", link="nvidia", outcome="ok")
    fake.script("nvidia", Reply.says("a", "b", cut_after=1), Reply.says("a", "b", "c"))
    chain = make_chain("nvidia,glm")
    with pytest.raises(StreamInterrupted):
        list(chain.stream(ask()))
    make_chain("nvidia").stream(ask()).__next__()  # then dropped: the generator closes

    assert metric.delta("beyou_llm_attempts_total", link="nvidia", outcome="interrupted") == 1
    assert metric.delta("beyou_llm_attempts_total", link="nvidia", outcome="cancelled") == 1
    assert metric.delta("beyou_llm_attempts_total", link="nvidia", outcome="ok") == 0


def test_link_states_show_ready_cooling_skipped_and_blocked(fake, make_chain):
    fake.script("mistral", Reply.fails(401))
    chain = make_chain(
        "mistral,gemini,glm,deepseek",
        BEYOU_LLM_BLOCKED="deepseek",
        BEYOU_LLM_GLM_API_KEY="",
        GLM_API_KEY="",
    )
    list(chain.stream(ask()))
    states = {s.name: s for s in chain.link_states()}

    assert all(isinstance(s, LinkState) for s in states.values())
    assert states["mistral"].status == "cooling"
    assert states["mistral"].last_error.kind == "auth" and states["mistral"].last_error.status == 401
    assert states["gemini"].status == "ready" and states["gemini"].recent_latency_ms is not None
    assert states["glm"].status == "skipped" and "API key" in states["glm"].detail
    assert states["deepseek"].status == "blocked"
