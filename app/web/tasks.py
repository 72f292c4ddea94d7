"""The tasks page: search, sort and filter, a page of rows at a time; create, edit and delete
in the shared dialogs."""

from flask import Blueprint
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from app.services import tasks
from app.web.catalogue import Dialogs, add_dialog_routes, category_choices, routine_item_list

bp = Blueprint("tasks", __name__, url_prefix="/tasks")


@bp.get("")
@login_required
def index():
    return routine_item_list(tasks, "tasks", tagged=lambda use: use.tasks)


add_dialog_routes(
    bp,
    Dialogs(
        service=tasks,
        noun="task",
        form="tasks/_form.html",
        fields=("name", "description", "icon", "importance", "difficulty", "categories", "one_time"),
        flags=("one_time",),
        starting=lambda: {"importance": 2, "difficulty": 2, "icon": "check-square"},
        choices=lambda task: {"all_categories": category_choices()},
        delete_title=_l("Delete this task?"),
        consequence=lambda name: _("“%(name)s” and its check history will be deleted.", name=name),
    ),
)
