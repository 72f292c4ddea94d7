"""The chain's clocks run on model events, not bytes, and the caller can always get out.

A provider that sends only keep-alive comments, or nothing at all, must neither outlive the
link's first-event / idle / total budgets nor the caller's deadline; while it is silent the
chain says `Waiting` at least every quarter second (or when a caller's `Wake` is called), and
closing the stream cuts the connection even while the SDK is blocked reading it. Bounds are
generous: these run on a loaded machine.
"""

import itertools
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from app import ROOT
from app.llm import (
    ChatRequest,
    Completed,
    DeadlineReached,
    Message,
    StreamInterrupted,
    TextDelta,
    ToolCallReady,
    Waiting,
    Wake,
)
from app.llm import chain as chain_module
from app.llm.chain import WAITING_EVERY_WITH_WAKE
from tests.chain.conftest import env_for
from tests.chain.shapes import HabitSuggestion
from tests.fakes import FakeCall, Reply

KINDS = {"openai-compatible": "mistral", "gemini": "gemini"}
BOTH = pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())


def ask():
    return ChatRequest(messages=[Message.user("Tell me a story")])


def until_waiting(events):
    """Reads up to the first `Waiting` (the model is silent); returns what came before it."""
    before = []
    for event in events:
        if isinstance(event, Waiting):
            return before
        before.append(event)
    raise AssertionError("the stream ended without ever waiting")


@BOTH
def test_a_caller_that_can_wake_its_stream_hears_waiting_when_it_wakes_it(fake, make_chain, first):
    """Thousands of turns wait on silent models at once: a stream with a `Wake` stays quiet
    (no `Waiting` every quarter second), and says `Waiting` as soon as its caller wakes it."""
    fake.script(first, Reply.hangs(WAITING_EVERY_WITH_WAKE + 3, "Late"))
    wake = Wake()
    events = make_chain(first, BEYOU_LLM_FIRST_EVENT_TIMEOUT="20").stream(ask(), wake=wake)
    started = time.monotonic()
    threading.Timer(1.0, wake).start()
    try:
        assert until_waiting(events) == []
        woken_after = time.monotonic() - started
    finally:
        events.close()
    assert 1.0 <= woken_after < WAITING_EVERY_WITH_WAKE - 1


def test_a_wake_that_came_before_the_model_was_asked_is_heard_at_once(fake, make_chain):
    fake.script("mistral", Reply.hangs(WAITING_EVERY_WITH_WAKE + 3, "Late"))
    wake = Wake()
    wake()
    events = make_chain("mistral", BEYOU_LLM_FIRST_EVENT_TIMEOUT="20").stream(ask(), wake=wake)
    started = time.monotonic()
    try:
        assert until_waiting(events) == []
        assert time.monotonic() - started < WAITING_EVERY_WITH_WAKE - 1
    finally:
        events.close()


@BOTH
def test_keepalive_comments_alone_run_into_the_first_event_timeout(fake, make_chain, first):
    fake.script(first, Reply.keeps_alive(12, "too late", every=0.1))
    fake.script("glm", Reply.says("Fine", " thanks"))
    chain = make_chain(f"{first},glm", BEYOU_LLM_FIRST_EVENT_TIMEOUT="0.5", BEYOU_LLM_TOTAL_TIMEOUT="20")
    started = time.monotonic()
    events = list(chain.stream(ask()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Fine thanks"
    assert time.monotonic() - started < 6
    assert {s.name: s for s in chain.link_states()}[first].last_error.kind == "timeout"


@BOTH
def test_keepalive_comments_after_the_first_token_run_into_the_idle_timeout(fake, make_chain, first):
    fake.script(first, Reply.keeps_alive(12, "Once", " upon", after=1, every=0.1))
    chain = make_chain(f"{first},glm", BEYOU_LLM_IDLE_TIMEOUT="0.5", BEYOU_LLM_TOTAL_TIMEOUT="20")
    started = time.monotonic()
    with pytest.raises(StreamInterrupted) as interrupted:
        list(chain.stream(ask()))
    assert time.monotonic() - started < 6
    assert interrupted.value.cause.kind.value == "timeout"
    assert "no model event for 0.5s" in interrupted.value.cause.message
    assert interrupted.value.partial_text == "Once"
    assert fake.requests("glm") == []


@BOTH
def test_keepalive_comments_do_not_hide_the_total_budget(fake, make_chain, first):
    fake.script(first, Reply.says(*["word "] * 100, pace=0.1))
    chain = make_chain(first, BEYOU_LLM_TOTAL_TIMEOUT="1", BEYOU_LLM_IDLE_TIMEOUT="5")
    with pytest.raises(StreamInterrupted) as interrupted:
        list(chain.stream(ask()))
    assert "no end after 1s" in interrupted.value.cause.message


@BOTH
def test_a_silent_provider_is_answered_by_waiting_at_least_every_quarter_second(fake, make_chain, first):
    fake.script(first, Reply.hangs(2, "Here", " I am"))
    chain = make_chain(first, BEYOU_LLM_FIRST_EVENT_TIMEOUT="10", BEYOU_LLM_TOTAL_TIMEOUT="20")
    moments, events = [time.monotonic()], []
    for event in chain.stream(ask()):
        moments.append(time.monotonic())
        events.append(event)
    waits = [e for e in events if isinstance(e, Waiting)]
    assert len(waits) >= 4
    assert max(b - a for a, b in itertools.pairwise(moments)) < 1.5
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Here I am"


@BOTH
def test_closing_the_stream_cuts_a_provider_silent_before_its_first_byte(fake, make_chain, first):
    fake.script(first, Reply.says("never", first_byte_delay=30))
    chain = make_chain(first, BEYOU_LLM_FIRST_EVENT_TIMEOUT="60", BEYOU_LLM_TOTAL_TIMEOUT="60")
    events = chain.stream(ask())
    assert until_waiting(events) == []
    started = time.monotonic()
    events.close()
    assert time.monotonic() - started < 1
    (request,) = fake.requests(first)
    assert request.disconnected.wait(5), "the provider still holds a connection of a closed stream"


@BOTH
def test_closing_the_stream_cuts_a_provider_sending_only_keepalives(fake, make_chain, first):
    fake.script(first, Reply.keeps_alive(30, "never", every=0.1))
    chain = make_chain(first, BEYOU_LLM_FIRST_EVENT_TIMEOUT="60", BEYOU_LLM_TOTAL_TIMEOUT="60")
    events = chain.stream(ask())
    until_waiting(events)
    events.close()
    (request,) = fake.requests(first)
    assert request.disconnected.wait(5), "the provider still holds a connection of a closed stream"


def test_no_link_is_started_after_the_deadline(fake, make_chain):
    chain = make_chain("mistral,gemini")
    with pytest.raises(DeadlineReached) as reached:
        list(chain.stream(ask(), deadline=time.monotonic() - 0.01))
    assert reached.value.key == "TIMEOUT"
    assert fake.requests() == []


@BOTH
def test_the_deadline_cuts_the_running_link_and_starts_no_other(fake, make_chain, first):
    fake.script(first, Reply.keeps_alive(20, "too late", every=0.1))
    chain = make_chain(f"{first},glm", BEYOU_LLM_FIRST_EVENT_TIMEOUT="30", BEYOU_LLM_TOTAL_TIMEOUT="30")
    started = time.monotonic()
    with pytest.raises(DeadlineReached) as reached:
        list(chain.stream(ask(), deadline=started + 0.8))
    assert 0.7 < time.monotonic() - started < 4
    assert [f.kind.value for f in reached.value.failures] == ["timeout"]
    assert fake.requests("glm") == []
    assert fake.requests(first)[0].disconnected.wait(5)
    assert {s.name: s.status for s in chain.link_states()}[first] == "ready"  # the caller's clock: no rest


def test_the_deadline_after_the_first_token_interrupts_keeping_the_text(fake, make_chain):
    fake.script("mistral", Reply.keeps_alive(20, "Once", " upon", after=1, every=0.1))
    chain = make_chain("mistral,glm", BEYOU_LLM_IDLE_TIMEOUT="30", BEYOU_LLM_TOTAL_TIMEOUT="30")
    with pytest.raises(StreamInterrupted) as interrupted:
        list(chain.stream(ask(), deadline=time.monotonic() + 3))  # "Once" comes first, on a loaded machine too
    assert interrupted.value.partial_text == "Once"
    assert interrupted.value.cause.message == "the caller's deadline passed"
    assert fake.requests("glm") == []


@BOTH
def test_a_structured_answer_is_cut_at_the_deadline(fake, make_chain, first):
    fake.script(first, Reply.says('{"name": "Read", "importance": 4}', first_byte_delay=30))
    chain = make_chain(f"{first},glm", BEYOU_LLM_TOTAL_TIMEOUT="60")
    started = time.monotonic()
    with pytest.raises(DeadlineReached):
        chain.structured(ChatRequest(messages=[Message.user("a habit")]), HabitSuggestion, deadline=started + 0.5)
    assert time.monotonic() - started < 3
    assert fake.requests("glm") == []
    assert fake.requests(first)[0].disconnected.wait(5)


def test_a_structured_answer_slower_than_the_total_budget_falls_through(fake, make_chain):
    fake.script("mistral", Reply.says('{"name": "Read", "importance": 4}', first_byte_delay=30))
    fake.script("glm", Reply.says('{"name": "Run", "importance": 3}'))
    chain = make_chain("mistral,glm", BEYOU_LLM_TOTAL_TIMEOUT="0.5")
    assert chain.structured(ChatRequest(messages=[Message.user("a habit")]), HabitSuggestion).name == "Run"


GEVENT_READER = """
from gevent import monkey

monkey.patch_all()

import sys
import time

from gevent.os import make_nonblocking, nb_read

from app.llm import ChainSettings, ChatRequest, Message, Waiting, build_chain

env = dict(arg.split("=", 1) for arg in sys.argv[1:])
chain = build_chain(ChainSettings.from_env(env))
events = chain.stream(ChatRequest(messages=[Message.user("hello")]))
for event in events:
    if isinstance(event, Waiting):
        break
make_nonblocking(0)
nb_read(0, 1)  # the test's word that the provider has the request (read without blocking the call)
started = time.monotonic()
events.close()
print(f"closed in {time.monotonic() - started:.3f}s", flush=True)
time.sleep(3)  # the process stays: only the cut can free the provider's connection
"""


@BOTH
def test_under_gevent_closing_the_stream_cuts_a_silent_provider(fake, first):
    """The Procfile serves with gevent workers: the same cut must work on greenlets."""
    fake.script(first, Reply.says("never", first_byte_delay=30))
    env = env_for(fake, first, BEYOU_LLM_FIRST_EVENT_TIMEOUT="60", BEYOU_LLM_TOTAL_TIMEOUT="60")
    command = [sys.executable, "-c", textwrap.dedent(GEVENT_READER), *(f"{k}={v}" for k, v in env.items())]
    reader = subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 30  # a loaded machine: the subprocess imports the app first
        while not fake.requests(first) and time.monotonic() < deadline:
            time.sleep(0.01)
        reader.stdin.write(b"\n")
        reader.stdin.flush()
        line = reader.stdout.readline().decode()
        assert line.startswith("closed in"), line
        assert float(line.split()[2].rstrip("s")) < 1
        (request,) = fake.requests(first)
        assert request.disconnected.wait(2.5), "under gevent the provider kept the connection"
    finally:
        reader.kill()
        reader.wait()


@BOTH
def test_a_stream_that_ended_well_leaves_its_connection_for_the_next(fake, make_chain, first):
    """Cutting is for calls still being read: a finished one must not cost the next a handshake.
    The openai SDK closes its response at `[DONE]`, before the bytes that end the body; the
    transport reads those first (app/llm/http.py), or the connection would be closed."""
    fake.script(first, Reply.says("One"), Reply.says("Two"), Reply.says("Three"))
    chain = make_chain(first)
    for _ in range(3):
        list(chain.stream(ask()))
    assert len({call.client_port for call in fake.requests(first)}) == 1


def test_a_body_held_open_after_done_costs_its_connection_not_the_turn(fake, make_chain):
    """A provider that says `[DONE]` but holds the body open: the end is waited for briefly, then
    the connection is closed and the next call opens another."""
    fake.script("mistral", Reply.says("One", linger=10), Reply.says("Two"))
    chain = make_chain("mistral")
    started = time.monotonic()
    assert [event.text for event in chain.stream(ask()) if isinstance(event, TextDelta)] == ["One"]
    assert time.monotonic() - started < 5
    list(chain.stream(ask()))
    first_call, second_call = fake.requests("mistral")
    assert first_call.client_port != second_call.client_port


@BOTH
def test_a_structured_answer_leaves_its_connection_for_the_next(fake, make_chain, first):
    answer = '{"name": "Read", "importance": 4}'
    fake.script(first, Reply.says(answer), Reply.says(answer))
    chain = make_chain(first)
    for _ in range(2):
        chain.structured(ChatRequest(messages=[Message.user("a habit")]), HabitSuggestion)
    first_call, second_call = fake.requests(first)
    assert first_call.client_port == second_call.client_port


@BOTH
def test_a_structured_answer_keeps_its_connection_however_late_its_reader_ends(fake, make_chain, first, monkeypatch):
    """The reader's thread may be put aside between handing over the answer and ending (a loaded
    machine, threads): the caller must not cut it then, or the connection it already gave back
    to the pool is shut under the next call."""
    hand_over = chain_module._answer_of

    def put_aside_after_answering(*args):
        yield from hand_over(*args)
        time.sleep(0.3)

    monkeypatch.setattr(chain_module, "_answer_of", put_aside_after_answering)
    answer = '{"name": "Read", "importance": 4}'
    fake.script(first, Reply.says(answer), Reply.says(answer))
    chain = make_chain(first)
    for _ in range(2):
        assert chain.structured(ChatRequest(messages=[Message.user("a habit")]), HabitSuggestion).name == "Read"
    first_call, second_call = fake.requests(first)
    assert first_call.client_port == second_call.client_port


@BOTH
def test_a_tool_run_longer_than_the_budgets_does_not_make_the_link_late(fake, make_chain, first):
    """The caller runs each tool as its call comes; the round's end is already read by then."""
    calls = (FakeCall("createHabit", {"name": "Read"}), FakeCall("createHabit", {"name": "Run"}))
    fake.script(first, Reply.calls(*calls))
    chain = make_chain(
        first, BEYOU_LLM_FIRST_EVENT_TIMEOUT="5", BEYOU_LLM_IDLE_TIMEOUT="0.3", BEYOU_LLM_TOTAL_TIMEOUT="5"
    )
    seen = []
    for event in chain.stream(ask()):
        if not isinstance(event, Waiting):
            seen.append(type(event))
        if isinstance(event, ToolCallReady):
            time.sleep(0.6)  # a slow tool
    assert seen == [ToolCallReady, ToolCallReady, Completed]
