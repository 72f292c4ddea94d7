"""The rate limits' in-process storage (app/extensions.py's SteadyMemoryStorage): the default
without Redis. It counts as limits' memory storage does, without a new timer thread for the first
call after each quiet spell, and still lets go of counters whose window has passed."""

import threading
import time

from limits import parse
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter

from app import create_app
from app.config import Config
from app.extensions import SteadyMemoryStorage, limiter


def timers_of(storage):
    """The live timer threads working for `storage` (limits' memory storage starts them)."""
    timers = [thread for thread in threading.enumerate() if isinstance(thread, threading.Timer)]
    return [timer for timer in timers if timer.is_alive() and getattr(timer.function, "__self__", None) is storage]


def test_a_count_after_a_quiet_spell_starts_no_thread():
    storage = SteadyMemoryStorage()
    counting = FixedWindowRateLimiter(storage)
    budget = parse("30 per hour")
    time.sleep(0.05)  # longer than the library's 10 ms timer: its storage would start a new one now

    for _ in range(3):
        assert counting.hit(budget, "agent-turns", "user:1")
        assert timers_of(storage) == []
        time.sleep(0.02)

    assert counting.get_window_stats(budget, "agent-turns", "user:1").remaining == 27


def test_it_limits_as_the_library_does():
    storage = SteadyMemoryStorage()
    fixed, moving = FixedWindowRateLimiter(storage), MovingWindowRateLimiter(storage)
    two = parse("2 per hour")

    assert [fixed.hit(two, "feedback", "user:1") for _ in range(3)] == [True, True, False]
    assert fixed.hit(two, "feedback", "user:2")  # another key counts on its own
    assert [moving.hit(two, "login", "ana@example.com") for _ in range(3)] == [True, True, False]


def test_counters_past_their_window_are_let_go_of_once_a_prune_is_due():
    storage = SteadyMemoryStorage()
    storage.PRUNE_EVERY = 0.2
    counting = FixedWindowRateLimiter(storage)
    per_second = parse("5 per second")
    for user in range(50):
        counting.hit(per_second, "quick", f"user:{user}")
    assert len(storage.storage) == 50

    time.sleep(1.1)  # every window above has passed, and a prune is due
    counting.hit(per_second, "quick", "user:late")

    assert len(storage.storage) == len(storage.expirations) == 1
    assert "user:late" in next(iter(storage.storage))


def test_the_app_counts_in_it_without_redis():
    assert Config.REDIS_URL or Config.RATELIMIT_STORAGE_URI == "steady-memory://"
    app = create_app("test")
    with app.app_context():
        assert isinstance(limiter.limiter.storage, SteadyMemoryStorage)
