"""Every form route refuses bad input with a message, never a server error.

The walk is built from the URL map, not from a list: every rule taking a POST, PUT, PATCH or
DELETE is requested by Ana, who owns one row of every kind (so the ids in its URL are real) and
may open the admin area, and by a visitor signed out when the route is public. Each form starts
as the app's own pages fill it (every page is read first and its forms noted), and the fields a
route reads are found by asking it: the form handed to the view notes every name looked up in
it. Each field is then sent, one at a time, with every refused value below without htmx, and
with htmx once for each different answer that gave, and twice in one form (a list for a
scalar); a field holding one of Ana's ids is also sent with Bruno's row and with an id nobody
has in its place, which must be answered alike.
Each route also gets 1 MiB of text once, in its longest field: the input boundary refuses the
body before any field is read, so one field tells as much as all of them would. No answer may
be a server error: a 500, or any 5xx but the AI doors' typed 503 (this app has no model
configured).

Every write rule must be reached: a rule whose URL cannot be built, or that answered nothing but
404, 405, 403 or "sign in" to Ana and the visitor, fails the walk unless UNREACHABLE says why.

Rules that end things (deleting a row, archiving it, signing out) are walked last, so that the
rows the others name are still there, and deleting the account is the very last; rate limits
are off, since a 429 would hide the form. The rules are dealt into PARTS tests, each with lives
of its own, so `pytest -n` walks them at once.
"""

import json
import logging
import re
import uuid
from collections import defaultdict
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from flask import request
from werkzeug.datastructures import ImmutableMultiDict

from app.extensions import db, limiter
from app.notebook import sources
from app.notebook.ai.models.studio import CardDraft, StudioOutput
from app.notebook.models.pages import NotebookPage
from app.onboarding import services as onboarding
from app.profile import widgets
from app.profile.routes import SECTIONS
from tests.builders import as_user
from tests.conftest import csrf_token_from, sign_in
from tests.security.test_ownership import SOURCES, _without, a_whole_life, row_of

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
PARTS = 3
ENDINGS = ("delete", "remove", "discard", "accept", "clear", "reset", "archive", "complete", "logout", "sign_out")
LAST = "configuration.delete_account"  # ends the walk's own account: nothing may come after it

# The values to walk for each route argument that names no row (app/domains.py), every one of them.
NOT_ROWS = {
    "section": lambda: [*SECTIONS, "widgets", "danger"],
    "step": lambda: [step.value.lower() for step in onboarding.ORDER],
    "token": lambda: ["not-a-signed-token"],
    "widget_id": lambda: list(widgets.CATALOGUE),
    "filename": lambda: [],  # a static file: nothing posts there
}

# Write rules the walk cannot reach ({endpoint: why}); one the walk reaches must leave the table.
UNREACHABLE = {}

# A field no page fills holds one of these (or "1") while another is spoiled.
PLAUSIBLE = {"name": "Reading", "text": "A thought", "title": "A title", "journal": "A calm day",
             "message": "Hello", "said": "Hello", "email": "someone@example.com"}  # fmt: skip

# Fields naming a row that no page the walk reads fills (their dialogs open with a query, their
# options come from a search): they start with Ana's row, so Bruno's is tried in them too.
FIELDS_NAMING_ROWS = {"item": "habit:{habit_id}", "from_node": "{node_id}", "to_node": "{node_id}",
                      "page": "{page_id}", "parent_id": "{page_id}", "concept": "{page_id}", "parent": "{goal_id}",
                      "step": "{micro_task_id}", "focus_entry": "{entry_id}"}  # fmt: skip

REFUSED = {
    "empty": "",
    "wrong type": "abc",
    "too long, in more digits than int() reads": "9" * 10_001,
    "superscript two": "²",
    "Arabic-Indic one": "١",
    "a NUL byte": "a\x00b",
    "an emoji of four UTF-8 bytes": "\U0001f600",  # one code point past the BMP, no lone surrogate
    "a ZWJ sequence": "\U0001f469\U0001f3fd\u200d\U0001f4bb",  # woman technologist, medium skin tone
    "negative": "-1",
    "past a database integer": "99999999999",
    "past a double": "1e309",
    "not a number": "NaN",
    "February 30th": "2026-02-30",
    "a five-digit year": "99999-01-01",
    "a word for a date": "yesterday",
    "month 13": "2026-13-01",
    "an id nobody has": str(uuid.uuid4()),
    "not an id": "not-an-id",
}
A_MEGABYTE = "x" * 2**20
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
NOT_REACHED = {403, 404, 405}  # with a redirect to the sign-in page (401 with HX-Redirect for htmx)


def what_a_model_left(user):
    """The rows a_whole_life leaves to a model, on its notebook page: a source (pasted, as a page
    from the web is kept), a quiz and two flashcard drafts of the Studio."""
    page = db.session.scalar(db.select(NotebookPage).where(NotebookPage.user_id == user.id))
    source = sources.paste(user, page.id, "Cells\nThe cell is the unit of life.")
    passage = {"number": 1, "text": "The cell is the unit of life.", "kind": "source", "label": "Cells",
               "block_id": None, "source_id": str(source.id), "passage_id": None, "position": 0}  # fmt: skip
    question = {"question": "What is the unit of life?", "choices": ["The cell", "The atom"], "answer": 0,
                "explanation": "The cell is the unit of life [1]."}  # fmt: skip
    quiz = StudioOutput(user_id=user.id, page_id=page.id, kind="quiz", title="Cells", content={"questions": [question]},
                        passages=[passage])  # fmt: skip
    drafts = [CardDraft(user_id=user.id, page_id=page.id, front=f"Unit of life? ({n})", back="The cell",
                        passage=passage, position=n) for n in range(2)]  # fmt: skip
    db.session.add_all([quiz, *drafts])
    db.session.commit()


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


class Untyped(logging.Handler):
    """Counts the 5xx answers the app did not mean as refusals: the web shell logs each (a crash,
    a busy database, a pool with no connection free); a typed refusal is logged by no one."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen = 0

    def emit(self, record):
        self.seen += 1


@pytest.fixture
def sweep_app(app, monkeypatch):
    """The app with its forms noting reads, its crashes counted and its rate limits off. The hook
    is appended by hand: Flask closes `before_request` once the session's app has served a
    request; it runs after the app's own hooks (the NUL boundary replaces the form first)."""
    monkeypatch.setattr(limiter, "enabled", False)
    app.before_request_funcs.setdefault(None, []).append(_note_form_reads)
    crashes = Untyped()
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
    def __init__(self, app, crashes, ana, owners):
        self.app, self.crashes, self.ana, self.owners = app, crashes, ana, owners
        self.ids, self.theirs, self.no_ones = {}, {}, {}
        self.visitor = app.test_client()
        self.visitor.csrf = csrf_token_from(self.visitor.get("/login"))
        self.server_errors, self.foreign_unlike_unknown, self.filled = [], [], {}
        self.answered = defaultdict(set)  # endpoint → what it answered ("sign in" for the login page)
        self.unbuilt = set()
        self.find_rows()

    def find_rows(self):
        """Ana's row of each kind, one still there when an ending took the one used so far (two
        drafts: one is accepted, the other discarded); her id in a form ("habit:<id>" too) → the
        same kind of row of Bruno's, and of no one's."""
        ana, bruno = self.owners
        with self.app.app_context():
            for argument, table in SOURCES.items():
                kept = self.ids.get(argument)
                if kept is None or not _exists(table, kept):
                    self.ids[argument] = row_of(ana, table)
                mine = self.ids[argument]
                if mine and str(mine) not in self.theirs:
                    self.theirs[str(mine)] = str(row_of(bruno, table))
                    self.no_ones[str(mine)] = str(uuid.uuid4())

    def urls(self, rule):
        """The URLs of the rule with Ana's rows (and every value of the arguments naming none);
        none when one of its rows does not exist."""
        values = [{}]
        for argument in rule.arguments:
            if argument in SOURCES:
                values = [{**value, argument: self.ids[argument]} for value in values if self.ids[argument]]
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

    def send(self, client, url, form, hx, answer=False):
        """Post the form: the answer's status and the names the view read (with its body when
        `answer`)."""
        ReadingForm.read, before = set(), self.crashes.seen
        headers = {"X-CSRFToken": client.csrf, **({"HX-Request": "true"} if hx else {})}
        response = client.post(url, data=form, headers=headers)
        status = response.status_code
        if status >= 500 and (status != 503 or self.crashes.seen > before):
            shown = {k: (v[:12] if isinstance(v, str) else [item[:12] for item in v]) for k, v in form.items()}
            self.server_errors.append((url, "htmx" if hx else "page", shown, status))
        to_sign_in = "/login" in response.headers.get("Location", "") + response.headers.get("HX-Redirect", "")
        self.answered[self.endpoint].add("sign in" if to_sign_in else status)
        if client is self.ana and to_sign_in:
            sign_in(self.ana)  # a sign-out route did its job: the walk goes on signed in
            self.ana.csrf = csrf_token_from(self.ana.get("/dashboard"))
        read = ReadingForm.read - {"csrf_token"}
        return (status, read, response.get_data(as_text=True)) if answer else (status, read)

    def is_public(self, url):
        ReadingForm.read = set()
        response = self.visitor.post(url, headers={"X-CSRFToken": self.visitor.csrf})
        return "/login" not in response.headers.get("Location", "")

    def walk(self, rule):
        self.endpoint = rule.endpoint
        self.find_rows()
        urls, fields = self.urls(rule), 0
        if not urls:
            self.unbuilt.add(rule.endpoint)
        for url in urls:
            fields += self.spoil_each_field(self.ana, url)
            if self.is_public(url):
                fields += self.spoil_each_field(self.visitor, url)
        return fields

    def unreached(self, rule):
        """Why the walk did not reach the rule, or None when it did."""
        if rule.endpoint in self.unbuilt:
            return "its URL could not be built"
        if not self.answered[rule.endpoint] - NOT_REACHED - {"sign in"}:
            return f"it answered only {sorted(map(str, self.answered[rule.endpoint]))}"
        return None

    def spoil_each_field(self, client, url):
        """Find the fields the route reads (one may lead to others: a kept suggestion's number to
        its name) or its page fills, then send each with every refused value that fits it; fields that differ by a
        number or an id only (minutes_0 … minutes_6) are one field here."""
        form = dict(self.filled.get(url, {}))
        _status, fields = self.send(client, url, form, hx=False)
        fields |= form.keys()  # a view may walk the form rather than look names up (a quiz's q0, q1 …)
        for _round in range(3):
            if not fields - form.keys():
                break
            form.update({name: self.plausible(name) for name in fields - form.keys()})
            fields |= self.send(client, url, form, hx=False)[1]
        shapes = {re.sub(r"[0-9]+", "#", UUID.sub("<id>", name)): name for name in sorted(fields)}
        for field in shapes.values():
            answers = {}
            for value in self.values_for(form.get(field)):
                status = self.send(client, url, {**form, field: value}, hx=False)[0]
                answers.setdefault(status, value)
            for value in answers.values():
                self.send(client, url, {**form, field: value}, hx=True)
            self.someone_elses_like_no_ones(client, url, form, field)
        if shapes:
            longest = max(shapes.values(), key=lambda name: len(form.get(name) or ""))
            for hx in (False, True):
                self.send(client, url, {**form, longest: A_MEGABYTE}, hx=hx)
        return len(shapes)

    def plausible(self, name):
        """What a field no page filled holds while another is spoiled: Ana's row when it names one."""
        if name in FIELDS_NAMING_ROWS:
            return FIELDS_NAMING_ROWS[name].format_map(self.ids)
        return PLAUSIBLE.get(name, "1")

    def values_for(self, filled):
        """Every refused value, and the field sent twice: as filled, and as something else."""
        return [*REFUSED.values(), [filled or "1", "2"]]

    def someone_elses_like_no_ones(self, client, url, form, field):
        """A field holding Ana's id, with Bruno's row and with an id nobody has in its place: the
        answers must be the same, ids aside (a new chat's differ each time)."""
        filled = form.get(field) or ""
        for mine in (row_id for row_id in self.theirs if row_id in filled):
            for hx in (False, True):
                answers = []
                for other in (self.theirs[mine], self.no_ones[mine]):
                    with client.session_transaction() as session:
                        session.pop("_flashes", None)  # an earlier request's notice is neither's
                    status, _read, body = self.send(client, url, {**form, field: filled.replace(mine, other)}, hx, True)
                    answers.append((status, UUID.sub("<id>", _without(body, other))))
                if answers[0] != answers[1]:
                    self.foreign_unlike_unknown.append((url, field, "htmx" if hx else "page", *(a[0] for a in answers)))


def _exists(table, row_id):
    table = db.metadata.tables[table]
    return db.session.scalar(db.select(table.c.id).where(table.c.id == row_id)) is not None


def _depth(table):
    """How many rows stand above one of the table's (its user aside): a page's source is 2, under
    its page and topic."""
    parents = {key.column.table for key in table.foreign_keys} - {table, db.metadata.tables["users"]}
    return 1 + max(map(_depth, parents)) if parents else 0


def _walk_order(rule):
    """Endings last, and those lower down first, so none takes another's row with it: a page's
    source (a row lower down) before its page, its tutor's answers (the URL goes on past the page)
    before the page itself. Deleting the account comes at the very end."""
    ending = any(word in rule.endpoint for word in ENDINGS)
    rows = [argument for argument in rule.arguments if argument in SOURCES]
    depth = max((_depth(db.metadata.tables[SOURCES[argument]]) for argument in rows), default=0)
    past_its_rows = re.split(r"<[^>]+>", rule.rule)[-1].count("/") if rows else 0
    return rule.endpoint == LAST, ending, (-depth, -past_its_rows) if ending else (0, 0), rule.rule


@pytest.mark.parametrize("part", range(PARTS))
def test_no_form_route_answers_a_refused_value_with_a_server_error(part, sweep_app, signed_in, user_id, other_user_id):
    app, crashes = sweep_app
    for owner in (user_id, other_user_id):
        with as_user(app, owner) as user:
            a_whole_life(user)
            what_a_model_left(user)
    with as_user(app, user_id) as ana:
        ana.is_admin = True  # the admin area's forms are walked too
        db.session.commit()
    walk = Walk(app, crashes, signed_in, (user_id, other_user_id))
    walk.read_every_page()
    every_rule = sorted((rule for rule in app.url_map.iter_rules() if rule.methods & UNSAFE), key=_walk_order)
    rules = every_rule[part::PARTS]
    fields = sum(walk.walk(rule) for rule in rules)
    unreached = {rule.endpoint: walk.unreached(rule) for rule in rules}
    assert len(every_rule) >= 100 and fields >= 50, (len(every_rule), fields)
    assert walk.server_errors == []
    assert walk.foreign_unlike_unknown == [], "another user's id must be answered as an id nobody has"
    assert {endpoint: why for endpoint, why in unreached.items() if why and endpoint not in UNREACHABLE} == {}
    assert [endpoint for endpoint in UNREACHABLE if endpoint in unreached and not unreached[endpoint]] == []
