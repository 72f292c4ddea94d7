"""Rendering a page or just its fragment, depending on who asked."""

from flask import g, render_template, request


def is_htmx():
    return request.headers.get("HX-Request") == "true"


def is_boosted():
    return request.headers.get("HX-Boosted") == "true"


def render_page(template, fragment=None, status=200, **context):
    """The full page, or only `fragment` when htmx asked for a piece of it.

    A boosted navigation wants the whole page, so it gets the full template.
    """
    chosen = fragment if (fragment and is_htmx() and not is_boosted()) else template
    return render_template(chosen, **context), status


def trigger(event):
    """Ask the page to fire `event` after this response (e.g. "dialog:close"), beside any
    domain announcements the request made."""
    g.setdefault("client_events", set()).add(event)
