"""The web layer: one blueprint per page area, plus what every response shares."""

from importlib import import_module

from flask import g, request

from app import domains, events
from app.services import icons
from app.web import assets, confirmations, errors, inputs, live, navigation, rendering
from app.web.acting import acting_user, signed_in


def init_app(app):
    assets.init_app(app)  # first registered, so its compression runs after every other header is set
    for module in blueprint_modules():
        app.register_blueprint(import_module(f"{__name__}.{module}").bp)
    errors.init_app(app)
    inputs.init_app(app)

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


def blueprint_modules():
    """The modules under app/web holding a blueprint: the infrastructure's, then each built
    domain's, as app/domains.py declares them."""
    built = [domain.blueprint for domain in domains.DOMAINS if domain.built]
    return [*domains.INFRASTRUCTURE_BLUEPRINTS, *built]


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
    if request.is_secure:
        headers.setdefault("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
