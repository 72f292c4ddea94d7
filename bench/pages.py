"""How fast the main pages and the daily check answer for a heavy account, beside a floor route
measured in the same run, and how many SQL statements each costs.

    .venv/bin/python -m bench.pages [--runs 100] [--warmup 10] [--days 730] [--database-url URL] [--smoke]

It builds one heavy account — 200 habits, 50 tasks, 30 goals, 5 timed routines sharing the week,
two years of history — in a fresh SQLite file (or in the database at --database-url, e.g.
postgresql+psycopg://postgres@127.0.0.1:5432/beyou_daycheck, whose tables it DROPS and makes
again), signs in with the Flask test client and times GET /dashboard (every widget on), GET
/habits, GET /routines and the check toggle (the htmx POST the routines page sends), warm-up
runs excluded. Absolute times swing with the machine's load, so each is printed as a ratio to
the floor: GET /bench/floor, a signed-in page that renders the layout and nothing else (the
bench adds it to the app it builds), timed in the same run, in turn with them (each round sends every
request once, so the load's drift weighs on the floor and the pages alike). Targets: every page's p95 ≤ 6× the
floor's; checks per second beside the floor's requests per second. Each request's CPU time (the
process's, `time.process_time`) is printed beside its wall time: on a machine other work loads,
wall times measure the load and CPU times still measure the code. Before timing, the objects the
built app holds are frozen out of the garbage collector's sight, as a server worker does
(`app.freeze_startup_objects`).

It prints the statements each request runs (counted with a `before_cursor_execute` listener), and
those of the whole check interaction: the POST, then every GET the page's htmx wiring makes when
the answer's HX-Trigger announces its domains (`follow_ups`). Targets: ≤ 15 for the POST, ≤ 40
for the interaction. Then each page's weight, raw and compressed as a browser receives it, with
the static files a cold load adds (target: no page over 150 KB raw).

The structure (categories, habits, tasks, goals, routines, schedules, settings) is made through
the services. The HISTORY is not: two years of a couple of hundred entries a day is some 250,000
rows, and checking them one by one through `today.check` and the day close would take hours. So
`build` writes the history rows — EntryCheck, DayOutcome, XpDay, DayCloseMark — with bulk
inserts, shaped as the day close and the checks would leave them, and then sets XP totals and
streak figures from them. This is the only place that writes rows directly; it is a measuring
tool, not a way into the database. On PostgreSQL the bench then runs VACUUM ANALYZE, as
autovacuum does on a live database: freshly bulk-inserted rows have no statistics and no visibility
map yet, and every index-only scan would read the table (the constance's counts took ~4 ms instead
of ~0.3).

`build`, `statement_counts` and `follow_ups` are shared with
tests/platform/test_statement_counts.py, which builds a light and a heavier account and asserts
each request's statements: within the targets, and not growing with the data.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from flask import render_template
from flask_login import login_required
from sqlalchemy import event

from app import create_app, freeze_startup_objects
from app.categories import services as categories
from app.categories.models import Category
from app.extensions import db
from app.goals import services as goals
from app.habits import services as habits
from app.habits.models import Habit
from app.profile import accounts, configuration, widgets
from app.profile.models import User
from app.routines import schedules, streaks
from app.routines import services as routines
from app.routines.models.checks import DayCloseMark, EntryCheck
from app.routines.models.history import DayOutcome, Outcome, OwnerType, XpDay
from app.routines.models.routines import Routine
from app.routines.today import today_routine
from app.shared.days import today_for
from app.tasks import services as tasks
from app.tasks.models import Task

PASSWORD = "bench horse battery staple"
FLOOR = "GET /bench/floor"
PAGE_RATIO_TARGET = 6.0
PAGE_BYTES_TARGET = 150 * 1024
SECTIONS = (("Morning", "06:00", "12:00"), ("Afternoon", "12:00", "18:00"), ("Evening", "18:00", "23:30"))


@dataclass
class Shape:
    habits: int = 200
    tasks: int = 50
    goals: int = 30
    routines: int = 5
    days: int = 730
    categories: int = 8


HEAVY = Shape()
SMOKE = Shape(habits=12, tasks=4, goals=3, routines=2, days=14, categories=2)  # CI's run: seconds


# Building an account ---------------------------------------------------------------------------


def build(email, shape, seed=7):
    """An account of `shape` with `shape.days` days of history; returns its user id. Needs an
    app context."""
    dice = random.Random(seed)
    user = accounts.register(name="Bench", email=email, password=PASSWORD, timezone_name="UTC")
    today = today_for(user)
    first = today - timedelta(days=shape.days)
    areas = [categories.create(user, name=f"Area {i + 1}", icon="heart") for i in range(shape.categories)]
    made_habits = [
        habits.create(
            user,
            name=f"Habit {i + 1:03}",
            icon="activity",
            importance=1 + i % 5,
            difficulty=1 + (i // 5) % 5,
            categories=[areas[i % len(areas)].id],
        )
        for i in range(shape.habits)
    ]
    made_tasks = [
        tasks.create(
            user,
            name=f"Task {i + 1:03}",
            icon="check-square",
            importance=1 + i % 5,
            difficulty=1 + i % 3,
            categories=[areas[i % len(areas)].id],
        )
        for i in range(shape.tasks)
    ]
    made_routines = _routines(user, shape, [*made_habits, *made_tasks])
    for thing in (user, *areas, *made_habits, *made_tasks, *made_routines):
        thing.created_at = datetime.combine(first, datetime.min.time(), tzinfo=UTC)
    db.session.commit()
    _history(user, first, today, made_routines, [*made_habits, *made_tasks], dice)
    _goals(user, shape, areas, today, dice)  # after the bulk XP rows: completions add to them
    configuration.update(user, widgets=list(widgets.CATALOGUE), tutorial_done=True)
    return user.id


def _goals(user, shape, areas, today, dice):
    parent = None
    for i in range(shape.goals):
        goal = goals.create(
            user,
            name=f"Goal {i + 1:03}",
            icon="target",
            target_value=10 + i,
            current_value=dice.randint(0, 9),
            unit="steps",
            start_date=today - timedelta(days=30 + i),
            end_date=today + timedelta(days=i * 5 - 10),
            categories=[areas[i % len(areas)].id],
            parent=parent.id if parent is not None and i % 3 == 1 else None,
        )
        parent = goal if i % 3 == 0 else parent
        if i % 7 == 6:
            goals.complete(user, goal.id, done=True, today=today - timedelta(days=i))


def _routines(user, shape, items):
    """`shape.routines` timed routines, the items dealt out among them and among three sections,
    the week's days dealt out among the routines."""
    made = []
    for r in range(shape.routines):
        mine = items[r :: shape.routines]
        sections = [
            {
                "name": name,
                "icon": "sun",
                "starts_at": starts,
                "ends_at": ends,
                "entries": [
                    {"habit_id" if isinstance(item, Habit) else "task_id": item.id} for item in mine[s :: len(SECTIONS)]
                ],
            }
            for s, (name, starts, ends) in enumerate(SECTIONS)
        ]
        routine = routines.create_timed(user, f"Routine {r + 1}", "sunrise", sections)
        schedules.set_days(user, routine.id, [day for day in range(7) if day % shape.routines == r])
        made.append(routine)
    return made


def _history(user, first, today, made_routines, items, dice):
    """Bulk rows for every day from `first` to yesterday, as checks and the day close leave them."""
    by_weekday = {day.weekday: routine for routine in made_routines for day in routine.schedule_days}
    entries = {
        routine.id: [EntryCheck.frozen_from(entry, first) for entry in _in_order(routine)] for routine in made_routines
    }
    categories_of = {item.id: [category.id for category in item.categories] for item in items}
    checks, outcomes, xp_rows = [], [], []
    totals = defaultdict(float)
    day = first
    while day < today:
        routine = by_weekday.get(day.weekday())
        scheduled = {}
        gained = defaultdict(float)
        for frozen in entries[routine.id] if routine else ():
            roll = dice.random()
            checked, skipped = roll < 0.75, 0.75 <= roll < 0.8
            xp = float(streaks.check_xp(frozen.difficulty, frozen.importance, 0)) if checked else 0.0
            row = {column: getattr(frozen, column) for column in CHECK_COLUMNS}
            row.update(day=day, checked=checked, skipped=skipped, xp=xp, checked_at=_noon(day) if checked else None)
            checks.append(row)
            scheduled[frozen.item_id] = (
                Outcome.DONE if checked else Outcome.SKIPPED if skipped else Outcome.MISSED,
                frozen.item_type,
            )
            if checked:
                owners = [(OwnerType.USER, user.id), (OwnerType.ROUTINE, routine.id)]
                if frozen.item_type == OwnerType.HABIT:
                    owners.append((OwnerType.HABIT, frozen.item_id))
                owners += [(OwnerType.CATEGORY, category_id) for category_id in categories_of[frozen.item_id]]
                for owner in owners:
                    gained[owner] += xp
        for item in items:
            kind = OwnerType.HABIT if isinstance(item, Habit) else OwnerType.TASK
            outcome = scheduled.get(item.id, (Outcome.NOT_SCHEDULED, kind))[0]
            outcomes.append(_outcome(user, kind, item.id, day, outcome))
        counted = any(outcome == Outcome.DONE for outcome, _kind in scheduled.values())
        outcomes.append(_outcome(user, OwnerType.USER, user.id, day, Outcome.DONE if counted else Outcome.MISSED))
        for (kind, owner_id), xp in gained.items():
            xp_rows.append({"user_id": user.id, "owner_type": kind, "owner_id": owner_id, "day": day, "xp": xp})
            totals[(kind, owner_id)] += xp
        day += timedelta(days=1)
    for model, rows in ((EntryCheck, checks), (DayOutcome, outcomes), (XpDay, xp_rows)):
        for start in range(0, len(rows), 20_000):
            db.session.execute(db.insert(model), rows[start : start + 20_000])
    db.session.add(DayCloseMark(user_id=user.id, closed_through=today - timedelta(days=1)))
    _settle_figures(user, today, totals)
    db.session.commit()


CHECK_COLUMNS = [
    column.key
    for column in EntryCheck.__table__.columns
    if column.key not in ("id", "day", "checked", "skipped", "xp", "checked_at")
]


def _outcome(user, kind, owner_id, day, outcome):
    return {"user_id": user.id, "owner_type": kind, "owner_id": owner_id, "day": day, "outcome": outcome}


def _noon(day):
    return datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12)


def _settle_figures(user, today, totals):
    """XP totals from the XP rows, streak figures from the outcomes (the streak service's own
    recomputation)."""
    for model, kind in ((Habit, OwnerType.HABIT), (Routine, OwnerType.ROUTINE), (Category, OwnerType.CATEGORY)):
        for owner in db.session.scalars(db.select(model).where(model.user_id == user.id)):
            owner.xp = (owner.xp or 0.0) + totals[(kind, owner.id)]
    user.xp = (user.xp or 0.0) + totals[(OwnerType.USER, user.id)]
    for habit in db.session.scalars(db.select(Habit).where(Habit.user_id == user.id)):
        streaks.refresh(user, habit, OwnerType.HABIT, today)
    for task in db.session.scalars(db.select(Task).where(Task.user_id == user.id)):
        streaks.refresh(user, task, OwnerType.TASK, today)
    streaks.refresh_account(user, today)


def _in_order(routine):
    return [entry for section in routine.sections for entry in section.entries]


# Measuring -------------------------------------------------------------------------------------


class StatementCounter:
    """Counts the SQL statements the engine runs while `counting()` is open."""

    def __init__(self, engine):
        self.count = 0
        self.active = False
        event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *_args):
        if self.active:
            self.count += 1

    @contextmanager
    def counting(self):
        self.count, self.active = 0, True
        try:
            yield self
        finally:
            self.active = False


def add_floor(app):
    """The floor route: a signed-in page rendering the layout and nothing else."""
    app.add_url_rule("/bench/floor", "bench_floor", login_required(lambda: render_template("layout.html")))


def bench_app(database_url):
    """The app on `database_url`, its tables made afresh (a server database is emptied first)."""
    app = create_app("test", SQLALCHEMY_DATABASE_URI=database_url)
    add_floor(app)
    with app.app_context():
        if not database_url.startswith("sqlite"):
            db.drop_all()
        db.create_all()
    return app


def signed_in_client(app, email):
    """A test client signed in as `email`, with `.csrf` set for unsafe requests."""
    client = app.test_client()
    client.csrf = _token(client.get("/login").data)
    client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": client.csrf})
    client.csrf = _token(client.get("/dashboard").data)
    return client


def _token(html):
    match = re.search(rb'name="csrf-token" content="([^"]+)"', html) or re.search(
        rb'name="csrf_token" value="([^"]+)"', html
    )
    return match.group(1).decode()


def first_entry_today(app, user_id):
    """The id of the first entry of today's routine (a habit's, with one category)."""
    with app.app_context():
        plan = today_routine(db.session.get(User, user_id))
        return next(entry.entry_id for entry in plan.entries if entry.item_type == "HABIT")


def requests_for(entry_id):
    """name -> (method, url, extra keyword arguments for the client)."""
    htmx = {"HX-Request": "true"}
    return {
        FLOOR: ("get", "/bench/floor", {}),
        "GET /dashboard": ("get", "/dashboard", {}),
        "GET /habits": ("get", "/habits", {}),
        "GET /routines": ("get", "/routines", {}),
        "POST check toggle": ("post", f"/routines/entries/{entry_id}/check", {"headers": htmx}),
    }


def send(client, method, url, options):
    if method == "post":
        options = {**options, "data": {"csrf_token": client.csrf}}
        options["headers"] = {**options.get("headers", {}), "X-CSRFToken": client.csrf}
    response = getattr(client, method)(url, **options)
    assert response.status_code == 200, (url, response.status_code)
    return response


_LISTENER = re.compile(
    r'<[^>]*\bhx-get="([^"]+)"[^>]*\bhx-trigger="([^"]+)"[^>]*>|<[^>]*\bhx-trigger="([^"]+)"[^>]*\bhx-get="([^"]+)"[^>]*>'
)


def follow_ups(page_html, hx_trigger):
    """The GETs a page's htmx wiring sends when an answer carries `hx_trigger`: every element with
    an hx-get listening (`from:body`) for one of the announced events. htmx queues a second
    request for an element hit by several events while its first is in flight, unless its
    triggers wait (`delay:`), which folds them into one."""
    fired = set(re.findall(r"domain:[A-Za-z]+", hx_trigger or ""))
    urls = []
    for match in _LISTENER.finditer(page_html):
        url = (match.group(1) or match.group(4)).replace("&amp;", "&")
        specs = [spec.strip() for spec in (match.group(2) or match.group(3)).split(",")]
        hit = [spec for spec in specs if spec.split()[0] in fired and "from:body" in spec]
        if hit:
            urls += [url] * (1 if all("delay:" in spec for spec in hit) else min(len(hit), 2))
    return urls


def statement_counts(app, client, counter, entry_id):
    """name -> statements of one request. The toggle is measured as a check (entry unchecked
    before) and then as the uncheck that puts it back; "check on <page>" is the whole
    interaction: the POST and the GETs that page then sends."""
    counts = {}
    for name, (method, url, options) in requests_for(entry_id).items():
        with app.app_context(), counter.counting():
            send(client, method, url, options)
        counts[name] = counter.count
        if method == "post":
            with app.app_context(), counter.counting():
                send(client, method, url, options)
            counts["POST check toggle (uncheck)"] = counter.count
    method, url, options = requests_for(entry_id)["POST check toggle"]
    for page in ("/dashboard", "/routines"):
        html = client.get(page).get_data(as_text=True)
        for label in ("check", "uncheck"):
            with app.app_context(), counter.counting():
                answer = send(client, method, url, options)
                for follow_up in follow_ups(html, answer.headers.get("HX-Trigger")):
                    send(client, "get", follow_up, {"headers": {"HX-Request": "true"}})
            counts[f"{label} on {page}"] = counter.count
    return counts


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--days", type=int, default=HEAVY.days)
    parser.add_argument(
        "--database-url", help="a server database to use (its tables are dropped); default: a SQLite file"
    )
    parser.add_argument("--smoke", action="store_true", help="what CI runs: a small account, a few runs")
    args = parser.parse_args()
    shape = Shape(days=args.days)
    if args.smoke:
        shape, args.runs, args.warmup = SMOKE, 5, 1

    if args.database_url:
        measure(args.database_url, shape, args.runs, args.warmup)
        return
    with tempfile.TemporaryDirectory(prefix="beyou-bench-") as folder:
        measure(f"sqlite:///{Path(folder) / 'bench.sqlite3'}", shape, args.runs, args.warmup)


def measure(database_url, shape, runs, warmup):
    app = bench_app(database_url)
    started = time.perf_counter()
    with app.app_context():
        user_id = build("heavy@bench.example.com", shape)
        rows = {
            model.__tablename__: db.session.scalar(db.select(db.func.count()).select_from(model))
            for model in (EntryCheck, DayOutcome, XpDay)
        }
        settle(database_url)
    print(
        f"Built {shape.habits} habits, {shape.tasks} tasks, {shape.goals} goals, {shape.routines} routines, "
        f"{shape.days} days ({', '.join(f'{n} {name}' for name, n in rows.items())}) "
        f"in {time.perf_counter() - started:.1f} s on {db_name(database_url)}"
    )
    client = signed_in_client(app, "heavy@bench.example.com")
    entry_id = first_entry_today(app, user_id)
    with app.app_context():
        counter = StatementCounter(db.engine)
    counts = statement_counts(app, client, counter, entry_id)
    freeze_startup_objects()  # as a server worker does once the app is built (gunicorn.conf.py)

    print(
        f"\n{'request':<22}{'p50 ms':>9}{'p95 ms':>9}{'p95/floor':>11}{'CPU p50':>9}{'CPU p95':>9}{'CPU/floor':>11}"
        f"{'statements':>12}   ({runs} runs, {warmup} warm-up)"
    )
    requests = requests_for(entry_id)
    timings, spent = timed_in_turn(client, requests, warmup + runs)
    results, cpu = {}, {}
    for name, (method, _url, _options) in requests.items():
        results[name] = (statistics.median(timings[name][warmup:]), percentile(timings[name][warmup:], 0.95))
        cpu[name] = (statistics.median(spent[name][warmup:]), percentile(spent[name][warmup:], 0.95))
        statements = str(counts[name])
        if method == "post":
            statements += f" / {counts['POST check toggle (uncheck)']}"
        ratio = results[name][1] / results[FLOOR][1]
        cpu_ratio = cpu[name][1] / cpu[FLOOR][1]
        print(
            f"{name:<22}{results[name][0]:>9.1f}{results[name][1]:>9.1f}{ratio:>10.1f}x"
            f"{cpu[name][0]:>9.1f}{cpu[name][1]:>9.1f}{cpu_ratio:>10.1f}x{statements:>12}"
        )
    print("(the toggle alternates check and uncheck; its statements: check / uncheck)")
    print(f"(CPU: the process's CPU time per request; on a loaded machine it is what to compare — load {load()})")
    for page in ("/dashboard", "/routines"):
        print(f"whole check on {page:<11} statements: {counts[f'check on {page}']} / {counts[f'uncheck on {page}']}")

    floor_rate = 1000 / results[FLOOR][0]
    check_rate = 1000 / results["POST check toggle"][0]
    print(
        f"\nchecks/s (one client, from the p50): {check_rate:.0f}, the floor {floor_rate:.0f} requests/s "
        f"(a check is {check_rate / floor_rate:.2f} of a floor request)"
    )
    for label, figures in (("wall", results), ("CPU", cpu)):
        verdicts = []
        for name in ("GET /dashboard", "GET /routines", "GET /habits"):
            ratio = figures[name][1] / figures[FLOOR][1]
            verdicts.append(f"{name} {ratio:.1f}x {'met' if ratio <= PAGE_RATIO_TARGET else 'NOT met'}")
        print(f"Target page p95 <= {PAGE_RATIO_TARGET:.0f}x the floor's ({label}): " + "; ".join(verdicts))
    print_page_weights(client)


def timed_in_turn(client, requests, rounds):
    """({name: [wall ms]}, {name: [CPU ms]}) of `rounds` rounds, each sending every request once.
    Taken in turn, not one request's runs after another's: the machine's load drifts over a run,
    and a floor timed in a quiet minute beside a page timed in a busy one made the ratio swing
    from 4.4x to 7.0x between three runs of one tree."""
    timings, spent = defaultdict(list), defaultdict(list)
    for _round in range(rounds):
        for name, (method, url, options) in requests.items():
            began, began_cpu = time.perf_counter(), time.process_time()
            send(client, method, url, options)
            timings[name].append((time.perf_counter() - began) * 1000)
            spent[name].append((time.process_time() - began_cpu) * 1000)
    return timings, spent


def load():
    """The machine's load average over the last minute, as a reader of the figures needs it."""
    return f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def settle(database_url):
    """VACUUM ANALYZE a PostgreSQL database, as autovacuum would have by the time a user comes back."""
    if database_url.startswith("postgresql"):
        db.session.commit()
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")


def db_name(database_url):
    return "PostgreSQL" if database_url.startswith("postgresql") else "a SQLite file"


WEIGHED_PAGES = ("/dashboard", "/routines", "/habits", "/tasks", "/categories", "/goals", "/configuration", "/feedback")
BROWSER_ENCODINGS = "gzip, deflate, br, zstd"  # what Chromium sends


def page_weights(client, path):
    """(raw bytes, bytes on the wire, encoding, static files the page loads) for one page."""
    raw = client.get(path)
    wire = client.get(path, headers={"Accept-Encoding": BROWSER_ENCODINGS})
    assert raw.status_code == wire.status_code == 200, (path, raw.status_code)
    assets = re.findall(r'(?:href|src)="(/static/[^"#?]+\.(?:css|js)(?:\?[^"#]*)?)"', raw.get_data(as_text=True))
    return len(raw.data), len(wire.data), wire.headers.get("Content-Encoding", "none"), assets


def asset_weight(client, url):
    raw = client.get(url.replace("&amp;", "&"))
    wire = client.get(url.replace("&amp;", "&"), headers={"Accept-Encoding": BROWSER_ENCODINGS})
    return len(raw.data), len(b"".join(wire.response)), wire.headers.get("Cache-Control", "")


def print_page_weights(client):
    """Page weights raw and as compressed on the wire; a cold load adds the static files, a later
    navigation does not (they are fingerprinted and cached for a year)."""
    print(f"\n{'page':<22}{'raw KB':>9}{'wire KB':>9}  encoding   cold load KB (raw / wire)")
    assets = {}
    for path in WEIGHED_PAGES:
        raw, wire, encoding, urls = page_weights(client, path)
        for url in urls:
            if url not in assets:
                assets[url] = asset_weight(client, url)
        cold_raw = raw + sum(assets[url][0] for url in urls)
        cold_wire = wire + sum(assets[url][1] for url in urls)
        cold = f"{cold_raw / 1024:.1f} / {cold_wire / 1024:.1f}"
        flag = "" if raw <= PAGE_BYTES_TARGET else "  over 150 KB"
        print(f"GET {path:<18}{raw / 1024:>9.1f}{wire / 1024:>9.1f}  {encoding:<10} {cold}{flag}")
    print(f"\n{'static file':<48}{'raw KB':>9}{'wire KB':>9}  cache")
    for url, (raw, wire, cache) in assets.items():
        print(f"{url.split('?')[0]:<48}{raw / 1024:>9.1f}{wire / 1024:>9.1f}  {cache}")


if __name__ == "__main__":
    main()
