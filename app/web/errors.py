"""Turning refusals and HTTP errors into pages or fragments, in one place.

A normal request gets a full error page; an htmx request gets the small fragment that fits
where the user was looking (the `Vary: HX-Request` header keeps caches honest).
"""

import logging

from flask import current_app, g, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from app.extensions import db
from app.shared.errors import DomainError, message_for
from app.web.rendering import is_htmx

log = logging.getLogger("beyou.web")

TITLES = {
    400: lambda: _("Bad request"),
    403: lambda: _("Access denied"),
    404: lambda: _("Page not found"),
    405: lambda: _("Not allowed"),
    413: lambda: _("Too much at once"),
    422: lambda: _("Check what you entered"),
    429: lambda: _("Slow down"),
    500: lambda: _("Something went wrong"),
    503: lambda: _("Very busy right now"),
}
MESSAGES = {
    400: lambda: _("The request could not be understood."),
    403: lambda: message_for("FORBIDDEN"),
    404: lambda: _("The page you asked for does not exist, or it is not yours."),
    405: lambda: _("That action is not available here."),
    413: lambda: message_for("TEXT_TOO_LARGE"),
    429: lambda: message_for("RATE_LIMITED"),
    500: lambda: _("We hit an error on our side. Your data is safe; please try again."),
    503: lambda: _("Beyou has more to do than it can take this second. Your data is safe; try again in a moment."),
}

BUSY_RETRY_SECONDS = 2


def render_error(status, message=None):
    title = TITLES.get(status, TITLES[500])()
    message = message or MESSAGES.get(status, MESSAGES[500])()
    template = "errors/_error.html" if is_htmx() else "errors/page.html"
    return render_template(template, status=status, title=title, message=message), status


def init_app(app):
    @app.errorhandler(DomainError)
    def domain_error(error):
        return render_error(error.status, error.message)

    @app.errorhandler(CSRFError)
    def csrf_error(_error):
        return render_error(400, message_for("CSRF_FAILED"))

    @app.errorhandler(HTTPException)
    def http_error(error):
        response = error.get_response()
        body, status = render_error(error.code or 500)
        response.set_data(body)
        response.content_type = "text/html; charset=utf-8"
        return response, status

    @app.errorhandler(PoolTimeout)
    def no_connection_free(_error):
        """Every pooled database connection stayed taken for the pool's whole timeout (a burst of
        thousands of requests): the request stops at the transaction it could not begin — what
        it committed before stays, nothing is half-written — and says to come back. An assistant
        stream's EventSource reconnects by itself; a page is reloaded."""
        log.warning("no database connection free for %s", request.path)
        db.session.rollback()
        # Answered as to someone signed out (plain layout, the browser's language): the signed-in
        # user is a database read away, which is what there is no connection for. Flask-Login
        # keeps the request's user in `g._login_user`; tests/assistant/test_durability.py guards it.
        g._login_user = current_app.login_manager.anonymous_user()
        body, status = render_error(503)
        return body, status, {"Retry-After": str(BUSY_RETRY_SECONDS)}

    @app.errorhandler(Exception)
    def unexpected_error(error):
        log.exception("unhandled error", exc_info=error)
        db.session.rollback()
        return render_error(500)
