"""What small models and the servers that run them really send, read as it was meant: text with a
`<think>` block, a `<tool_call>` block or a fenced JSON call in it (each read or shown, never
both, however the pieces fall), a call's arguments nearly JSON, a UTF-8 character split across
two reads, a call's arguments over many chunks."""

import json
import socket

import pytest

from app.llm import ChatRequest, Completed, Message, TextDelta, ToolCallReady, ToolSpec
from app.llm.providers.model_text import TaggedText, read_arguments
from tests.chain.shapes import HabitArgs
from tests.fakes import FakeCall, Reply

TOOLS = ("createHabit", "getHabits")
CALL = '{"name": "createHabit", "arguments": {"name": "Read", "importance": 3}}'
READ = ("createHabit", {"name": "Read", "importance": 3})

# content, what is shown, the calls read
CONTENTS = {
    "prose": ("Hello there, Ana.", "Hello there, Ana.", []),
    "a lone < in prose": ("1 < 2 and 3<4, <b> too", "1 < 2 and 3<4, <b> too", []),
    "thinking first": ("<think>She wants a habit.</think>\n\nHere it is.", "Here it is.", []),
    "thinking never closed": ("<think>Still thinking", "", []),
    "a tagged call": (f"I will add it.\n<tool_call>\n{CALL}\n</tool_call>", "I will add it.\n", [READ]),
    "a tagged call alone": (f"<tool_call>{CALL}</tool_call>", "", [READ]),
    "a tagged call to an unknown tool": ('<tool_call>{"name": "makeCoffee"}</tool_call>', "", [("makeCoffee", {})]),
    "a tag that holds no call": ("<tool_call>not json</tool_call> ok", "<tool_call>not json</tool_call> ok", []),
    "a tag never closed": (f"<tool_call>{CALL}", f"<tool_call>{CALL}", []),
    "a fenced call": (f"```json\n{CALL}\n```", "", [READ]),
    "a bare fenced call with prose": (f"Sure:\n```\n{CALL}\n```\nDone.", "Sure:\nDone.", [READ]),
    "a fenced call, name in another case": (
        '```json\n{"name": "get_habits", "parameters": {}}\n```',
        "",
        [("get_habits", {})],
    ),
    "a fenced call to a tool the model made up": (
        '```json\n{"name": "makeCoffee", "arguments": {"size": 2}}\n```',
        "",
        [("makeCoffee", {"size": 2})],
    ),
    "a fenced object naming no tool, with more than a call": (
        '```json\n{"name": "makeCoffee", "arguments": {}, "size": 2}\n```',
        '```json\n{"name": "makeCoffee", "arguments": {}, "size": 2}\n```',
        [],
    ),
    "a fenced call with comments": (
        '```json\n{"name": "createHabit", // the tool\n'
        ' "arguments": {"name": "Read // not a comment", /* why */ "importance": 3}}\n```',
        "",
        [("createHabit", {"name": "Read // not a comment", "importance": 3})],
    ),
    "a call as the whole content": (CALL, "", [READ]),
    "a call as the whole content, after thinking": (f"<think>a habit</think>\n{CALL}\n", "", [READ]),
    "JSON data as the whole content": ('{"habits": ["Read"]}', '{"habits": ["Read"]}', []),
    "a call and its made-up result": (
        f'{CALL}\n{{"details": []}}',
        f'{CALL}\n{{"details": []}}',
        [],
    ),
    "prose that starts with a brace": ("{Read} is done.", "{Read} is done.", []),
    "fenced data": ('```json\n{"habits": ["Read"]}\n```', '```json\n{"habits": ["Read"]}\n```', []),
    "fenced code": ("```python\nprint('<tool_call>')\n```\nok", "```python\nprint('<tool_call>')\n```\nok", []),
    "a fence never closed": (f"```json\n{CALL}", f"```json\n{CALL}", []),
    "inline backticks": ("Type ```json``` or `x`.", "Type ```json``` or `x`.", []),
    "a fence mid-line": (f"Look: ```json\n{CALL}\n```", f"Look: ```json\n{CALL}\n```", []),
}


def read(pieces, tools=TOOLS):
    text = TaggedText(tools=tools)
    shown = [event.text for piece in pieces for event in text.feed(piece) if isinstance(event, TextDelta)]
    shown += [event.text for event in text.end()]
    return "".join(shown), [(call.name, call.arguments) for call in text.calls]


@pytest.mark.parametrize("content, shown, calls", CONTENTS.values(), ids=CONTENTS.keys())
def test_content_reads_the_same_however_it_is_cut(content, shown, calls):
    """A server cuts its content anywhere (a token is not a tag): whole, at every split point,
    and a character at a time, the same text is shown and the same calls are read."""
    assert read([content]) == (shown, calls)
    for at in range(len(content) + 1):
        assert read([content[:at], content[at:]]) == (shown, calls), at
    assert read(list(content)) == (shown, calls)


@pytest.mark.parametrize("content", [CALL, f"<tool_call>{CALL}</tool_call>", f"```json\n{CALL}\n```"])
def test_a_round_without_tools_reads_no_call(content):
    """Only a request that carried tools may make a call: its content is shown as written."""
    assert read([content], tools=()) == (content, [])


def test_a_lone_angle_bracket_is_held_for_one_piece_only():
    text = TaggedText(tools=TOOLS)
    assert [e for e in text.feed("So 1 <") if isinstance(e, TextDelta)] == [TextDelta("So 1 ")]
    assert [e for e in text.feed(" 2.") if isinstance(e, TextDelta)] == [TextDelta("< 2.")]


def test_a_fence_that_cannot_be_a_call_streams_as_it_comes():
    """Code and data are not held until their fence closes: only a body opening with "{" may be a
    call, and only a json or bare fence."""
    for opening, body in (("```python\n", "print(1)\n"), ("```json\n", "[1, 2]\n"), ("```\n", "ls -l\n")):
        text = TaggedText(tools=TOOLS)
        shown = [e.text for piece in (opening, body) for e in text.feed(piece) if isinstance(e, TextDelta)]
        assert "".join(shown) == opening + body


ARGUMENTS = {  # what the call's arguments string was, what it reads as, what the model is told
    "an object": ('{"name": "Read"}', {"name": "Read"}, None),
    "nothing": ("", {}, None),
    "text after the object": ('{"name": "Read"} I created it', {"name": "Read"}, None),
    "the object encoded twice": (json.dumps('{"name": "Read"}'), {"name": "Read"}, None),
    "cut short": ('{"name": "Re', {}, "the arguments are not valid JSON: Unterminated string starting at: line 1"),
    "two objects": ('{"name": "Read"} {"name": "Run"}', {}, "the arguments hold two JSON objects, one after the other"),
    "a list": ('[{"name": "Read"}]', {}, "the arguments are a JSON array, not an object"),
    "a string": ('"Read"', {}, "the arguments are a JSON string, not an object"),
    "comments": (
        '{"day": "2026-12-07", // yesterday\n "note": "a // b" /* kept */}',
        {"day": "2026-12-07", "note": "a // b"},
        None,
    ),
    "a comment never closed": ('{"day": "2026-12-07" /* yesterday', {}, "the arguments are not valid JSON"),
}


@pytest.mark.parametrize("raw, arguments, told", ARGUMENTS.values(), ids=ARGUMENTS.keys())
def test_arguments_are_read_as_small_models_write_them_or_say_why_not(raw, arguments, told):
    got, why = read_arguments(raw)
    assert got == arguments
    assert why == told if told is None else why.startswith(told)


# -- through the fake, on the wire as servers send it ------------------------------------------------

KINDS = {"openai-compatible": "mistral", "gemini": "gemini"}


def ask():
    tools = [ToolSpec("createHabit", "Create", HabitArgs), ToolSpec("getHabits", "List", HabitArgs)]
    return ChatRequest(messages=[Message.user("Add a reading habit")], tools=tools)


def streamed(chain):
    events = list(chain.stream(ask()))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    return text, [e.call for e in events if isinstance(e, ToolCallReady)], events[-1]


def raw_chunks(fake, provider, reply):
    """The HTTP chunks of the fake's answer to one streamed chat request, as bytes."""
    fake.script(provider, reply)
    body = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}).encode()
    head = (f"POST /{provider}/v1/chat/completions HTTP/1.1\r\nHost: fake\r\nContent-Type: application/json\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n")  # fmt: skip
    host, port = fake.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(head.encode() + body)
        answer = b""
        while data := sock.recv(65536):
            answer += data
    rest = answer.split(b"\r\n\r\n", 1)[1]
    chunks = []
    while rest:
        size, rest = rest.split(b"\r\n", 1)
        chunks.append(rest[: int(size, 16)])
        rest = rest[int(size, 16) + 2 :]
    return [chunk for chunk in chunks if chunk]


def test_the_fake_cuts_a_character_in_two_chunks_as_a_server_may(fake):
    """What the next test's split character rests on: the fake really cuts inside the character,
    its event written in UTF-8 as servers write it."""
    chunks = raw_chunks(fake, "mistral", Reply.says("Olá", split_characters=True))
    cut = next(index for index, chunk in enumerate(chunks) if b"Ol" in chunk)
    with pytest.raises(UnicodeDecodeError):
        chunks[cut].decode()
    assert (chunks[cut] + chunks[cut + 1]).decode().startswith('data: {"id"')
    assert "Olá" in (chunks[cut] + chunks[cut + 1]).decode()


@pytest.mark.parametrize("first", KINDS.values(), ids=KINDS.keys())
def test_a_character_split_across_two_reads_arrives_whole(fake, make_chain, first):
    fake.script(first, Reply.says("Olá, Ana: ", "café ☕ e pão 🥖", split_characters=True))
    text, calls, completed = streamed(make_chain(first))
    assert (text, calls, completed.link) == ("Olá, Ana: café ☕ e pão 🥖", [], first)


def test_the_fake_streams_a_call_s_arguments_as_llama_cpp_does(fake):
    """The name first with empty arguments, then pieces carrying only the index and a piece of
    the arguments (tests/fakes/wire.py cites the capture)."""
    reply = Reply.calls(FakeCall("createHabit", raw_arguments='{"name": "Read", "importance": 3}'), argument_pieces=12)
    events = [json.loads(chunk.decode().removeprefix("data: ")) for chunk in raw_chunks(fake, "mistral", reply)
              if chunk.startswith(b"data: {")]  # fmt: skip
    deltas = [part for event in events for choice in event["choices"] for part in choice["delta"].get("tool_calls", [])]
    assert deltas[0] == {"index": 0, "id": "call_0_fake", "type": "function",
                         "function": {"name": "createHabit", "arguments": ""}}  # fmt: skip
    assert all(set(delta) == {"index", "function"} and set(delta["function"]) == {"arguments"} for delta in deltas[1:])
    assert len(deltas) == 12 and all(delta["function"]["arguments"] for delta in deltas[1:])
    assert "".join(delta["function"]["arguments"] for delta in deltas) == '{"name": "Read", "importance": 3}'


@pytest.mark.parametrize("pieces", [1, 12])
def test_a_call_s_arguments_in_any_number_of_chunks_make_one_call(fake, make_chain, pieces):
    call = FakeCall("createHabit", {"name": "Read", "importance": 3})
    fake.script("mistral", Reply.calls(call, argument_pieces=pieces))
    _text, (call,), completed = streamed(make_chain("mistral"))
    assert (call.name, call.arguments, call.unreadable, completed.finish_reason) == (*READ, None, "tool_calls")


def test_arguments_that_do_not_read_are_a_call_to_answer_not_a_failed_link(fake, make_chain):
    """The model wrote a call; the agent tells it what was wrong. Before, the link failed as
    malformed and the next link was asked the whole round again."""
    fake.script("mistral", Reply.calls(FakeCall("createHabit", raw_arguments='{"name": "Read", "importance": 3')))
    _text, (call,), completed = streamed(make_chain("mistral,glm"))
    assert (call.name, call.arguments, completed.link) == ("createHabit", {}, "mistral")
    assert call.unreadable.startswith("the arguments are not valid JSON")
    assert fake.requests("glm") == []


def test_arguments_with_text_after_them_are_read(fake, make_chain):
    fake.script("mistral", Reply.calls(FakeCall("createHabit", raw_arguments='{"name": "Read", "importance": 3} ok')))
    _text, (call,), _completed = streamed(make_chain("mistral"))
    assert (call.name, call.arguments, call.unreadable) == (*READ, None)


WRITTEN_CALLS = {
    "tagged": f"Adding it.\n<tool_call>\n{CALL}\n</tool_call>",
    "fenced": f"Adding it.\n```json\n{CALL}\n```",
}


@pytest.mark.parametrize("content", WRITTEN_CALLS.values(), ids=WRITTEN_CALLS.keys())
def test_a_call_written_in_the_content_is_a_call_and_not_text(fake, make_chain, content):
    """As llama.cpp leaves them when it does not read the model's calls: the round ends with
    `stop`, and the call comes as the server's own would, with an id of its own."""
    middle = len(content) // 2
    fake.script("mistral", Reply.says(content[:middle], content[middle:]))
    text, (call,), completed = streamed(make_chain("mistral"))
    assert (text, call.name, call.arguments) == ("Adding it.\n", *READ)
    assert call.id and isinstance(completed, Completed) and completed.finish_reason == "tool_calls"
