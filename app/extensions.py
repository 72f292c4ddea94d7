"""Flask extensions, created unbound and attached in create_app()."""

import contextlib
import socket
import sqlite3
import threading
import time

import flask_limiter
from flask_babel import Babel
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sock import Sock
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from limits.storage import MemoryStorage, MovingWindowSupport, RedisStorage, SlidingWindowCounterSupport, Storage
from limits.strategies import STRATEGIES
from sqlalchemy import MetaData, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import Pool

from app.redis_away import AWAY, Away


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


# Rate limits while Redis is away ---------------------------------------------------------


class RedisOrHere(Storage, MovingWindowSupport, SlidingWindowCounterSupport):
    """The rate limits' Redis storage, counted in this process while Redis does not answer.

    Every limit goes through the one storage — the pages' limits, the forms' per-IP limit, the
    sign-in waits (sign_in_throttle), the assistant's hourly budget and the doors' buckets — so every
    one degrades the same way: it keeps counting, per worker process, from zero. None fails
    closed (a Redis blip would refuse every sign-in and every message) and none fails wide open
    (a sign-in form would take unlimited guesses): a worker still refuses past the limit, so a
    user gets at most one limit per process while Redis is away. When Redis answers again its
    counts, kept from before, are the ones that hold. After a failed call Redis is asked again
    only AWAY_SECONDS later, so an outage costs one failed call per process and pause, not one
    per request.

    Not Flask-Limiter's own RATELIMIT_IN_MEMORY_FALLBACK_ENABLED: it switches storage only
    when a request's decorated limit fails (flask_limiter/_extension.py, `_check_request_limit`),
    and the sign-in waits, the budget and the buckets reach the storage directly.
    """

    STORAGE_SCHEME = None
    AWAY_SECONDS = 5

    def __init__(self, shared):
        super().__init__()
        self.shared = shared
        self.here = MemoryStorage()
        self._away = Away("rate limits", "counting in this process", pause=self.AWAY_SECONDS,
                          errors=shared.base_exceptions)  # fmt: skip

    @property
    def base_exceptions(self):
        return ()  # none leaves: a failing Redis is answered from here

    def _either(self, name, *args):
        answer = self._away.call(getattr(self.shared, name), *args)
        return getattr(self.here, name)(*args) if answer is AWAY else answer

    def incr(self, key, expiry, amount=1):
        return self._either("incr", key, expiry, amount)

    def get(self, key):
        return self._either("get", key)

    def get_expiry(self, key):
        return self._either("get_expiry", key)

    def clear(self, key):
        self.here.clear(key)
        return self._either("clear", key)

    def acquire_entry(self, key, limit, expiry, amount=1):
        return self._either("acquire_entry", key, limit, expiry, amount)

    def get_moving_window(self, key, limit, expiry):
        return self._either("get_moving_window", key, limit, expiry)

    def acquire_sliding_window_entry(self, key, limit, expiry, amount=1):
        return self._either("acquire_sliding_window_entry", key, limit, expiry, amount)

    def get_sliding_window(self, key, expiry):
        return self._either("get_sliding_window", key, expiry)

    def clear_sliding_window(self, key, expiry):
        self.here.clear_sliding_window(key, expiry)
        return self._either("clear_sliding_window", key, expiry)

    def check(self):
        """Whether Redis answers (the counts here always can)."""
        return self.shared.check()

    def reset(self):
        self.here.reset()
        return self._either("reset")


class Limiter(flask_limiter.Limiter):
    """Flask-Limiter whose Redis storage counts in this process while Redis is away (RedisOrHere)."""

    def init_app(self, app):
        super().init_app(app)
        if isinstance(self._storage, RedisStorage):
            self._storage = RedisOrHere(self._storage)
            self._limiter = STRATEGIES[self._strategy](self._storage)


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


@event.listens_for(Engine, "connect")
def _postgresql_waits_for_locks_as_sqlite_does(dbapi_connection, _record):
    """PostgreSQL waits for a row lock for ever unless told: a request behind a long transaction
    would hold its worker until the proxy gave up. Past SQLITE_PATIENCE_SECONDS the statement
    fails with lock_not_available, which the app answers as a busy 503 (`database_busy`)."""
    if getattr(dbapi_connection, "pgconn", None) is None:
        return
    with dbapi_connection.cursor() as cursor:
        cursor.execute(f"SET lock_timeout = {int(SQLITE_PATIENCE_SECONDS * 1000)}")
    dbapi_connection.commit()


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


def database_busy(error):
    """Whether a database error means "busy now, try again", which no request can fix by itself:
    SQLite's write lock outlasted the patience above, or PostgreSQL gave up on a lock
    (lock_timeout), a statement (statement_timeout), a serializable transaction or a deadlock.
    The statement changed nothing; the transaction is to be rolled back."""
    cause = getattr(error, "orig", error)  # SQLAlchemy's wrapper, or the driver's own error
    if isinstance(cause, sqlite3.OperationalError):
        return "locked" in str(cause)
    return getattr(cause, "sqlstate", None) in POSTGRES_BUSY


POSTGRES_BUSY = {
    "55P03": "lock_not_available",  # NOWAIT, or lock_timeout passed
    "57014": "query_canceled",  # statement_timeout passed
    "40001": "serialization_failure",
    "40P01": "deadlock_detected",  # PostgreSQL ended this transaction to free the other one
}


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
