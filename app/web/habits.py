"""The habits page: search, sort and filter, a page of rows at a time; create, edit and delete
in the shared dialogs."""

from flask import Blueprint
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from app.services import habits
from app.web.catalogue import Dialogs, add_dialog_routes, category_choices, routine_item_list

bp = Blueprint("habits", __name__, url_prefix="/habits")


@bp.get("")
@login_required
def index():
    return routine_item_list(habits, "habits", tagged=lambda use: use.habits)


add_dialog_routes(
    bp,
    Dialogs(
        service=habits,
        noun="habit",
        form="habits/_form.html",
        fields=("name", "description", "motivation", "icon", "importance", "difficulty", "categories"),
        create_only=("experience",),
        starting=lambda: {"importance": 2, "difficulty": 2, "experience": "BEGINNER", "icon": "star"},
        choices=lambda habit: {"all_categories": category_choices()},
        delete_title=_l("Delete this habit?"),
        consequence=lambda name: _("“%(name)s”, its check history and its XP will be deleted.", name=name),
    ),
)
