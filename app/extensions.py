"""Flask extensions, created unbound and attached in create_app()."""

import contextlib
import socket
import sqlite3
import threading
import time

from flask_babel import Babel
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sock import Sock
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import Pool


class Base(DeclarativeBase):
    # Named constraints, so migrations can alter them on SQLite (batch mode) and PostgreSQL alike.
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
login_manager = LoginManager()
csrf = CSRFProtect()
babel = Babel()
sock = Sock()
limiter = Limiter(key_func=get_remote_address, default_limits=[])


@event.listens_for(Engine, "connect")
def _sqlite_enforces_foreign_keys(dbapi_connection, _record):
    """SQLite ignores ON DELETE rules unless asked; the domain relies on them (account deletion,
    refusing to delete a category in use). WAL lets background turns read while requests write."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        # Readers do not block the writer (a streaming turn reads while a page writes).
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: safe, and commits skip an fsync
        # A lock is waited for in Python (see PatientSqlite), not in SQLite's C busy handler:
        # under gevent that handler would freeze every greenlet of the worker while it waits.
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_SLICE_MS}")
        cursor.close()


@event.listens_for(Pool, "checkout")
def _hung_up(dbapi_connection, _record, _proxy):
    """pool_pre_ping's check without its round trip. A PostgreSQL server that ends a connection
    (a restart, an idle timeout, pg_terminate_backend) says so on its socket, which then has
    something to read (its goodbye, or the end); an idle connection that is still served has
    nothing. The pool discards a connection that fails this and hands out a fresh one."""
    pgconn = getattr(dbapi_connection, "pgconn", None)
    if pgconn is None:
        return  # SQLite: no server to hang up
    try:
        ended = dbapi_connection.broken or _waiting_to_be_read(pgconn.socket) is not None
    except Exception as error:  # a connection already closed has no socket left
        raise DisconnectionError("the database connection is gone") from error
    if ended:
        raise DisconnectionError("the database server ended the connection")


def _waiting_to_be_read(fd):
    """The first byte waiting on the socket (b"" at its end), or None, without reading it or
    waiting. A peek, not select(): a busy worker's sockets pass select's limit of 1,024."""
    probe = socket.socket(fileno=fd)
    try:
        probe.settimeout(0)  # libpq's sockets are non-blocking already: nothing changes for it
        return probe.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return None
    finally:
        probe.detach()  # the socket stays open: it is the connection's


# Waiting for another connection's SQLite write lock -----------------------------------------

SQLITE_BUSY_SLICE_MS = 20  # what one attempt may block the whole process for
SQLITE_PATIENCE_SECONDS = 5.0  # how long a statement waits for a lock, in all, by default
_patience = threading.local()  # a greenlet-local under gevent


@contextlib.contextmanager
def sqlite_patience(seconds):
    """Wait at most `seconds` for SQLite locks inside this block (on this thread or greenlet):
    writes that can be skipped and retried later (a turn's journal) ask for less."""
    before = getattr(_patience, "seconds", None)
    _patience.seconds = seconds
    try:
        yield
    finally:
        _patience.seconds = before


def _patiently(attempt, *args):
    """Run `attempt`; while SQLite answers "locked", sleep and try again — time.sleep yields to
    the other greenlets under gevent — until the patience runs out, then raise as SQLite would."""
    seconds = getattr(_patience, "seconds", None)
    deadline = time.monotonic() + (SQLITE_PATIENCE_SECONDS if seconds is None else seconds)
    pause = 0.005
    while True:
        try:
            return attempt(*args)
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


class PatientCursor(sqlite3.Cursor):
    def execute(self, sql, parameters=(), /):
        return _patiently(super().execute, sql, parameters)

    def executemany(self, sql, parameters, /):
        return _patiently(super().executemany, sql, parameters)


class PatientSqlite(sqlite3.Connection):
    """A SQLite connection that waits for locks cooperatively. A statement that found the
    database locked changed nothing, so trying it again is safe; pysqlite opens a transaction
    only at the first write, so no read snapshot goes stale between two attempts."""

    def cursor(self, factory=PatientCursor):
        return super().cursor(factory)

    def commit(self):
        return _patiently(super().commit)


@event.listens_for(Engine, "do_connect")
def _sqlite_waits_patiently(dialect, _record, _cargs, cparams):
    if dialect.name == "sqlite" and dialect.driver == "pysqlite":
        cparams.setdefault("factory", PatientSqlite)


# A PostgreSQL connection that goes silent ---------------------------------------------------

POSTGRES_KEEPALIVE = {  # libpq's parameters; the database URL's own query string wins over them
    "keepalives": 1,
    "keepalives_idle": 30,  # seconds idle before the first probe: NATs and firewalls keep the flow
    "keepalives_interval": 10,
    "keepalives_count": 3,  # a peer gone without a word is known within a minute of silence
    "tcp_user_timeout": 30_000,  # ms a sent statement may wait unacknowledged before it fails
}


@event.listens_for(Engine, "do_connect")
def _postgres_notices_silence(dialect, _record, _cargs, cparams):
    """A connection dropped without a word (a NAT's idle timeout, a cable, a host gone) says
    nothing on its socket, so `_hung_up` would pass it. With TCP keepalives the flow stays known
    to the NATs on the way, and a dead peer leaves an error on the socket within a minute, which
    `_hung_up`'s peek raises; a statement sent into the silence fails after `tcp_user_timeout`
    instead of the kernel's quarter of an hour of retransmissions."""
    if dialect.name == "postgresql":
        for name, value in POSTGRES_KEEPALIVE.items():
            cparams.setdefault(name, value)
