"""The routines page: a date strip, today's routine with check and skip in place, past days with
late checks, the routine editor and schedules in the shared dialog."""

import calendar
from datetime import timedelta

from flask import Blueprint, has_request_context, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from werkzeug.datastructures import MultiDict

from app.routines import schedules, streaks, today
from app.routines import services as routines
from app.routines.models.routines import RoutineKind
from app.shared import icons
from app.shared.errors import DomainError, Invalid, message_for
from app.shared.values import day_from, month_from
from app.web.acting import acting_user
from app.web.forms import echoed_form, form_refused
from app.web.rendering import is_htmx, render_page, trigger

bp = Blueprint("routines", __name__, url_prefix="/routines", template_folder="templates")


STRIP_DAYS = 7


# The page and its regions -------------------------------------------------------------------------


@bp.get("")
@login_required
def index():
    """The page for a day (default today); htmx asks for the day region only."""
    context = _day_context(request.args.get("day"))
    return render_page("routines/page.html", "routines/_day.html", active="routines", **context, **_list_context())


@bp.get("/day")
@login_required
def day_view():
    """A day's routine region alone (it refreshes itself when routines change)."""
    return render_template("routines/_day_view.html", **_day_context(request.args.get("day")))


@bp.get("/calendar")
@login_required
def month():
    return render_template("routines/_calendar.html", **_calendar_context(request.args.get("month"), None))


@bp.get("/today-card")
@login_required
def today_card():
    return render_template("routines/_today_card.html", plan=today.today_routine(acting_user()))


@bp.get("/list")
@login_required
def routine_list():
    """The routine list, with the header's "N routines · N active days" out of band: one request
    (its trigger waits a millisecond, so a check's several domains ask once) for both."""
    context = _list_context()
    return render_template("routines/_list.html", **context) + render_template(
        "routines/_summary.html", oob=True, **context
    )


def _day_context(requested):
    current = today.local_today(acting_user())[1]
    day = _parse_day(requested, current)
    return {
        "day": day,
        "today": current,
        "strip": [current - timedelta(days=offset) for offset in range(STRIP_DAYS - 1, -1, -1)],
        "plans": today.day_routines(acting_user(), day, today=current),
        **_calendar_context(request.args.get("month"), day, current),
    }


def _parse_day(value, current):
    day = day_from(value) if value else current
    if day is None:
        raise Invalid("DATE_INVALID", details={"day": "DATE_INVALID"})
    if day > current:
        raise Invalid("DAY_IN_FUTURE")
    return day


def _calendar_context(month_value, selected, current=None):
    current = current or today.local_today(acting_user())[1]
    # A month that can't be read (or lies outside 1900-2100) shows the current one.
    first = month_from(month_value) if month_value else (selected or current).replace(day=1)
    first = min(first or current.replace(day=1), current.replace(day=1))
    weeks = calendar.Calendar(firstweekday=0).monthdatescalendar(first.year, first.month)
    previous = (first - timedelta(days=1)).replace(day=1)
    following = (first + timedelta(days=32)).replace(day=1)
    return {
        "month_first": first,
        "month_weeks": weeks,
        "month_previous": previous,
        "month_next": following if following <= current else None,
        "selected": selected,
        "today": current,
    }


def _list_context():
    found = routines.overview(acting_user())
    week = schedules.week(acting_user())
    return {"routines": found, "week": week, "active_days": len(week)}


# Check and skip -------------------------------------------------------------------------------


@bp.post("/entries/<entry_id>/check")
@login_required
def check_entry(entry_id):
    return _changed(lambda day: today.check(acting_user(), entry_id, day=day))


@bp.post("/entries/<entry_id>/skip")
@login_required
def skip_entry(entry_id):
    wanted = request.form.get("skip", "1") not in ("0", "false", "")
    return _changed(lambda day: today.skip(acting_user(), entry_id, skip=wanted, day=day))


def _changed(action):
    """The entry's row repainted, with a celebration when one is due; a refusal as a toast."""
    try:
        result = action(request.form.get("day") or None)
    except DomainError as error:
        if not is_htmx():
            raise
        body = render_template("routines/_toast.html", kind="error", title=error.message)
        return body, error.status, {"HX-Reswap": "none"}
    if not is_htmx():
        return redirect(url_for("routines.index", day=result.day.isoformat() if result.late else None))
    return render_template("routines/_entry_changed.html", entry=result.entry, day=result.day, result=result)


# Creating and editing ---------------------------------------------------------------------------

EDITOR = "routines/_editor.html"
CREATE = "routines/_create.html"


def _dialog(fragment, status=200, **context):
    context.setdefault("form", {})
    context.setdefault("fields", {})
    context.setdefault("error", None)
    return render_page(
        "routines/dialog_page.html", fragment, status, dialog_fragment=fragment, icon_groups=icons.grouped(), **context
    )


def _closed(**values):
    if is_htmx():
        trigger("dialog:close")
        return ""
    return redirect(url_for("routines.index", **values))


@bp.get("/new")
@login_required
def new():
    """The create dialog, the days no routine holds yet already ticked: a first routine runs every day."""
    week = schedules.week(acting_user())
    free = [("weekdays", str(day)) for day in range(7) if day not in week]
    form = MultiDict([("kind", "TIMED"), ("icon", "sun"), ("section_starts_at", "07:00"), *free])
    return _dialog(CREATE, form=form, week=week)


@bp.post("")
@login_required
def create():
    form = request.form
    if form.get("kind") == "LIST":
        kind, parts = RoutineKind.LIST, ()
    else:
        section = {
            "name": form.get("section_name"),
            "starts_at": form.get("section_starts_at"),
            "ends_at": form.get("section_ends_at"),
            "icon": form.get("section_icon"),
        }
        kind, parts = RoutineKind.TIMED, [section]
    weekdays = [day for day in form.getlist("weekdays") if day]
    try:
        created = schedules.create_scheduled(acting_user(), kind, form.get("name"), form.get("icon"), parts, weekdays)
    except DomainError as error:
        week = schedules.week(acting_user())
        return _refused(CREATE, error, fields=_create_fields(error), week=week)
    if not is_htmx():
        return redirect(url_for("routines.index"))
    return _editor(created.routine, created=created)


def _create_fields(error):
    """The create form names the first section's fields section_*; the service says sections[0].*."""
    return {key.replace("sections[0].", "section_"): message_for(value) for key, value in error.details.items()}


def _refused(fragment, error, fields=None, **context):
    """The dialog again with what was typed and why, at the refusal's status."""
    if fields is None:
        return form_refused(
            _dialog_template(fragment), error, dialog_fragment=fragment, icon_groups=icons.grouped(), **context
        )
    template = _dialog_template(fragment)
    body = render_template(
        template,
        form=echoed_form(),
        error=error,
        fields=fields,
        dialog_fragment=fragment,
        icon_groups=icons.grouped(),
        **context,
    )
    return body, error.status


def _dialog_template(fragment):
    return fragment if is_htmx() else "routines/dialog_page.html"


@bp.get("/<routine_id>/edit")
@login_required
def edit(routine_id):
    return _editor(routines.get(acting_user(), routine_id))


def _editor(routine, error=None, failed=None, status=200, created=None):
    """The editor dialog; after a refusal the failed form (`failed`) shows what was typed and why.
    Right after the create dialog, `created` (its schedule change) says which days moved to it."""
    return _dialog(
        EDITOR,
        status,
        routine=routine,
        created=created,
        picture=routines.describe(routine),
        choices=routines.item_choices(acting_user()),
        error=error,
        failed=failed,
        form=echoed_form() if failed else {},
        fields=_short_fields(error) if error else {},
    )


def _short_fields(error):
    return {key.rsplit(".", 1)[-1]: message_for(value) for key, value in error.details.items()}


def _edited(routine_id, failed, action):
    """Run one editor action and show the editor again (with the refusal at the failed form)."""
    routine = routines.get(acting_user(), routine_id)
    try:
        action(routine)
    except DomainError as error:
        return _editor(routine, error, failed, error.status)
    if not is_htmx():
        return redirect(url_for("routines.index"))
    return _editor(routine)


def _form_time(name):
    return request.form.get(name) or None


@bp.post("/<routine_id>/rename")
@login_required
def rename(routine_id):
    return _edited(
        routine_id,
        "rename",
        lambda r: routines.rename(acting_user(), r.id, request.form.get("name"), request.form.get("icon") or None),
    )


@bp.post("/<routine_id>/sections")
@login_required
def add_section(routine_id):
    form = request.form
    return _edited(
        routine_id,
        "add-section",
        lambda r: routines.add_section(
            acting_user(), r.id, form.get("name"), form.get("starts_at"), _form_time("ends_at"), form.get("icon")
        ),
    )


@bp.post("/<routine_id>/sections/<section_id>")
@login_required
def edit_section(routine_id, section_id):
    form = request.form
    return _edited(
        routine_id,
        f"section-{section_id}",
        lambda r: routines.edit_section(
            acting_user(),
            r.id,
            section_id,
            name=form.get("name"),
            icon=form.get("icon"),
            starts_at=form.get("starts_at"),
            ends_at=_form_time("ends_at"),
        ),
    )


@bp.post("/<routine_id>/sections/<section_id>/move")
@login_required
def move_section(routine_id, section_id):
    offset = -1 if request.form.get("direction") == "up" else 1
    return _edited(routine_id, None, lambda r: routines.move_section(acting_user(), r.id, section_id, offset))


@bp.post("/<routine_id>/sections/<section_id>/delete")
@login_required
def remove_section(routine_id, section_id):
    return _edited(
        routine_id, f"section-{section_id}", lambda r: routines.remove_section(acting_user(), r.id, section_id)
    )


@bp.post("/<routine_id>/entries")
@login_required
def add_entry(routine_id):
    form = request.form
    kind, _sep, item_id = (form.get("item") or "").partition(":")
    section_id = form.get("section_id") or None
    return _edited(
        routine_id,
        f"add-entry-{section_id or 'list'}",
        lambda r: routines.add_entry(
            acting_user(),
            r.id,
            habit_id=item_id if kind == "habit" else None,
            task_id=item_id if kind == "task" else None,
            section_id=section_id,
            starts_at=_form_time("starts_at"),
            ends_at=_form_time("ends_at"),
        ),
    )


@bp.post("/entries/<entry_id>")
@login_required
def edit_entry(entry_id):
    entry = routines.get_entry(acting_user(), entry_id)
    return _edited(
        entry.routine_id,
        f"entry-{entry.id}",
        lambda _r: routines.edit_entry(
            acting_user(), entry.id, starts_at=_form_time("starts_at"), ends_at=_form_time("ends_at")
        ),
    )


@bp.post("/entries/<entry_id>/move")
@login_required
def move_entry(entry_id):
    entry = routines.get_entry(acting_user(), entry_id)
    offset = -1 if request.form.get("direction") == "up" else 1
    return _edited(entry.routine_id, None, lambda _r: routines.move_entry(acting_user(), entry.id, offset))


@bp.post("/entries/<entry_id>/delete")
@login_required
def remove_entry(entry_id):
    entry = routines.get_entry(acting_user(), entry_id)
    return _edited(entry.routine_id, None, lambda _r: routines.remove_entry(acting_user(), entry.id))


# Schedules ------------------------------------------------------------------------------------


@bp.get("/<routine_id>/schedule")
@login_required
def schedule_form(routine_id):
    routine = routines.get(acting_user(), routine_id)
    return _dialog("routines/_schedule.html", routine=routine, week=schedules.week(acting_user()))


@bp.post("/<routine_id>/schedule")
@login_required
def schedule(routine_id):
    routine = routines.get(acting_user(), routine_id)
    try:
        change = schedules.set_days(acting_user(), routine.id, [d for d in request.form.getlist("weekdays") if d])
    except DomainError as error:
        return _refused("routines/_schedule.html", error, routine=routine, week=schedules.week(acting_user()))
    if not is_htmx():
        return redirect(url_for("routines.index"))
    trigger("dialog:close")
    return render_template("routines/_schedule_saved.html", change=change)


# Deleting ---------------------------------------------------------------------------------------


@bp.get("/<routine_id>/delete")
@login_required
def confirm_delete(routine_id):
    return _dialog("routines/_confirm_delete.html", routine=routines.get(acting_user(), routine_id))


@bp.post("/<routine_id>/delete")
@login_required
def delete(routine_id):
    routines.delete(acting_user(), routine_id)
    return _closed()


# Shared by the templates ---------------------------------------------------------------------------


@bp.app_template_filter("xp")
def xp_number(value):
    """XP as people read it: whole numbers without ".0", late-check fractions with one decimal."""
    value = float(value or 0)
    return f"{value:.0f}" if value.is_integer() else f"{value:.1f}".rstrip("0").rstrip(".")


@bp.app_template_global()
def weekday_names():
    return [_("Monday"), _("Tuesday"), _("Wednesday"), _("Thursday"), _("Friday"), _("Saturday"), _("Sunday")]


@bp.app_template_global()
def weekday_initials():
    return [_("Mon"), _("Tue"), _("Wed"), _("Thu"), _("Fri"), _("Sat"), _("Sun")]


OUTCOME_LABELS = {
    "DONE": _l("Done"),
    "SKIPPED": _l("Skipped"),
    "MISSED": _l("Missed"),
    "NOT_SCHEDULED": _l("Nothing scheduled"),
    "NOT_IN_ROUTINE": _l("Not in a routine"),
    streaks.UNKNOWN: _l("No record"),
}


@bp.app_template_global()
def outcome_labels():
    """Outcome -> its label, each translated once: a heatmap and a strip label 140 days with
    them (a name outside the list is shown as it is: `labels.get(outcome, outcome)`)."""
    return {outcome: str(label) for outcome, label in OUTCOME_LABELS.items()}


ENTRY_ID_SHAPE = "00000000-0000-0000-0000-000000000000"


@bp.app_template_global()
def entry_url(endpoint, entry_id):
    """`url_for(endpoint, entry_id=entry_id)` for an entry's actions, each endpoint's URL built
    once per request and the id put in its place: today's card links three actions for each of
    its ~50 entries, at ~7 µs a url_for. Entry ids are UUIDs' text, which a URL carries as it is."""
    if not has_request_context():
        return url_for(endpoint, entry_id=entry_id)
    shapes = request.environ.setdefault("beyou.entry_urls", {})
    shape = shapes.get(endpoint)
    if shape is None:
        shape = shapes[endpoint] = url_for(endpoint, entry_id=ENTRY_ID_SHAPE)
    return shape.replace(ENTRY_ID_SHAPE, entry_id)
