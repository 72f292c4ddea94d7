"""An OpenAI-compatible answer is read from its event stream as the SSE format writes it, not as
one provider happens to: the adapter reads the body's events itself (the SDK sends the request)."""

import json
import socket
import threading

import pytest

from app.llm.errors import FailureKind, LLMError
from app.llm.messages import ChatRequest, Completed, Message, TextDelta
from app.llm.providers.openai_compat import OpenAICompatAdapter
from app.llm.settings import LinkSettings, Timeouts
from tests.fakes.raw import read_request


def chunk(content=None, finish=None):
    delta = {} if content is None else {"content": content}
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


@pytest.fixture
def provider():
    """A provider on a raw socket: each call answers the next body given, byte for byte."""
    listener = socket.create_server(("127.0.0.1", 0))
    bodies = []

    def serve():
        while True:
            try:
                connection, _address = listener.accept()
            except OSError:
                return
            with connection:
                read_request(connection)
                body = bodies.pop(0).encode()
                head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
                connection.sendall(head.encode() + body)

    threading.Thread(target=serve, daemon=True).start()
    adapter = OpenAICompatAdapter(
        LinkSettings("local", "openai", "a-model", "key", f"http://127.0.0.1:{listener.getsockname()[1]}/v1"),
        Timeouts(total=5),
    )
    yield bodies, adapter
    adapter.close()
    listener.close()


def answer(adapter):
    return list(adapter.stream(ChatRequest(system="Be brief.", messages=[Message.user("Hi")])))


def test_comments_other_fields_and_carriage_returns_are_read_as_the_format_says(provider):
    bodies, adapter = provider
    bodies.append(
        ": a comment\r\n"
        "event: message\r\nid: 1\r\nretry: 100\r\n"
        f"data: {chunk('Hel')}\r\n\r\n"
        ": keepalive\r\n\r\n"
        f"data: {chunk('lo')}\r\n\r\n"
        f"data: {chunk(finish='stop')}\r\n\r\n"
        "data: [DONE]\r\n\r\n"
    )

    events = answer(adapter)

    assert [event.text for event in events if isinstance(event, TextDelta)] == ["Hel", "lo"]
    assert isinstance(events[-1], Completed) and events[-1].finish_reason == "stop"


def test_an_event_s_data_lines_are_joined(provider):
    """One event may carry its JSON over several `data:` lines: they join with a newline."""
    bodies, adapter = provider
    bodies.append('data: {"choices": [{"index": 0,\ndata:  "delta": {"content": "Hi"}, "finish_reason": "stop"}]}\n\n')

    events = answer(adapter)

    assert [event.text for event in events if isinstance(event, TextDelta)] == ["Hi"]
    assert isinstance(events[-1], Completed)


def test_a_last_event_without_its_blank_line_still_counts(provider):
    bodies, adapter = provider
    bodies.append(f"data: {chunk('Hi')}\n\ndata: {chunk(finish='stop')}")

    assert isinstance(answer(adapter)[-1], Completed)


def test_nothing_after_done_is_read_as_the_answer(provider):
    bodies, adapter = provider
    bodies.append(f"data: {chunk('Hi', finish='stop')}\n\ndata: [DONE]\n\ndata: {chunk('more')}\n\n")

    events = answer(adapter)

    assert [event.text for event in events if isinstance(event, TextDelta)] == ["Hi"]


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ('data: {"error": {"message": "overloaded", "code": 503}}\n\n', FailureKind.UNAVAILABLE),
        ('data: {"error": {"message": "slow down", "code": 429}}\n\n', FailureKind.RATE_LIMITED),
        ("data: [1, 2]\n\n", FailureKind.MALFORMED),
        ("data: {not json\n\n", FailureKind.MALFORMED),
    ],
)
def test_an_error_or_a_chunk_that_is_not_one_fails_the_call_with_its_kind(provider, body, kind):
    bodies, adapter = provider
    bodies.append(body)

    with pytest.raises(LLMError) as failure:
        answer(adapter)

    assert failure.value.kind == kind
