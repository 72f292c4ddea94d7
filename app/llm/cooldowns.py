"""Which links are resting after a failure, and until when.

In one process a dict is enough; with several workers the book lives in Redis so that a 429 seen
by one worker spares the others the same round trip. Redis being down never breaks a turn: the
book falls back to this process's memory.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger(__name__)

Clock = Callable[[], float]


@dataclass(frozen=True)
class Cooldown:
    until: float
    reason: str  # the failure's kind, and which limit or provider code, as the admin page says it


class MemoryCooldowns:
    def __init__(self, clock: Clock):
        self._clock = clock
        self._book: dict[str, Cooldown] = {}
        self._lock = threading.Lock()

    def enter(self, link: str, seconds: float, reason: str) -> Cooldown:
        cooldown = Cooldown(self._clock() + seconds, reason)
        with self._lock:
            self._book[link] = cooldown
        return cooldown

    def active(self, links: Iterable[str]) -> dict[str, Cooldown]:
        now = self._clock()
        with self._lock:
            return {lk: cd for lk in links if (cd := self._book.get(lk)) and cd.until > now}


class RedisCooldowns:
    """One key per link (`<prefix><link>` → `"<until> <reason>"`), expiring with the cooldown."""

    def __init__(self, url: str, prefix: str, clock: Clock):
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._prefix = prefix
        self._clock = clock
        self._fallback = MemoryCooldowns(clock)

    def enter(self, link: str, seconds: float, reason: str) -> Cooldown:
        cooldown = self._fallback.enter(link, seconds, reason)
        try:
            self._redis.set(self._prefix + link, f"{cooldown.until} {reason}", ex=max(1, math.ceil(seconds) + 1))
        except Exception as exc:  # Redis down: this process still remembers
            log.warning("cooldown for %s not shared through Redis: %s", link, exc)
        return cooldown

    def active(self, links: Iterable[str]) -> dict[str, Cooldown]:
        links = list(links)
        try:
            values = self._redis.mget([self._prefix + lk for lk in links])
        except Exception as exc:
            log.warning("shared cooldowns unreadable, using this process's: %s", exc)
            return self._fallback.active(links)
        now = self._clock()
        found = {}
        for link, raw in zip(links, values, strict=True):
            if raw is None:
                continue
            until, _, reason = raw.decode().partition(" ")
            if float(until) > now:
                found[link] = Cooldown(float(until), reason)
        return found


def cooldown_book(redis_url: str | None, prefix: str, clock: Clock) -> MemoryCooldowns | RedisCooldowns:
    return RedisCooldowns(redis_url, prefix, clock) if redis_url else MemoryCooldowns(clock)
