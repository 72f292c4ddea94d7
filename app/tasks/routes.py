"""The tasks page (a paged list and its dialogs)."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.catalogue.dialogs import Dialogs, category_choices, routine_item_pages
from app.tasks import services as tasks

bp = routine_item_pages(
    __name__,
    Dialogs(
        service=tasks,
        noun="task",
        starting=lambda: {"importance": 2, "difficulty": 2, "icon": "check-square"},
        choices=lambda task: {"all_categories": category_choices()},
        delete_title=_l("Delete this task?"),
        consequence=lambda name: _("“%(name)s” and its check history will be deleted.", name=name),
    ),
)
