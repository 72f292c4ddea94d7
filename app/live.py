"""The live channel: every open page of a user hears about the user's writes, wherever they
happened. This is its publishing side, below the domain announcements (app/events.py) that feed
it; the websocket each page opens is the web shell's (app/web/live.py).

When a request or a tool call that announced domains ends (after the commit), events publishes
the names once for the user, and every open page of that user receives
`{"domains": [...], "origin": ...}`; the page that made the change is skipped when `origin` names
it ("tab:<id>"). A sign-out publishes `{"close": <sign-in>}` ("*" for every sign-in of the user):
the pages of that sign-in close, on every worker, with code 4401.

Every HEARTBEAT_SECONDS each open page gets "{}": a proxy keeps the idle socket open, and a page
whose peer vanished fails the send and leaves.

In one process the fan-out is in memory. With BEYOU_REDIS_URL every message goes through one
Redis pub/sub channel that each worker process follows with one listener, which delivers to the
pages open in that process. Publishing never fails a write: a lost message costs a refresh.
While Redis is away a write reaches the pages of its own process only; when the listener follows
the channel again, every page it serves refreshes everything (docs/production.md, "When Redis is away").
"""

import contextlib
import json
import logging
import threading
import time
from collections import defaultdict

from flask import current_app, has_app_context
from simple_websocket import ConnectionClosed

log = logging.getLogger("beyou.live")

SIGNED_OUT = 4401  # the close code of a socket whose sign-in ended: the page must not reconnect
REDIS_CHANNEL = "beyou:live:{database}"  # pub/sub ignores the database number; the name doesn't


# Pages open in this process --------------------------------------------------------------


class Page:
    """One open page: its socket, whose it is, which sign-in opened it and its tab id."""

    __slots__ = ("_sending", "sign_in", "socket", "tab", "user_id")

    def __init__(self, user_id, sign_in, tab, socket):
        self.user_id = user_id
        self.sign_in = sign_in
        self.tab = tab
        self.socket = socket
        self._sending = threading.Lock()  # one frame at a time: a listener and a sign-out may meet

    def send(self, text):
        with self._sending:
            self.socket.send(text)

    def close(self):
        with self._sending:
            self.socket.close(SIGNED_OUT, "signed out")


class Hub:
    """The pages open in this process, by user; delivers a published message to them."""

    def __init__(self):
        self._pages = defaultdict(set)
        self._lock = threading.Lock()

    def join(self, page):
        with self._lock:
            self._pages[page.user_id].add(page)

    def leave(self, page):
        with self._lock:
            pages = self._pages.get(page.user_id)
            if pages is not None:
                pages.discard(page)
                if not pages:
                    del self._pages[page.user_id]

    def pages_of(self, user_id):
        with self._lock:
            return list(self._pages.get(user_id, ()))

    def all_pages(self):
        with self._lock:
            return [page for pages in self._pages.values() for page in pages]

    def count(self):
        with self._lock:
            return sum(len(pages) for pages in self._pages.values())

    def deliver(self, message):
        """Hand one published message to the user's pages here (none: nothing to do)."""
        pages = self.pages_of(message.get("user"))
        if not pages:
            return
        if "close" in message:
            ended = message["close"]
            for page in pages:
                if ended == "*" or page.sign_in == ended:
                    self.leave(page)
                    _quietly(page.close)
            return
        text = json.dumps({"domains": message["domains"], "origin": message.get("origin")})
        for page in pages:
            if message.get("origin") is not None and message["origin"] == f"tab:{page.tab}":
                continue  # the page that made the change refreshed already
            if not _quietly(page.send, text):
                self.leave(page)


def _quietly(action, *args):
    """Run a send or a close on a socket that may be gone; whether it worked."""
    try:
        action(*args)
        return True
    except (ConnectionClosed, OSError):
        return False


# Publishing: in memory, or through Redis ------------------------------------------------


HEARTBEAT_SECONDS = 25  # under the idle timeouts of the usual proxies (Heroku's router: 55 s)
HEARTBEAT = "{}"  # a message without domains: live.js ignores it


def _beat(hub):
    """Say something to every open page now and then: a proxy in front keeps an idle socket
    open, and a page whose peer vanished (a laptop closed mid-connection) fails a send and
    leaves the channel instead of being held for ever."""
    while True:
        time.sleep(HEARTBEAT_SECONDS)
        for page in hub.all_pages():
            if not _quietly(page.send, HEARTBEAT):
                hub.leave(page)


class MemoryChannel:
    """One process: a message goes straight to this process's pages."""

    def __init__(self):
        self.hub = Hub()
        self._heart = _Once(_beat, self.hub, name="live-heartbeat")

    def publish(self, message):
        self.hub.deliver(message)

    def listen(self):
        """Nothing to follow: publishing delivers. The first socket starts the heartbeat."""
        self._heart.start()


class _Once:
    """A daemon thread (a greenlet under gevent) started at most once, when first needed."""

    def __init__(self, target, *args, name):
        self._thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._lock = threading.Lock()
        self._started = False

    def start(self):
        with self._lock:
            if not self._started:
                self._started = True
                self._thread.start()


class RedisChannel:
    """Several processes: a message goes to Redis, and each process's listener delivers it to
    the pages open there (its own publisher's included)."""

    RETRY_SECONDS = (0.1, 0.5, 1, 2, 5)  # the listener's pauses after losing Redis

    def __init__(self, url, name=REDIS_CHANNEL):
        import redis

        self.hub = Hub()
        # A short timeout: publishing happens after a user's write, which must not hang on Redis.
        self._redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        # Two apps on one Redis with different databases must not hear each other's pages.
        self.name = name.format(database=self._redis.connection_pool.connection_kwargs.get("db", 0))
        # What a page refreshes after this process lost the channel a while (set by the web
        # shell, which knows the domains: live.js refreshes the widgets of each one named).
        self.everything = ()
        self._listener = _Once(self._follow, name="live-listener")
        self._heart = _Once(_beat, self.hub, name="live-heartbeat")
        self.listening = threading.Event()
        self._closed = threading.Event()

    def close(self):
        """Stop following the channel (an app that is done: a test's, a script's)."""
        self._closed.set()

    def publish(self, message):
        try:
            self._redis.publish(self.name, json.dumps(message))
        except Exception:
            # Redis is away: this process's pages still hear of it; the others refresh on reconnect.
            log.warning("live: Redis refused a message; delivered in this process only", exc_info=True)
            self.hub.deliver(message)

    def listen(self):
        """Follow the channel from this process (once; started by the first socket here, which
        waits a moment for the subscription so that it hears the very next write)."""
        self._listener.start()
        self._heart.start()
        self.listening.wait(timeout=2)

    def _follow(self):
        """Follow the channel for good. Every subscription Redis confirms after the first is a
        return from an outage (redis-py's own reconnect, or ours after it gave up): whatever was
        published meanwhile never reached this process, so each page here refreshes everything."""
        failures = 0
        followed_before = False
        while not self._closed.is_set():
            subscription = self._redis.pubsub()
            try:
                subscription.subscribe(self.name)
                self.listening.set()
                while not self._closed.is_set():
                    message = subscription.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        failures = 0
                        if followed_before:
                            log.warning("live: following Redis again; every page here refreshes")
                            self._refresh_everything()
                        followed_before = True
                    elif message["type"] == "message":
                        self._deliver(message["data"])
            except Exception:
                self.listening.clear()
                if not failures:  # once an outage, not at every try
                    log.warning("live: lost Redis; following again shortly", exc_info=True)
                time.sleep(self.RETRY_SECONDS[min(failures, len(self.RETRY_SECONDS) - 1)])
                failures += 1
            finally:
                _quietly_close(subscription)

    def _refresh_everything(self):
        text = json.dumps({"domains": sorted(self.everything), "origin": None})
        for page in self.hub.all_pages():
            if not _quietly(page.send, text):
                self.hub.leave(page)

    def _deliver(self, data):
        try:
            self.hub.deliver(json.loads(data))
        except Exception:
            log.exception("live: a message could not be delivered")


def _quietly_close(subscription):
    with contextlib.suppress(Exception):  # a connection already lost has nothing left to close
        subscription.close()


def channel_for(redis_url):
    return RedisChannel(redis_url) if redis_url else MemoryChannel()


def init_app(app):
    app.extensions["live"] = channel_for(app.config.get("REDIS_URL"))


def publish(message):
    """Publish one message for a user's pages; never raises (a write is never failed by it)."""
    if not has_app_context():
        return  # no app, no pages: a script or a test outside the app
    try:
        channel = current_app.extensions.get("live")
        if channel is not None:
            channel.publish(message)
    except Exception:
        log.exception("live: a message could not be published")
