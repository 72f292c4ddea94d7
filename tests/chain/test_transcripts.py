"""A conversation with tool rounds continues on any link, and the receiving side accepts it.

The fake refuses what the real providers refuse (see tests/fakes/strict.py), so a transcript that
reaches the second link and gets an answer has passed the receiving provider's rules.
"""

import re

import pytest

from app.llm import AssistantReply, ChatRequest, Message, ToolSpec
from tests.chain.shapes import HabitArgs, NoArgs
from tests.fakes import FakeCall, Reply

TOOLS = [ToolSpec("createHabit", "Create a habit", HabitArgs), ToolSpec("listHabits", "List habits", NoArgs)]

# What each provider's first round looks like on the wire: its own id style and extras.
FIRST_ROUNDS = {
    "mistral": Reply.calls(
        FakeCall("createHabit", {"name": "Read"}, id="aB3dE5gH7"), FakeCall("listHabits", id="Zx9Yw8Vu7")
    ),
    "deepseek": Reply.calls(
        FakeCall("createHabit", {"name": "Read"}, id="call_00_Xy7"),
        FakeCall("listHabits", id="call_01_Qr5"),
        reasoning="The user wants a habit.",
    ),
    "gemini": Reply.calls(
        FakeCall("createHabit", {"name": "Read"}, thought_signature="c2lnLTE="), FakeCall("listHabits")
    ),
}

HANDOVERS = [
    ("mistral", "gemini"),
    ("gemini", "mistral"),
    ("deepseek", "gemini"),
    ("gemini", "deepseek"),
    ("deepseek", "mistral"),
]


def run_round(chain, messages):
    reply = AssistantReply()
    for event in chain.stream(ChatRequest(system="Be brief.", messages=messages, tools=TOOLS)):
        reply.absorb(event)
    return reply


def two_rounds(fake, make_chain, first, second):
    """Round 1 on `first` calls two tools; round 2 finds `first` rate-limited and lands on `second`."""
    fake.script(first, FIRST_ROUNDS[first], Reply.fails(429))
    fake.script(second, Reply.says("Done: Read is added."))
    chain = make_chain(f"{first},{second}")
    messages = [Message.user("Add a reading habit and show my habits")]
    round_one = run_round(chain, messages)
    assert round_one.completed.link == first
    messages.append(round_one.as_message())
    messages += [Message.tool_result(call, '{"ok": true}') for call in round_one.tool_calls]
    round_two = run_round(chain, messages)
    return round_one, round_two


@pytest.mark.parametrize(("first", "second"), HANDOVERS, ids=[f"{a}-to-{b}" for a, b in HANDOVERS])
def test_two_round_tool_conversation_continues_on_the_next_link(fake, make_chain, first, second):
    _, round_two = two_rounds(fake, make_chain, first, second)

    assert round_two.completed.link == second
    assert round_two.text == "Done: Read is added."
    (received,) = fake.requests(second)
    assert received.problems == []


def test_mistral_receives_nine_alphanumeric_ids_that_still_pair_calls_and_results(fake, make_chain):
    two_rounds(fake, make_chain, "deepseek", "mistral")
    messages = fake.requests("mistral")[0].body["messages"]
    call_ids = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    result_ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert all(re.fullmatch(r"[A-Za-z0-9]{9}", i) for i in call_ids)
    assert result_ids == call_ids


def test_reasoning_content_goes_back_to_deepseek_only(fake, make_chain):
    fake.script("deepseek", FIRST_ROUNDS["deepseek"], Reply.says("ok"))
    chain = make_chain("deepseek,mistral")
    messages = [Message.user("Add reading")]
    round_one = run_round(chain, messages)
    messages += [round_one.as_message(), *(Message.tool_result(c, "done") for c in round_one.tool_calls)]
    run_round(chain, messages)

    assistant = fake.requests("deepseek")[1].body["messages"][2]
    assert assistant["reasoning_content"] == "The user wants a habit."

    two_rounds(fake, make_chain, "deepseek", "mistral")
    for message in fake.requests("mistral")[-1].body["messages"]:
        assert "reasoning_content" not in message


def test_gemini_thought_signature_returns_to_gemini_on_its_call(fake, make_chain):
    fake.script("gemini", FIRST_ROUNDS["gemini"], Reply.says("ok"))
    chain = make_chain("gemini")
    messages = [Message.user("Add reading")]
    round_one = run_round(chain, messages)
    messages += [round_one.as_message(), *(Message.tool_result(c, "done") for c in round_one.tool_calls)]
    run_round(chain, messages)

    second = fake.requests("gemini")[1]
    assert second.problems == []
    model_turn = second.body["contents"][1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][0]["thoughtSignature"] == "c2lnLTE="
    assert "thoughtSignature" not in model_turn["parts"][1]
    results = second.body["contents"][2]["parts"]
    assert [p["functionResponse"]["name"] for p in results] == ["createHabit", "listHabits"]
    assert results[0]["functionResponse"]["response"] == {"result": "done"}


def test_gemini_signatures_never_reach_other_providers(fake, make_chain):
    two_rounds(fake, make_chain, "gemini", "mistral")
    body = str(fake.requests("mistral")[0].body)
    assert "c2lnLTE=" not in body and "thought" not in body


def test_foreign_calls_reach_gemini_without_ids_or_signatures(fake, make_chain):
    two_rounds(fake, make_chain, "mistral", "gemini")
    model_turn = fake.requests("gemini")[0].body["contents"][1]
    for part in model_turn["parts"]:
        assert "id" not in part["functionCall"]
        assert "thoughtSignature" not in part


def test_foreign_calls_reach_gemini_3_with_the_placeholder_signature(fake, make_chain):
    fake.script("mistral", FIRST_ROUNDS["mistral"], Reply.fails(429))
    chain = make_chain("mistral,gemini", BEYOU_LLM_GEMINI_MODEL="gemini-3-flash")
    messages = [Message.user("Add reading")]
    round_one = run_round(chain, messages)
    messages += [round_one.as_message(), *(Message.tool_result(c, "done") for c in round_one.tool_calls)]
    run_round(chain, messages)

    model_turn = fake.requests("gemini")[0].body["contents"][1]
    assert {p["thoughtSignature"] for p in model_turn["parts"]} == {"skip_thought_signature_validator"}


def test_tool_schemas_reach_gemini_without_refs_defaults_or_additional_properties(fake, make_chain):
    fake.script("gemini", Reply.says("ok"))
    run_round(make_chain("gemini"), [Message.user("hi")])
    declaration = fake.requests("gemini")[0].body["tools"][0]["functionDeclarations"][0]
    text = str(declaration["parameters"])
    assert "$ref" not in text and "default" not in text and "additionalProperties" not in text
    assert declaration["parameters"]["properties"]["category"]["properties"]["name"]["type"] == "STRING"


def test_tool_schemas_reach_openai_compatible_links_inlined(fake, make_chain):
    fake.script("mistral", Reply.says("ok"))
    run_round(make_chain("mistral"), [Message.user("hi")])
    tool = fake.requests("mistral")[0].body["tools"][0]
    assert tool["type"] == "function" and tool["function"]["name"] == "createHabit"
    assert "$ref" not in str(tool) and "$defs" not in str(tool)


def test_an_optional_property_defaulting_to_none_is_sent_as_its_plain_type(fake, make_chain):
    """Leaving the property out already says "none": no `anyOf` with `null`, no `"default": null`
    (a seventh of every tool list's bytes), while an explicit null still validates."""
    fake.script("mistral", Reply.says("ok"))
    fake.script("gemini", Reply.says("ok"))
    run_round(make_chain("mistral"), [Message.user("hi")])
    run_round(make_chain("gemini"), [Message.user("hi")])

    sent = fake.requests("mistral")[0].body["tools"][0]["function"]["parameters"]
    assert sent["properties"]["importance"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert sent["properties"]["category"]["type"] == "object" and sent["required"] == ["name"]
    declared = fake.requests("gemini")[0].body["tools"][0]["functionDeclarations"][0]["parameters"]
    assert declared["properties"]["importance"]["type"] == "INTEGER"
    assert "nullable" not in str(declared) and "anyOf" not in str(declared)
    assert HabitArgs.model_validate({"name": "Read", "importance": None, "category": None}).importance is None


@pytest.mark.parametrize("link", ["mistral", "gemini"])
def test_every_call_declares_the_same_tools(fake, make_chain, link):
    """Each tool's declaration is built once and shared by every call (openai_compat._tool_entry,
    gemini._declaration): no call may change it for the next."""
    fake.script(link, Reply.says("One"), Reply.says("Two"), Reply.says("Three"))
    chain = make_chain(link)
    for _ in range(3):
        list(chain.stream(ChatRequest(messages=[Message.user("add reading")], tools=TOOLS)))
    sent = [request.body["tools"] for request in fake.requests(link)]
    assert len(sent) == 3 and sent[0] == sent[1] == sent[2]
    assert "createHabit" in str(sent[0]) and "listHabits" in str(sent[0])
