"""The goals page: a tree of goals with progress steppers, completion, archive and restore."""

from datetime import timedelta

from flask import Blueprint, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from app.catalogue.dialogs import (
    Dialogs,
    add_dialog_routes,
    category_choices,
    done,
    list_filters,
    prefilled,
    quiet,
    refused,
    show_dialog,
)
from app.categories import services as categories
from app.goals import services as goals
from app.shared import days
from app.shared.errors import DomainError
from app.web.acting import acting_user
from app.web.rendering import render_page

bp = Blueprint("goals", __name__, url_prefix="/goals", template_folder="templates")

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


def _new_goal():
    today = days.today_for(acting_user())
    return {
        "icon": "target",
        "current_value": 0,
        "start_date": today.isoformat(),
        "end_date": (today + timedelta(days=30)).isoformat(),
        "term": "MEDIUM_TERM",
        "parent": request.args.get("parent"),
    }


def _read(form, names):
    """An empty current value means zero; the status is sent only while it can be changed."""
    values = {name: form.get(name) for name in names if name != "status" or name in form}
    values["categories"] = form.getlist("categories")
    values["current_value"] = form.get("current_value") or 0
    return values


add_dialog_routes(
    bp,
    Dialogs(
        service=goals,
        noun="goal",
        also=("parent",),
        edit_only=("status",),
        data_keys={"parent": "parent_id"},
        read=_read,
        starting=_new_goal,
        choices=lambda goal: {
            "all_categories": category_choices(),
            "parent_options": [option for option in goals.listing(acting_user(), sort="name") if option != goal],
        },
        delete_title=_l("Delete this goal?"),
        consequence=lambda name: _(
            "“%(name)s” will be deleted; its sub-goals move up a level. XP already earned stays.", name=name
        ),
    ),
)


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
