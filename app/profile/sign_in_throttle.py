"""How fast sign-in guesses may come, and never a lock.

Past a number of failures, each further attempt waits twice as long as the one before (2 s, 4 s,
8 s … at most LOGIN_DELAY_MAX_SECONDS) after the last failure; failures are forgotten
LOGIN_LOCKOUT_MINUTES after the first. An attempt that must still wait is answered at once,
without its password being checked, and does not count. So the longest anyone waits is the cap,
however long an attacker keeps guessing, and a right password gets in once its wait is over.

Three counts, each with its own wait:
- one email from one address (LOGIN_LOCKOUT_ATTEMPTS failures): a person's typos, a guesser's
  attempts from where they are;
- one email from every address that never signed in to it (LOGIN_LOCKOUT_ATTEMPTS): guesses at
  one account from many machines;
- one address on the accounts it never signed in to (AUTH_IP_LIMIT's count and period): one
  machine trying many accounts.
An address that signed in to an account (within LOGIN_KNOWN_ADDRESS_DAYS) is held only to the
first count for it: guesses at that account from elsewhere, or from its network at other
accounts, never make its owner wait. Unknown emails are counted like known ones, so the waits
say nothing about which addresses have an account.

The counts live in the rate limits' storage (Redis when configured, else this process), written
with expiries, so every worker sees them and nothing outlives its time. When a wait is over, one
attempt takes the turn: a burst of parallel requests gets one password checked, not a burst.
"""

import hashlib
import math
import time
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app
from flask_babel import format_timedelta
from limits import parse as parse_limit

from app.extensions import limiter
from app.shared.errors import Throttled

TURN_SECONDS = 5  # how long a taken turn holds, should its request never report back
clock = time.time


@dataclass(frozen=True)
class Count:
    """Failures of one kind for one subject, free up to `free`, remembered for `window` seconds."""

    name: str
    subject: str
    free: int
    window: int

    def key(self, *parts):
        return "/".join(("sign-in", self.name, self.subject, *map(str, parts)))

    def failures(self):
        return limiter.storage.get(self.key("failures"))

    def wait(self, now_ms):
        """Seconds still to wait after the last failure (0: none)."""
        failures = self.failures()
        if failures < self.free:
            return 0
        until = limiter.storage.get(self.key(failures, "until"))
        return math.ceil((until - now_ms) / 1000) if until > now_ms else 0

    def take_turn(self):
        """Whether this attempt is the one checked now the wait is over (no wait: every one is)."""
        failures = self.failures()
        return failures < self.free or limiter.storage.incr(self.key(failures, "turn"), TURN_SECONDS) == 1

    def fail(self, now_ms, longest):
        failures = limiter.storage.incr(self.key("failures"), self.window)
        if failures >= self.free:
            delay = min(2 ** (failures - self.free + 1), longest)
            until = self.key(failures, "until")  # this failure's own: no other request writes it
            limiter.storage.clear(until)  # a count that started over may meet its number again
            limiter.storage.incr(until, delay + 1, amount=now_ms + delay * 1000)

    def forget(self):
        limiter.storage.clear(self.key(self.failures(), "turn"))
        limiter.storage.clear(self.key("failures"))


def _digest(*parts):
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class Attempt:
    """One sign-in attempt for `email` from `address`: `begin` it (it raises Throttled while a
    wait is not over), then say how it went."""

    def __init__(self, email, address):
        cfg = current_app.config
        self.cfg = cfg
        self.known_key = "/".join(("sign-in", "known", _digest(email, address)))
        window = cfg["LOGIN_LOCKOUT_MINUTES"] * 60
        self.pair = Count("pair", _digest(email, address), cfg["LOGIN_LOCKOUT_ATTEMPTS"], window)
        self.counts = [self.pair]
        if not limiter.storage.get(self.known_key):
            per_address = parse_limit(cfg["AUTH_IP_LIMIT"])
            self.counts += [
                Count("account", _digest(email), cfg["LOGIN_LOCKOUT_ATTEMPTS"], window),
                Count("address", _digest(address), per_address.amount, per_address.get_expiry()),
            ]

    def begin(self):
        now_ms = int(clock() * 1000)
        wait = max(count.wait(now_ms) for count in self.counts)
        if not wait and not all(count.take_turn() for count in self.counts):
            wait = 1  # another attempt is being checked this moment
        if wait:
            raise Throttled("LOGIN_LOCKED", wait=format_timedelta(timedelta(seconds=wait)), seconds=wait)
        return self

    def failed(self):
        now_ms = int(clock() * 1000)
        for count in self.counts:
            count.fail(now_ms, self.cfg["LOGIN_DELAY_MAX_SECONDS"])

    def succeeded(self):
        """The address proved it knows the password: its own failures go, and from now on
        guesses elsewhere never make it wait."""
        self.pair.forget()
        limiter.storage.clear(self.known_key)  # known for the days from this sign-in on
        limiter.storage.incr(self.known_key, self.cfg["LOGIN_KNOWN_ADDRESS_DAYS"] * 86400)
