"""A pooled PostgreSQL connection the server has ended (a restart, an idle timeout, an
administrator) is replaced at checkout, not handed to a request that would then fail. The check
reads the connection's socket instead of sending pool_pre_ping's SELECT 1 on every checkout; a
connection that goes silent without a word leaves an error there too, through TCP keepalives."""

import os
import socket
import time

import pytest
import sqlalchemy as sa

from app.extensions import db
from app.profile.models import User
from tests.conftest import TEST_DATABASE_URL

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="a server that ends connections: PostgreSQL"
)


OTHERS = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"


def end_every_other_connection():
    """What a server restart does to the app's pool, from a connection of its own."""
    server = sa.create_engine(TEST_DATABASE_URL, poolclass=sa.pool.NullPool)
    with server.connect() as connection:
        ended = connection.execute(sa.text(f"SELECT pg_terminate_backend(pid) {OTHERS}")).all()
        deadline = time.monotonic() + 10
        while connection.scalar(sa.text(f"SELECT count(*) {OTHERS}")) and time.monotonic() < deadline:
            time.sleep(0.05)
    server.dispose()
    return len(ended)


def test_a_connection_the_server_ended_is_replaced_at_checkout(app, user_id):
    with app.app_context():
        ended = db.session.scalar(sa.text("SELECT pg_backend_pid()"))
        db.session.remove()  # back in the pool, idle
    assert end_every_other_connection() >= 1

    with app.app_context():
        assert db.session.get(User, user_id) is not None  # no OperationalError: a fresh connection
        assert db.session.scalar(sa.text("SELECT pg_backend_pid()")) != ended


def test_a_connection_past_select_s_limit_of_1024_is_checked_too(app, user_id):
    """A worker holding thousands of streams has its database sockets past 1,024, the limit of
    select(); the check peeks at the socket instead, so it works there."""
    with app.app_context():
        db.engine.dispose()  # the next connection is opened past the files held below
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with app.app_context():
            assert db.session.get(User, user_id) is not None
            assert db.session.connection().connection.dbapi_connection.pgconn.socket > 1024
            db.session.remove()
        with app.app_context():  # checked out again from the pool, and checked
            assert db.session.get(User, user_id) is not None
    finally:
        for fd in held:
            os.close(fd)
        with app.app_context():
            db.engine.dispose()


def test_a_pooled_connection_probes_a_silent_peer_and_gives_up_on_unacknowledged_statements(app):
    """The socket's own options, as the kernel holds them: keepalive probes after 30 s idle,
    every 10 s, three of them; a statement unacknowledged for 30 s fails."""
    with app.app_context():
        fd = db.session.connection().connection.dbapi_connection.pgconn.socket
        probe = socket.socket(fileno=os.dup(fd))
        try:
            options = {
                name: probe.getsockopt(level, option)
                for name, level, option in [
                    ("keepalive", socket.SOL_SOCKET, socket.SO_KEEPALIVE),
                    ("idle", socket.IPPROTO_TCP, socket.TCP_KEEPIDLE),
                    ("interval", socket.IPPROTO_TCP, socket.TCP_KEEPINTVL),
                    ("count", socket.IPPROTO_TCP, socket.TCP_KEEPCNT),
                    ("user timeout ms", socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT),
                ]
            }
        finally:
            probe.close()
        db.session.remove()
    assert options == {"keepalive": 1, "idle": 30, "interval": 10, "count": 3, "user timeout ms": 30_000}
