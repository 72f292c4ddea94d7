"""The Ideas board page: a grid of sticky notes, typed in place, moved by drag or keyboard,
recoloured, archived, deleted or turned into a task; and the archive view that restores them.

Every button is a form, so the board works without JavaScript; app/ideas/static/js/ideas.js adds drag and
drop and the Alt+arrow keys on top, posting to the same move route.
"""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from werkzeug.datastructures import MultiDict

from app.catalogue.dialogs import deletion_dialog, done, prefilled, quiet, refused, show_dialog
from app.ideas import services as ideas
from app.ideas.models import PALETTE, place_of
from app.shared.errors import DomainError
from app.shared.fields import UNSET
from app.web.acting import acting_user
from app.web.forms import form_refused
from app.web.rendering import is_htmx, render_page, trigger

bp = Blueprint("ideas", __name__, url_prefix="/ideas", template_folder="templates")

NEW_NOTE = "ideas/_new.html"
FORM = "ideas/_form.html"
COLOUR_NAMES = {
    "yellow": _l("Yellow"),
    "pink": _l("Pink"),
    "green": _l("Green"),
    "blue": _l("Blue"),
    "purple": _l("Purple"),
    "orange": _l("Orange"),
}


def _board_context(**extra):
    user = acting_user()
    cells = ideas.cells(user)
    return {
        "cells": cells,
        "full": all(cells),
        "archived_count": len(ideas.archived(user)),
        "active": "ideas",
        **_new_note_context([cell for cell, note in enumerate(cells) if note is None]),
        **extra,
    }


def _new_note_context(free_cells):
    """What the new-note form offers: the colours, and the free places (cell, row, column) a note
    can be put on."""
    places = [(cell, *place_of(cell)) for cell in free_cells]
    return {"colours": _colours(), "free_places": places}


def place_name(cell):
    """A cell as a person names it: "row 2, column 3" (1-based, in reading order)."""
    row, column = place_of(cell)
    return _("row %(row)s, column %(column)s", row=row, column=column)


@bp.get("")
@login_required
def index():
    context = _board_context(form=MultiDict(), fields={}, error=None)
    return render_page("ideas/page.html", "ideas/_board_redrawn.html", **context)


@bp.post("")
@login_required
def create():
    """A note typed on the page goes to the first free cell, or to the place chosen for it; a
    refusal keeps what was typed."""
    user = acting_user()
    form = request.form
    try:
        ideas.create(user, form.get("text"), form.get("colour"), form.get("cell"))
    except DomainError as error:
        if is_htmx():
            return form_refused(NEW_NOTE, error, **_new_note_context(ideas.free_cells(user)))
        return form_refused("ideas/page.html", error, **_board_context())
    if is_htmx():
        return render_template(
            NEW_NOTE, form=MultiDict(), fields={}, error=None, **_new_note_context(ideas.free_cells(user))
        )
    return redirect(url_for("ideas.index"))


@bp.get("/archive")
@login_required
def archive_view():
    notes = ideas.archived(acting_user())
    return render_page("ideas/archive.html", "ideas/_archived.html", notes=notes, active="ideas")


@bp.get("/<note_id>/edit")
@login_required
def edit_form(note_id):
    note = ideas.get(acting_user(), note_id)
    return show_dialog(FORM, form=prefilled({"text": note.text, "colour": note.colour}), note=note, colours=_colours())


@bp.post("/<note_id>/edit")
@login_required
def edit(note_id):
    note = ideas.get(acting_user(), note_id)
    try:
        ideas.edit(acting_user(), note.id, text=request.form.get("text"), colour=request.form.get("colour", UNSET))
    except DomainError as error:
        return refused(FORM, error, note=note, colours=_colours())
    return done("ideas.index")


@bp.post("/<note_id>/colour")
@login_required
def recolour(note_id):
    note = ideas.get(acting_user(), note_id)
    return _acted(lambda: ideas.recolour(acting_user(), note.id, request.form.get("colour")))


@bp.post("/<note_id>/move")
@login_required
def move(note_id):
    """To a cell (drag and drop), or one step in a direction (arrow keys, the Move buttons)."""
    note = ideas.get(acting_user(), note_id)
    origin = note.cell
    try:
        if "cell" in request.form:
            moved = ideas.move(acting_user(), note.id, request.form["cell"])
        else:
            moved = ideas.step(acting_user(), note.id, request.form.get("direction"))
    except DomainError as error:
        return _refusal(error, "ideas.index")
    if is_htmx():  # where it landed, said aloud: the toasts are a live region
        trigger("toast", _moved_toast(moved, origin))
    return quiet("ideas.index")


def _moved_toast(note, origin):
    """What a move says: the note (its first words) and its new place, or that it stayed at the edge."""
    text = note.text if len(note.text) <= 40 else note.text[:39].rstrip() + "…"
    if note.cell == origin:
        return {"message": _("“%(text)s” is already at the edge of the board.", text=text), "kind": "info"}
    message = _("“%(text)s” moved to %(place)s.", text=text, place=place_name(note.cell))
    return {"message": message, "kind": "success"}


@bp.post("/<note_id>/archive")
@login_required
def archive(note_id):
    note = ideas.get(acting_user(), note_id)
    return _acted(lambda: ideas.archive(acting_user(), note.id))


@bp.post("/<note_id>/restore")
@login_required
def restore(note_id):
    note = ideas.get(acting_user(), note_id)
    return _acted(lambda: ideas.restore(acting_user(), note.id), back_to="ideas.archive_view")


@bp.post("/<note_id>/task")
@login_required
def turn_into_task(note_id):
    """The task is made and the note archived together; the toast links to the new task's page."""
    note = ideas.get(acting_user(), note_id)
    try:
        ideas.turn_into_task(acting_user(), note.id)
    except DomainError as error:
        return _refusal(error, "ideas.index")
    message = _("Task created from your note; the note is archived.")
    if not is_htmx():
        flash(message, "success")
        return redirect(url_for("ideas.index"))
    link = {"href": url_for("tasks.index"), "label": _("Open your tasks")}
    trigger("toast", {"message": message, "kind": "success", "link": link})
    return "", 204


@bp.get("/<note_id>/delete")
@login_required
def confirm_delete(note_id):
    return _confirmation(ideas.get(acting_user(), note_id))


@bp.post("/<note_id>/delete")
@login_required
def delete(note_id):
    note = ideas.get(acting_user(), note_id)
    ideas.delete(acting_user(), note.id)
    return done("ideas.archive_view" if note.archived else "ideas.index")


def _colours():
    """The palette as the pickers offer it: (stored name, translated name)."""
    return [(colour, COLOUR_NAMES[colour]) for colour in PALETTE]


def _acted(action, back_to="ideas.index"):
    """A button's write: nothing to swap when it worked (the board refreshes on `domain:ideas`),
    the refusal as a toast when it did not."""
    try:
        action()
    except DomainError as error:
        return _refusal(error, back_to)
    return quiet(back_to)


def _refusal(error, back_to):
    if is_htmx():
        body = render_template("routines/_toast.html", kind="error", title=error.message)
        return body, error.status, {"HX-Reswap": "none"}
    flash(error.message, "error")
    return redirect(url_for(back_to))


def _confirmation(note):
    return deletion_dialog(
        _l("Delete this note?"),
        note.text,
        _("The note will be deleted for good. To keep it out of the way instead, archive it."),
        url_for("ideas.delete", note_id=note.id),
    )
