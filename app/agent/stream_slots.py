"""At most two live event streams per user, across every worker process.

A slot is a lease that the stream renews at every heartbeat; a process that dies without
releasing its slots frees them when the lease runs out, so the cap cannot drift.
"""

import threading
import time
import uuid

LEASE_SECONDS = 45


class MemoryStreamSlots:
    def __init__(self, cap):
        self.cap = cap
        self._leases = {}  # user id -> {slot id: expiry}
        self._lock = threading.Lock()

    def acquire(self, user_id):
        """A slot id, or None when the user already has `cap` live streams."""
        now = time.monotonic()
        with self._lock:
            leases = {s: t for s, t in self._leases.get(str(user_id), {}).items() if t > now}
            if len(leases) >= self.cap:
                self._leases[str(user_id)] = leases
                return None
            slot = uuid.uuid4().hex
            leases[slot] = now + LEASE_SECONDS
            self._leases[str(user_id)] = leases
            return slot

    def renew(self, user_id, slot):
        with self._lock:
            leases = self._leases.get(str(user_id), {})
            if slot in leases:
                leases[slot] = time.monotonic() + LEASE_SECONDS

    def release(self, user_id, slot):
        with self._lock:
            self._leases.get(str(user_id), {}).pop(slot, None)

    def live(self, user_id):
        """How many streams the user has open now."""
        now = time.monotonic()
        with self._lock:
            return sum(1 for expiry in self._leases.get(str(user_id), {}).values() if expiry > now)


class RedisStreamSlots:
    """The same leases in a Redis sorted set (score = expiry), checked and taken atomically."""

    _ACQUIRE = """
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
    if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
    redis.call('EXPIRE', KEYS[1], ARGV[5])
    return 1
    """

    def __init__(self, url, cap, prefix="beyou:streams:"):
        import redis

        self.cap = cap
        self._redis = redis.Redis.from_url(url)
        self._prefix = prefix
        self._acquire = self._redis.register_script(self._ACQUIRE)

    def acquire(self, user_id):
        now = time.time()
        slot = uuid.uuid4().hex
        taken = self._acquire(
            keys=[self._prefix + str(user_id)], args=[now, now + LEASE_SECONDS, self.cap, slot, LEASE_SECONDS * 2]
        )
        return slot if taken else None

    def renew(self, user_id, slot):
        self._redis.zadd(self._prefix + str(user_id), {slot: time.time() + LEASE_SECONDS}, xx=True)

    def release(self, user_id, slot):
        self._redis.zrem(self._prefix + str(user_id), slot)

    def live(self, user_id):
        return self._redis.zcount(self._prefix + str(user_id), time.time(), "+inf")


def stream_slots_for(redis_url, cap=2):
    return RedisStreamSlots(redis_url, cap) if redis_url else MemoryStreamSlots(cap)
