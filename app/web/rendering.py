"""Rendering a page or just its fragment, depending on who asked."""

import json

from flask import g, render_template, request

from app import events


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


def trigger(event, detail=None):
    """Ask the page to fire `event` after this response (e.g. "dialog:close"), beside any
    domain announcements the request made; `detail` (a dict) becomes the event's detail."""
    g.setdefault("client_events", {})[event] = detail


def hx_trigger(domains, client_events):
    """The HX-Trigger value: a plain list of names, or JSON once an event carries a detail.

    The JSON is ASCII (`\\u` escapes), since a header cannot carry "Hábito" as it is."""
    names = ([events.hx_trigger_header(domains)] if domains else []) + sorted(client_events)
    if not any(client_events.values()):
        return ", ".join(names)
    every = {f"domain:{name}": None for name in sorted(domains or ())}
    every.update(client_events)
    return json.dumps(every, ensure_ascii=True)
