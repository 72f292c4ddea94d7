"""The events of running turns, kept so any watcher can replay and follow them.

`send` appends an event and wakes the followers; `read` returns events after a given id and
waits for more. In one process the log lives in memory; with BEYOU_REDIS_URL it is also copied
into a Redis stream, so a reconnect that lands on another worker process replays the same events.
Logs expire a while after their turn ends; a finished turn can always be replayed from the
database, which is the record (the runner journals to it): Redis is a relay that may be away.
"""

import json
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass

from app import daemons
from app.redis_away import Away

log = logging.getLogger("beyou.agent")

KEEP_SECONDS = 15 * 60
# With Redis, a worker's own copy of a turn it ran, after the turn ended: its watchers' last
# reads. Later ones read Redis, or the database (the record) when Redis lost it.
HERE_KEEP_SECONDS = 60


@dataclass(frozen=True)
class Event:
    id: int
    # token | tool | done | failed. Not `error`: EventSource reserves that name for its own
    # connection failures, and the htmx SSE extension would log and handle a turn's ending as one.
    name: str
    data: str  # the HTML fragment the SSE extension swaps in

    @property
    def terminal(self):
        return self.name in ("done", "failed")


def _condition():
    """A condition over a reentrant lock. Over a plain lock, a condition asks whether it holds
    the lock by trying to take it again; under gevent a failed try yields to the other greenlets,
    while the lock is held, on every notify and every wait. Hundreds of runners sending at once
    then queue behind each other on a lock nobody is using."""
    return threading.Condition(threading.RLock())


class _Turn:
    """One turn's events and the condition its watchers wait on."""

    __slots__ = ("changed", "events")

    def __init__(self):
        self.events = []
        self.changed = _condition()


class MemoryTurnLog:
    """A lock and a condition per turn: a runner's event takes its own turn's lock and wakes its
    own watchers only, so a thousand turns streaming neither wake every watcher on every token
    nor queue on one lock. The table of turns has a lock of its own, taken when a turn appears
    or expires."""

    relay_lag = 0  # an event is here as soon as it is sent

    def __init__(self, keep_seconds=KEEP_SECONDS):
        self.keep_seconds = keep_seconds
        self._lock = _condition()  # the table; notified when a turn appears, for watchers who came first
        self._turns = {}  # turn id -> _Turn
        self._expiry = deque()  # (when, turn id) in the order the turns ended: keep_seconds is one for all

    def begin(self, turn_id):
        """A turn about to run: from now on the log holds it (its watchers wait here for its first event)."""
        self._turn(str(turn_id))

    def holds(self, turn_id):
        return str(turn_id) in self._turns

    def events(self, turn_id, after=0):
        """The turn's events after id `after`, without waiting (a copy)."""
        turn = self._turns.get(str(turn_id))
        if turn is None:
            return []
        with turn.changed:
            return turn.events[after:]

    def send(self, turn_id, name, data):
        key = str(turn_id)
        turn = self._turn(key)
        with turn.changed:
            event = Event(len(turn.events) + 1, name, data)
            turn.events.append(event)
            turn.changed.notify_all()
        if event.terminal:
            with self._lock:
                self._forget_expired()
                self._expiry.append((time.monotonic() + self.keep_seconds, key))
        return event

    def read(self, turn_id, after, wait):
        """Events after id `after`; waits up to `wait` seconds for the first one."""
        deadline = time.monotonic() + wait
        turn = self._turns.get(str(turn_id)) or self._arrival(str(turn_id), deadline)
        if turn is None:
            return []
        with turn.changed:
            while True:
                events = turn.events[after:]
                remaining = deadline - time.monotonic()
                if events or remaining <= 0:
                    return events
                turn.changed.wait(remaining)

    def _turn(self, key):
        turn = self._turns.get(key)
        if turn is None:
            with self._lock:
                turn = self._turns.get(key)
                if turn is None:
                    turn = self._turns[key] = _Turn()
                    self._lock.notify_all()
        return turn

    def _arrival(self, key, deadline):
        """The turn once this log holds it, or None if it did not come before the deadline."""
        with self._lock:
            while key not in self._turns:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._lock.wait(remaining)
            return self._turns[key]

    def _forget_expired(self):
        now = time.monotonic()
        while self._expiry and self._expiry[0][0] < now:
            self._turns.pop(self._expiry.popleft()[1], None)


class RedisTurnLog:
    """The log in Redis streams, filled from this process's copy and followed with `XREAD BLOCK`.

    The turns this process runs keep their events here, in memory (a `MemoryTurnLog`, until a
    minute after they end): the runner's `send` only appends to it, and one flusher thread
    copies what is new into Redis. So a Redis that restarts or stays away for a while never
    stops a turn or loses a word: the runner goes on, the watchers in this process read the copy
    here, and when Redis answers again the flusher catches its streams up — from the first event
    when Redis came back empty.
    Event ids are numbered here, by the turn's only runner, so a rebuilt stream has the ids the
    watchers already know, and `Last-Event-ID` resumes with nothing missing and nothing twice.

    A blocked `XREAD` is a read on the client's socket like any other, so it must end before the
    client's socket timeout (redis-py: 5 s) or the watcher dies of a `TimeoutError` in every
    silent stretch. `read` therefore blocks in slices of at most half that timeout, until the
    caller's wait (the 15 s heartbeat) is over. A watcher whose Redis is away waits out its beat
    and tries again: its stream stays open, and the database answers once the turn has ended.
    """

    # Appends a batch of events after the `ARGV[1]` this process knows the stream holds; any
    # other length (a Redis that came back empty, or an append whose answer was lost) is
    # returned instead, and the flusher starts again from there.
    _APPEND = """
    local have = redis.call('XLEN', KEYS[1])
    if have ~= tonumber(ARGV[1]) then return have end
    for i = 3, #ARGV, 2 do redis.call('XADD', KEYS[1], ARGV[i], 'e', ARGV[i + 1]) end
    redis.call('EXPIRE', KEYS[1], ARGV[2])
    return -1
    """
    # How long an event may trail the database's record of it: the flusher's longest pause
    # while Redis comes back, and a little. A watcher told by the database that the turn ended
    # waits this long for the log's own ending before answering from the record.
    relay_lag = 1.5
    BATCH = 500  # events per append: a stream rebuilt after a restart goes in a few round trips
    FLUSH_EVERY = 0.005  # the flusher's pause after a round trip: the turns' next events go together
    RETRY_SECONDS = (0.1, 0.25, 0.5, 1.0)  # the flusher's pauses while Redis is away
    AWAY_PAUSE = 0.25  # a watcher's pause between two reads that found Redis away

    def __init__(self, url, prefix="beyou:turn:"):
        import redis

        # A Redis host that vanished (not just a stopped server) must fail a connect quickly.
        self._redis = redis.Redis.from_url(url, socket_connect_timeout=2)
        self._errors = redis.RedisError
        self._append = self._redis.register_script(self._APPEND)
        self._prefix = prefix
        self._block_slice = None
        self._here = MemoryTurnLog(HERE_KEEP_SECONDS)  # the turns this process runs
        self._lock = _condition()  # notified when a turn has events to flush
        self._unflushed = set()  # turn ids with events Redis may not hold yet
        self._flushed = {}  # turn id -> how many of its events Redis holds
        self._flusher_started = False
        self._away = Away("turn log", "carrying on without it")

    def begin(self, turn_id):
        """This process runs the turn: its watchers here read the copy here from now on."""
        self._here.begin(turn_id)

    def send(self, turn_id, name, data):
        event = self._here.send(turn_id, name, data)
        with self._lock:
            self._unflushed.add(str(turn_id))
            self._lock.notify()
            if not self._flusher_started:
                self._flusher_started = True
                daemons.start(self._flush_forever, "turn-log-flusher")
        return event

    def read(self, turn_id, after, wait):
        """Events after id `after`; waits up to `wait` seconds for the first one."""
        if self._here.holds(turn_id):
            return self._here.read(turn_id, after, wait)
        key = self._prefix + str(turn_id)
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            try:
                block = min(remaining, self._longest_block())
                answer = self._redis.xread({key: f"{after}-0"}, block=max(int(block * 1000), 1))
                self._away.over()
            except self._errors:
                self._away.began()
                time.sleep(max(min(self.AWAY_PAUSE, deadline - time.monotonic()), 0))
                answer = None
            events = [
                Event(int(entry_id.split(b"-")[0]), *json.loads(fields[b"e"]))
                for _stream, entries in answer or []
                for entry_id, fields in entries
            ]
            if events or time.monotonic() >= deadline:
                return events

    def _longest_block(self):
        """Half the client's socket timeout (read from a connection: the defaults live there)."""
        if self._block_slice is None:
            pool = self._redis.connection_pool
            connection = pool.get_connection()
            try:
                socket_timeout = connection.socket_timeout
            finally:
                pool.release(connection)
            self._block_slice = socket_timeout / 2 if socket_timeout else float("inf")
        return self._block_slice

    # The flusher: this process's events into Redis, whenever Redis is there ------------------

    def _flush_forever(self):
        failures = 0
        while True:
            with self._lock:
                while not self._unflushed:
                    self._lock.wait()
                turns = list(self._unflushed)
            try:
                self._flush(turns)
                self._away.over()
                failures = 0
            except self._errors:
                self._away.began()
                time.sleep(self.RETRY_SECONDS[min(failures, len(self.RETRY_SECONDS) - 1)])
                failures += 1
            else:
                time.sleep(self.FLUSH_EVERY)  # what the turns send meanwhile goes in the next round trip

    def _flush(self, turns):
        """One round trip for every turn with new events: a batch of each, appended by the script
        (a turn whose batch Redis refuses is dropped from the relay: its watchers here still read
        the copy here; elsewhere, the database ends it)."""
        batches = []
        pipe = self._redis.pipeline(transaction=False)
        for turn_id in turns:
            flushed = self._flushed.get(turn_id, 0)
            pending = self._here.events(turn_id, after=flushed)
            batch = pending[: self.BATCH]
            if batch:
                ttl = KEEP_SECONDS if batch[-1].terminal else 2 * KEEP_SECONDS
                fields = [item for e in batch for item in (f"{e.id}-0", json.dumps([e.name, e.data]))]
                self._append(keys=[self._prefix + turn_id], args=[flushed, ttl, *fields], client=pipe)
            batches.append((turn_id, flushed, pending, batch))
        answers = iter(pipe.execute(raise_on_error=False))
        for turn_id, flushed, pending, batch in batches:
            ended = False
            if batch:
                have = next(answers)
                if isinstance(have, Exception):
                    log.error("turn %s: its events could not be relayed to Redis: %s", turn_id, have)
                    with self._lock:
                        self._unflushed.discard(turn_id)
                        self._flushed.pop(turn_id, None)
                    continue
                if have == -1:
                    flushed, ended = flushed + len(batch), batch[-1].terminal
                else:  # Redis lost some (a restart) or kept a batch whose answer was lost: go on from there
                    flushed = min(have, flushed + len(pending))
                self._flushed[turn_id] = flushed
            with self._lock:
                if not self._here.events(turn_id, after=flushed):  # nothing new came meanwhile
                    self._unflushed.discard(turn_id)
                    if ended:
                        self._flushed.pop(turn_id, None)  # ended: the database is its record from here


def turn_log_for(redis_url):
    return RedisTurnLog(redis_url) if redis_url else MemoryTurnLog()


def init_app(app):
    """The app's turn log: in Redis when BEYOU_REDIS_URL is set, else in this process."""
    app.extensions["turn_log"] = turn_log_for(app.config.get("REDIS_URL"))
