"""The live socket: each signed-in page opens one websocket, `/live` (static/js/live.js through
htmx's ws extension), and joins its user's live channel (app/live.py) until either side closes it.

The socket belongs to the sign-in that opened it: the session is checked like any request's, the
channel is the signed-in user's and nobody else's, and there is no way to ask for another. Each
htmx request names its page ("tab:<id>", the X-Beyou-Tab header live.js sends), so the page that
made a change is not told of it twice.
"""

from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, current_app, g, request

from app import events, live
from app.extensions import db, sock
from app.web.acting import acting_user, signed_in

bp = Blueprint("live", __name__)

TAB_HEADER = "X-Beyou-Tab"
TAB_MAX_LENGTH = 64


def origin_of_request():
    """The page a request comes from, as live.js names it in every htmx request's headers."""
    tab = request.headers.get(TAB_HEADER, "")[:TAB_MAX_LENGTH]
    return f"tab:{tab}" if tab else None


class GreenletReader:
    """simple_websocket's reader "thread" as a bare greenlet, under gevent (the Procfile's
    server). A patched threading.Thread per socket carries its own locks, event and registry
    entry; thousands of idle sockets do not need them."""

    def __init__(self, target):
        self.target = target
        self.name = "live-reader"

    def start(self):
        import gevent

        gevent.spawn_raw(self.target)


def _under_gevent():
    try:
        from gevent import monkey
    except ImportError:
        return False
    return monkey.is_module_patched("threading")


def init_app(app):
    """The socket's reader under gevent, and the domains every page may hear of."""
    if _under_gevent():
        app.config.setdefault("SOCK_SERVER_OPTIONS", {"thread_class": GreenletReader})
    # Back from losing Redis, the channel has every page here refresh every domain.
    app.extensions["live"].everything = frozenset(events.DOMAINS)

    @app.context_processor
    def declared_domains():
        """What live.js may re-fire: every declared domain (a page refreshes them all after a
        lost connection, since it cannot know which changed meanwhile)."""
        return {"live_domains": " ".join(sorted(events.DOMAINS))}


# The socket ------------------------------------------------------------------------------


@bp.before_request
def refuse_strangers():
    """Checked before the handshake, like any request: a signed-out or cross-site attempt is
    answered with a plain refusal and no socket is opened."""
    if not signed_in():
        abort(401)
    origin = request.headers.get("Origin")
    if origin is not None and _origin(origin) not in _own_origins():
        abort(403)  # another site's page (or this one's host on another scheme or port), riding on the cookie
    # No per-message compression: it would keep a zlib context (~300 KB) per socket for messages
    # of a few dozen bytes. The handshake then answers without the extension.
    request.environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)


def _origin(url):
    """(scheme, host, port) of an origin or a URL, the default port spelled out; None for anything
    else ("null", a scheme that is not the web's)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def _own_origins():
    """Where the app's pages are: the origin this request was made to (its scheme and host as
    ProxyFix rebuilt them behind BEYOU_PROXY_COUNT proxies) and BEYOU_PUBLIC_URL's.

    A socket without an Origin header is not refused: browsers send one with every websocket
    handshake (RFC 6455, 4.1), so its absence is a client that is no browser, holding a session
    cookie of its own — not another site's page riding on the user's."""
    return {_origin(f"{request.scheme}://{request.host}"), _origin(current_app.config["PUBLIC_URL"])} - {None}


class _NothingAfterTheSocket(Response):
    """The development server's answer once a socket ended: none. Werkzeug would write an HTTP
    response into the finished websocket (the socket object is closed, its file descriptor is not),
    which the browser reports as "Invalid frame header"; a dropped connection it ends quietly."""

    def __call__(self, environ, start_response):
        raise ConnectionAbortedError("the websocket ended: there is no HTTP response to write")


@bp.after_request
def nothing_after_the_socket(response):
    if g.get("live_socket") and "werkzeug.socket" in request.environ:  # gunicorn's workers write nothing
        return _NothingAfterTheSocket()
    return response


@sock.route("/live", bp=bp)
def channel(ws):
    """One page's socket: joins the user's channel and waits until either side closes it."""
    g.live_socket = True
    user = acting_user()
    tab = (request.args.get("tab") or "")[:TAB_MAX_LENGTH] or None
    page = live.Page(str(user.id), user.sign_in, tab, ws)
    # The socket lives for hours: it must not hold the request's database connection meanwhile.
    db.session.remove()
    channel = current_app.extensions["live"]
    channel.listen()
    channel.hub.join(page)
    try:
        while True:
            ws.receive()  # the page has nothing to say; this waits for the close
    finally:
        channel.hub.leave(page)
