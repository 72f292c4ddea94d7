"""The tasks page: search, sort and filter; create, edit and delete in the shared dialog."""

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from app.services import categories, tasks
from app.services.errors import DomainError
from app.web.acting import acting_user
from app.web.catalogue import DIALOG_PAGE, done, list_filters, prefilled, refused, show_dialog
from app.web.rendering import is_htmx, render_page

bp = Blueprint("tasks", __name__, url_prefix="/tasks")

FORM = "tasks/_form.html"


@bp.get("")
@login_required
def index():
    filters = list_filters("q", "sort", "category")
    found = tasks.listing(acting_user(), search=filters["q"], sort=filters["sort"], category=filters["category"])
    return render_page(
        "tasks/page.html",
        "tasks/_list.html",
        tasks=found,
        routines_using=tasks.routines_using(acting_user()),
        category_options=[
            (str(use.category.id), use.category.name)
            for use in categories.listing(acting_user(), sort="name")
            if use.tasks
        ],
        filters=filters,
        active="tasks",
    )


def _form_context(task=None):
    return {"task": task, "all_categories": [use.category for use in categories.listing(acting_user(), sort="name")]}


def _fields(form):
    return {
        "name": form.get("name"),
        "description": form.get("description"),
        "icon": form.get("icon"),
        "importance": form.get("importance"),
        "difficulty": form.get("difficulty"),
        "categories": form.getlist("categories"),
        "one_time": bool(form.get("one_time")),
    }


@bp.get("/new")
@login_required
def new():
    start = prefilled({"importance": 2, "difficulty": 2, "icon": "check-square"})
    return show_dialog(FORM, form=start, **_form_context())


@bp.post("")
@login_required
def create():
    try:
        tasks.create(acting_user(), **_fields(request.form))
    except DomainError as error:
        return refused(FORM, error, **_form_context())
    return done("tasks.index")


@bp.get("/<task_id>/edit")
@login_required
def edit_form(task_id):
    task = tasks.get(acting_user(), task_id)
    values = {
        "name": task.name,
        "consequence": _("“%(name)s” and its check history will be deleted.", name=task.name),
        "description": task.description,
        "icon": task.icon,
        "importance": task.importance,
        "difficulty": task.difficulty,
        "categories": [str(category.id) for category in task.categories],
        "one_time": "1" if task.one_time else None,
    }
    return show_dialog(FORM, form=prefilled(values), **_form_context(task))


@bp.post("/<task_id>/edit")
@login_required
def edit(task_id):
    task = tasks.get(acting_user(), task_id)
    try:
        tasks.edit(acting_user(), task.id, **_fields(request.form))
    except DomainError as error:
        return refused(FORM, error, **_form_context(task))
    return done("tasks.index")


@bp.get("/<task_id>/delete")
@login_required
def confirm_delete(task_id):
    """Asks first, or says up front why it cannot be deleted yet (no button the server would refuse)."""
    task = tasks.get(acting_user(), task_id)
    return _confirmation(task, tasks.deletion_refusal(acting_user(), task.id), status=200)


@bp.post("/<task_id>/delete")
@login_required
def delete(task_id):
    task = tasks.get(acting_user(), task_id)
    try:
        tasks.delete(acting_user(), task.id)
    except DomainError as error:
        return _confirmation(task, error)
    return done("tasks.index")


def _confirmation(task, error=None, status=None):
    fragment = "categories/_confirm_delete.html"
    context = {
        "title": _("Delete this task?"),
        "name": task.name,
        "consequence": _("“%(name)s” and its check history will be deleted.", name=task.name),
        "action": url_for("tasks.delete", task_id=task.id),
        "error": error,
        "dialog_fragment": fragment,
    }
    body = render_template(fragment if is_htmx() else DIALOG_PAGE, **context)
    return body, status or (error.status if error else 200)
