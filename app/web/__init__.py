"""The web shell: what every page shares (the layout, navigation, rendering, refusals turned into
responses, the input boundary, sessions, assets, the live socket) and the registration of every
domain's blueprints, found in the domain packages (app/domains.py)."""

from importlib import import_module

from flask import g, request

from app import domains, events
from app.shared import icons
from app.web import assets, confirmations, errors, inputs, live, navigation, rendering
from app.web.acting import acting_user, signed_in


def init_app(app):
    assets.init_app(app)  # first registered, so its compression runs after every other header is set
    for blueprint in blueprints():
        app.register_blueprint(blueprint)
    errors.init_app(app)
    inputs.init_app(app)
    live.init_app(app)

    @app.context_processor
    def shell_context():
        theme = acting_user().theme if signed_in() else "system"
        return {
            "nav_areas": navigation.AREAS,
            "theme": theme,
            "icon_emoji": icons.emoji_for,
            "icon_label": icons.label_for,
            "resolve_icon": icons.resolve,
        }

    @app.before_request
    def collect_announcements():
        g.announcement_scope = events.collecting(origin=live.origin_of_request())
        g.announced = g.announcement_scope.__enter__()
        confirmations.note_level()

    @app.teardown_request
    def close_announcements(_exc):
        scope = g.pop("announcement_scope", None)
        if scope is not None:
            scope.__exit__(None, None, None)

    @app.after_request
    def shared_headers(response):
        confirmations.confirm(response)
        triggers = rendering.hx_trigger(g.get("announced"), g.get("client_events", {}))
        if triggers:
            response.headers["HX-Trigger"] = triggers
        response.vary.add("HX-Request")
        _security_headers(response)
        _private_pages_not_stored(response)
        return response


SHELL_BLUEPRINTS = {
    "privacy": "the privacy page, read before there is an account as much as after",
    "system": "the health check for the process manager",
    "live": "the websocket every signed-in page keeps open, carrying every domain's announcements",
}
"""The shell's own blueprints (modules of this package), which belong to no domain, and why."""


def blueprints():
    """The shell's blueprints, then each domain's, in the order of the domains."""
    shell = [import_module(f"{__name__}.{module}").bp for module in SHELL_BLUEPRINTS]
    return [*shell, *(blueprint for domain in domains.DOMAINS for blueprint in domains.blueprints_of(domain))]


CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "clipboard-read",
        "clipboard-write",
        "display-capture",
        "encrypted-media",
        "fullscreen",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "window-management",
        "xr-spatial-tracking",
    )
)
"""Every powerful browser feature, denied to the pages and to any frame in them: no page or script
here uses one (none reads the camera, the clipboard or the position, none asks for fullscreen),
so a script that got in could not either. Only names Chromium knows: it warns of any other on
every page."""


def _private_pages_not_stored(response):
    """A signed-in answer (a page, a fragment, the export) holds the user's data: no browser or
    proxy cache may keep a copy for the next person at the same computer. Static files are the
    same for everyone and keep their caching."""
    if request.endpoint == "static" or not signed_in():
        return
    response.headers["Cache-Control"] = "no-store"


def _security_headers(response):
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    if request.is_secure:
        headers.setdefault("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
