"""The onboarding assistant's page, `/onboarding`: where a new account lands, one step at a time.

Every button is a form (htmx swaps the step in place; without JavaScript the page reloads). A
refusal re-renders the step with its message, the words typed and what is already saved; when
the model fails, the step offers "Try again" and the ordinary pages.
"""

from flask import Blueprint, abort, redirect, request, url_for
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from app.onboarding import services as onboarding
from app.shared.errors import DomainError
from app.shared.values import whole_number_from
from app.web.acting import acting_user
from app.web.rendering import render_page

bp = Blueprint("onboarding", __name__, url_prefix="/onboarding", template_folder="templates")

STEP_TITLES = {
    "CATEGORIES": _l("Areas of your life"),
    "ITEMS": _l("Habits and tasks"),
    "ROUTINE": _l("A routine"),
    "GOALS": _l("Goals"),
    "SUMMARY": _l("Summary"),
}


def _step(value):
    step = onboarding.step_named(value)
    if step is None:
        abort(404)
    return step


def _render(run, error=None, said=None):
    context = {
        "run": run,
        "error": error,
        "said": run.said if said is None else said,
        "titles": STEP_TITLES,
        "steps": onboarding.ORDER,
    }
    status = error.status if error else 200
    return render_page("onboarding/page.html", "onboarding/_step.html", status=status, **context)


@bp.get("")
@login_required
def index():
    return _render(onboarding.current(acting_user()))


@bp.post("/<step>/suggest")
@login_required
def suggest(step):
    user, said = acting_user(), request.form.get("said", "")
    try:
        return _render(onboarding.suggest(user, _step(step), said))
    except DomainError as refused:
        return _render(onboarding.current(user), refused, said)


@bp.post("/<step>/accept")
@login_required
def accept(step):
    user = acting_user()
    try:
        return _render(onboarding.accept(user, _step(step), _choices(request.form)))
    except DomainError as refused:
        return _render(onboarding.current(user), refused)


@bp.post("/<step>/next")
@login_required
def next_step(step):
    user = acting_user()
    try:
        return _render(onboarding.next_step(user, _step(step)))
    except DomainError as refused:
        return _render(onboarding.current(user), refused)


@bp.post("/skip")
@login_required
def skip():
    onboarding.skip(acting_user())
    return _to_dashboard()


@bp.post("/finish")
@login_required
def finish():
    onboarding.finish(acting_user())
    return _to_dashboard()


@bp.post("/restart")
@login_required
def restart():
    onboarding.restart(acting_user())
    return redirect(url_for("onboarding.index"))


def _to_dashboard():
    """A whole new page (the form is a plain one): its shell now holds the assistant's launcher."""
    return redirect(url_for("dashboard.index"))


def _choices(form):
    """The kept suggestions (`keep` holds their indexes) with the fields the person edited."""
    kept = []
    for value in form.getlist("keep"):
        index = whole_number_from(value, 99)  # more than any step suggests; the service checks the rest
        if index is None:
            continue
        kept.append(
            onboarding.Choice(
                index=index,
                name=form.get(f"name-{index}"),
                target_value=form.get(f"target-{index}"),
                unit=form.get(f"unit-{index}"),
                weekdays=tuple(form.getlist(f"weekdays-{index}")),
            )
        )
    return kept


@bp.app_template_global()
def onboarding_summary_links():
    """Where each kind of saved thing lives, for the summary."""
    return {
        "categories": url_for("categories.index"),
        "habits": url_for("habits.index"),
        "tasks": url_for("tasks.index"),
        "routines": url_for("routines.index"),
        "goals": url_for("goals.index"),
    }
