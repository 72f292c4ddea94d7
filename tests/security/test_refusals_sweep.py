"""Every form route refuses bad input with a message, never a server error.

The walk is built from the URL map, not from a list: every rule taking a POST, PUT, PATCH or
DELETE is requested by Ana, who owns one row of every kind (so the ids in its URL are real), and
by a visitor signed out when the route is public. Each form starts as the app's own pages fill it
(every page is read first and its forms noted), and the fields a route reads are found by asking
it: the form handed to the view notes every name looked up in it. Each field is then sent, one at
a time, with every refused value below without htmx, and with htmx once for each different
answer that gave. No answer may be a server error: a 500, or any 5xx but the AI doors' typed
503 (this app has no model configured).

Rules that end things (deleting a row, archiving it, signing out) are walked last, so that the
rows the others name are still there; rate limits are off, since a 429 would hide the form. The
rules are dealt into PARTS tests, each with lives of its own, so `pytest -n` walks them at once.
"""

import json
import logging
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from flask import request
from werkzeug.datastructures import ImmutableMultiDict

from app.extensions import limiter
from app.onboarding import services as onboarding
from app.profile import widgets
from app.profile.routes import SECTIONS
from tests.builders import as_user
from tests.conftest import csrf_token_from, sign_in
from tests.security.test_ownership import SOURCES, a_whole_life, row_of

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
PARTS = 3
ENDINGS = ("delete", "remove", "discard", "clear", "reset", "archive", "complete", "logout", "sign_out")

# The values to walk for each route argument that names no row (app/domains.py), every one of them.
NOT_ROWS = {
    "section": lambda: [*SECTIONS, "widgets", "danger"],
    "step": lambda: [step.value.lower() for step in onboarding.ORDER],
    "token": lambda: ["not-a-signed-token"],
    "widget_id": lambda: list(widgets.CATALOGUE),
    "filename": lambda: [],  # a static file: nothing posts there
}

# A field no page fills holds one of these (or "1") while another is spoiled.
PLAUSIBLE = {"name": "Reading", "text": "A thought", "title": "A title", "journal": "A calm day",
             "message": "Hello", "said": "Hello", "email": "someone@example.com"}  # fmt: skip

EVERY_FIELD = {"empty": "", "wrong type": "abc", "too long, in more digits than int() reads": "9" * 10_001,
               "superscript two": "²", "Arabic-Indic one": "١"}  # fmt: skip
NUMBERS = {"negative": "-1", "past a database integer": "99999999999"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class ReadingForm(ImmutableMultiDict):
    """A request form that notes the names a view looks up in it."""

    read = set()

    def __getitem__(self, key):
        ReadingForm.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None, type=None):
        ReadingForm.read.add(key)
        return super().get(key, default, type)

    def getlist(self, key, type=None):
        ReadingForm.read.add(key)
        return super().getlist(key, type)

    def __contains__(self, key):
        ReadingForm.read.add(key)
        return super().__contains__(key)


def _note_form_reads():
    request.form = ReadingForm(request.form)
    request.__dict__.pop("values", None)


class Unhandled(logging.Handler):
    def __init__(self):
        super().__init__()
        self.seen = 0

    def emit(self, record):
        self.seen += record.getMessage() == "unhandled error"


@pytest.fixture
def sweep_app(app, monkeypatch):
    """The app with its forms noting reads, its crashes counted and its rate limits off. The hook
    is appended by hand: Flask closes `before_request` once the session's app has served a
    request; it runs after the app's own hooks (the NUL boundary replaces the form first)."""
    monkeypatch.setattr(limiter, "enabled", False)
    app.before_request_funcs.setdefault(None, []).append(_note_form_reads)
    crashes = Unhandled()
    logging.getLogger("beyou.web").addHandler(crashes)
    yield app, crashes
    logging.getLogger("beyou.web").removeHandler(crashes)
    app.before_request_funcs[None].remove(_note_form_reads)


class Forms(HTMLParser):
    """The forms of a page, by where they post: each field's first value (a checkbox's, a select's
    first option), and the hx-vals of buttons that post alone."""

    def __init__(self, found):
        super().__init__()
        self.found, self.form, self.select, self.textarea = found, None, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        action = attrs.get("hx-post") or (attrs.get("action") if tag == "form" else None)
        if tag == "form":
            self.form = self.found.setdefault(urlsplit(action or "").path, {})
        elif action:
            values = json.loads(attrs["hx-vals"]) if attrs.get("hx-vals", "").startswith("{") else {}
            target = self.found.setdefault(urlsplit(action).path, {})
            for name, value in values.items():
                target.setdefault(name, str(value))
        name = attrs.get("name")
        if self.form is None or not name or name == "csrf_token":
            return
        if tag in ("input", "button") and attrs.get("type") != "file":
            self.form.setdefault(name, attrs.get("value") or "")
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select:
            self.form.setdefault(self.select, attrs.get("value") or "")
        elif tag == "textarea":
            self.textarea = name

    def handle_data(self, data):
        if self.form is not None and self.textarea:
            self.form.setdefault(self.textarea, data)

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None


class Walk:
    def __init__(self, app, crashes, ana, ids, someone_elses):
        self.app, self.crashes, self.ana, self.ids = app, crashes, ana, ids
        # Ana's id in a form ("habit:<id>" too) → the same kind of row of Bruno's.
        self.theirs = {str(ids[argument]): str(someone_elses[argument]) for argument in ids if ids[argument]}
        self.visitor = app.test_client()
        self.visitor.csrf = csrf_token_from(self.visitor.get("/login"))
        self.server_errors, self.requests, self.filled = [], 0, {}

    def urls(self, rule):
        values = [{}]
        for argument in rule.arguments:
            if argument in SOURCES:
                values = [{**value, argument: self.ids[argument]} for value in values]
            else:
                values = [{**value, argument: choice} for value in values for choice in NOT_ROWS[argument]()]
        return [rule.build(value)[1] for value in values]

    def read_every_page(self):
        """Every page Ana can open, for the forms on it (event streams are closed unread)."""
        for rule in self.app.url_map.iter_rules():
            if "GET" not in rule.methods or "filename" in rule.arguments:
                continue
            for url in self.urls(rule):
                response = self.ana.get(url)
                if response.mimetype == "text/html":
                    Forms(self.filled).feed(response.get_data(as_text=True))
                response.close()

    def send(self, client, url, form, hx):
        """Post the form: the answer's status and the names the view read."""
        self.requests += 1
        ReadingForm.read, before = set(), self.crashes.seen
        headers = {"X-CSRFToken": client.csrf, **({"HX-Request": "true"} if hx else {})}
        response = client.post(url, data=form, headers=headers)
        status = response.status_code
        if status >= 500 and (status != 503 or self.crashes.seen > before):
            self.server_errors.append((url, "htmx" if hx else "page", {k: v[:12] for k, v in form.items()}, status))
        if client is self.ana and "/login" in response.headers.get("Location", ""):
            sign_in(self.ana)  # a sign-out route did its job: the walk goes on signed in
            self.ana.csrf = csrf_token_from(self.ana.get("/dashboard"))
        return status, ReadingForm.read - {"csrf_token"}

    def is_public(self, url):
        ReadingForm.read = set()
        response = self.visitor.post(url, headers={"X-CSRFToken": self.visitor.csrf})
        return "/login" not in response.headers.get("Location", "")

    def spoil_each_field(self, client, url):
        """Find the fields the route reads (one may lead to others: a kept suggestion's number to
        its name), then send each with every refused value that fits it; fields that differ by a
        number or an id only (minutes_0 … minutes_6) are one field here."""
        form = dict(self.filled.get(url, {}))
        _status, fields = self.send(client, url, form, hx=False)
        for _round in range(3):
            if not fields - form.keys():
                break
            form.update({name: PLAUSIBLE.get(name, "1") for name in fields - form.keys()})
            fields |= self.send(client, url, form, hx=False)[1]
        shapes = {re.sub(r"[0-9]+", "#", UUID.sub("<id>", name)): name for name in sorted(fields)}
        for field in shapes.values():
            answers = {}
            for value in self.values_for(form.get(field)):
                status = self.send(client, url, {**form, field: value}, hx=False)[0]
                answers.setdefault(status, value)
            for value in answers.values():
                self.send(client, url, {**form, field: value}, hx=True)
        return len(shapes)

    def values_for(self, filled):
        values = list(EVERY_FIELD.values())
        if filled is None or filled.isdigit():
            values += NUMBERS.values()
        values += [filled.replace(mine, theirs) for mine, theirs in self.theirs.items() if mine in (filled or "")]
        return values


def _walk_order(rule):
    return any(word in rule.endpoint for word in ENDINGS), rule.rule


@pytest.mark.parametrize("part", range(PARTS))
def test_no_form_route_answers_a_refused_value_with_a_server_error(part, sweep_app, signed_in, user_id, other_user_id):
    app, crashes = sweep_app
    ids = {}
    for who, owner in (("ana", user_id), ("bruno", other_user_id)):
        with as_user(app, owner) as user:
            a_whole_life(user)
            ids[who] = {argument: row_of(owner, table) for argument, table in SOURCES.items()}
    walk = Walk(app, crashes, signed_in, ids["ana"], ids["bruno"])
    walk.read_every_page()
    every_rule = sorted((rule for rule in app.url_map.iter_rules() if rule.methods & UNSAFE), key=_walk_order)
    rules = every_rule[part::PARTS]
    fields = 0
    for rule in rules:
        for url in walk.urls(rule):
            fields += walk.spoil_each_field(walk.ana, url)
            if walk.is_public(url):
                fields += walk.spoil_each_field(walk.visitor, url)
    assert len(every_rule) >= 100 and fields >= 50, (len(every_rule), fields)
    assert walk.server_errors == []
