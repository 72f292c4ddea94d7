"""Which tool specs each model round carries (app/agent/toolsets.py): the core and the page's
toolsets first, any other toolset one `openToolsets` call away — from every page, for every tool —
and an opened toolset stays for the rest of the turn."""

import pytest

from app.agent import registry, toolsets
from app.domains import BY_NAME, Elsewhere
from app.llm import Message, ToolCall
from app.web.navigation import AREAS
from bench import prompt_budget
from tests.assistant.conftest import AgentClient, Reply, make_user
from tests.fakes.script import FakeCall

CORE = {name for name, tool in registry.REGISTRY.items() if tool.core}


def sent_tools(request):
    """The tool names one recorded chat-completions request carried."""
    return {tool["function"]["name"] for tool in request.body.get("tools", [])}


def tools_of(*domains):
    return {name for name, tool in registry.REGISTRY.items() if tool.domain in domains}


def page_paths(app):
    """Every navigation area's page as the browser reports it, the deeper pages a toolset is
    carried from, and a message sent from no page: the pages bench.prompt_budget measures."""
    with app.test_request_context():
        return prompt_budget.pages(app)


def first_round_tools(page):
    """The core and the page's toolsets, less their tools that follow a read."""
    on_the_page = toolsets.page_toolsets(page)
    return CORE | {name for name in tools_of(*on_the_page) if not registry.REGISTRY[name].follows_a_read}


def test_from_every_page_every_tool_is_sent_first_or_one_open_toolsets_call_later(fake, make_agent_app):
    # One round per toolset opened, then the answer: the turn may take more rounds than usual.
    agent_app = make_agent_app(AGENT_MAX_ROUNDS=len(toolsets.OFFERED) + 1)
    make_user(agent_app)
    ana = AgentClient(agent_app)
    for slug, page in page_paths(agent_app):
        fake.reset()
        first = first_round_tools(page)
        # Every toolset not whole in the first round: the page's own too when part of it follows a read.
        closed = [toolset.domain for toolset in toolsets.OFFERED if not tools_of(toolset.domain) <= first]
        # One toolset opened per round, then an answer: each round shows what one opening adds.
        fake.script("mistral", *[Reply.calls(FakeCall("openToolsets", {"toolsets": [domain]})) for domain in closed],
                    Reply.says("Done."))  # fmt: skip
        ana.stream(ana.send_ok(ana.new_chat(), "show me everything you can do", page=page))
        rounds = [sent_tools(request) for request in fake.requests("mistral")]
        assert len(rounds) == len(closed) + 1, slug
        assert rounds[0] == first, f"{slug}: the first round is the core and the page's"
        for number, domain in enumerate(closed, start=1):
            opened_so_far = tools_of(*closed[:number])
            assert rounds[number] == first | opened_so_far, f"{slug}: round {number + 1}, {domain} opened"
        for name in registry.REGISTRY:
            assert name in rounds[0] or name in rounds[-1], f"{name} is unreachable from {slug}"


def test_the_first_round_carries_no_tool_of_another_domain(ana, fake):
    fake.script("mistral", Reply.says("Hi"))
    ana.stream(ana.send_ok(ana.new_chat(), "hi", page="/habits"))
    (request,) = fake.requests("mistral")
    assert sent_tools(request) == CORE | tools_of("habits")
    assert "getUserGoals" not in sent_tools(request) and "createUserRoutine" not in sent_tools(request)


def test_a_gemini_link_gets_the_same_cut_tool_list_as_function_declarations(make_agent_app, fake):
    app = make_agent_app(order="gemini")
    make_user(app)
    ana = AgentClient(app)
    fake.script("gemini", Reply.calls(FakeCall("openToolsets", {"toolsets": ["goals"]})), Reply.says("Ready."))
    ana.stream(ana.send_ok(ana.new_chat(), "goals please", page="/tasks"))
    first, second = (
        {declared["name"] for tool in request.body["tools"] for declared in tool["functionDeclarations"]}
        for request in fake.requests("gemini")
    )
    assert first == CORE | tools_of("tasks")
    assert second == CORE | tools_of("tasks", "goals")


def test_a_call_to_a_tool_not_sent_still_runs_and_opens_its_toolset_for_the_next_rounds(ana, fake):
    fake.script(
        "mistral",
        Reply.calls(FakeCall("getUserGoals", {})),
        Reply.calls(FakeCall("updateChatContext", {"note": "Looking at goals."})),
        Reply.says("You have no goals yet."),
    )
    ana.stream(ana.send_ok(ana.new_chat(), "what are my goals?", page="/habits"))
    first, second, third = (sent_tools(request) for request in fake.requests("mistral"))
    assert "getUserGoals" not in first
    assert tools_of("goals") <= second and tools_of("goals") <= third
    assert '"total": 0' in fake.requests("mistral")[1].body["messages"][-1]["content"]  # it ran


def test_an_opened_toolset_is_still_sent_in_the_next_turn_of_the_chat_while_its_call_is_in_the_window(ana, fake):
    chat_id = ana.new_chat()
    fake.script("mistral", Reply.calls(FakeCall("openToolsets", {"toolsets": ["goals"]})), Reply.says("Ready."))
    ana.stream(ana.send_ok(chat_id, "let us talk goals", page="/habits"))
    fake.script("mistral", Reply.says("Sure."))
    ana.stream(ana.send_ok(chat_id, "and now?", page="/habits"))
    assert tools_of("goals") <= sent_tools(fake.requests("mistral")[-1])


def test_open_toolsets_refuses_an_unknown_toolset_with_arguments_the_model_can_fix(ana, fake):
    fake.script("mistral", Reply.calls(FakeCall("openToolsets", {"toolsets": ["weather"]})), Reply.says("Sorry."))
    ana.stream(ana.send_ok(ana.new_chat(), "open the weather", page="/habits"))
    first, second = fake.requests("mistral")
    assert sent_tools(second) == sent_tools(first)
    assert "INVALID_ARGUMENTS" in second.body["messages"][-1]["content"]


def test_every_page_s_first_round_carries_at_most_10_kb_of_tools(app):
    sender = prompt_budget.adapter()
    with app.test_request_context():
        for slug, page in prompt_budget.pages(app):
            _system, tools, count = prompt_budget.first_round(sender, page)
            assert tools <= prompt_budget.TARGET, (
                f"{slug}: {count} tools, {tools:,} bytes (python -m bench.prompt_budget)"
            )


def test_a_tool_that_follows_a_read_comes_with_the_read_not_with_the_page():
    ask = [Message.user("move my run to the evening")]
    first = {tool.name for tool in toolsets.tools_for("/routines", ask)}
    assert "replaceUserRoutine" not in first and "getUserRoutines" in first
    read = [*ask, Message(role="assistant", tool_calls=[ToolCall(id="1", name="getUserRoutines")])]
    assert tools_of("routines") <= {tool.name for tool in toolsets.tools_for("/routines", read)}


def test_every_tool_belongs_to_a_declared_toolset_and_every_toolset_page_is_under_a_navigation_area_or_its_own():
    for tool in registry.REGISTRY.values():
        assert tool.domain in toolsets.TOOLSETS, f"{tool.name}: domain {tool.domain} has no toolset"
        assert tool.core or toolsets.TOOLSETS[tool.domain].summary, f"{tool.name} could never be opened"
    slugs = {area.slug for area in AREAS}
    for toolset in toolsets.TOOLSETS.values():
        reached_elsewhere = {toolset.domain} if isinstance(BY_NAME[toolset.domain].area, Elsewhere) else set()
        assert {page.split("/")[0] for page in toolset.pages} <= slugs | reached_elsewhere, toolset.domain


def test_a_domain_reached_elsewhere_carries_its_tools_on_its_own_pages():
    assert toolsets.page_toolsets("/focus/3f2c0a4e-0000-4000-8000-000000000000") == {"focus"}
    assert toolsets.page_toolsets("/routines") == {"routines"}


def test_the_most_specific_page_wins_so_the_study_cycles_page_carries_the_cycles_not_the_notebook():
    assert toolsets.page_toolsets("/notebook/cycles/3f2c0a4e-0000-4000-8000-000000000000") == {"study_cycles"}
    assert toolsets.page_toolsets("/notebook/pages/7") == {"notebook", "study_ai"}
    assert toolsets.page_toolsets("/notebookish") == set()


def test_open_toolsets_names_toolsets_not_tools_so_the_first_round_does_not_grow_with_the_catalogue():
    description = registry.REGISTRY["openToolsets"].description
    for toolset in toolsets.OFFERED:
        assert f"{toolset.domain} (" in description
    for name in registry.REGISTRY:
        assert name not in description, f"{name} is spelled out in the discovery tool"


@pytest.mark.parametrize(
    ("page", "area"),
    [("/habits", "habits"), ("/goals?view=tree", "goals"), ("/habits/3/edit", "habits"),
     ("/notebook/pages/7", "notebook"), ("", None), (None, None)],
)  # fmt: skip
def test_a_page_path_resolves_to_its_navigation_area(page, area):
    assert toolsets.area_of(page) == area
