"""`gather`: text that arrives together leaves together, at most once per `gather` seconds, and
nothing the model said is lost or reordered by the wait."""

import time

import pytest

from app.llm import ChatRequest, Completed, Message, StreamInterrupted, TextDelta, ToolCallReady
from tests.fakes import Reply
from tests.fakes.script import FakeCall

GATHER = 0.03
WORDS = [f"w{n} " for n in range(30)]


def timed(events):
    """(when it came, the event) for each event of the stream."""
    return [(time.monotonic(), event) for event in events]


def texts(stream):
    return [(at, event.text) for at, event in stream if isinstance(event, TextDelta)]


def test_a_burst_leaves_in_fewer_pieces_than_the_model_sent(fake, make_chain):
    fake.script("mistral", Reply.says(*WORDS))  # all at once
    stream = timed(make_chain("mistral").stream(ChatRequest(messages=[Message.user("go")]), gather=GATHER))
    said = texts(stream)
    assert "".join(text for _at, text in said) == "".join(WORDS)
    assert len(said) < len(WORDS)
    assert isinstance(stream[-1][1], Completed)


def test_text_leaves_at_most_once_per_gather(fake, make_chain):
    fake.script("mistral", Reply.says(*WORDS, pace=0.01))  # a hundred pieces a second
    said = texts(timed(make_chain("mistral").stream(ChatRequest(messages=[Message.user("go")]), gather=GATHER)))
    assert "".join(text for _at, text in said) == "".join(WORDS)
    # At most one every GATHER seconds over the span they took (and the last, which the stream's
    # end lets go early): counted, not timed one by one, so a busy machine cannot fail it.
    span = said[-1][0] - said[0][0]
    assert len(said) <= span / GATHER + 2, [round(at - said[0][0], 3) for at, _text in said]
    assert len(said) < len(WORDS)


def test_the_first_piece_is_not_held_back_for_the_next(fake, make_chain):
    fake.script("mistral", Reply.says("First ", "then more.", pace=0.8))
    said = texts(timed(make_chain("mistral").stream(ChatRequest(messages=[Message.user("go")]), gather=GATHER)))
    assert [text for _at, text in said] == ["First ", "then more."]


def test_without_gather_each_piece_leaves_on_its_own(fake, make_chain):
    fake.script("mistral", Reply.says(*WORDS[:5]))
    said = texts(timed(make_chain("mistral").stream(ChatRequest(messages=[Message.user("go")]))))
    assert [text for _at, text in said] == WORDS[:5]


def test_held_text_goes_before_the_tool_calls_and_the_end(fake, make_chain):
    fake.script("mistral", Reply(text=["Creating ", "it"], tool_calls=[FakeCall("createUserTask", {"name": "PD2"})]))
    events = list(make_chain("mistral").stream(ChatRequest(messages=[Message.user("go")]), gather=GATHER))
    kinds = [type(event) for event in events if not isinstance(event, TextDelta)]
    last_text = max(i for i, event in enumerate(events) if isinstance(event, TextDelta))
    first_call = min(i for i, event in enumerate(events) if isinstance(event, ToolCallReady))
    assert last_text < first_call
    assert kinds[-1] is Completed
    assert "".join(event.text for event in events if isinstance(event, TextDelta)) == "Creating it"


def test_a_link_cut_after_text_keeps_every_piece_it_sent_in_the_partial(fake, make_chain):
    fake.script("mistral", Reply.says(*WORDS[:10], cut_after=6))
    said = []
    with pytest.raises(StreamInterrupted) as cut:
        for event in make_chain("mistral").stream(ChatRequest(messages=[Message.user("go")]), gather=GATHER):
            if isinstance(event, TextDelta):
                said.append(event.text)
    assert "".join(said) == cut.value.partial_text == "".join(WORDS[:6])
