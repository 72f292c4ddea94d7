"""The journal's words never leave the mood page: no tool returns them, no prompt carries them.

A journal holding a unique canary is written, then every registered tool is called (read tools
first, then writes, the reads again, deletes last) and every request the assistant builds is
built — from every page, with and without a Focus entry, with both memory notes — and the canary
must appear in none of them. The registry and the navigation are iterated, so tools and pages
added later are covered without editing this file. Finally one real turn runs over the wire fake
and no byte sent to the provider holds the canary. The code itself is scanned too: the one
function returning the words is called by the mood page alone.
"""

import ast
import json
import re
import uuid
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from app.agent import registry
from app.assistant import prompt, tool_calls
from app.assistant import services as assistant
from app.dashboard import briefing
from app.extensions import db
from app.mood import services as mood
from app.profile.models import User
from app.shared.days import today_for
from app.web.navigation import AREAS
from tests.assistant.conftest import AgentClient, Reply, make_user
from tests.assistant.test_tools import build_a_life, foreign_arguments
from tests.fakes.script import FakeCall

CANARY = f"canary-{uuid.uuid4().hex}"
ROOT = Path(__file__).resolve().parents[2]


def write_the_journal(user):
    """Today's and last week's journals hold the canary; so does a note the user asked to add."""
    current = today_for(user)
    mood.save(user, current, 2, f"Only for me: {CANARY}")
    mood.save(user, current - timedelta(days=6), 4, f"{CANARY} and nothing else")
    mood.log(user, 2, note=f"Added by request {CANARY}")


def _sample(schema, definitions, known, name=""):
    """A value the JSON schema accepts, from its defaults, enums and bounds; an argument named in
    `known` gets that value (the user's own rows), any other id a fresh uuid."""
    if name in known:
        return known[name]
    if "$ref" in schema:
        return _sample(definitions[schema["$ref"].rsplit("/", 1)[1]], definitions, known, name)
    if "default" in schema:
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        choices = [choice for choice in schema["anyOf"] if choice.get("type") != "null"]
        return _sample(choices[0], definitions, known, name) if choices else None
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {key: _sample(value, definitions, known, key) for key, value in schema.get("properties", {}).items()
                if key in required}  # fmt: skip
    if kind == "array":
        return [_sample(schema.get("items", {}), definitions, known, name)
                for _ in range(max(schema.get("minItems", 1), 1))]  # fmt: skip
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
        return max(low, 1)
    if kind == "boolean":
        return False
    if schema.get("format") == "date":
        return date.today().isoformat()
    if name.endswith("id") or name.endswith("_ids"):
        return str(uuid.uuid4())
    return "x" * max(schema.get("minLength", 1), 5)


def sampled_arguments(tool, known):
    schema = tool.args_model.model_json_schema()
    arguments = _sample(schema, schema.get("$defs", {}), known)
    try:
        tool.args_model.model_validate(arguments)
    except ValidationError:
        return {}
    return arguments


def calls_for(name, life):
    """The argument sets tried for a tool: the sweep's own (naming the user's own rows), the
    schema's sample, and for the mood tools what a model would send."""
    tool = registry.REGISTRY[name]
    own = {"entry_id": str(life["entry"].id), "routine": str(life["routine"].id), "section_id": str(life["section"].id)}
    tried = [sampled_arguments(tool, own)]
    known = foreign_arguments(name, life)
    if known is not None:
        tried.append(known)
    tried += {
        "getUserMoodHistory": [{"days": 1}, {"days": 366}],
        "logDailyMood": [{"level": 3}, {"level": 5, "note": "In my own words"}],
    }.get(name, [])
    return tried


def in_the_order_that_keeps_the_rows(names):
    """Reads, writes, the reads again (after the writes), and deletes last."""
    reads = [name for name in names if registry.REGISTRY[name].kind == "read"]
    writes = [name for name in names if registry.REGISTRY[name].kind == "write"]
    deletes = [name for name in writes if name.lower().startswith(("delete", "remove"))]
    return [*reads, *[name for name in writes if name not in deletes], *reads, *deletes]


def test_no_tool_returns_the_journal_s_words(ana):
    write_the_journal(ana)
    # Each row by its id alone: a delete tool run on one (a step, a habit) leaves the id to try again.
    life = {key: SimpleNamespace(id=row.id) for key, row in build_a_life(ana).items()}
    chat = assistant.create_chat(ana, "Privacy")
    called = set()
    for name in in_the_order_that_keeps_the_rows(sorted(registry.REGISTRY)):
        for arguments in calls_for(name, life):
            context = registry.ToolContext(user=ana, chat=chat, page="/mood", focus_entry_id=life["entry"].id)
            outcome = tool_calls.run(context, name, arguments)
            assert CANARY not in outcome.as_model_content, (name, arguments)
            called.add(name)
    assert called == set(registry.REGISTRY)
    history = tool_calls.run(registry.ToolContext(user=ana, chat=chat), "getUserMoodHistory", {"days": 7}).result
    assert [day["has_text"] for day in history["days"]] == [True, True]  # the words exist; the tool only says so


def pages_the_assistant_is_opened_from(entry_id):
    """Every navigation area's page, the mood page on a past day, Focus mode, and no page at all."""
    return [*(area.url for area in AREAS), "/mood?day=2026-01-01", "/focus", f"/focus/{entry_id}", "", None]


def test_no_request_the_assistant_builds_carries_the_journal(app, ana):
    write_the_journal(ana)
    entry = build_a_life(ana)["entry"]
    chat = assistant.create_chat(ana, "Privacy")
    assistant.set_global_note(ana, "Likes short answers; journals most evenings.")
    assistant.set_chat_note(ana, chat.id, "Talking about how the week felt.")
    with app.test_request_context():
        pages = pages_the_assistant_is_opened_from(entry.id)
    built = 0
    for page in pages:
        for focus in (None, entry.id):
            turn = assistant.start_turn(ana, chat.id, "How was my mood this week?", page=page, focus_entry_id=focus)
            request = prompt.request_for(ana, chat, turn, [])
            specs = [f"{spec.name} {spec.description} {spec.args_model.model_json_schema()}" for spec in request.tools]
            system = str(request.system)
            sent = [system, *(message.model_dump_json() for message in request.messages), *specs]
            assert "Likes short answers" in system and "how the week felt" in system
            assert all(CANARY not in part for part in sent), (page, focus)
            built += 1
    assert built == 2 * len(pages)


def test_a_real_turn_sends_no_journal_word_to_the_provider(agent_app, fake):
    make_user(agent_app)
    with agent_app.app_context():
        write_the_journal(db.session.scalar(db.select(User)))
    client = AgentClient(agent_app)
    fake.script(
        "mistral",
        Reply.calls(FakeCall("getUserMoodHistory", {"days": 30})),
        Reply.calls(FakeCall("logDailyMood", {"level": 4, "note": "Feeling lighter"})),
        Reply.says("Your week had two low days, and you wrote on both."),
    )
    client.stream(client.send_ok(client.new_chat(), "How was my week? Log a 4 for today.", page="/mood"))
    requests = [json.dumps(request.body, ensure_ascii=False) for request in fake.requests("mistral")]
    assert len(requests) == 3 and "has_text" in requests[1]  # both tools ran and their results went back
    assert all(CANARY not in body for body in requests)


def test_the_daily_briefing_carries_mood_levels_and_never_the_journal(ana):
    write_the_journal(ana)
    facts = briefing.facts(ana)
    request = briefing.request_for(ana, facts)
    sent = [json.dumps(facts, ensure_ascii=False), request.system,
            *(message.model_dump_json() for message in request.messages)]  # fmt: skip
    assert [day["level"] for day in facts["mood"]["levels"]] == [4, 2]  # the levels are there
    assert all(CANARY not in part for part in sent)


def test_a_real_briefing_sends_no_journal_word_to_the_provider(agent_app, fake):
    make_user(agent_app)
    with agent_app.app_context():
        write_the_journal(db.session.scalar(db.select(User)))
    fake.script("mistral", Reply.says(json.dumps({"picks": [{"signal": "mood", "meaning": "A softer week."}]})))
    page = AgentClient(agent_app).http.get("/daily-briefing").get_data(as_text=True)
    assert "A softer week." in page and CANARY not in page
    (request,) = fake.requests("mistral")
    assert CANARY not in json.dumps(request.body, ensure_ascii=False)


# The code: one function returns the words, and only the mood page calls it -----------------------

JOURNAL_READER = "read_journal"
READER_HOME = "app/mood/services.py"
ALLOWED_CALLERS = {"app/mood/routes.py"}
# Where the `journal` column itself may be read: its model, its service, and the owner's own export.
JOURNAL_COLUMN_READERS = {"app/mood/models.py", "app/mood/services.py", "app/mood/export.py"}


def _python_files():
    return sorted(path for path in (ROOT / "app").rglob("*.py"))


def _names_used(path):
    """Every attribute or plain name the module refers to (calls, references, imports)."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add(node.name.rsplit(".", 1)[-1])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and JOURNAL_READER in node.value:
            found.add(JOURNAL_READER)  # a getattr by name counts as a call
    return found


def test_only_the_mood_page_calls_the_one_function_that_returns_the_journal():
    callers = {str(path.relative_to(ROOT)) for path in _python_files() if JOURNAL_READER in _names_used(path)}
    assert callers - {READER_HOME} == ALLOWED_CALLERS


def test_the_journal_column_is_read_only_by_its_model_service_and_the_owner_s_export():
    readers = {str(path.relative_to(ROOT)) for path in _python_files() if "journal" in _names_used(path)}
    assert readers <= JOURNAL_COLUMN_READERS
    showing_the_words = {
        str(path.relative_to(ROOT))
        for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "app").glob("**/templates/**/*.html")]
        if re.search(r"\.journal\b|\[['\"]journal['\"]\]|get\(['\"]journal['\"]\)", path.read_text())
    }
    assert showing_the_words == {"app/mood/templates/mood/_entry.html"}


@pytest.mark.parametrize("name", ["history", "week", "month", "day_of", "log", "save"])
def test_every_other_reader_of_the_mood_answers_without_the_words(ana, name):
    write_the_journal(ana)
    current = today_for(ana)
    answers = {
        "history": lambda: mood.history(ana, 30),
        "week": lambda: mood.week(ana),
        "month": lambda: mood.month(ana, current.replace(day=1)),
        "day_of": lambda: mood.day_of(ana, current),
        "log": lambda: mood.log(ana, 3),
        "save": lambda: mood.save(ana, current - timedelta(days=1), 3, "new words"),
    }
    assert CANARY not in repr(answers[name]())
