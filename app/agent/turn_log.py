"""The events of running turns, kept so any watcher can replay and follow them.

`send` appends an event and wakes the followers; `follow` yields events after a given id and
waits for more. In one process the log lives in memory; with BEYOU_REDIS_URL it lives in a Redis
stream, so a reconnect that lands on another worker process replays the same events. Logs expire
a while after their turn ends; a finished turn can always be replayed from the database.
"""

import json
import threading
import time
from collections import defaultdict
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
    def __init__(self):
        self._events = defaultdict(list)
        self._expiry = {}
        self._changed = threading.Condition()

    def send(self, turn_id, name, data):
        with self._changed:
            events = self._events[str(turn_id)]
            event = Event(len(events) + 1, name, data)
            events.append(event)
            if event.terminal:
                self._expiry[str(turn_id)] = time.monotonic() + KEEP_SECONDS
            self._changed.notify_all()
        return event

    def read(self, turn_id, after, wait):
        """Events after id `after`; waits up to `wait` seconds for the first one."""
        deadline = time.monotonic() + wait
        with self._changed:
            self._forget_expired()
            while True:
                events = self._events.get(str(turn_id), [])[after:]
                remaining = deadline - time.monotonic()
                if events or remaining <= 0:
                    return events
                self._changed.wait(remaining)

    def _forget_expired(self):
        now = time.monotonic()
        for turn_id in [t for t, until in self._expiry.items() if until < now]:
            self._events.pop(turn_id, None)
            self._expiry.pop(turn_id, None)


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
