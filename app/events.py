"""Domain announcements: which parts of a user's data a write changed.

A service calls `announce(user, "habits", ...)` after it commits. Whoever opened the
current scope with `collecting()` receives the names: a web request turns them into an
`HX-Trigger: domain:<name>` header so every widget listening for that domain refreshes;
the agent turns them into `tool` events.

When the scope ends — after the request or the tool call, so after its commit — the names are
also published, once per scope and user, to the user's other open pages (app/live.py), tagged
with the scope's origin so the page that made the change does not refresh twice.
"""

import logging
from collections import defaultdict
from contextlib import contextmanager
from contextvars import ContextVar

from app import domains, live

log = logging.getLogger("beyou.events")

DOMAINS = frozenset(domain.name for domain in domains.DOMAINS)  # declared in app/domains.py

_announced: ContextVar["Announced | None"] = ContextVar("announced_domains", default=None)
_origin: ContextVar[str | None] = ContextVar("announcement_origin", default=None)


class Announced(set):
    """The domain names announced in one scope, and by whose data (user id → names)."""

    def __init__(self):
        super().__init__()
        self.by_user = defaultdict(set)


@contextmanager
def collecting(origin=None):
    """Collect the domains announced inside the block; yields the (live) set. On the way out
    they are published to the users' open pages, marked as coming from `origin` (else from the
    enclosing `acting_from`)."""
    announced = Announced()
    token = _announced.set(announced)
    try:
        yield announced
    finally:
        _announced.reset(token)
        _publish(announced, origin or _origin.get())


@contextmanager
def acting_from(origin):
    """Writes inside the block come from `origin` ("turn:<id>"): the page watching it knows."""
    token = _origin.set(origin)
    try:
        yield
    finally:
        _origin.reset(token)


def announce(user, *domains):
    unknown = set(domains) - DOMAINS
    if unknown:
        raise ValueError(f"unknown domains announced: {sorted(unknown)}")
    collected = _announced.get()
    if collected is not None:
        collected.update(domains)
        if user is not None:  # a write without a user (a test's scope) has no pages to tell
            collected.by_user[user.id].update(domains)


def signed_out(user_id, sign_in="*"):
    """A sign-in ended ("*": every sign-in of the user): its open pages close, on every worker."""
    live.publish({"user": str(user_id), "close": sign_in})


def _publish(announced, origin):
    if not announced.by_user:
        return
    for user_id, names in announced.by_user.items():
        live.publish({"user": str(user_id), "domains": sorted(names), "origin": origin})


def hx_trigger_header(domains):
    """The HX-Trigger value for a set of domains: a comma-separated event list."""
    return ", ".join(f"domain:{name}" for name in sorted(domains))
