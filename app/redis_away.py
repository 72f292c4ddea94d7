"""A Redis that may be away: what each Redis-backed piece does when Redis stops answering.

The rate limits' storage (extensions.RedisOrHere), the stream slots and the turn log all carry on
without Redis, each in its own way (counting in this process, relaying later). What they share is
here: they say once that Redis went away and once that it is back, not at every failed call, and
after a failed call they ask it again only `pause` seconds later, so an outage costs one failed
call per process and pause, not one per request (docs/production.md, "When Redis is away").
"""

import logging
import time

log = logging.getLogger("beyou.redis")

AWAY = object()  # what `Away.call` answers instead of Redis's answer while Redis is away


class Away:
    """One piece's view of Redis: `what` names the piece in the log, `meanwhile` says what it does
    while Redis is away."""

    def __init__(self, what, meanwhile, *, pause=0.0, errors=()):
        self.what, self.meanwhile, self.pause, self.errors = what, meanwhile, pause, errors
        self._since = None  # when Redis went away, while it is
        self._ask_at = 0.0

    def call(self, call, *args, **kwargs):
        """`call(*args, **kwargs)` on Redis, or AWAY when it fails or failed less than a pause ago."""
        if time.monotonic() < self._ask_at:
            return AWAY
        try:
            answer = call(*args, **kwargs)
        except self.errors:
            self.began()
            return AWAY
        self.over()
        return answer

    def began(self):
        """A call to Redis failed (inside its `except`: the log line carries the error)."""
        self._ask_at = time.monotonic() + self.pause
        if self._since is None:
            self._since = time.monotonic()
            log.warning("%s: Redis is away; %s", self.what, self.meanwhile, exc_info=True)

    def over(self):
        """A call to Redis succeeded."""
        if self._since is not None:
            log.warning("%s: Redis is back after %.1f s", self.what, time.monotonic() - self._since)
            self._since = None
