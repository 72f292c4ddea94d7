"""The mood page: how the person felt on a day (today by default), their private journal for it,
and a month of levels with a mark where they wrote.

This blueprint is the only caller of `mood.read_journal`: the words are shown to their owner on
this page and nowhere else (tests/mood/test_journal_privacy.py).
"""

import calendar
from datetime import timedelta

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import format_date
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from app.mood import services as mood
from app.shared.days import today_for
from app.shared.errors import DomainError, Invalid
from app.shared.values import day_from, month_from
from app.web.acting import acting_user
from app.web.forms import echoed_form
from app.web.rendering import is_htmx, render_page

bp = Blueprint("mood", __name__, url_prefix="/mood", template_folder="templates")

# The five levels, weakest first: what the radio group and the month view call each one.
LEVEL_NAMES = (_l("Awful"), _l("Bad"), _l("Okay"), _l("Good"), _l("Great"))
LEVEL_FACES = ("😞", "😟", "😐", "😊", "😄")


@bp.app_template_global()
def mood_level_name(level):
    return str(LEVEL_NAMES[level - 1])


@bp.app_template_global()
def mood_level_face(level):
    return LEVEL_FACES[level - 1]


@bp.get("")
@login_required
def index():
    """The page for a day (default today) and the month around it; htmx asks for the content only
    (picking a day, moving between months)."""
    return render_page("mood/page.html", "mood/_content.html", active="mood", **_page_context())


@bp.get("/month")
@login_required
def month():
    """The month view alone: it refreshes itself when a mood is logged (here or by the assistant).
    Opened as a page (a bookmark, a link in a new tab) it is the whole mood page at that month."""
    return render_page("mood/page.html", "mood/_month.html", active="mood", **_page_context())


@bp.post("")
@login_required
def save():
    """Save a day's level and journal. A refusal shows the form again with what was typed."""
    user = acting_user()
    current = today_for(user)
    form = request.form
    try:
        saved = mood.save(user, form.get("day"), form.get("level"), form.get("journal"))
    except DomainError as error:
        day = min(day_from(form.get("day")) or current, current)
        refusal = {"form": echoed_form(), "fields": error.field_messages, "error": error}
        if is_htmx():
            return render_template("mood/_entry.html", **{**_entry_context(day, current), **refusal}), error.status
        # One dict: the entry's and the month's contexts both name today, and a call takes a name once.
        context = {**_entry_context(day, current), **_month_context(None, day, current), **refusal}
        return render_template("mood/page.html", active="mood", **context), error.status
    toast = (
        _("Mood saved for today.")
        if saved.day == current
        else _("Mood saved for %(date)s.", date=format_date(saved.day, "long"))
    )
    if is_htmx():
        return render_template("mood/_entry.html", toast=toast, **_entry_context(saved.day, current))
    flash(toast, "success")
    return redirect(url_for("mood.index", day=None if saved.day == current else saved.day.isoformat()))


def _page_context():
    """The page for the asked day (default today) and month (default the day's)."""
    current = today_for(acting_user())
    day = _day(request.args.get("day"), current)
    return {**_entry_context(day, current), **_month_context(request.args.get("month"), day, current)}


def _day(value, current):
    if not value:
        return current
    day = day_from(value)
    if day is None:
        raise Invalid("DATE_INVALID", details={"day": "DATE_INVALID"})
    if day > current:
        raise Invalid("MOOD_IN_FUTURE")
    return day


def _entry_context(day, current):
    """The day's form as stored: its level and, for its owner on this page, the journal's words."""
    user = acting_user()
    logged = mood.day_of(user, day)
    form = {"day": day.isoformat(), "level": logged.level if logged else "", "journal": mood.read_journal(user, day)}
    labels = [f"{face} {name}" for face, name in zip(LEVEL_FACES, LEVEL_NAMES, strict=True)]
    return {"day": day, "today": current, "logged": logged, "form": form, "fields": {}, "error": None,
            "level_labels": labels}  # fmt: skip


def _month_context(month_value, selected, current):
    """A month of levels, never past the current one; an unreadable month shows the selected day's."""
    first = month_from(month_value) if month_value else None
    first = min(first or selected.replace(day=1), current.replace(day=1))
    following = (first + timedelta(days=32)).replace(day=1)
    return {
        "month_first": first,
        "month_weeks": calendar.Calendar(firstweekday=0).monthdatescalendar(first.year, first.month),
        "month_levels": mood.month(acting_user(), first),
        "month_previous": (first - timedelta(days=1)).replace(day=1),
        "month_next": following if following <= current else None,
        "selected": selected,
        "today": current,
    }
