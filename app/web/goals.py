"""The goals page: a tree of goals with progress steppers, completion, archive and restore."""

from datetime import timedelta

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from app.services import categories, goals, progress
from app.services.errors import DomainError
from app.web.acting import acting_user
from app.web.catalogue import DIALOG_PAGE, done, list_filters, prefilled, quiet, refused, show_dialog
from app.web.rendering import is_htmx, render_page

bp = Blueprint("goals", __name__, url_prefix="/goals")

FORM = "goals/_form.html"
PROGRESS_FORM = "goals/_progress.html"


@bp.get("")
@login_required
def index():
    filters = list_filters("q", "sort", "status", "category", "archived")
    rows = goals.tree(
        acting_user(),
        archived=filters["archived"] == "1",
        search=filters["q"],
        status=filters["status"],
        category=filters["category"],
        sort=filters["sort"],
    )
    return render_page(
        "goals/page.html",
        "goals/_tree.html",
        rows=rows,
        filters=filters,
        category_options=[
            (str(use.category.id), use.category.name)
            for use in categories.listing(acting_user(), sort="name")
            if use.goals
        ],
        active="goals",
    )


@bp.get("/horizon")
@login_required
def horizon():
    """The dashboard's "goals by deadline" fragment."""
    return render_template("goals/_horizon.html", horizon=goals.horizon(acting_user()))


def _form_context(goal=None):
    return {
        "goal": goal,
        "all_categories": [use.category for use in categories.listing(acting_user(), sort="name")],
        "parent_options": [option for option in goals.listing(acting_user(), sort="name") if option != goal],
    }


def _fields(form, editing=False):
    fields = {
        "name": form.get("name"),
        "description": form.get("description"),
        "motivation": form.get("motivation"),
        "icon": form.get("icon"),
        "target_value": form.get("target_value"),
        "unit": form.get("unit"),
        "current_value": form.get("current_value") or 0,
        "start_date": form.get("start_date"),
        "end_date": form.get("end_date"),
        "term": form.get("term"),
        "categories": form.getlist("categories"),
        "parent": form.get("parent") or None,
    }
    if editing and "status" in form:
        fields["status"] = form.get("status")
    return fields


@bp.get("/new")
@login_required
def new():
    today = progress.today_for(acting_user())
    start = {
        "icon": "target",
        "current_value": 0,
        "start_date": today.isoformat(),
        "end_date": (today + timedelta(days=30)).isoformat(),
        "term": "MEDIUM_TERM",
        "parent": request.args.get("parent"),
    }
    return show_dialog(FORM, form=prefilled(start), **_form_context())


@bp.post("")
@login_required
def create():
    try:
        goals.create(acting_user(), **_fields(request.form))
    except DomainError as error:
        return refused(FORM, error, **_form_context())
    return done("goals.index")


@bp.get("/<goal_id>/edit")
@login_required
def edit_form(goal_id):
    goal = goals.get(acting_user(), goal_id)
    values = {
        "name": goal.name,
        "consequence": _(
            "“%(name)s” will be deleted; its sub-goals move up a level. XP already earned stays.", name=goal.name
        ),
        "description": goal.description,
        "motivation": goal.motivation,
        "icon": goal.icon,
        "target_value": f"{goal.target_value:g}",
        "unit": goal.unit,
        "current_value": f"{goal.current_value:g}",
        "start_date": goal.start_date.isoformat(),
        "end_date": goal.end_date.isoformat(),
        "term": str(goal.term),
        "status": str(goal.status),
        "categories": [str(category.id) for category in goal.categories],
        "parent": str(goal.parent_id) if goal.parent_id else None,
    }
    return show_dialog(FORM, form=prefilled(values), **_form_context(goal))


@bp.post("/<goal_id>/edit")
@login_required
def edit(goal_id):
    goal = goals.get(acting_user(), goal_id)
    try:
        goals.edit(acting_user(), goal.id, **_fields(request.form, editing=True))
    except DomainError as error:
        return refused(FORM, error, **_form_context(goal))
    return done("goals.index")


@bp.get("/<goal_id>/delete")
@login_required
def confirm_delete(goal_id):
    return _confirmation(goals.get(acting_user(), goal_id))


@bp.post("/<goal_id>/delete")
@login_required
def delete(goal_id):
    goal = goals.get(acting_user(), goal_id)
    goals.delete(acting_user(), goal.id)
    return done("goals.index")


def _confirmation(goal):
    fragment = "categories/_confirm_delete.html"
    context = {
        "title": _("Delete this goal?"),
        "name": goal.name,
        "consequence": _(
            "“%(name)s” will be deleted; its sub-goals move up a level. XP already earned stays.", name=goal.name
        ),
        "action": url_for("goals.delete", goal_id=goal.id),
        "error": None,
        "dialog_fragment": fragment,
    }
    return render_template(fragment if is_htmx() else DIALOG_PAGE, **context)


@bp.post("/<goal_id>/increase")
@login_required
def increase(goal_id):
    goals.increase(acting_user(), goal_id, request.form.get("value") or 1)
    return quiet("goals.index")


@bp.post("/<goal_id>/decrease")
@login_required
def decrease(goal_id):
    goals.decrease(acting_user(), goal_id, request.form.get("value") or 1)
    return quiet("goals.index")


@bp.get("/<goal_id>/progress")
@login_required
def progress_form(goal_id):
    return show_dialog(PROGRESS_FORM, form=prefilled({"value": 1}), goal=goals.get(acting_user(), goal_id))


@bp.post("/<goal_id>/progress")
@login_required
def update_progress(goal_id):
    goal = goals.get(acting_user(), goal_id)
    change = goals.decrease if request.form.get("direction") == "decrease" else goals.increase
    try:
        change(acting_user(), goal.id, request.form.get("value"))
    except DomainError as error:
        return refused(PROGRESS_FORM, error, goal=goal)
    return done("goals.index")


@bp.post("/<goal_id>/complete")
@login_required
def complete(goal_id):
    """Complete, or undo a completion (the button says which)."""
    goals.complete(acting_user(), goal_id)
    return quiet("goals.index")


@bp.post("/<goal_id>/archive")
@login_required
def archive(goal_id):
    goals.archive(acting_user(), goal_id)
    return quiet("goals.index")


@bp.post("/<goal_id>/restore")
@login_required
def restore(goal_id):
    goals.restore(acting_user(), goal_id)
    return quiet("goals.index", archived="1")
