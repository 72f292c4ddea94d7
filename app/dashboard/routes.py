"""The signed-in home: a greeting, the streak, a new account's next steps, today's routine with
check and skip in place, the widgets the user chose (each its own fragment that refreshes on its
domain), and the goals ahead."""

import math
from datetime import datetime, timedelta
from types import SimpleNamespace

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_login import login_required

from app.dashboard import briefing, next_steps, timeline
from app.mood import services as mood
from app.onboarding import services as onboarding
from app.profile import widgets
from app.routines import streaks, today
from app.shared.days import user_zone
from app.study_cycles import services as study_cycles
from app.web.acting import acting_user, signed_in
from app.web.navigation import BY_SLUG
from app.web.rendering import render_page

bp = Blueprint("dashboard", __name__, template_folder="templates")

HEATMAP_WEEKS = 16
STRIP_DAYS = 28
RADAR_AXES = 6
TIP_COUNT = 8


@bp.get("/")
def home():
    if signed_in():
        return redirect(url_for("dashboard.index"))
    return redirect(url_for("auth.login"))


@bp.get("/dashboard")
@login_required
def index():
    user = acting_user()
    now = datetime.now(user_zone(user))
    chosen = [widget_id for widget_id in (user.widgets or []) if widget_id in WIDGETS]
    steps = _next_steps(user)
    regions = [name for name in REGIONS if name != "next-steps" or steps]
    return render_page(
        "dashboard/page.html",
        active="dashboard",
        now=now,
        day_part=_day_part(now.hour),
        plan=_plan(user),
        constance=_account_constance(user),
        steps=steps,
        steps_total=next_steps.TOTAL,
        widgets=[(widget_id, WIDGETS[widget_id][0], _widget_context(widget_id, user)) for widget_id in chosen],
        refreshers=_refreshers(regions, chosen),
        clock_url=url_for("dashboard.regions", ids="calendarToday") if "calendarToday" in chosen else None,
        configuration_url=BY_SLUG["configuration"].url,
    )


# The regions outside the widget rail that refresh with it, and the domains they read.
REGIONS = {"constance-chip": ("routines",), "today-card": ("routines",), "next-steps": next_steps.DOMAINS}


def _next_steps(user):
    """The steps a new account has left, once the setup assistant is finished or skipped (until
    then its welcome card is the one next step)."""
    if not user.tutorial_done:
        return []
    return next_steps.left(next_steps.footing(user))


def _refreshers(regions, chosen):
    """[(hx-trigger, url)]: one refresher per set of domains, asking for every region that reads
    exactly those. A check announces routines, habits and categories at once: three GETs (the
    routine readers, the level, the category charts) instead of one per region, and a region
    never refreshes for a domain it does not read. Its trigger waits a millisecond so the
    several domains of one answer make one request, not one each. The next steps' region is on
    the page (and refreshed) only while a step is left."""
    groups = {}
    readers = [(name, REGIONS[name]) for name in regions]
    readers += [(widget_id, WIDGETS[widget_id][0]) for widget_id in chosen]
    for name, domains in readers:
        if domains:
            groups.setdefault(domains, []).append(name)
    return [
        (
            ", ".join(f"domain:{domain} from:body delay:1ms" for domain in domains),
            url_for("dashboard.regions", ids=",".join(names)),
        )
        for domains, names in groups.items()
    ]


@bp.post("/dashboard/tour-done")
@login_required
def finish_tour():
    """The welcome card's "skip": the setup assistant is skipped, so the assistant appears. The
    card posts a plain form, so the browser loads the dashboard whole, its shell now with the launcher."""
    onboarding.skip(acting_user())
    return redirect(url_for("dashboard.index"))


@bp.get("/daily-briefing")
@login_required
def daily_briefing():
    """Today's briefing: always 200, the facts at once and the text when it came in time."""
    shown = briefing.open_today(acting_user())
    return render_page("shared/dialog_page.html", "dashboard/_briefing.html", briefing=shown, attempt=0,
                       **_polling(), dialog_fragment="dashboard/_briefing.html")  # fmt: skip


@bp.get("/daily-briefing/narrative")
@login_required
def briefing_narrative():
    """The dialog's poll: one read of the briefing by id, never a model call."""
    shown = briefing.narrative(acting_user(), request.args.get("briefing"))
    attempt = request.args.get("attempt", default=1, type=int)
    return render_template("dashboard/_briefing_text.html", briefing=shown, attempt=attempt, **_polling())


def _polling():
    config = current_app.config
    return {"poll_seconds": config["BRIEFING_POLL_SECONDS"], "polls": config["BRIEFING_POLLS"]}


@bp.get("/dashboard/regions")
@login_required
def regions():
    """Some of the dashboard's regions, each as an out-of-band swap: what one refresher asks for
    when a domain its regions read has changed (see `_refreshers`)."""
    wanted = [name for name in request.args.get("ids", "").split(",") if name]
    if not wanted or any(name not in REGIONS and name not in WIDGETS for name in wanted):
        abort(404)
    user = acting_user()
    found = []
    for name in wanted:
        if name == "constance-chip":
            found.append({"name": name, "constance": _account_constance(user)})
        elif name == "today-card":
            found.append({"name": name, "plan": _plan(user)})
        elif name == "next-steps":
            found.append({"name": name, "steps": _next_steps(user), "steps_total": next_steps.TOTAL})
        else:
            found.append({"name": name, "domains": WIDGETS[name][0], "data": _widget_context(name, user)})
    return render_template("dashboard/_regions.html", regions=found)


@bp.app_template_filter("sentence_case")
def sentence_case(text):
    """A date that starts a heading or a line gets a capital first letter, and only that one:
    Portuguese writes "Segunda-feira, 30 de novembro de 2026", never "Segunda-Feira, 30 De Novembro"
    (what CSS `text-transform: capitalize` makes of it)."""
    text = str(text)
    return text[:1].upper() + text[1:]


def _day_part(hour):
    if 5 <= hour < 12:
        return "morning"
    if 12 <= hour < 17:
        return "afternoon"
    if 17 <= hour < 21:
        return "evening"
    return "night"


# Widgets ------------------------------------------------------------------------------------------


def _once(name, compute):
    """The page and its widgets read the same figures: compute each once per request (kept in
    the request's environ: `g` outlives a request when a test holds the app context open)."""
    memo = request.environ.setdefault("beyou.dashboard_figures", {})
    if name not in memo:
        memo[name] = compute()
    return memo[name]


def _plan(user):
    return _once("plan", lambda: today.today_routine(user))


def _account_constance(user):
    return _once("constance", lambda: streaks.constance(user))


def _ranked_categories(user):
    return _once("categories_by_xp", lambda: streaks.categories_by_xp(user))


def _daily_progress(user):
    plan = _plan(user)
    return {"plan": plan, "percent": round(100 * plan.done / plan.total) if plan and plan.total else 0}


def _level_progress(user):
    return {"owner": user}


def _account_history(user):
    """The account's outcomes over the heatmap's 16 weeks, Monday to Sunday, ending with the
    current week: the heatmap shows them all and the strip its last 28 days, read once."""

    def weeks():
        current = streaks.today_for(user)
        start = current - timedelta(days=current.weekday() + 7 * (HEATMAP_WEEKS - 1))
        return streaks.history(user, "USER", start=start, end=current)

    return _once("account_history", weeks)


def _constance(user):
    weeks = _account_history(user)
    days = weeks.days[-STRIP_DAYS:]
    history = streaks.History(weeks.owner_type, weeks.owner_id, days[0][0], weeks.end, days)
    return {"constance": _account_constance(user), "history": history}


def _heatmap(user):
    """16 weeks, Monday to Sunday, ending with the current week, as SVG cells: (x, y, day,
    outcome, still open). Tuples, not dicts: the template unpacks each of its 112 cells once,
    where `cell.x` on a dict costs Jinja a failed attribute lookup before the key."""
    history = _account_history(user)
    current, start = history.end, history.start
    cells = [
        (((day - start).days // 7) * 14, day.weekday() * 14, day, outcome, day == current and outcome != "DONE")
        for day, outcome in history.days
    ]
    return {"cells": cells, "width": HEATMAP_WEEKS * 14, "height": 7 * 14}


def _category_balance(user):
    """A radar of XP across the top categories, scaled to the strongest one."""
    top = _ranked_categories(user)[:RADAR_AXES]
    if len(top) < 3:
        return {"axes": [], "count": len(top)}
    peak = max(category.xp for category in top) or 1
    axes, points = [], []
    for index, category in enumerate(top):
        angle = -math.pi / 2 + 2 * math.pi * index / len(top)
        reach = 80 * (category.xp / peak)
        points.append(f"{100 + reach * math.cos(angle):.1f},{100 + reach * math.sin(angle):.1f}")
        axes.append(
            SimpleNamespace(
                name=category.name[:12],
                xp=category.xp,
                x2=f"{100 + 80 * math.cos(angle):.1f}",
                y2=f"{100 + 80 * math.sin(angle):.1f}",
                lx=f"{100 + 94 * math.cos(angle):.1f}",
                ly=f"{100 + 94 * math.sin(angle):.1f}",
            )
        )
    return {"axes": axes, "points": " ".join(points), "count": len(top)}


def _area(user, best):
    ranked = _ranked_categories(user)
    if not ranked:
        return {"category": None, "bars": []}
    category = ranked[0] if best else ranked[-1]
    history = _once("xp_week", lambda: streaks.xp_history(user, days=7, owner_type="CATEGORY"))
    values = history.values("CATEGORY", category.id)
    peak = max(max(values), 1)
    bars = [
        SimpleNamespace(day=day, xp=xp, height=max(round(40 * max(xp, 0) / peak), 2), x=index * 18)
        for index, (day, xp) in enumerate(zip(history.days, values, strict=True))
    ]
    return {"category": category, "bars": bars, "best": best}


def _calendar_today(user):
    """Today's timed routine entries and study blocks on one timeline, with "now" among them."""
    now = datetime.now(user_zone(user)).time().replace(second=0, microsecond=0)
    return {"timeline": timeline.day_timeline(_plan(user), study_cycles.today(user), now)}


def _fast_tips(user):
    day_of_year = streaks.today_for(user).timetuple().tm_yday
    return {"tip_index": day_of_year % TIP_COUNT, "tip_count": TIP_COUNT}


# widget id -> (the domains it refreshes on, what it shows)
WIDGETS = {
    "dailyProgress": (("routines",), _daily_progress),
    "levelProgress": (("routines", "goals"), _level_progress),
    "constance": (("routines",), _constance),
    "constanceHeatmap": (("routines",), _heatmap),
    "categoryBalance": (("routines", "goals", "categories"), _category_balance),
    "betterArea": (("routines", "goals", "categories"), lambda user: _area(user, best=True)),
    "worstArea": (("routines", "goals", "categories"), lambda user: _area(user, best=False)),
    "fastTips": ((), _fast_tips),
    "moodWeek": (("mood",), lambda user: {"days": mood.week(user)}),
    "studyToday": (("study_cycles",), study_cycles.widget),
    "calendarToday": (("routines", "study_cycles"), _calendar_today),
}


def _widget_context(widget_id, user):
    """What a widget's template reads as `data`. A namespace, not a dict: Jinja tries an
    attribute before a key, and a dict's every `data.x` failed once first."""
    return SimpleNamespace(title=widgets.CATALOGUE[widget_id], **WIDGETS[widget_id][1](user))
