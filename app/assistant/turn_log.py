"""The events of running turns, kept so any watcher can replay and follow them.

`send` appends an event and wakes the followers; `follow` yields events after a given id and
waits for more. In one process the log lives in memory; with BEYOU_REDIS_URL it lives in a Redis
stream, so a reconnect that lands on another worker process replays the same events. Logs expire
a while after their turn ends; a finished turn can always be replayed from the database.
"""

import json
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass

KEEP_SECONDS = 15 * 60


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


class MemoryTurnLog:
    """One lock for the log, one condition per turn: an event wakes that turn's watchers only
    (a thousand turns streaming would otherwise wake every watcher on every token)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._events = defaultdict(list)
        self._changed = {}  # turn id -> (the Condition its watchers wait on, how many wait)
        self._expiry = deque()  # (when, turn id) in the order the turns ended: KEEP_SECONDS is one for all

    def send(self, turn_id, name, data):
        with self._lock:
            events = self._events[str(turn_id)]
            event = Event(len(events) + 1, name, data)
            events.append(event)
            if event.terminal:
                self._forget_expired()
                self._expiry.append((time.monotonic() + KEEP_SECONDS, str(turn_id)))
            if str(turn_id) in self._changed:
                self._changed[str(turn_id)][0].notify_all()
        return event

    def read(self, turn_id, after, wait):
        """Events after id `after`; waits up to `wait` seconds for the first one."""
        deadline = time.monotonic() + wait
        key = str(turn_id)
        with self._lock:
            changed, watchers = self._changed.get(key) or (threading.Condition(self._lock), 0)
            self._changed[key] = (changed, watchers + 1)
            try:
                while True:
                    events = self._events[key][after:] if key in self._events else []
                    remaining = deadline - time.monotonic()
                    if events or remaining <= 0:
                        return events
                    changed.wait(remaining)
            finally:
                changed, watchers = self._changed[key]
                if watchers == 1:  # the last watcher leaves: its condition goes with it
                    del self._changed[key]
                else:
                    self._changed[key] = (changed, watchers - 1)

    def _forget_expired(self):
        now = time.monotonic()
        while self._expiry and self._expiry[0][0] < now:
            self._events.pop(self._expiry.popleft()[1], None)


class RedisTurnLog:
    """The log in Redis streams, followed with `XREAD BLOCK`.

    A blocked `XREAD` is a read on the client's socket like any other, so it must end before the
    client's socket timeout (redis-py: 5 s) or the watcher dies of a `TimeoutError` in every
    silent stretch. `read` therefore blocks in slices of at most half that timeout, until the
    caller's wait (the 15 s heartbeat) is over.
    """

    def __init__(self, url, prefix="beyou:turn:"):
        import redis

        self._redis = redis.Redis.from_url(url)
        self._prefix = prefix
        self._block_slice = None

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

    def send(self, turn_id, name, data):
        key = self._prefix + str(turn_id)
        event_id = self._redis.incr(key + ":seq")
        self._redis.xadd(key, {"id": event_id, "e": json.dumps([name, data])}, id=f"{event_id}-0")
        ttl = KEEP_SECONDS if name in ("done", "failed") else 2 * KEEP_SECONDS
        self._redis.expire(key, ttl)
        self._redis.expire(key + ":seq", ttl)
        return Event(event_id, name, data)

    def read(self, turn_id, after, wait):
        """Events after id `after`; waits up to `wait` seconds for the first one."""
        key = self._prefix + str(turn_id)
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            block = min(remaining, self._longest_block())
            answer = self._redis.xread({key: f"{after}-0"}, block=max(int(block * 1000), 1))
            events = [
                Event(int(fields[b"id"]), *json.loads(fields[b"e"]))
                for _stream, entries in answer or []
                for _id, fields in entries
            ]
            if events or time.monotonic() >= deadline:
                return events


def turn_log_for(redis_url):
    return RedisTurnLog(redis_url) if redis_url else MemoryTurnLog()


def init_app(app):
    """The app's turn log: in Redis when BEYOU_REDIS_URL is set, else in this process."""
    app.extensions["turn_log"] = turn_log_for(app.config.get("REDIS_URL"))
