"""Each statement of the privacy page, proved.

- A real turn over the wire fake, in which the model calls every read tool the registry holds,
  sends no e-mail, no password hash, nothing of another user and no journal word.
- A blocked link receives zero bytes: its address is a socket that must never be connected to.
- Someone who never opens the assistant causes no provider call, whatever pages they use.
- The export carries every table of every domain, or the domain says why it leaves one out;
  every row the demo life writes is in the file.
- Deleting an account leaves no row of it in any table, and every other account's rows intact.

Tools, pages, sections and tables are read from the registry, the navigation and the metadata,
so what other domains add later is covered without editing this file.
"""

import json
import socket
import uuid

import pytest

from app import demo, domains
from app.agent import registry, toolsets
from app.categories import services as categories
from app.extensions import db
from app.habits import services as habits
from app.ideas import services as ideas
from app.mood import services as mood
from app.profile import accounts, configuration
from app.profile.models import User
from app.shared.days import today_for
from app.web.navigation import AREAS
from tests.assistant.conftest import AgentClient, Reply, chain_env, make_user, wait_for_turn
from tests.assistant.test_tools import build_a_life
from tests.conftest import PASSWORD
from tests.fakes.script import FakeCall
from tests.mood.test_journal_privacy import sampled_arguments

JOURNAL = f"journal-{uuid.uuid4().hex}"
BRUNO_SECRET = f"bruno-{uuid.uuid4().hex}"


def _people(app):
    """Ana (who asks) with a journal and a life; Bruno (who must never show up) with his own."""
    make_user(app)
    make_user(app, email="bruno@example.com", name="Bruno")
    with app.app_context():
        ana = db.session.scalar(db.select(User).where(User.email == "ana@example.com"))
        bruno = db.session.scalar(db.select(User).where(User.email == "bruno@example.com"))
        life = build_a_life(ana)
        ideas.create(ana, "Call the bank")
        mood.save(ana, today_for(ana), 2, f"Only for me: {JOURNAL}")
        shelf = categories.create(bruno, name=f"Shelf {BRUNO_SECRET}", icon="book")
        habits.create(bruno, name=f"Habit {BRUNO_SECRET}", importance=1, difficulty=1, categories=[shelf.id])
        ideas.create(bruno, f"Note {BRUNO_SECRET}")
        mood.save(bruno, today_for(bruno), 4, f"Bruno's words {BRUNO_SECRET}")
        own = {"entry_id": str(life["entry"].id), "routine": str(life["routine"].id)}
        reads = {name: sampled_arguments(tool, own) for name, tool in registry.REGISTRY.items()
                 if tool.kind == "read" and name != toolsets.DISCOVERY}  # fmt: skip
        return ana.password_hash, reads


def test_a_real_turn_carries_no_email_no_password_hash_no_other_user_and_no_journal(agent_app, fake):
    password_hash, reads = _people(agent_app)
    every_toolset = [toolset.domain for toolset in toolsets.OFFERED]
    fake.script(
        "mistral",
        Reply.calls(FakeCall(toolsets.DISCOVERY, {"toolsets": every_toolset})),
        Reply.calls(*(FakeCall(name, arguments) for name, arguments in reads.items())),
        Reply.says("Here is everything I looked up."),
    )
    client = AgentClient(agent_app)
    turn = client.send_ok(client.new_chat(), "Tell me everything about my account.", page="/dashboard")
    client.stream(turn)
    sent = [json.dumps(request.body, ensure_ascii=False) for request in fake.requests("mistral")]
    assert len(sent) == 3
    last = sent[-1]
    assert "Ana" in sent[0] and "Call the bank" in last and "Run" in last  # what the page says goes, went
    assert all(f'"{name}"' in last for name in reads)  # every read tool ran and its result went back
    for body in sent:
        for never in ("ana@example.com", password_hash, "bruno@example.com", "Bruno", BRUNO_SECRET, JOURNAL):
            assert never not in body, never


@pytest.fixture
def listener():
    """A TCP socket that accepts nothing by itself: a connection to it would wait in its backlog."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def test_a_blocked_link_receives_zero_bytes(make_agent_app, fake, listener):
    port = listener.getsockname()[1]
    env = {
        **chain_env(fake, "mistral,deepseek,gemini"),
        "BEYOU_LLM_BLOCKED": "deepseek",
        "BEYOU_LLM_DEEPSEEK_BASE_URL": f"http://127.0.0.1:{port}/v1",
    }
    app = make_agent_app(LLM_ENV=env)
    make_user(app)
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.says("Answered by the next allowed link."))
    client = AgentClient(app)
    turn = client.send_ok(client.new_chat(), "My diary, please keep it close.")
    client.stream(turn)
    wait_for_turn(app, turn)
    assert len(fake.requests("mistral")) == 1 and len(fake.requests("gemini")) == 1  # the chain did fall through
    with pytest.raises(BlockingIOError):
        listener.accept()  # no connection was ever made to the blocked link's address
    assert client.http.get("/privacy").get_data(as_text=True).count('data-state="blocked"') == 1


def test_no_provider_call_for_someone_who_never_opens_the_assistant(agent_app, fake):
    make_user(agent_app)
    with agent_app.app_context():
        demo.give_a_life(db.session.scalar(db.select(User)))  # a life written through every domain's service
    with agent_app.test_request_context():
        pages = [area.url for area in AREAS]
    client = AgentClient(agent_app)
    for page in [*pages, "/privacy", "/configuration/export"]:
        assert client.http.get(page).status_code == 200, page
    assert client.post("/ideas", text="A thought").status_code < 400
    assert client.post("/feedback", kind="OTHER", text="Lovely app, thank you").status_code < 400
    assert fake.requests() == []


# Export and deletion ---------------------------------------------------------------------------------


def test_every_table_of_every_domain_is_exported_or_declared_left_out_with_a_reason():
    for domain in domains.DOMAINS:
        exported = {table for tables in domain.export.values() for table in tables}
        assert set(domain.tables) <= exported | set(domain.not_exported), domain.name
        assert all(reason.strip() for reason in domain.not_exported.values()), domain.name
    every_table = set(db.metadata.tables)
    assert every_table == {table for domain in domains.DOMAINS for table in domain.tables}


def _owned_rows(table, user_id):
    """The rows of `table` that belong to the user: by their user_id, or by a parent that has one."""
    if "user_id" in table.c:
        return db.session.execute(db.select(table).where(table.c.user_id == user_id)).all()
    for key in table.foreign_keys:
        parent = key.column.table
        if "user_id" in parent.c:
            owners = db.select(parent.c.id).where(parent.c.user_id == user_id)
            return db.session.execute(db.select(table).where(key.parent.in_(owners))).all()
    return []


def domains_tables(section):
    return {table for domain in domains.DOMAINS for table in domain.export.get(section, ())}


def _demo_user():
    user, _created = accounts.ensure_demo_account("demo@example.com", PASSWORD)
    demo.give_a_life(user)
    return user


def test_the_export_carries_every_row_of_every_exported_table(demo_account):
    user = demo_account
    data = configuration.export(user)
    assert list(data) == ["exported_at", *configuration.export_sections(), "not_included"]
    text = json.dumps(data)
    exported_tables = {table for domain in domains.DOMAINS for tables in domain.export.values() for table in tables}
    checked = set()
    for name in sorted(exported_tables):
        table = db.metadata.tables[name]
        rows = _owned_rows(table, user.id)
        if not rows:
            continue
        checked.add(name)
        ids = [str(row._mapping["id"]) for row in rows] if "id" in table.c else []
        if any(row_id in text for row_id in ids):
            assert all(row_id in text for row_id in ids), name  # a table whose rows carry their ids: each one
        else:
            sections = [s for d in domains.DOMAINS for s, tables in d.export.items() if name in tables]
            assert sections, name
            (section,) = sections
            if domains_tables(section) == {name}:
                assert len(data[section]) == len(rows), name  # one record per row
            else:
                assert data[section], name
    assert len(checked) >= len(exported_tables) // 2  # the demo life fills most of them


def test_deleting_an_account_leaves_no_row_of_it_and_every_other_row_intact(app_context, ana):
    build_a_life(ana)
    user = _demo_user()
    user_id = user.id
    others_before = {name: len(_owned_rows(table, ana.id)) for name, table in db.metadata.tables.items()}
    assert sum(len(_owned_rows(table, user_id)) for table in db.metadata.tables.values()) > 50
    configuration.delete_account(user, PASSWORD, "DELETE")
    db.session.expire_all()
    assert db.session.get(User, user_id) is None
    left = {name: len(_owned_rows(table, user_id)) for name, table in db.metadata.tables.items()}
    assert {name: count for name, count in left.items() if count} == {}
    assert {name: len(_owned_rows(table, ana.id)) for name, table in db.metadata.tables.items()} == others_before
