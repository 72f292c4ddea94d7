"""The categories page: the areas of life, their levels, and what uses each."""

from flask import Blueprint, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from app.catalogue.dialogs import Dialogs, add_dialog_routes, category_choices, list_filters
from app.categories import services as categories
from app.shared.errors import DomainError
from app.web.acting import acting_user
from app.web.rendering import render_page

bp = Blueprint("categories", __name__, url_prefix="/categories", template_folder="templates")


@bp.get("")
@login_required
def index():
    filters = list_filters("q", "sort")
    uses = categories.listing(acting_user(), search=filters["q"], sort=filters["sort"])
    return render_page("categories/page.html", "categories/_list.html", uses=uses, filters=filters, active="categories")


add_dialog_routes(
    bp,
    Dialogs(
        service=categories,
        noun="category",
        create_only=("experience",),
        starting=lambda: {"experience": "BEGINNER", "icon": "star"},
        delete_title=_l("Delete this category?"),
        consequence=lambda name: _("“%(name)s” and its XP history will be deleted.", name=name),
    ),
)


@bp.post("/choices")
@login_required
def add_choice():
    """A category made from inside a habit, task or goal form: that form's category choices again,
    the new one ticked beside what was ticked; the rest of the form is left as typed."""
    chosen = request.form.getlist("categories")
    typed = request.form.get("new_category", "")
    try:
        category = categories.create(acting_user(), name=typed)
    except DomainError as error:
        problem = error.field_messages.get("name", error.message)
        return choices(chosen, typed=typed, problem=problem), error.status
    return choices([*chosen, str(category.id)])


def choices(chosen, typed="", problem=None):
    return render_template(
        "categories/_choices.html", all_categories=category_choices(), chosen=chosen, typed=typed, problem=problem
    )
