"""Content as typed pieces (Mistral's reasoning models): the text pieces are the answer, the thinking
pieces are model activity and nothing more — never answer text, never sent to any link again."""

import json

from app.llm import AssistantReply, ChatRequest, Completed, Message, TextDelta
from tests.chain.shapes import HabitSuggestion
from tests.fakes import Reply

THOUGHTS = ["Okay", ", the user", " greets me", ", I should greet back"]


def answer(chain, messages):
    reply = AssistantReply()
    for event in chain.stream(ChatRequest(messages=messages)):
        reply.absorb(event)
    return reply


def test_thinking_pieces_stream_as_activity_and_text_pieces_as_the_answer(fake, make_chain):
    fake.script("mistral", Reply.says("Hello", " Ana!", thinking=THOUGHTS, typed_text=True))
    chain = make_chain("mistral,gemini")
    events = list(chain.stream(ChatRequest(messages=[Message.user("hi")])))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello", " Ana!"]
    assert events[-1] == Completed("mistral", events[-1].model, "stop", events[-1].usage, {})
    assert fake.requests("gemini") == []


def test_plain_text_after_typed_thinking_is_the_answer_too(fake, make_chain):
    """Mistral's own client example reads the text after thinking as plain strings."""
    fake.script("mistral", Reply.says("Hello", " Ana!", thinking=THOUGHTS))
    reply = answer(make_chain("mistral"), [Message.user("hi")])
    assert reply.text == "Hello Ana!"


def test_thinking_keeps_the_link_from_looking_idle(fake, make_chain):
    """Four seconds of thinking before the first word, on budgets of two: thinking is activity."""
    fake.script("mistral", Reply.says("Done.", thinking=["hm"] * 10, typed_text=True, pace=0.4))
    chain = make_chain("mistral,gemini", BEYOU_LLM_FIRST_EVENT_TIMEOUT="2", BEYOU_LLM_IDLE_TIMEOUT="2")
    reply = answer(chain, [Message.user("think hard")])
    assert (reply.text, reply.completed.link) == ("Done.", "mistral")


def test_no_link_is_sent_the_thinking_again(fake, make_chain):
    fake.script("mistral", Reply.says("Hello", " Ana!", thinking=THOUGHTS, typed_text=True), Reply.fails(503))
    fake.script("gemini", Reply.says("Fine."))
    chain = make_chain("mistral,gemini")
    messages = [Message.user("hi")]
    first = answer(chain, messages)
    messages += [first.as_message(), Message.user("and now?")]
    assert answer(chain, messages).completed.link == "gemini"

    for sent in (fake.requests("mistral")[1], fake.requests("gemini")[0]):
        wire = json.dumps(sent.body)
        assert "Hello Ana!" in wire
        assert "greet back" not in wire and "thinking" not in wire


def test_a_structured_answer_in_typed_pieces_is_read_from_its_text(fake, make_chain):
    answer_json = json.dumps({"name": "Read", "importance": 3})
    fake.script("mistral", Reply.says(answer_json, thinking=["A reading habit fits."]))
    suggestion = make_chain("mistral").structured(ChatRequest(messages=[Message.user("a habit?")]), HabitSuggestion)
    assert suggestion == HabitSuggestion(name="Read", importance=3)
    assert fake.requests("mistral")[0].streamed is False
