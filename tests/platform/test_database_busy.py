"""A database too busy to take a write answers 503 with Retry-After, and loses nothing typed.

The lock is real: another connection holds SQLite's write lock (BEGIN IMMEDIATE) on the tests'
own file, with the patience cut to a fifth of a second, or a PostgreSQL row lock outlasts a
lock_timeout. An htmx form is left on the page as it was, the message arriving as a toast; a
plain form comes back as a button that sends the same values again.
"""

import html
import json
import logging
import re
import sqlite3
from contextlib import contextmanager

import psycopg.errors
import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from app import extensions
from app.extensions import database_busy, db
from app.mood.models import MoodEntry
from app.notebook import services as notebook
from app.notebook.models.pages import NotebookTopic
from tests.builders import as_user
from tests.conftest import TEST_DATABASE_URL, csrf_token_from, hx, make_user, sign_in, standalone_app

BUSY = "The server is busy right now, and nothing was saved."
ON_SQLITE = pytest.mark.skipif(bool(TEST_DATABASE_URL), reason="SQLite's write lock (PostgreSQL: the row-lock test)")
ON_POSTGRESQL = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="a PostgreSQL row lock and lock_timeout"
)


@pytest.fixture
def sqlite_locked(app, monkeypatch):
    """Hold SQLite's write lock from a second connection while the block runs; a statement of the
    app's waits a fifth of a second for it."""
    monkeypatch.setattr(extensions, "SQLITE_PATIENCE_SECONDS", 0.2)
    path = sa.make_url(app.config["SQLALCHEMY_DATABASE_URI"]).database

    @contextmanager
    def locked():
        locker = sqlite3.connect(path, isolation_level=None)
        try:
            locker.execute("BEGIN IMMEDIATE")
            yield
        finally:
            locker.execute("ROLLBACK")
            locker.close()

    return locked


@pytest.fixture
def crashes():
    """The app's "unhandled error" log records, which a busy database must not write."""
    seen = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record) if record.getMessage() == "unhandled error" else None
    logging.getLogger("beyou.web").addHandler(handler)
    yield seen
    logging.getLogger("beyou.web").removeHandler(handler)


@pytest.fixture
def topic_id(app, user_id):
    with as_user(app, user_id) as user:
        return notebook.create_topic(user, "Biology").id


def topic_name(app, topic_id):
    with app.app_context():
        return db.session.get(NotebookTopic, topic_id).name


def toast_of(response):
    return json.loads(response.headers["HX-Trigger"])["toast"]


def send_again_form(response):
    """The values the busy page's "Send it again" form holds, and where it posts."""
    body = response.get_data(as_text=True)
    form = re.search(r'<form method="post" action="([^"]+)" data-testid="send-again">(.*?)</form>', body, re.S)
    assert form, "the busy page holds no form to send again"
    fields = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form.group(2))
    return html.unescape(form.group(1)), [(html.unescape(name), html.unescape(value)) for name, value in fields]


def rename(client, topic_id, name):
    return client.post(f"/notebook/topics/{topic_id}/rename", data={"name": name}, headers=hx(client))


@ON_SQLITE
def test_a_locked_database_leaves_an_htmx_form_as_typed_and_says_nothing_was_saved(
    app, signed_in, topic_id, sqlite_locked, crashes
):
    with sqlite_locked():
        response = rename(signed_in, topic_id, "Cell biology")
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert response.headers["HX-Reswap"] == "none" and response.get_data() == b""  # the dialog keeps its text
    assert BUSY in toast_of(response)["message"] and toast_of(response)["kind"] == "error"
    assert topic_name(app, topic_id) == "Biology"
    assert crashes == []
    assert rename(signed_in, topic_id, "Cell biology").status_code == 204  # the session was rolled back


@ON_SQLITE
def test_a_locked_database_hands_a_plain_form_back_ready_to_be_sent_again(app, signed_in, user_id, sqlite_locked):
    journal = 'A calm day, "quoted" & <b>kept</b>\nover two lines'
    with sqlite_locked():
        busy = signed_in.post("/mood", data={"level": "4", "journal": journal}, headers={"X-CSRFToken": signed_in.csrf})
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "2"
    assert BUSY in busy.get_data(as_text=True)
    action, fields = send_again_form(busy)
    assert action == "/mood" and ("journal", journal) in fields and ("level", "4") in fields
    with app.app_context():
        assert db.session.scalars(db.select(MoodEntry)).all() == []
    sent_again = signed_in.post(action, data=dict(fields))
    assert sent_again.status_code == 302
    with app.app_context():
        (entry,) = db.session.scalars(db.select(MoodEntry)).all()
        assert (entry.level, entry.journal) == (4, journal)


@ON_SQLITE
def test_the_busy_message_is_translated(app, signed_in, user_id, topic_id, sqlite_locked):
    with as_user(app, user_id) as user:
        user.language = "pt"
        db.session.commit()
    with sqlite_locked():
        response = rename(signed_in, topic_id, "Biologia celular")
    assert response.status_code == 503
    assert "O servidor está ocupado agora, e nada foi salvo." in toast_of(response)["message"]


@ON_POSTGRESQL
def test_a_row_lock_past_the_lock_timeout_is_a_503_not_a_500(app, signed_in, topic_id, crashes):
    with app.app_context():
        engine = db.engine

    def lock_timeout(connection):
        connection.exec_driver_sql("SET LOCAL lock_timeout = '200ms'")

    sa.event.listen(engine, "begin", lock_timeout)
    try:
        with engine.connect() as locker, locker.begin():
            locker.execute(sa.select(NotebookTopic).where(NotebookTopic.id == topic_id).with_for_update())
            response = rename(signed_in, topic_id, "Cell biology")
    finally:
        sa.event.remove(engine, "begin", lock_timeout)
    assert response.status_code == 503 and response.headers["HX-Reswap"] == "none"
    assert BUSY in toast_of(response)["message"]
    assert topic_name(app, topic_id) == "Biology"
    assert crashes == []


@ON_POSTGRESQL
def test_postgresql_waits_for_a_lock_as_long_as_sqlite_does(app):
    """Without a lock_timeout a row lock would hold a request (and its worker) for ever."""
    with app.app_context(), db.engine.connect() as connection:
        waits = connection.exec_driver_sql("SHOW lock_timeout").scalar()
    assert waits == f"{int(extensions.SQLITE_PATIENCE_SECONDS)}s"


def test_an_htmx_form_that_finds_no_connection_free_is_left_as_typed():
    """The pool's own 503 (every connection taken) keeps the form the same way."""
    app = standalone_app(SQLALCHEMY_ENGINE_OPTIONS={"pool_size": 1, "max_overflow": 0, "pool_timeout": 0.5})
    user_id = make_user(app)
    client = app.test_client()
    sign_in(client)
    client.csrf = csrf_token_from(client.get("/dashboard"))
    with as_user(app, user_id) as user:
        topic_id = notebook.create_topic(user, "Biology").id
    with app.app_context():
        engine = db.engine
    with engine.connect():  # the pool's only connection, held elsewhere
        response = rename(client, topic_id, "Cell biology")
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert response.headers["HX-Reswap"] == "none" and response.get_data() == b""
    assert "Your data is safe" in toast_of(response)["message"]
    assert topic_name(app, topic_id) == "Biology"


@pytest.mark.parametrize(
    "cause",
    [
        sqlite3.OperationalError("database is locked"),
        psycopg.errors.LockNotAvailable("canceling statement due to lock timeout"),
        psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
        psycopg.errors.SerializationFailure("could not serialize access due to concurrent update"),
        psycopg.errors.DeadlockDetected("deadlock detected"),
    ],
    ids=["sqlite-locked", "lock-timeout", "statement-timeout", "serialization", "deadlock"],
)
def test_a_lock_or_timeout_of_either_database_is_busy(cause):
    assert database_busy(OperationalError("UPDATE study_topics", {}, cause))


@pytest.mark.parametrize(
    "cause",
    [sqlite3.OperationalError("no such table: study_topics"), psycopg.errors.UndefinedTable("no such table")],
    ids=["sqlite", "postgresql"],
)
def test_any_other_database_failure_is_not_busy(cause):
    assert not database_busy(OperationalError("UPDATE study_topics", {}, cause))
