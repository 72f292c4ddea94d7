"""The habits page: the user's habits a page at a time, searched, filtered and sorted, and the
dialogs that create, edit and delete one."""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.catalogue.dialogs import Dialogs, category_choices, routine_item_pages
from app.habits import services as habits

bp = routine_item_pages(
    __name__,
    Dialogs(
        service=habits,
        create_only=("experience",),  # where its level starts; XP moves on from there
        noun="habit",
        starting=lambda: {"importance": 2, "difficulty": 2, "experience": "BEGINNER", "icon": "star"},
        choices=lambda habit: {"all_categories": category_choices()},
        delete_title=_l("Delete this habit?"),
        consequence=lambda name: _("“%(name)s”, its check history and its XP will be deleted.", name=name),
    ),
)
