"""A turn on a model with a small window or no tools: the request fits the link it goes to, a
message no window can hold ends the turn with its own words before any provider hears of it, and
a model that cannot call tools still chats, saying it cannot act."""

from tests.assistant.conftest import AgentClient, Reply, chain_env, make_user


def local_app(make_agent_app, fake, **link):
    env = {**chain_env(fake, "local"), "BEYOU_LLM_LOCAL_BASE_URL": fake.base_url("local"),
           "BEYOU_LLM_LOCAL_MODEL": "small-model"}  # fmt: skip
    env.update({f"BEYOU_LLM_LOCAL_{name.upper()}": str(value) for name, value in link.items()})
    app = make_agent_app(order="local", LLM_ENV=env)
    make_user(app)
    return app, AgentClient(app)


def model_requests(fake):
    return [r for r in fake.requests("local") if r.protocol == "openai"]


def user_texts(request):
    return [m["content"] for m in request.messages if m["role"] == "user"]


def tool_names(request):
    return [tool["function"]["name"] for tool in request.body.get("tools", [])]


def test_a_small_window_keeps_the_newest_message_and_the_core_tools_and_drops_the_oldest(make_agent_app, fake):
    _app, ana = local_app(make_agent_app, fake)
    fake.serve_window("local", 5200)  # the server says it, as llama.cpp does at /props
    chat_id = ana.new_chat()
    asked = [f"question {n}:" + " plan my week" * 60 for n in range(3)]
    for text in [*asked, "and now?"]:
        ana.stream(ana.send_ok(chat_id, text))
    last = model_requests(fake)[-1]
    assert user_texts(last)[-1] == "and now?"
    assert asked[0] not in user_texts(last)  # the oldest went first...
    assert user_texts(last)[:-1] == asked[len(asked) + 1 - len(user_texts(last)) :]  # ...and only the oldest
    assert len(user_texts(last)) > 1
    assert {"updateGlobalContext", "updateChatContext", "openToolsets"} <= set(tool_names(last))
    assert fake.window_reads("local") == ["props"]


def test_a_message_no_window_holds_ends_the_turn_with_its_words_and_no_provider_request(make_agent_app, fake):
    _app, ana = local_app(make_agent_app, fake, context=5000)
    events = ana.stream(ana.send_ok(ana.new_chat(), "1234567890 " * 350))
    assert events[-1]["name"] == "failed"
    assert 'data-error="AI_CONTEXT_TOO_SMALL"' in events[-1]["data"]
    assert "too long for the AI model&#39;s window" in events[-1]["data"]
    assert "Your message is back in the box." in events[-1]["data"]
    assert model_requests(fake) == []


def test_a_model_without_tools_is_sent_none_and_told_it_cannot_act(make_agent_app, fake):
    _app, ana = local_app(make_agent_app, fake, max_tools=0)
    fake.script("local", Reply.says("I can't change that from here: use the New habit button on ", "/habits."))
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a habit called Read"))
    assert events[-1]["name"] == "done" and "New habit button" in events[-1]["data"]
    (request,) = model_requests(fake)
    assert "tools" not in request.body
    system = request.messages[0]["content"]
    assert "You cannot act in this conversation" in system and "openToolsets" not in system
