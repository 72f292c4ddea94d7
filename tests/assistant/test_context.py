"""What a turn sends to the provider — exactly the context it needs, nothing of anyone else —
and what the tools and memory notes do with it."""

import json
import uuid
from datetime import datetime
from zoneinfo import ZoneInfo

from app.assistant import prompt
from app.assistant import services as assistant
from app.assistant.models.chats import Chat, ChatMessage
from app.extensions import db
from app.profile.models import User
from tests.assistant.conftest import AgentClient, Reply, make_user
from tests.fakes.script import FakeCall


def system_and_messages(request):
    messages = request.body["messages"]
    system = "\n".join(m["content"] for m in messages if m["role"] == "system")
    return system, [m for m in messages if m["role"] != "system"]


def test_the_prompt_carries_name_language_local_today_page_and_notes_but_no_email(make_agent_app, fake):
    app = make_agent_app()
    make_user(app, name="Ana Lima", timezone_name="Pacific/Kiritimati")
    make_user(app, email="bruno@example.com", name="Bruno Secret")
    with app.app_context():
        ana_row = db.session.scalar(db.select(User).where(User.email == "ana@example.com"))
        assistant.set_global_note(ana_row, "Prefers mornings for exercise.")
        password_hash = ana_row.password_hash
    ana = AgentClient(app)
    chat_id = ana.new_chat()
    with app.app_context():
        user = db.session.scalar(db.select(User).where(User.email == "ana@example.com"))
        assistant.set_chat_note(user, chat_id, "Planning a half marathon.")
    turn_id = ana.send_ok(chat_id, "what should I do today?", page="/goals?view=tree")
    ana.stream(turn_id)
    (request,) = fake.requests("mistral")
    system, messages = system_and_messages(request)
    kiritimati_today = datetime.now(ZoneInfo("Pacific/Kiritimati")).date().isoformat()
    assert '"Ana Lima"' in system
    assert f"Today is {kiritimati_today}" in system
    assert '"/goals?view=tree"' in system
    assert "Prefers mornings for exercise." in system and "Planning a half marathon." in system
    assert "Answer in English" in system
    assert "emoji-run" in system  # the icon catalogue
    everything = json.dumps(request.body)
    assert "ana@example.com" not in everything
    assert password_hash not in everything
    assert "Bruno" not in everything
    assert messages[-1] == {"role": "user", "content": "what should I do today?"}


def test_the_prompt_s_own_words_fit_one_byte_a_character(ana, fake, agent_app):
    """A running turn holds its system prompt until the model answers; one character past U+00FF
    (an em dash in prompts/agent.md) makes CPython store the whole string at two bytes each."""
    ana.stream(ana.send_ok(ana.new_chat(), "hello"))
    system, _messages = system_and_messages(fake.requests("mistral")[-1])
    assert [character for character in system if ord(character) > 0xFF] == []


def test_a_turn_holds_only_its_own_part_of_the_prompt(agent_app):
    """A turn keeps its request until the model answers (for a fallback to the next link). Its
    prompt is the template's pieces: the fixed text is the same strings in every turn, and what
    is its own is a few short values."""
    people = [make_user(agent_app, name="Ana Lima"), make_user(agent_app, email="bruno@example.com", name="Bruno")]
    prompts = []
    with agent_app.app_context():
        for person in map(db.session.get, [User] * 2, people):
            chat = assistant.create_chat(person, "Plans")
            turn = assistant.start_turn(person, chat.id, "Hello", page="/habits")
            prompts.append(prompt.system_prompt(person, chat, turn))
    ana, bruno = prompts
    assert '"Ana Lima"' in str(ana) and '"Bruno"' in str(bruno) and len(str(ana)) > 10_000
    own = [piece for piece, other in zip(ana.pieces, bruno.pieces, strict=True) if piece is not other]
    assert sum(map(len, own)) < 200


def test_a_round_carries_the_rules_of_its_toolsets_and_the_icons_only_for_tools_that_take_one(ana, fake):
    """A part of the app's rules comes with its toolset: /ideas' first round has the Ideas board's
    rules and no routine's, study's or icon's; once the model opens the habits toolset, the next
    round of the same turn has the icons too, and an opened toolset brings its rules."""
    fake.script(
        "mistral",
        Reply.calls(FakeCall("openToolsets", {"toolsets": ["habits", "mood"]})),
        Reply.says("Both are open."),
    )
    ana.stream(ana.send_ok(ana.new_chat(), "I want a habit and to log my mood", page="/ideas"))
    first, second = (system_and_messages(request)[0] for request in fake.requests("mistral"))
    assert "# Ideas board" in first and "# Memory" in first and "# Core rules" in first
    for absent in ("# Routines", "# Study notebook", "# Study cycles", "# Focus mode", "# Mood", "# Icon catalogue"):
        assert absent not in first
    assert "# Mood" in second and "# Icon catalogue" in second and "emoji-run" in second
    assert "# Routines" not in second
    assert len(first) < len(second) < 11_000


def test_the_window_is_the_last_twenty_messages_with_their_tool_rounds(ana, fake, agent_app):
    chat_id = ana.new_chat()
    fake.script(
        "mistral",
        Reply.calls(FakeCall("updateChatContext", {"note": "Talking about sleep."})),
        Reply.says("Noted."),
    )
    ana.stream(ana.send_ok(chat_id, "remember we talk about sleep"))
    for n in range(11):
        fake.script("mistral", Reply.says(f"answer {n}"))
        ana.stream(ana.send_ok(chat_id, f"question {n}"))
    last = fake.requests("mistral")[-1]
    _system, messages = system_and_messages(last)
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users[0] == "question 0"  # 20 messages back: the first exchange fell out of the window
    assert users[-1] == "question 10"
    assert len(users) == 11
    chat2 = ana.new_chat()
    fake.script(
        "mistral",
        Reply.calls(FakeCall("updateChatContext", {"note": "Sleep plan."})),
        Reply.says("Saved."),
        Reply.says("Yes, we talked about it."),
    )
    ana.stream(ana.send_ok(chat2, "note it"))
    ana.stream(ana.send_ok(chat2, "did you note it?"))
    _system, messages = system_and_messages(fake.requests("mistral")[-1])
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]  # the model sees what it did
    assert messages[1]["tool_calls"][0]["function"]["name"] == "updateChatContext"


def test_a_tool_call_runs_as_the_user_and_streams_a_chip_then_its_result(ana, fake, agent_app):
    chat_id = ana.new_chat()
    fake.script(
        "mistral",
        Reply.calls(FakeCall("updateGlobalContext", {"note": "Vegetarian; trains on Tuesdays."})),
        Reply.says("I'll remember that."),
    )
    events = ana.stream(ana.send_ok(chat_id, "remember I'm vegetarian and train on Tuesdays"))
    names = [e["name"] for e in events]
    assert names[:2] == ["tool", "tool"] and names[-1] == "done"
    assert "running" in events[0]["data"] and 'hx-swap-oob="true"' in events[1]["data"]
    assert 'href="/configuration"' in events[1]["data"]  # a write shows as a card linking to its page
    second_request = fake.requests("mistral")[1]
    tool_message = next(m for m in second_request.body["messages"] if m["role"] == "tool")
    assert json.loads(tool_message["content"])["saved"] is True
    with agent_app.app_context():
        assert db.session.scalar(db.select(User.assistant_note)) == "Vegetarian; trains on Tuesdays."
        answer = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq)).all()[-1]
        assert [s["type"] for s in answer.segments] == ["tool", "text"]


def test_a_note_over_its_limit_is_refused_with_a_message_the_model_can_act_on(ana, fake, agent_app):
    chat_id = ana.new_chat()
    fake.script(
        "mistral",
        Reply.calls(FakeCall("updateChatContext", {"note": "x" * 1001})),
        Reply.says("Too long, shortening."),
    )
    events = ana.stream(ana.send_ok(chat_id, "note everything"))
    assert "tool-failed" in events[1]["data"]
    tool_message = next(m for m in fake.requests("mistral")[1].body["messages"] if m["role"] == "tool")
    result = json.loads(tool_message["content"])
    assert result["error"] == "NOTE_TOO_LONG" and "1001" in result["message"]


def test_invalid_tool_arguments_come_back_as_a_correctable_message(ana, fake):
    chat_id = ana.new_chat()
    fake.script("mistral", Reply.calls(FakeCall("updateChatContext", {"text": "wrong field"})), Reply.says("Retrying."))
    ana.stream(ana.send_ok(chat_id, "note"))
    tool_message = next(m for m in fake.requests("mistral")[1].body["messages"] if m["role"] == "tool")
    result = json.loads(tool_message["content"])
    assert result["error"] == "INVALID_ARGUMENTS"
    assert result["details"][0]["field"] == "note"


def test_rounds_are_capped_with_a_clear_ending(make_agent_app, fake):
    app = make_agent_app(AGENT_MAX_ROUNDS=2)
    make_user(app)
    ana = AgentClient(app)
    call = FakeCall("updateChatContext", {"note": "loop"})
    fake.script("mistral", Reply.calls(call), Reply.calls(call), Reply.says("never reached"))
    events = ana.stream(ana.send_ok(ana.new_chat(), "loop forever"))
    assert events[-1]["name"] == "done"
    assert "more steps than I am allowed" in events[-1]["data"]
    assert len(fake.requests("mistral")) == 2


def test_reset_deletes_every_chat_and_the_global_note(ana, fake, agent_app):
    chat_id = ana.new_chat()
    ana.stream(ana.send_ok(chat_id, "hello"))
    with agent_app.app_context():
        user = db.session.scalar(db.select(User))
        assistant.set_global_note(user, "Likes tea.")
    assert ana.post("/ai/agent/reset").status_code == 200
    with agent_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Chat)) == 0
        assert db.session.scalar(db.select(db.func.count()).select_from(ChatMessage)) == 0
        assert db.session.scalar(db.select(User.assistant_note)) is None


def test_chats_list_newest_activity_first_and_can_be_renamed_and_deleted(ana, fake, agent_app):
    first = ana.new_chat()
    second = ana.new_chat()
    ana.stream(ana.send_ok(first, "bring me to the top"))
    listing = ana.http.get("/ai/agent/chats").get_data(as_text=True)
    assert listing.index("bring me to the top") < listing.index("New chat")
    ana.post(f"/ai/agent/chats/{second}/rename", title="Sleep plan")
    assert "Sleep plan" in ana.http.get("/ai/agent/chats").get_data(as_text=True)
    assert ana.post(f"/ai/agent/chats/{second}/delete").status_code == 200
    assert ana.http.get(f"/ai/agent/chats/{second}").status_code == 404


def test_another_users_chat_is_not_found_on_every_route(ana, fake, agent_app):
    chat_id = ana.new_chat()
    make_user(agent_app, email="bruno@example.com", name="Bruno")
    bruno = AgentClient(agent_app, email="bruno@example.com")
    for method, url in [
        ("get", f"/ai/agent/chats/{chat_id}"),
        ("post", f"/ai/agent/chats/{chat_id}/messages"),
        ("post", f"/ai/agent/chats/{chat_id}/rename"),
        ("post", f"/ai/agent/chats/{chat_id}/delete"),
    ]:
        response = bruno.http.get(url) if method == "get" else bruno.post(url, message="hi", title="x")
        assert response.status_code == 404, url
    assert ana.http.get(f"/ai/agent/chats/{chat_id}").status_code == 200
    assert bruno.http.get(f"/ai/agent/chats/{uuid.uuid4()}").status_code == 404


def test_a_first_message_without_a_chat_creates_one_titled_from_it(ana, fake, agent_app):
    response = ana.post("/ai/agent/chats", message="Help me plan a reading habit please")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'sse-connect="/ai/agent/turns/' in html
    with agent_app.app_context():
        chat = db.session.scalar(db.select(Chat))
        assert chat.title == "Help me plan a reading habit please"[:40]
    turn_id = html.split('id="turn-')[1][:36]
    assert ana.stream(turn_id)[-1]["name"] == "done"


def test_a_write_tool_in_a_turn_announces_its_domain_and_links_its_page(ana, fake, agent_app):
    from app.categories import services as categories

    with agent_app.app_context():
        categories.create(db.session.scalar(db.select(User)), name="Health", icon="heart")
    fake.script(
        "mistral",
        Reply.calls(FakeCall("createUserHabit", {"name": "Stretch", "importance": 2, "difficulty": 1,
                                                 "categories": ["Health"]})),
        Reply.says("Created **Stretch**."),
    )  # fmt: skip
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a stretching habit"))
    finished = events[1]["data"]
    assert 'data-domains="habits"' in finished and 'href="/habits"' in finished
    created = json.loads(
        next(m for m in fake.requests("mistral")[1].body["messages"] if m["role"] == "tool")["content"]
    )
    assert uuid.UUID(created["created"]["id"])  # the model gets the new id back


def test_the_export_carries_the_chats_and_both_notes(ana, fake, agent_app):
    from app.profile import configuration

    chat_id = ana.new_chat()
    ana.stream(ana.send_ok(chat_id, "hello there"))
    with agent_app.app_context():
        user = db.session.scalar(db.select(User))
        assistant.set_global_note(user, "Likes tea.")
        assistant.set_chat_note(user, chat_id, "Greeting.")
        exported = configuration.export(user)["assistant"]
    assert exported["notes_about_you"] == "Likes tea."
    (chat,) = exported["chats"]
    assert chat["notes_about_this_chat"] == "Greeting."
    assert [m["role"] for m in chat["messages"]] == ["USER", "ASSISTANT"]


def test_deleting_the_account_takes_the_chats_with_it(ana, fake, agent_app):
    from app.profile import configuration
    from tests.conftest import PASSWORD

    ana.stream(ana.send_ok(ana.new_chat(), "hello"))
    with agent_app.app_context():
        user = db.session.scalar(db.select(User))
        configuration.delete_account(user, PASSWORD, configuration.confirmation_word(user))
        for model in (Chat, ChatMessage):
            assert db.session.scalar(db.select(db.func.count()).select_from(model)) == 0


def test_nothing_reaches_a_provider_for_someone_who_never_opens_the_assistant(ana, fake, agent_app):
    for page in ("/dashboard", "/habits", "/tasks", "/goals", "/routines", "/configuration"):
        assert ana.http.get(page).status_code == 200
    assert fake.requests() == []
