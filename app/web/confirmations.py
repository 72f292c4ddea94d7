"""What a write says when it worked, and the level-up it may have earned.

Every create, edit and delete a page offers is confirmed the same way: the route that did it is
named here with its message, and a successful answer carries it as an HX-Trigger `toast` event
(static/js/app.js puts it in the #toasts live region, so screen readers hear it too); a request
without htmx gets the same words as a flash on the page it is redirected to. Routes stay as they
are, and a new write route is confirmed by adding one line below.

A write that lifts the user across a level (a check, a completed goal, anything that pays XP)
also answers with a `level:up` event, whichever page it came from.
"""

from flask import flash, g, request
from flask_babel import lazy_gettext as _l

from app.web.acting import acting_user, signed_in
from app.web.rendering import is_htmx, trigger

CONFIRMATIONS = {
    "categories.create": _l("Category created."),
    "categories.edit": _l("Category saved."),
    "categories.delete": _l("Category deleted."),
    "habits.create": _l("Habit created."),
    "habits.edit": _l("Habit saved."),
    "habits.delete": _l("Habit deleted."),
    "tasks.create": _l("Task created."),
    "tasks.edit": _l("Task saved."),
    "tasks.delete": _l("Task deleted."),
    "goals.create": _l("Goal created."),
    "goals.edit": _l("Goal saved."),
    "goals.delete": _l("Goal deleted."),
    "goals.update_progress": _l("Progress saved."),
    "goals.archive": _l("Goal archived."),
    "goals.restore": _l("Goal restored."),
    "routines.create": _l("Routine created."),
    "routines.rename": _l("Routine saved."),
    "routines.delete": _l("Routine deleted."),
    "routines.add_section": _l("Section added."),
    "routines.edit_section": _l("Section saved."),
    "routines.remove_section": _l("Section removed."),
    "routines.add_entry": _l("Added to the routine."),
    "routines.edit_entry": _l("Times saved."),
    "routines.remove_entry": _l("Removed from the routine."),
    "ideas.create": _l("Note added to the board."),
    "ideas.edit": _l("Note saved."),
    "ideas.recolour": _l("Colour changed."),
    "ideas.archive": _l("Note archived."),
    "ideas.restore": _l("Note back on the board."),
    "ideas.delete": _l("Note deleted."),
}


def note_level():
    """Before a write: remember the level it starts from."""
    if request.method == "POST" and signed_in():
        g.level_before = acting_user().level


def confirm(response):
    """After a request: raise its toast and any level-up, if it was a write that worked."""
    if request.method != "POST" or response.status_code >= 400:
        return
    message = CONFIRMATIONS.get(request.endpoint)
    if message is not None:
        if is_htmx():
            trigger("toast", {"message": str(message), "kind": "success"})
        elif response.status_code in (302, 303):
            flash(str(message), "success")
    before = g.get("level_before")
    if before is not None and signed_in() and acting_user().level > before:
        trigger("level:up", {"value": acting_user().level})
