"""The main pages and the daily check cost a bounded number of SQL statements, the same whatever
the size of the account.

A light account (3 habits, 1 routine, a week of history) and a heavier one (40 habits, 3
routines, 60 days) are built the way bench/pages.py builds its heavy account (structure through
the services, history bulk-inserted), every dashboard widget on; each request is sent once for
each account and its statements counted. A count that grows with the data is an N+1: a query run
once per habit, entry, routine or day of history.

The check is measured alone (the POST) and as the whole interaction: the POST, then every GET
the page's htmx wiring sends when the answer's HX-Trigger announces its domains
(bench.pages.follow_ups), on the dashboard and on the routines page.
"""

import pytest

from app.extensions import db
from bench.pages import (
    Shape,
    StatementCounter,
    add_floor,
    build,
    first_entry_today,
    follow_ups,
    signed_in_client,
    statement_counts,
)
from tests.conftest import standalone_app

LIGHT = Shape(habits=3, tasks=1, goals=2, routines=1, days=7, categories=2)
HEAVIER = Shape(habits=40, tasks=10, goals=6, routines=3, days=60, categories=5)

CHECK_MOST = 15  # the POST: lock, entry, the day's rows, outcomes; one flush; two upserts
INTERACTION_MOST = 40  # the POST and the refreshes it sets off on the page

REQUESTS = ["GET /dashboard", "GET /habits", "GET /routines", "POST check toggle", "POST check toggle (uncheck)"]
INTERACTIONS = ["check on /dashboard", "uncheck on /dashboard", "check on /routines", "uncheck on /routines"]


@pytest.fixture(scope="module")
def counts():
    """{"light": {request: statements}, "heavier": {...}}, one app for both accounts."""
    app = standalone_app()
    add_floor(app)
    found = {}
    for label, shape in (("light", LIGHT), ("heavier", HEAVIER)):
        email = f"{label}@bench.example.com"
        with app.app_context():
            user_id = build(email, shape)
            counter = StatementCounter(db.engine)
        client = signed_in_client(app, email)
        found[label] = statement_counts(app, client, counter, first_entry_today(app, user_id))
        counter.active = False
    return found


@pytest.mark.parametrize("request_name", REQUESTS + INTERACTIONS)
def test_statement_count_does_not_grow_with_the_account(counts, request_name):
    light, heavier = counts["light"][request_name], counts["heavier"][request_name]
    assert heavier == light, f"{request_name}: {light} statements light, {heavier} heavier"


@pytest.mark.parametrize("request_name", ["POST check toggle", "POST check toggle (uncheck)"])
def test_a_check_or_uncheck_runs_at_most_fifteen_statements(counts, request_name):
    assert counts["heavier"][request_name] <= CHECK_MOST


@pytest.mark.parametrize("request_name", INTERACTIONS)
def test_a_whole_check_interaction_runs_at_most_forty_statements(counts, request_name):
    assert counts["heavier"][request_name] <= INTERACTION_MOST


def test_the_follow_ups_are_the_listeners_of_the_announced_domains_one_request_each_when_they_wait():
    page = (
        '<div hx-get="/a" hx-trigger="domain:routines from:body"></div>'
        '<div hx-trigger="domain:goals from:body" hx-get="/b"></div>'
        '<div hx-get="/c?x=1&amp;y=2" '
        'hx-trigger="domain:routines from:body delay:1ms, domain:habits from:body delay:1ms">'
        '<div hx-get="/d" hx-trigger="domain:routines from:body, domain:habits from:body"></div>'
        '<div hx-get="/e" hx-trigger="load"></div>'
    )
    assert follow_ups(page, "domain:habits, domain:routines") == ["/a", "/c?x=1&y=2", "/d", "/d"]
