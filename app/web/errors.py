"""Turning refusals and HTTP errors into pages or fragments, in one place.

A normal request gets a full error page; an htmx request gets the small fragment that fits
where the user was looking (the `Vary: HX-Request` header keeps caches honest).
"""

import logging

from flask import current_app, g, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from app.extensions import database_busy, db
from app.shared.errors import DomainError, message_for
from app.web.rendering import is_htmx, trigger

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


def render_error(status, message=None, **context):
    title = TITLES.get(status, TITLES[500])()
    message = message or MESSAGES.get(status, MESSAGES[500])()
    template = "errors/_error.html" if is_htmx() else "errors/page.html"
    return render_template(template, status=status, title=title, message=message, **context), status


def come_back_later(message):
    """A 503 with Retry-After that keeps what the user typed. htmx leaves the page as it is — the
    form still holds every word — and shows the message as a toast (static/js/app.js would swap
    an error fragment over the form). A plain form comes back on the error page as a button that
    sends the same values again."""
    headers = {"Retry-After": str(BUSY_RETRY_SECONDS)}
    if is_htmx():
        trigger("toast", {"message": message, "kind": "error"})
        return "", 503, {**headers, "HX-Reswap": "none"}
    typed = request.form if request.method == "POST" else None  # whole: sent again, it must be all there
    body, status = render_error(503, message, typed=typed)
    return body, status, headers


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
        return come_back_later(MESSAGES[503]())

    @app.errorhandler(OperationalError)
    def database_error(error):
        """Another connection held the lock this request's write needed for longer than it may
        wait (SQLite's patience, PostgreSQL's lock or statement timeout), or PostgreSQL broke a
        deadlock: nothing of the transaction is saved, and the user is told so and keeps what
        they typed. Any other database failure is a fault."""
        if not database_busy(error):
            return unexpected_error(error)
        log.warning("database busy for %s %s: %s", request.method, request.path, error.orig)
        db.session.rollback()
        return come_back_later(
            _("The server is busy right now, and nothing was saved. What you typed is kept: send it again in a moment.")
        )

    @app.errorhandler(Exception)
    def unexpected_error(error):
        log.exception("unhandled error", exc_info=error)
        db.session.rollback()
        return render_error(500)
