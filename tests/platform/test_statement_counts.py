"""The main pages cost the same number of SQL statements whatever the size of the account.

A light account (3 habits, 1 routine, a week of history) and a heavier one (40 habits, 3
routines, 60 days) are built the way bench/pages.py builds its heavy account (structure through
the services, history bulk-inserted), every dashboard widget on; each request is sent once for
each account and the statements counted. A count that grows with the data is an N+1: a query run
once per habit, entry or routine.

At the time of writing every one of these fails, each for a named cause in app/services or
templates (files this test's author may not edit); the message of each assertion says where
the extra statements come from and what would fix it.
"""

import pytest

from app.extensions import db
from bench.pages import (
    Shape,
    StatementCounter,
    build,
    first_entry_today,
    signed_in_client,
    statement_counts,
)
from tests.conftest import standalone_app

LIGHT = Shape(habits=3, tasks=1, goals=2, routines=1, days=7, categories=2)
HEAVIER = Shape(habits=40, tasks=10, goals=6, routines=3, days=60, categories=5)

# Where each request's extra statements came from when this test was written.
CAUSES = {
    "GET /dashboard": (
        "today.today_routine -> _live_view -> _today_xp -> streaks.streak_before runs one DayOutcome "
        "query per unchecked entry of today's routine (and the page builds today_routine twice: the "
        "page's plan and the dailyProgress widget); streaks.day_items -> EntryCheck.frozen_from "
        "lazy-loads entry.item and entry.section per entry of the open day; today_routine loads "
        "section.entries per section. Fix: one grouped outcomes query for all the routine's items "
        "(current_run per item in Python), and eager loading (selectinload Routine.sections -> "
        "RoutineSection.entries -> RoutineEntry.habit/task/section) where schedules.routine_on "
        "loads the routine."
    ),
    "GET /habits": (
        "templates/habits/_list.html reads habit.categories per habit, one query each. Fix: "
        "habits.listing with .options(selectinload(Habit.categories))."
    ),
    "GET /routines": (
        "the day region has the same per-entry queries as the dashboard (streak_before per "
        "unchecked entry, frozen_from lazy loads); templates/routines/_list.html reads "
        "routine.schedule_days, routine.sections and section.entries per routine. Fix: as for the "
        "dashboard, plus routines.listing with selectinload(Routine.schedule_days) and "
        "selectinload(Routine.sections).selectinload(RoutineSection.entries)."
    ),
    "POST check toggle": (
        "today._settled -> streaks.settle_account -> streaks.day_items -> EntryCheck.frozen_from "
        "lazy-loads entry.item (and entry.section) for every entry of the open day without a row. "
        "Fix: eager-load the scheduled routine's entries with their habit, task and section."
    ),
}
CAUSES["POST check toggle (uncheck)"] = CAUSES["POST check toggle"]


@pytest.fixture(scope="module")
def counts():
    """{"light": {request: statements}, "heavier": {...}}, one app for both accounts."""
    app = standalone_app()
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


@pytest.mark.parametrize(
    "request_name",
    ["GET /dashboard", "GET /habits", "GET /routines", "POST check toggle", "POST check toggle (uncheck)"],
)
def test_statement_count_does_not_grow_with_the_account(counts, request_name):
    light, heavier = counts["light"][request_name], counts["heavier"][request_name]
    assert heavier == light, f"{request_name}: {light} statements light, {heavier} heavier. {CAUSES[request_name]}"
