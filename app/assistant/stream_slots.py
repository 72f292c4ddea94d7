"""At most two answers streamed live per user, across every worker process.

The cap counts distinct turns, not connections: a second tab (or a reconnect that lands before
the old connection is noticed gone) watching a turn already streamed shares that turn's slot.
Each watcher holds its own lease, renewed at every heartbeat; a process that dies without
releasing its leases frees them when they run out, so the cap cannot drift.
"""

import threading
import time
import uuid

from app.redis_away import AWAY, Away

LEASE_SECONDS = 45


class MemoryStreamSlots:
    lease_seconds = LEASE_SECONDS  # a watcher renews its lease every third of this

    def __init__(self, cap):
        self.cap = cap
        self._leases = {}  # user id -> {lease id: (turn id, expiry)}
        self._lock = threading.Lock()

    def acquire(self, user_id, turn_id):
        """A lease id for watching `turn_id`, or None when the user already streams `cap` other turns."""
        now = time.monotonic()
        with self._lock:
            leases = {lease: held for lease, held in self._leases.get(str(user_id), {}).items() if held[1] > now}
            self._leases[str(user_id)] = leases
            turns = {turn for turn, _expiry in leases.values()}
            if str(turn_id) not in turns and len(turns) >= self.cap:
                return None
            lease = uuid.uuid4().hex
            leases[lease] = (str(turn_id), now + LEASE_SECONDS)
            return lease

    def renew(self, user_id, lease):
        with self._lock:
            leases = self._leases.get(str(user_id), {})
            if lease in leases:
                leases[lease] = (leases[lease][0], time.monotonic() + LEASE_SECONDS)

    def release(self, user_id, lease):
        with self._lock:
            self._leases.get(str(user_id), {}).pop(lease, None)

    def turns(self, user_id):
        """The turns the user holds slots for now (ids as text)."""
        now = time.monotonic()
        with self._lock:
            return {turn for turn, expiry in self._leases.get(str(user_id), {}).values() if expiry > now}

    def forget(self, user_id, turn_ids):
        """Free every slot held for these turns, whoever holds it."""
        with self._lock:
            leases = self._leases.get(str(user_id), {})
            for lease in [lease for lease, (turn, _expiry) in leases.items() if turn in turn_ids]:
                del leases[lease]

    def live(self, user_id):
        """How many turns the user is streaming now."""
        now = time.monotonic()
        with self._lock:
            return len({turn for turn, expiry in self._leases.get(str(user_id), {}).values() if expiry > now})


class RedisStreamSlots:
    """The same leases in a Redis sorted set per user (member `<turn id>:<lease>`, score = expiry),
    checked and taken atomically.

    While Redis is away the cap is kept per process (fail open across workers, closed within
    one): a watcher is never refused, nor its stream cut, because Redis is away, and a user
    streams at most `cap` turns on each worker meanwhile. Such a lease is marked `here:` and
    lives in this process's `MemoryStreamSlots`; a lease taken in Redis whose release fails
    there frees itself when it runs out.
    """

    lease_seconds = LEASE_SECONDS
    LOCAL = "here:"
    AWAY_SECONDS = 5  # after a failed call, Redis is asked again only this much later

    _ACQUIRE = """
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
    local turns, count = {}, 0
    for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
      local turn = string.match(member, '^([^:]+):')
      if turn and not turns[turn] then turns[turn] = true; count = count + 1 end
    end
    if not turns[ARGV[4]] and count >= tonumber(ARGV[3]) then return 0 end
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
    redis.call('EXPIRE', KEYS[1], ARGV[6])
    return 1
    """

    _LIVE = """
    local turns, count = {}, 0
    for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')) do
      local turn = string.match(member, '^([^:]+):')
      if turn and not turns[turn] then turns[turn] = true; count = count + 1 end
    end
    return count
    """

    def __init__(self, url, cap, prefix="beyou:streams:"):
        import redis

        self.cap = cap
        # Opening a stream must not wait long on a Redis host that vanished.
        self._redis = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        self._prefix = prefix
        self._acquire = self._redis.register_script(self._ACQUIRE)
        self._live = self._redis.register_script(self._LIVE)
        self._here = MemoryStreamSlots(cap)
        self._away = Away("stream slots", "counting streams per process", pause=self.AWAY_SECONDS,
                          errors=redis.RedisError)  # fmt: skip

    def acquire(self, user_id, turn_id):
        now = time.time()
        lease = f"{turn_id}:{uuid.uuid4().hex}"
        taken = self._shared(
            self._acquire,
            keys=[self._prefix + str(user_id)],
            args=[now, now + LEASE_SECONDS, self.cap, str(turn_id), lease, LEASE_SECONDS * 2],
        )
        if taken is AWAY:
            here = self._here.acquire(user_id, turn_id)
            return None if here is None else self.LOCAL + here
        return lease if taken else None

    def renew(self, user_id, lease):
        if lease.startswith(self.LOCAL):
            self._here.renew(user_id, lease.removeprefix(self.LOCAL))
        else:
            self._shared(self._redis.zadd, self._prefix + str(user_id), {lease: time.time() + LEASE_SECONDS}, xx=True)

    def release(self, user_id, lease):
        if lease.startswith(self.LOCAL):
            self._here.release(user_id, lease.removeprefix(self.LOCAL))
        else:
            self._shared(self._redis.zrem, self._prefix + str(user_id), lease)

    def turns(self, user_id):
        members = self._shared(self._redis.zrangebyscore, self._prefix + str(user_id), time.time(), "+inf")
        shared = set() if members is AWAY else {member.decode().split(":", 1)[0] for member in members}
        return shared | self._here.turns(user_id)

    def forget(self, user_id, turn_ids):
        self._here.forget(user_id, turn_ids)
        members = self._shared(self._redis.zrange, self._prefix + str(user_id), 0, -1)
        stale = [] if members is AWAY else [m for m in members if m.decode().split(":", 1)[0] in turn_ids]
        if stale:
            self._shared(self._redis.zrem, self._prefix + str(user_id), *stale)

    def live(self, user_id):
        shared = self._shared(self._live, keys=[self._prefix + str(user_id)], args=[time.time()])
        return self._here.live(user_id) + (0 if shared is AWAY else int(shared))

    def _shared(self, call, *args, **kwargs):
        """`call` on Redis, or AWAY when Redis is away (then not asked again for a few seconds)."""
        return self._away.call(call, *args, **kwargs)


def stream_slots_for(redis_url, cap=2):
    return RedisStreamSlots(redis_url, cap) if redis_url else MemoryStreamSlots(cap)


def init_app(app):
    """The app's stream slots, shared by every worker through Redis when it is configured."""
    app.extensions["stream_slots"] = stream_slots_for(app.config.get("REDIS_URL"), app.config["AGENT_STREAMS_PER_USER"])
