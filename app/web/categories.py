"""The categories page: the areas of life, their levels, and what uses each."""

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from app.services import categories
from app.services.errors import DomainError
from app.web.acting import acting_user
from app.web.catalogue import DIALOG_PAGE, done, list_filters, prefilled, refused, show_dialog
from app.web.rendering import is_htmx, render_page

bp = Blueprint("categories", __name__, url_prefix="/categories")

FORM = "categories/_form.html"


@bp.get("")
@login_required
def index():
    filters = list_filters("q", "sort")
    uses = categories.listing(acting_user(), search=filters["q"], sort=filters["sort"])
    return render_page("categories/page.html", "categories/_list.html", uses=uses, filters=filters, active="categories")


@bp.get("/new")
@login_required
def new():
    return show_dialog(FORM, form=prefilled({"experience": "BEGINNER", "icon": "star"}), category=None)


@bp.post("")
@login_required
def create():
    form = request.form
    try:
        categories.create(
            acting_user(),
            name=form.get("name"),
            description=form.get("description"),
            icon=form.get("icon"),
            experience=form.get("experience", "BEGINNER"),
        )
    except DomainError as error:
        return refused(FORM, error, category=None)
    return done("categories.index")


@bp.get("/<category_id>/edit")
@login_required
def edit_form(category_id):
    category = categories.get(acting_user(), category_id)
    values = {"name": category.name, "description": category.description, "icon": category.icon}
    return show_dialog(FORM, form=prefilled(values), category=category)


@bp.post("/<category_id>/edit")
@login_required
def edit(category_id):
    category = categories.get(acting_user(), category_id)
    form = request.form
    try:
        categories.edit(
            acting_user(),
            category.id,
            name=form.get("name"),
            description=form.get("description"),
            icon=form.get("icon"),
        )
    except DomainError as error:
        return refused(FORM, error, category=category)
    return done("categories.index")


@bp.get("/<category_id>/delete")
@login_required
def confirm_delete(category_id):
    """Asks first, or says up front why it cannot be deleted yet (no button the server would refuse)."""
    category = categories.get(acting_user(), category_id)
    return _confirmation(category, categories.deletion_refusal(acting_user(), category.id), status=200)


@bp.post("/<category_id>/delete")
@login_required
def delete(category_id):
    category = categories.get(acting_user(), category_id)
    try:
        categories.delete(acting_user(), category.id)
    except DomainError as error:
        return _confirmation(category, error)
    return done("categories.index")


def _confirmation(category, error=None, status=None):
    fragment = "categories/_confirm_delete.html"
    context = {
        "title": _("Delete this category?"),
        "name": category.name,
        "consequence": _("“%(name)s” and its XP history will be deleted.", name=category.name),
        "action": url_for("categories.delete", category_id=category.id),
        "error": error,
        "dialog_fragment": fragment,
    }
    body = render_template(fragment if is_htmx() else DIALOG_PAGE, **context)
    return body, status or (error.status if error else 200)
