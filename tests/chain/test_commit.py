"""After output is committed the chain never switches model silently."""

import pytest

from app.llm import ChatRequest, Completed, Message, StreamInterrupted, TextDelta, ToolCallReady, ToolSpec, Waiting
from tests.chain.shapes import HabitArgs
from tests.fakes import FakeCall, Reply

KINDS = {"openai-compatible": "mistral", "gemini": "gemini"}


def ask():
    return ChatRequest(messages=[Message.user("Tell me a story")], tools=[ToolSpec("createHabit", "Create", HabitArgs)])


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
@pytest.mark.parametrize("fault", ["cut_after", "error_after", "garbage_after"])
def test_failure_after_first_token_raises_interruption_with_partial_text(fake, make_chain, first, fault):
    fake.script(first, Reply.says("Once", " upon", " a time", **{fault: 2}))
    chain = make_chain(f"{first},glm")
    seen = []
    with pytest.raises(StreamInterrupted) as interrupted:
        for event in chain.stream(ask()):
            if isinstance(event, TextDelta):
                seen.append(event.text)

    assert interrupted.value.key == "AI_STREAM_INTERRUPTED"
    assert interrupted.value.link == first
    assert interrupted.value.partial_text == "Once upon" == "".join(seen)
    assert fake.requests("glm") == []


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
def test_a_round_cut_after_a_complete_tool_call_runs_no_call_and_falls_through(fake, make_chain, first):
    calls = (FakeCall("createHabit", {"name": "Read"}), FakeCall("createHabit", {"name": "Run"}))
    fake.script(first, Reply.calls(*calls, cut_after=3 if first == "mistral" else 1))
    fake.script("glm", Reply.calls(FakeCall("createHabit", {"name": "Walk"})))
    events = list(make_chain(f"{first},glm").stream(ask()))
    ready = [e.call.arguments for e in events if isinstance(e, ToolCallReady)]
    assert ready == [{"name": "Walk"}]  # nothing of the broken round was released to run
    assert events[-1].link == "glm"


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
def test_a_stream_without_a_finish_reason_releases_no_tool_call(fake, make_chain, first):
    fake.script(first, Reply.calls(FakeCall("createHabit", {"name": "Read"}), unfinished=True))
    fake.script("glm", Reply.says("I could not do that."))
    events = list(make_chain(f"{first},glm").stream(ask()))
    assert not [e for e in events if isinstance(e, ToolCallReady)]
    assert events[-1].link == "glm"


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
def test_tool_calls_come_together_after_the_text_and_just_before_completed(fake, make_chain, first):
    calls = (FakeCall("createHabit", {"name": "Read"}), FakeCall("createHabit", {"name": "Run"}))
    fake.script(first, Reply(text=["Adding both."], tool_calls=list(calls)))
    events = [e for e in make_chain(first).stream(ask()) if not isinstance(e, Waiting)]
    assert [type(e) for e in events] == [TextDelta, ToolCallReady, ToolCallReady, Completed]


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
def test_a_cut_after_text_and_a_started_tool_call_interrupts_without_the_call(fake, make_chain, first):
    fake.script(first, Reply(text=["Adding it."], tool_calls=[FakeCall("createHabit", {"name": "Read"})], cut_after=2))
    with pytest.raises(StreamInterrupted) as interrupted:
        list(make_chain(f"{first},glm").stream(ask()))
    assert interrupted.value.partial_text == "Adding it."
    assert interrupted.value.partial_tool_calls == []
    assert fake.requests("glm") == []


def test_interrupted_link_still_cools_down(fake, make_chain):
    fake.script("mistral", Reply.says("Once", " upon", cut_after=1))
    chain = make_chain("mistral,glm")
    with pytest.raises(StreamInterrupted):
        list(chain.stream(ask()))
    assert {s.name: s.status for s in chain.link_states()}["mistral"] == "cooling"


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
def test_closing_the_stream_stops_the_http_stream(fake, make_chain, first):
    fake.script(first, Reply.says(*["word "] * 200, pace=0.05))
    chain = make_chain(first)
    events = chain.stream(ask())
    said = next(event for event in events if not isinstance(event, Waiting))  # a loaded machine may be slow to start
    assert isinstance(said, TextDelta)
    events.close()

    (request,) = fake.requests(first)
    assert request.disconnected.wait(10), "the fake kept streaming to a closed turn"
    assert request.frames_sent < 200


def test_total_budget_exceeded_after_commit_interrupts_the_stream(fake, make_chain):
    fake.script("mistral", Reply.says(*["slow "] * 60, pace=0.25))  # 15 s of answer
    chain = make_chain("mistral,glm", BEYOU_LLM_TOTAL_TIMEOUT="5")  # long enough for a first token under load
    with pytest.raises(StreamInterrupted) as interrupted:
        list(chain.stream(ask()))
    assert interrupted.value.cause.kind.value == "timeout"
    assert interrupted.value.partial_text.startswith("slow ")
    assert fake.requests("glm") == []
