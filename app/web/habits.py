"""The habits page: search, sort and filter; create, edit and delete in the shared dialog."""

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from app.services import categories, habits
from app.services.errors import DomainError
from app.web.acting import acting_user
from app.web.catalogue import DIALOG_PAGE, done, list_filters, prefilled, refused, show_dialog
from app.web.rendering import is_htmx, render_page

bp = Blueprint("habits", __name__, url_prefix="/habits")

FORM = "habits/_form.html"


@bp.get("")
@login_required
def index():
    filters = list_filters("q", "sort", "category")
    found = habits.listing(acting_user(), search=filters["q"], sort=filters["sort"], category=filters["category"])
    return render_page(
        "habits/page.html",
        "habits/_list.html",
        habits=found,
        routines_using=habits.routines_using(acting_user()),
        category_options=[
            (str(use.category.id), use.category.name)
            for use in categories.listing(acting_user(), sort="name")
            if use.habits
        ],
        filters=filters,
        active="habits",
    )


def _form_context(habit=None):
    return {"habit": habit, "all_categories": [use.category for use in categories.listing(acting_user(), sort="name")]}


def _fields(form):
    return {
        "name": form.get("name"),
        "description": form.get("description"),
        "motivation": form.get("motivation"),
        "icon": form.get("icon"),
        "importance": form.get("importance"),
        "difficulty": form.get("difficulty"),
        "categories": form.getlist("categories"),
    }


@bp.get("/new")
@login_required
def new():
    start = prefilled({"importance": 2, "difficulty": 2, "experience": "BEGINNER", "icon": "star"})
    return show_dialog(FORM, form=start, **_form_context())


@bp.post("")
@login_required
def create():
    try:
        habits.create(acting_user(), **_fields(request.form), experience=request.form.get("experience", "BEGINNER"))
    except DomainError as error:
        return refused(FORM, error, **_form_context())
    return done("habits.index")


@bp.get("/<habit_id>/edit")
@login_required
def edit_form(habit_id):
    habit = habits.get(acting_user(), habit_id)
    values = {
        "name": habit.name,
        "consequence": _("“%(name)s”, its check history and its XP will be deleted.", name=habit.name),
        "description": habit.description,
        "motivation": habit.motivation,
        "icon": habit.icon,
        "importance": habit.importance,
        "difficulty": habit.difficulty,
        "categories": [str(category.id) for category in habit.categories],
    }
    return show_dialog(FORM, form=prefilled(values), **_form_context(habit))


@bp.post("/<habit_id>/edit")
@login_required
def edit(habit_id):
    habit = habits.get(acting_user(), habit_id)
    try:
        habits.edit(acting_user(), habit.id, **_fields(request.form))
    except DomainError as error:
        return refused(FORM, error, **_form_context(habit))
    return done("habits.index")


@bp.get("/<habit_id>/delete")
@login_required
def confirm_delete(habit_id):
    """Asks first, or says up front why it cannot be deleted yet (no button the server would refuse)."""
    habit = habits.get(acting_user(), habit_id)
    return _confirmation(habit, habits.deletion_refusal(acting_user(), habit.id), status=200)


@bp.post("/<habit_id>/delete")
@login_required
def delete(habit_id):
    habit = habits.get(acting_user(), habit_id)
    try:
        habits.delete(acting_user(), habit.id)
    except DomainError as error:
        return _confirmation(habit, error)
    return done("habits.index")


def _confirmation(habit, error=None, status=None):
    fragment = "categories/_confirm_delete.html"
    context = {
        "title": _("Delete this habit?"),
        "name": habit.name,
        "consequence": _("“%(name)s”, its check history and its XP will be deleted.", name=habit.name),
        "action": url_for("habits.delete", habit_id=habit.id),
        "error": error,
        "dialog_fragment": fragment,
    }
    body = render_template(fragment if is_htmx() else DIALOG_PAGE, **context)
    return body, status or (error.status if error else 200)
