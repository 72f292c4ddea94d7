"""Domain announcements: which parts of a user's data a write changed.

A service calls `announce(user, "habits", ...)` after it commits. Whoever opened the
current scope with `collecting()` receives the names: a web request turns them into an
`HX-Trigger: domain:<name>` header so every widget listening for that domain refreshes;
the agent turns them into `tool` events.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from app import domains

DOMAINS = frozenset(domain.name for domain in domains.DOMAINS)  # declared in app/domains.py

_announced: ContextVar[set | None] = ContextVar("announced_domains", default=None)


@contextmanager
def collecting():
    """Collect the domains announced inside the block; yields the (live) set."""
    domains = set()
    token = _announced.set(domains)
    try:
        yield domains
    finally:
        _announced.reset(token)


def announce(user, *domains):
    unknown = set(domains) - DOMAINS
    if unknown:
        raise ValueError(f"unknown domains announced: {sorted(unknown)}")
    collected = _announced.get()
    if collected is not None:
        collected.update(domains)


def hx_trigger_header(domains):
    """The HX-Trigger value for a set of domains: a comma-separated event list."""
    return ", ".join(f"domain:{name}" for name in sorted(domains))
