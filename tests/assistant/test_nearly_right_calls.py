"""Turns with a small model on the other end, through the real POST and SSE stream: what it writes
nearly right is read as meant and does the work (a call in its text, keys in camelCase, a name or
an enum in another case), what the wire cuts arrives whole, its thinking is never shown, and a
call it cannot write readably goes back to it once to fix, never to the person as a failure."""

import json
from datetime import date, timedelta
from html import unescape

import pytest

from app.assistant import tool_calls
from app.assistant.models.chats import ChatMessage, Role
from app.extensions import db
from app.goals.models import Goal, GoalTerm
from app.habits.models import Habit
from app.habits.tools import HabitNew
from app.shared.progress import level_threshold
from tests.assistant.conftest import AgentClient, Reply, make_user, spoken
from tests.fakes.script import FakeCall

READ = {"name": "Read", "importance": 3, "difficulty": 2}
READ_CALL = json.dumps({"name": "createUserHabit", "arguments": READ})


def habits(app):
    with app.app_context():
        return [(h.name, h.importance, h.difficulty, h.xp) for h in db.session.scalars(db.select(Habit))]


def tool_results(fake, request=1):
    """What the model was told of each tool call, in the request after the calls."""
    messages = fake.requests("mistral")[request].body["messages"]
    return [json.loads(message["content"]) for message in messages if message["role"] == "tool"]


def said(events):
    """The text the stream's tokens showed, as the browser reads their HTML."""
    return unescape(spoken(events))


def answer_segments(app):
    with app.app_context():
        answer = db.session.scalars(db.select(ChatMessage).where(ChatMessage.role == Role.ASSISTANT)).one()
        return answer.segments


def test_a_character_split_across_two_reads_arrives_whole(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Olá, Ana! ", "Um café ☕ e pão 🥖.", split_characters=True))
    assert spoken(ana.stream(ana.send_ok(ana.new_chat(), "oi"))) == "Olá, Ana! Um café ☕ e pão 🥖."
    assert answer_segments(agent_app) == [{"type": "text", "text": "Olá, Ana! Um café ☕ e pão 🥖."}]


def test_arguments_streamed_over_twelve_chunks_run_the_tool(ana, fake, agent_app):
    fake.script("mistral", Reply.calls(FakeCall("createUserHabit", READ), argument_pieces=12), Reply.says("Added."))
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a reading habit"))
    assert events[-1]["name"] == "done"
    assert habits(agent_app) == [("Read", 3, 2, 0.0)]


def test_thinking_in_the_text_is_never_shown_nor_kept(ana, fake, agent_app):
    fake.script("mistral", Reply.says("<think>She greets me; ", "I greet back.</think>", "\n\nHello, ", "Ana!"))
    events = ana.stream(ana.send_ok(ana.new_chat(), "hi"))
    assert spoken(events) == "Hello, Ana!"
    assert "greet back" not in events[-1]["data"]
    assert answer_segments(agent_app) == [{"type": "text", "text": "Hello, Ana!"}]


def test_a_lone_angle_bracket_in_prose_is_shown(ana, fake, agent_app):
    fake.script("mistral", Reply.says("Keep it at 1 <", " 2 hours a day, <b>not</b> more."))
    events = ana.stream(ana.send_ok(ana.new_chat(), "how long?"))
    assert said(events) == "Keep it at 1 < 2 hours a day, <b>not</b> more."


WRITTEN = {
    "in tool_call tags": ["I will add it.\n<tool", f"_call>\n{READ_CALL[:30]}", f"{READ_CALL[30:]}\n</tool_call>"],
    "in a json fence": ["I will add it.\n``", f"`json\n{READ_CALL[:30]}", f"{READ_CALL[30:]}\n```"],
}


@pytest.mark.parametrize("pieces", WRITTEN.values(), ids=WRITTEN.keys())
def test_a_call_written_in_the_text_runs_and_is_not_shown(ana, fake, agent_app, pieces):
    """What Qwen2.5-Coder writes when the server leaves its calls in the content."""
    fake.script("mistral", Reply.says(*pieces), Reply.says("Added **Read**."))
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a reading habit"))
    assert [e["name"] for e in events] == ["token", "tool", "tool", "token", "done"]
    # the text before the call, its newline kept (the block after it is not shown)
    assert [unescape(events[0]["data"]), unescape(events[3]["data"])] == ["I will add it.\n", "Added **Read**."]
    assert habits(agent_app) == [("Read", 3, 2, 0.0)]
    assert "created" in tool_results(fake)[0]
    text = [segment["text"] for segment in answer_segments(agent_app) if segment["type"] == "text"]
    assert text == ["I will add it.\n", "Added **Read**."]


def test_a_call_that_is_the_whole_content_unfenced_runs_and_is_not_shown(ana, fake, agent_app):
    """Qwen2.5-Coder-0.5B also answers with the call's JSON alone, in pieces, no fence nor tags."""
    fake.script("mistral", Reply.says(READ_CALL[:20], READ_CALL[20:]), Reply.says("Added **Read**."))
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a reading habit"))
    assert [e["name"] for e in events] == ["tool", "tool", "token", "done"]
    assert habits(agent_app) == [("Read", 3, 2, 0.0)]


def test_a_json_fence_naming_no_tool_of_the_request_is_shown_as_written(ana, fake, agent_app):
    fenced = '```json\n{"name": "Read", "importance": 3}\n```'
    fake.script("mistral", Reply.says("Like this:\n", fenced))
    assert said(ana.stream(ana.send_ok(ana.new_chat(), "what would a habit look like?"))) == "Like this:\n" + fenced
    assert habits(agent_app) == [] and len(fake.requests("mistral")) == 1


def test_an_unknown_tool_in_tool_call_tags_is_answered_as_unknown(ana, fake, agent_app):
    """The tags say it is a call, whatever it names: the model is told there is no such tool."""
    fake.script("mistral", Reply.says('<tool_call>{"name": "brewCoffee", "arguments": {}}</tool_call>'),
                Reply.says("I cannot do that."))  # fmt: skip
    events = ana.stream(ana.send_ok(ana.new_chat(), "make me a coffee"))
    assert events[-1]["name"] == "done"
    (result,) = tool_results(fake)
    assert result["error"] == "UNKNOWN_TOOL"
    assert result["message"].startswith("There is no tool named brewCoffee. The tools you have now: ")
    assert "createUserHabit" in result["message"]  # the round's own tools, sent from /habits
    assert result["message"].endswith("; openToolsets opens the others.")


def test_a_fenced_call_to_a_made_up_tool_is_told_the_tools_there_are_and_the_next_call_runs(ana, fake, agent_app):
    """Qwen2.5-Coder-0.5B names tools it guessed (`addUserHabit`) in a json fence, with comments:
    the fence is a call, answered with the round's tools; the model's next call names one."""
    guessed = '```json\n{"name": "addUserHabit", "arguments": {"name": "Drink water" // what to drink\n}}\n```'
    fake.script(
        "mistral",
        Reply.says(guessed),
        Reply.calls(FakeCall("createUserHabit", {"name": "Drink water", "importance": 3, "difficulty": 1})),
        Reply.says("Added **Drink water**."),
    )
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a habit to drink water", page="/habits"))
    tokens = [event for event in events if event["name"] != "tool"]
    assert said(tokens) == "Added **Drink water**."  # the fence was read, never shown
    (unknown,) = tool_results(fake, request=1)
    assert unknown["error"] == "UNKNOWN_TOOL" and "createUserHabit" in unknown["message"]
    assert "created" in tool_results(fake, request=2)[-1]
    assert [name for name, *_rest in habits(agent_app)] == ["Drink water"]


def test_a_goal_in_camel_case_with_numbers_as_text_and_its_term_in_lower_case_is_created(ana, fake, agent_app):
    start = date.today()
    end = start + timedelta(days=90)
    arguments = {"name": "Read 12 books", "targetValue": "12", "unit": "books", "startDate": start.isoformat(),
                 "endDate": end.isoformat(), "currentValue": "2", "term": "long_term"}  # fmt: skip
    fake.script("mistral", Reply.calls(FakeCall("createUserGoal", arguments)), Reply.says("Done."))
    ana.stream(ana.send_ok(ana.new_chat(), "a goal: 12 books", page="/goals"))
    assert "created" in tool_results(fake)[0], tool_results(fake)
    with agent_app.app_context():
        (goal,) = db.session.scalars(db.select(Goal)).all()
        assert (goal.name, goal.target_value, goal.current_value, goal.unit, goal.term) == (
            "Read 12 books", 12, 2, "books", GoalTerm.LONG_TERM)  # fmt: skip
        assert (goal.start_date, goal.end_date) == (start, end)


NEARLY = {  # the tool's name as the model wrote it, and its arguments
    "the name in snake case, an enum in lower case": ("create_user_habit", {**READ, "experience": "advanced"}),
    "the name in lower case, a null for a list": (
        "createuserhabit", {**READ, "experience": "ADVANCED", "categories": None}),
    "the arguments wrapped and as a JSON string": (
        "createUserHabit", {"arguments": json.dumps({**READ, "experience": "Advanced"})}),
}  # fmt: skip


@pytest.mark.parametrize("name, arguments", NEARLY.values(), ids=NEARLY.keys())
def test_a_call_nearly_right_writes_the_row_it_meant(ana, fake, agent_app, name, arguments):
    fake.script("mistral", Reply.calls(FakeCall(name, arguments)), Reply.says("Added."))
    ana.stream(ana.send_ok(ana.new_chat(), "add a reading habit, I read a lot already"))
    assert "created" in tool_results(fake)[0], tool_results(fake)
    assert habits(agent_app) == [("Read", 3, 2, level_threshold(8))]
    sent_back = fake.requests("mistral")[1].body["messages"]
    assert [call["function"]["name"] for m in sent_back for call in m.get("tool_calls", [])] == ["createUserHabit"]


SLIPS = {  # what the model sent, what the habit tool's schema reads it as
    "a key in another case": ({"Name": "Read", "importance": 3}, {"name": "Read", "importance": 3}),
    "a key sent twice, as named and loosely": ({"name": "Read", "Name": "Run"}, {"name": "Read", "Name": "Run"}),
    "a key sent twice, loosely both times": ({"Name": "Read", "NAME": "Run"}, {"Name": "Read", "NAME": "Run"}),
    "a list as a JSON string": ({"categories": '["Health"]'}, {"categories": ["Health"]}),
    "a null for a list that may be left out": ({"name": "Read", "categories": None}, {"name": "Read"}),
    "a null for a field that may be null": ({"motivation": None}, {"motivation": None}),
    "a number for a text": ({"description": 20}, {"description": "20"}),
    "an enum in another case": ({"experience": "intermediate"}, {"experience": "INTERMEDIATE"}),
    "an enum no case makes": ({"experience": "expert"}, {"experience": "expert"}),
    "wrapped": ({"arguments": {"name": "Read"}}, {"name": "Read"}),
    "wrapped as a JSON string": ({"parameters": '{"name": "Read"}'}, {"name": "Read"}),
    "a string where a number is due (pydantic reads it)": ({"importance": "3"}, {"importance": "3"}),
}


@pytest.mark.parametrize("sent, read", SLIPS.values(), ids=SLIPS.keys())
def test_arguments_are_read_as_the_schema_allows_and_no_further(sent, read):
    """Only what has one reading: a key that names its field exactly wins over a loose one, and a
    value no rule reads is left for validation to name."""
    assert tool_calls.as_the_schema_allows(HabitNew, sent) == read


CUT_SHORT = '{"name": "Read", "importance": 3, "difficulty": 2'


def test_arguments_that_do_not_read_go_back_to_the_model_and_its_fixed_call_runs(ana, fake, agent_app):
    fake.script(
        "mistral",
        Reply.calls(FakeCall("createUserHabit", raw_arguments=CUT_SHORT)),
        Reply.calls(FakeCall("createUserHabit", READ)),
        Reply.says("Added **Read**."),
    )
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a reading habit"))
    assert events[-1]["name"] == "done" and "Added <strong>Read</strong>" in events[-1]["data"]
    (told,) = tool_results(fake)
    assert told["error"] == "ARGUMENTS_UNREADABLE"
    assert told["message"].startswith("Nothing was done: the arguments are not valid JSON")
    assert "Call createUserHabit again" in told["message"]
    assert habits(agent_app) == [("Read", 3, 2, 0.0)]
    assert len(fake.requests("mistral")) == 3


@pytest.mark.parametrize("language, said", [("en", "twice I sent the app an action it could not read"),
                                            ("pt", "por duas vezes enviei ao app uma ação")])  # fmt: skip
def test_arguments_unreadable_twice_end_the_turn_in_the_person_s_words(make_agent_app, fake, language, said):
    app = make_agent_app()
    make_user(app, language=language)
    ana = AgentClient(app)
    unreadable = Reply.calls(FakeCall("createUserHabit", raw_arguments=CUT_SHORT))
    fake.script("mistral", unreadable, unreadable, Reply.says("never asked"))
    events = ana.stream(ana.send_ok(ana.new_chat(), "add a reading habit"))
    assert events[-1]["name"] == "done" and said in events[-1]["data"]
    assert len(fake.requests("mistral")) == 2
    assert habits(app) == []
