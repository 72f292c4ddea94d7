"""Focus mode: the day view (`/focus`) and one entry of today (`/focus/<entry_id>`) with its timer
and its steps. Every change of a step answers with the steps list repainted and a toast; every
change of the timer answers with the timer as the server now has it, which every other open page
of the user fetches too when the change is announced."""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from app.focus import services as focus
from app.shared.errors import Conflict, DomainError, Invalid
from app.web.acting import acting_user
from app.web.forms import echoed_form
from app.web.rendering import is_htmx, render_page

bp = Blueprint("focus", __name__, url_prefix="/focus", template_folder="templates")

STEPS = "focus/_steps.html"
TIMER = "focus/_timer.html"


@bp.get("")
@login_required
def index():
    return render_page("focus/page.html", "focus/_day.html", view=focus.day_view(acting_user()), active=None)


@bp.get("/<entry_id>")
@login_required
def entry(entry_id):
    """The entry, its timer and its steps. Opening it adds the pinned steps missing today. An
    entry of another day (an old link, a page left open past midnight) leads to today's view."""
    try:
        steps = focus.list_steps(acting_user(), entry_id)
    except Invalid as error:
        flash(error.message, "info")
        return redirect(url_for("focus.index"))
    return render_template("focus/entry.html", **_entry_context(steps))


@bp.get("/<entry_id>/steps")
@login_required
def steps(entry_id):
    """The steps list alone: it refreshes itself when Focus mode changes (the assistant, a tab)."""
    return render_template(STEPS, **_list_context(focus.list_steps(acting_user(), entry_id)))


@bp.post("/<entry_id>/steps")
@login_required
def add(entry_id):
    try:
        _step, steps = focus.add(acting_user(), entry_id, request.form.get("text"))
    except DomainError as error:
        return _refused(entry_id, error)
    return _changed(steps, _("Step added"), focus_after="text", form_oob=True)


@bp.post("/steps/<micro_task_id>/check")
@login_required
def check(micro_task_id):
    def checked():
        step, steps = focus.check(acting_user(), micro_task_id)
        title = _("Step done") if step.done else _("Step reopened")
        return _changed(steps, title, step.text, focus_after=f"check-step-{step.id}")

    return _or_toast(checked)


@bp.post("/steps/<micro_task_id>/pin")
@login_required
def pin(micro_task_id):
    wanted = request.form.get("pinned", "1") not in ("0", "false", "")

    def pinned():
        step, steps = focus.pin(acting_user(), micro_task_id, wanted)
        title = _("Pinned: it comes back every day") if wanted else _("Unpinned")
        return _changed(steps, title, step.text, focus_after=f"pin-step-{step.id}")

    return _or_toast(pinned)


@bp.post("/steps/<micro_task_id>/move")
@login_required
def move(micro_task_id):
    offset = -1 if request.form.get("direction") == "up" else 1

    def moved():
        step, steps = focus.move(acting_user(), micro_task_id, offset)
        direction = "up" if offset < 0 else "down"
        return _changed(steps, _("Step moved"), step.text, focus_after=f"{direction}-step-{step.id}")

    return _or_toast(moved)


@bp.post("/steps/<micro_task_id>/delete")
@login_required
def delete(micro_task_id):
    return _or_toast(
        lambda: _changed(focus.delete(acting_user(), micro_task_id), _("Step deleted"), focus_after="text")
    )


@bp.post("/<entry_id>/reorder")
@login_required
def reorder(entry_id):
    """The order the page shows after a drag: every step id, top to bottom."""
    return _or_toast(
        lambda: _changed(focus.reorder(acting_user(), entry_id, request.form.getlist("step")), _("Steps reordered"))
    )


@bp.get("/<entry_id>/timer")
@login_required
def timer(entry_id):
    """The timer as it stands: a page fetches it when Focus mode changes anywhere, and when its
    own countdown reaches the end (the server then records the phase and moves on)."""
    return render_template(TIMER, **_timer_context(focus.timer_state(acting_user(), entry_id)))


@bp.post("/<entry_id>/timer/start")
@login_required
def start_timer(entry_id):
    return _timer_changed(entry_id, focus.start_timer)


@bp.post("/<entry_id>/timer/pause")
@login_required
def pause_timer(entry_id):
    return _timer_changed(entry_id, focus.pause_timer)


@bp.post("/<entry_id>/timer/resume")
@login_required
def resume_timer(entry_id):
    return _timer_changed(entry_id, focus.resume_timer)


@bp.post("/<entry_id>/timer/stop")
@login_required
def stop_timer(entry_id):
    return _timer_changed(entry_id, focus.stop_timer)


def _timer_changed(entry_id, change):
    """The timer after the change. A change its state no longer allows (it was paused on
    another device meanwhile) answers with the timer as it is and says why."""
    try:
        clock = change(acting_user(), entry_id)
    except Conflict as error:
        if not is_htmx():
            flash(error.message, "error")
            return redirect(url_for("focus.entry", entry_id=entry_id))
        context = _timer_context(focus.timer_state(acting_user(), entry_id), refusal=error.message)
        return render_template(TIMER, **context), error.status
    if not is_htmx():
        return redirect(url_for("focus.entry", entry_id=entry_id))
    return render_template(TIMER, **_timer_context(clock))


def _timer_context(clock, refusal=None):
    """The timer's state and the cycles the entry completed today (the count beside the clock)."""
    counted = focus.day_view(acting_user()).entry(clock.entry_id)
    return {"clock": clock, "cycles": counted.cycles if counted else 0, "refusal": refusal}


def _list_context(steps, **extra):
    """What the steps list and the add form show."""
    context = {"steps": steps, "form": {}, "fields": {}, "error": None, "toast": None, "focus_after": None,
               "form_oob": False}  # fmt: skip
    return {**context, **extra}


def _entry_context(steps, **extra):
    """The whole page: the list, the entry as today's view shows it, the timer's lengths and state."""
    user = acting_user()
    clock = focus.timer_state(user, steps.entry.id)
    entry_view = focus.day_view(user).entry(steps.entry.id)
    context = {"clock": clock, "cycles": entry_view.cycles, "refusal": None}
    return _list_context(steps, entry=entry_view, timer=focus.timer(user), active=None, **context, **extra)


def _changed(steps, title, subtitle=None, focus_after=None, form_oob=False):
    """The list repainted with a toast; `focus_after` names the element the keyboard goes back
    to, and `form_oob` sends the add form back empty."""
    if not is_htmx():
        return redirect(url_for("focus.entry", entry_id=steps.entry.id))
    toast = {"kind": "success", "title": title, "subtitle": subtitle}
    return render_template(STEPS, **_list_context(steps, toast=toast, focus_after=focus_after, form_oob=form_oob))


def _or_toast(action):
    """The action's answer; a refusal on the page is a toast and leaves the list as it is."""
    try:
        return action()
    except DomainError as error:
        if not is_htmx():
            raise
        body = render_template("routines/_toast.html", kind="error", title=error.message)
        return body, error.status, {"HX-Reswap": "none"}


def _refused(entry_id, error):
    """A refused step: the list again with what was typed and why (a wrong entry is an error page)."""
    if error.key in ("ENTRY_NOT_FOUND", "FOCUS_ENTRY_NOT_TODAY"):
        raise error
    steps = focus.list_steps(acting_user(), entry_id)
    refusal = {"form": echoed_form(), "fields": error.field_messages, "error": error, "focus_after": "text",
               "form_oob": True}  # fmt: skip
    if is_htmx():
        return render_template(STEPS, **_list_context(steps, **refusal)), error.status
    return render_template("focus/entry.html", **_entry_context(steps, **refusal)), error.status
