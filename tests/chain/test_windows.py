"""A request fits the window of the link it goes to: the window is set or read from the server,
the oldest whole messages go first, then the opened toolsets, then the page's, and a request
that cannot fit is refused before a byte is sent."""

import pytest
from pydantic import BaseModel

from app.llm import (
    AssistantReply,
    ChainConfigError,
    ChainSettings,
    ChatRequest,
    ContextTooSmall,
    Message,
    ToolCall,
    ToolSpec,
    Trimmable,
    windows,
)
from app.llm.windows import CORE, OPENED, PAGE
from tests.chain.shapes import HabitSuggestion


class Note(BaseModel):
    text: str


def spec(name, words=4):
    return ToolSpec(name, " ".join(["Keeps what the person said for later."] * words), Note)


TOOLS = [spec("coreNote", 1), spec("pageHabits"), spec("pageTasks"), spec("openedGoals"), spec("openedIdeas")]
TIERS = (CORE, PAGE, PAGE, OPENED, OPENED)


def exchange(n, words=60):
    said = " ".join(["planning"] * words)
    return [Message.user(f"question {n}: {said}"), Message(role="assistant", content=f"answer {n}: {said}")]


def tool_round(n):
    call = ToolCall(id=f"call{n}", name="coreNote", arguments={"text": f"note {n}"})
    return [
        Message.user(f"question {n}: note it"),
        Message(role="assistant", tool_calls=[call]),
        Message.tool_result(call, '{"saved": true, "words": "' + " ".join(["kept"] * 80) + '"}'),
        Message(role="assistant", content=f"answer {n}: noted"),
    ]


def trimmable(history, newest="what now?", tools=TOOLS, tiers=TIERS, **fields):
    return Trimmable(
        system="You help people plan.", messages=[*history, Message.user(newest)], tools=list(tools),
        kept=1, tool_tiers=tiers, **fields,
    )  # fmt: skip


def answer(chain, request):
    reply = AssistantReply()
    for event in chain.stream(request):
        reply.absorb(event)
    return reply


def sent_contents(fake, link="local"):
    (request,) = [r for r in fake.requests(link) if r.protocol == "openai"]
    return [m.get("content") or "" for m in request.messages if m["role"] != "system"], request


def sent_tools(request):
    return [tool["function"]["name"] for tool in request.body.get("tools", [])]


def estimate_of(original, contents, tools):
    """The estimate of what was sent, found back among the original request's messages."""
    kept = [m for m in original.messages if (m.content or "") in contents]
    return windows.request_tokens(
        ChatRequest(system=original.system, messages=kept, tools=[t for t in original.tools if t.name in tools])
    )


def budget(window):
    return window - windows.reserve(window)


def test_a_small_window_drops_the_oldest_whole_messages_first_and_keeps_the_newest(fake, make_chain):
    history = [message for n in range(8) for message in exchange(n)]
    request = trimmable(history)
    assert windows.request_tokens(request) > budget(1400)
    chain = make_chain("local", BEYOU_LLM_LOCAL_CONTEXT="1400")
    assert answer(chain, request).text
    contents, sent = sent_contents(fake)
    assert contents[-1] == "what now?"
    assert contents[0].startswith("question ")  # the history left starts with a person's message
    first = int(contents[0].split()[1].rstrip(":"))
    assert first > 0 and contents[:-1] == [m.content for m in history[2 * first :]]  # only the oldest went
    assert sent_tools(sent) == [t.name for t in TOOLS]  # messages go before any toolset
    assert estimate_of(request, contents, sent_tools(sent)) <= budget(1400)


def test_a_tool_call_leaves_with_its_results(fake, make_chain):
    history = [*tool_round(0), *exchange(1), *exchange(2)]
    request = trimmable(history, tools=TOOLS[:1], tiers=(CORE,))
    window = windows.request_tokens(trimmable(history[1:], tools=TOOLS[:1], tiers=(CORE,))) + 512
    answer(make_chain("local", BEYOU_LLM_LOCAL_CONTEXT=str(window)), request)
    _contents, sent = sent_contents(fake)
    roles = [m["role"] for m in sent.messages if m["role"] != "system"]
    assert "tool" not in roles and all(not m.get("tool_calls") for m in sent.messages)
    assert roles[0] == "user"


def test_past_the_history_the_opened_toolsets_go_then_the_page_s_and_the_core_stays(fake, make_chain):
    history = exchange(0)
    whole = windows.request_tokens(trimmable([]))
    opened_cost = windows.tool_tokens(TOOLS[3]) + windows.tool_tokens(TOOLS[4])
    page_cost = windows.tool_tokens(TOOLS[1]) + windows.tool_tokens(TOOLS[2])
    for window, tools in [
        (whole - opened_cost + 512, ["coreNote", "pageHabits", "pageTasks"]),
        (whole - opened_cost - page_cost + 512, ["coreNote"]),
    ]:
        fake.reset()
        answer(make_chain("local", BEYOU_LLM_LOCAL_CONTEXT=str(window)), trimmable(history))
        contents, sent = sent_contents(fake)
        assert contents == ["what now?"] and sent_tools(sent) == tools, window


def test_a_request_no_window_holds_is_refused_before_a_byte_is_sent(fake, make_chain):
    chain = make_chain("local", BEYOU_LLM_LOCAL_CONTEXT="600")
    with pytest.raises(ContextTooSmall) as refused:
        answer(chain, trimmable([], newest=" ".join(["planning"] * 300)))
    assert refused.value.key == "AI_CONTEXT_TOO_SMALL"
    assert fake.requests() == []


def test_a_link_too_small_for_the_request_passes_it_to_the_next_unrested(fake, make_chain):
    chain = make_chain("local,mistral", BEYOU_LLM_LOCAL_CONTEXT="600")
    assert answer(chain, trimmable([], newest=" ".join(["planning"] * 300))).completed.link == "mistral"
    assert fake.requests("local") == []
    assert {state.name: state.status for state in chain.link_states()}["local"] == "ready"


def test_a_structured_request_too_long_for_the_window_is_refused_unsent(fake, make_chain):
    chain = make_chain("local", BEYOU_LLM_LOCAL_CONTEXT="1000")
    with pytest.raises(ContextTooSmall):
        chain.structured(ChatRequest(messages=[Message.user(" ".join(["habit"] * 600))]), HabitSuggestion)
    assert fake.requests() == []


def test_a_hosted_link_without_a_context_setting_gets_the_request_whole(fake, make_chain):
    history = [message for n in range(8) for message in exchange(n)]
    answer(make_chain("mistral"), trimmable(history))
    contents, sent = sent_contents(fake, "mistral")
    assert len(contents) == len(history) + 1 and len(sent_tools(sent)) == len(TOOLS)
    assert fake.window_reads("mistral") == []


def test_the_window_is_read_once_from_llama_cpp_s_props(fake, make_chain):
    fake.serve_window("local", 1400)
    history = [message for n in range(8) for message in exchange(n)]
    chain = make_chain("local")
    answer(chain, trimmable(history))
    answer(chain, trimmable(history))
    assert fake.window_reads("local") == ["props"]
    sent = [r for r in fake.requests("local") if r.protocol == "openai"][-1]
    assert len([m for m in sent.messages if m["role"] != "system"]) < len(history) + 1


@pytest.mark.parametrize(
    ("server", "asked"), [("llama.cpp", ["props"]), ("vllm", ["props", "v1/models"]),
                          ("ollama", ["props", "v1/models", "api/ps"])],
)  # fmt: skip
def test_each_server_s_own_way_of_saying_its_window_is_read(fake, make_chain, server, asked):
    fake.serve_window("local", 3000, server)
    chain = make_chain("local", BEYOU_LLM_LOCAL_MODEL="local")
    link = chain.adapters[0].link
    assert windows.read_window(link) == 3000
    assert fake.window_reads("local") == asked


def test_a_window_the_server_does_not_say_is_unknown_and_the_request_goes_whole(fake, make_chain):
    history = [message for n in range(8) for message in exchange(n)]
    chain = make_chain("local")
    assert answer(chain, trimmable(history)).text
    assert fake.window_reads("local") == ["props", "v1/models", "api/ps"]  # and /api/show, which it lacks
    contents, _sent = sent_contents(fake)
    assert len(contents) == len(history) + 1


def test_a_server_that_cannot_be_reached_has_an_unknown_window(refused_url):
    link = ChainSettings.from_env(
        {"BEYOU_LLM_ORDER": "local", "BEYOU_LLM_LOCAL_BASE_URL": refused_url, "BEYOU_LLM_LOCAL_MODEL": "m"}
    ).links[0]
    assert windows.Windows().of(link) is None


def test_no_tools_for_a_link_that_takes_none_and_the_prompt_that_says_so(fake, make_chain):
    chain = make_chain("local", BEYOU_LLM_LOCAL_MAX_TOOLS="0")
    reply = answer(chain, trimmable([], system_without_tools="You cannot act in this conversation."))
    assert reply.text == "echo: what now?"
    _contents, sent = sent_contents(fake)
    assert "tools" not in sent.body
    assert sent.messages[0] == {"role": "system", "content": "You cannot act in this conversation."}


def test_max_tools_keeps_the_core_then_the_page_s_in_their_order(fake, make_chain):
    answer(make_chain("local", BEYOU_LLM_LOCAL_MAX_TOOLS="2"), trimmable([]))
    _contents, sent = sent_contents(fake)
    assert sent_tools(sent) == ["coreNote", "pageHabits"]


@pytest.mark.parametrize(
    ("setting", "value"),
    [("BEYOU_LLM_LOCAL_CONTEXT", "0"), ("BEYOU_LLM_LOCAL_CONTEXT", "8k"), ("BEYOU_LLM_LOCAL_MAX_TOOLS", "-1")],
)
def test_a_window_or_tool_count_that_is_no_count_stops_the_boot(setting, value):
    env = {"BEYOU_LLM_ORDER": "local", "BEYOU_LLM_LOCAL_BASE_URL": "http://x/v1", "BEYOU_LLM_LOCAL_MODEL": "m"}
    with pytest.raises(ChainConfigError, match=setting):
        ChainSettings.from_env({**env, setting: value})
