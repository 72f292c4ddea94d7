"""The input boundary: what every request's text must be before any route or service sees it.

PostgreSQL cannot store a NUL character in text, so one that arrives in a form, a query string
or a path would end the request in a database error. It is removed here, once for every route,
and the user is told; the rest of what they typed goes on as typed.
"""

from flask import flash, g, render_template, request, session
from flask_babel import gettext as _
from werkzeug.datastructures import ImmutableMultiDict

from app.web.rendering import is_htmx

NUL = "\x00"


def _without_nul(values):
    """`values` (a MultiDict) with NUL removed from every key and value; None when it had none."""
    pairs = list(values.items(multi=True))
    if not any(NUL in key or NUL in value for key, value in pairs if isinstance(value, str)):
        return None
    return ImmutableMultiDict(
        (key.replace(NUL, ""), value.replace(NUL, "") if isinstance(value, str) else value) for key, value in pairs
    )


def nul_removed_message():
    return _("What you typed held an invisible NUL character, which can't be stored. We removed it.")


def init_app(app):
    @app.before_request
    def remove_nul_characters():
        removed = False
        for source in ("args", "form"):
            cleaned = _without_nul(getattr(request, source))
            if cleaned is not None:
                setattr(request, source, cleaned)  # werkzeug's cached properties accept a new value
                removed = True
        for name, value in (request.view_args or {}).items():
            if isinstance(value, str) and NUL in value:
                request.view_args[name] = value.replace(NUL, "")
                removed = True
        if not removed:
            return
        request.__dict__.pop("values", None)  # rebuilt from the cleaned args and form
        g.nul_removed = True
        if not is_htmx():
            flash(nul_removed_message(), "warning")

    @app.after_request
    def tell_about_removed_nul(response):
        if not g.get("nul_removed"):
            return response
        if not is_htmx():
            # A sign-in starts a fresh session, which drops the notice flashed before it.
            notice = ("warning", nul_removed_message())
            if response.status_code in (301, 302, 303, 307, 308) and notice not in session.get("_flashes", []):
                flash(nul_removed_message(), "warning")
            return response
        if response.status_code == 204 or response.mimetype != "text/html" or response.is_streamed:
            flash(nul_removed_message(), "warning")  # nothing htmx swaps: the next page says it
        else:
            notice = render_template("routines/_toast.html", kind="warning", title=nul_removed_message())
            response.set_data(response.get_data() + notice.encode())
        return response
