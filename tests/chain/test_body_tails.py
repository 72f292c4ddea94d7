"""A body that said its last word must end soon after, or lose its connection: never a thread.

The last word is `data: [DONE]` (OpenAI-compatible streams), the chunk with a finish reason
(Gemini's streams, which send no `[DONE]`), or the whole JSON document (an answer not streamed).
A server may hold the body open after it: silent (a body only closing would end), trickling a
byte every 100 ms, sending keep-alive comments (whitespace in JSON) a hundred a second, or never
sending its chunked body's last chunk (tests/fakes/script.py TAILS). Each is read for at most
DRAIN_SECONDS and DRAIN_BYTES (app/llm/http.py `Tail`); then the answer stands whole, the
connection is closed, and the thread that read it ends. Bounds are generous: a loaded machine.
"""

import threading
import time

import pytest

from app.llm import ChatRequest, Completed, Message, TextDelta, Waiting
from app.llm.http import DRAIN_SECONDS
from tests.chain.shapes import HabitSuggestion
from tests.fakes import Reply
from tests.fakes.script import TAILS

LINKS = pytest.mark.parametrize("first", ["mistral", "gemini"], ids=["openai-compatible", "gemini"])
EACH_TAIL = pytest.mark.parametrize("tail", TAILS)
# The fake holds each tail for a minute; the unbounded drain took it whole (or forever).
WITHIN = DRAIN_SECONDS + 2.5


def ask():
    return ChatRequest(messages=[Message.user("Tell me a story")])


class NewThreads:
    """The threads started while inside, to see that every one of them ended."""

    def __enter__(self):
        self.before = set(threading.enumerate())
        return self

    def __exit__(self, *exc):
        self.started = [thread for thread in threading.enumerate() if thread not in self.before]

    def still_running(self, wait: float = 2.0) -> list[str]:
        deadline = time.monotonic() + wait
        for thread in self.started:
            thread.join(max(0.0, deadline - time.monotonic()))
        return [thread.name for thread in self.started if thread.is_alive() and thread.name.startswith("llm-")]


@LINKS
@EACH_TAIL
def test_a_stream_held_open_after_its_last_word_ends_at_once(fake, make_chain, first, tail):
    fake.script(first, Reply.says("Once ", "upon a time", tail=tail))
    chain = make_chain(first)
    started = time.monotonic()
    with NewThreads() as threads:
        events = list(chain.stream(ask()))
    took = time.monotonic() - started
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Once upon a time"
    assert isinstance([e for e in events if not isinstance(e, Waiting)][-1], Completed)
    assert took < WITHIN, f"the {tail} tail held the stream {took:.1f}s"
    (request,) = fake.requests(first)
    assert request.disconnected.wait(WITHIN), "the connection was kept after its tail overran"
    assert threads.still_running() == []


@LINKS
@EACH_TAIL
def test_a_json_answer_held_open_after_its_document_ends_at_once(fake, make_chain, first, tail):
    fake.script(first, Reply.says('{"name": "Read", "importance": 4}', tail=tail))
    chain = make_chain(first)
    started = time.monotonic()
    with NewThreads() as threads:
        answer = chain.structured(ChatRequest(messages=[Message.user("a habit")]), HabitSuggestion)
    took = time.monotonic() - started
    assert (answer.name, answer.importance) == ("Read", 4)
    assert took < WITHIN, f"the {tail} tail held the answer {took:.1f}s"
    (request,) = fake.requests(first)
    assert request.disconnected.wait(WITHIN), "the connection was kept after its tail overran"
    assert threads.still_running() == []


@LINKS
def test_the_next_call_after_an_overrun_tail_opens_a_connection_of_its_own(fake, make_chain, first):
    fake.script(first, Reply.says("One", tail="trickle"), Reply.says("Two"))
    chain = make_chain(first)
    list(chain.stream(ask()))
    texts = [e.text for e in chain.stream(ask()) if isinstance(e, TextDelta)]
    assert texts == ["Two"]
    first_call, second_call = fake.requests(first)
    assert first_call.client_port != second_call.client_port
