"""The study notebook: topics and their pages."""

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import login_required

from app.services import notebook, study_board
from app.services.entity_fields import UNSET
from app.services.errors import DomainError
from app.web.acting import acting_user
from app.web.catalogue import CONFIRM_DELETE, DIALOG_PAGE, done, prefilled, refused, show_dialog
from app.web.forms import echoed_form
from app.web.rendering import is_htmx, render_page, trigger

bp = Blueprint("notebook", __name__, url_prefix="/notebook")


@bp.get("")
@login_required
def index():
    return render_page("notebook/page.html", topics=notebook.topics(acting_user()), active="notebook")


@bp.get("/pages/<page_id>")
@login_required
def page(page_id):
    return render_page("notebook/study_page.html", page=notebook.get_page(acting_user(), page_id), active="notebook")


# -- the board --
# A page's board of concepts, edited in place. Every button is a form, so the board works
# without JavaScript; after a write htmx swaps nothing and the board refreshes on
# `domain:notebook`, the same event a write by the assistant sends.

BOARD_NODES = "notebook/_board_nodes.html"
BOARD_NEW = "notebook/_board_new.html"
BOARD_FORM = "notebook/_board_form.html"
NODE_STATUSES = {"TODO": _l("To do"), "LEARNING": _l("Learning"), "DONE": _l("Done")}


@bp.app_template_global()
def study_board_of(page):
    """The page's board, for the panel the study page includes (notebook/_board.html)."""
    return study_board.board_of_page(acting_user(), page.id)


@bp.app_template_global()
def study_node_statuses():
    """The statuses as the board's buttons and pickers offer them: (stored value, translated name)."""
    return list(NODE_STATUSES.items())


@bp.get("/pages/<page_id>/board")
@login_required
def board(page_id):
    """The board's concepts and connections: what the panel fetches again when the notebook changes."""
    found = study_board.board_of_page(acting_user(), page_id)
    if not is_htmx():
        return redirect(_board_url(found.page.id))
    return render_template(BOARD_NODES, page=found.page, board=found)


@bp.post("/pages/<page_id>/board/nodes")
@login_required
def board_add_node(page_id):
    """A concept typed in place goes at the end of the board; a refusal keeps what was typed.

    The refusal travels in `g.board_refusal`, so without JavaScript the study page is drawn by
    its own view, whatever else it shows, with the board's form refused inside it."""
    study_page = notebook.get_page(acting_user(), page_id)
    form = request.form
    try:
        study_board.add_node(
            acting_user(), study_page.id, form.get("title"), form.get("description"), form.get("status")
        )
    except DomainError as error:
        g.board_refusal = {"form": echoed_form(), "error": error, "fields": error.field_messages}
        if is_htmx():
            return render_template(BOARD_NEW, page=study_page), error.status
        body, _shown = current_app.view_functions["notebook.page"](page_id=study_page.id)
        return body, error.status
    if not is_htmx():
        return redirect(_board_url(study_page.id))
    trigger("toast", {"message": _("Concept added to the board."), "kind": "success"})
    return render_template(BOARD_NEW, page=study_page)


@bp.get("/board/nodes/<node_id>/edit")
@login_required
def board_edit_form(node_id):
    node = study_board.get_node(acting_user(), node_id)
    values = {"title": node.title, "description": node.description, "status": node.status.value}
    return show_dialog(BOARD_FORM, form=prefilled(values), node=node)


@bp.post("/board/nodes/<node_id>/edit")
@login_required
def board_edit_node(node_id):
    node = study_board.get_node(acting_user(), node_id)
    form = request.form
    try:
        study_board.edit_node(
            acting_user(),
            node.id,
            title=form.get("title", UNSET),
            description=form.get("description", UNSET),
            status=form.get("status", UNSET),
        )
    except DomainError as error:
        return refused(BOARD_FORM, error, node=node)
    return done("notebook.page", page_id=node.page_id, _anchor="board")


@bp.post("/board/nodes/<node_id>/status")
@login_required
def board_node_status(node_id):
    node = study_board.get_node(acting_user(), node_id)
    status = request.form.get("status")
    return _board_write(node.page_id, lambda: study_board.set_status(acting_user(), node.id, status))


@bp.post("/board/nodes/<node_id>/move")
@login_required
def board_move_node(node_id):
    """One place up or down the board: the arrow buttons beside each concept."""
    node = study_board.get_node(acting_user(), node_id)
    offset = -1 if request.form.get("direction") == "up" else 1
    return _board_write(node.page_id, lambda: study_board.move_node(acting_user(), node.id, offset))


@bp.get("/board/nodes/<node_id>/delete")
@login_required
def board_confirm_remove(node_id):
    node = study_board.get_node(acting_user(), node_id)
    found = study_board.board_of_page(acting_user(), node.page_id)
    links = sum(node.id in (link.from_node_id, link.to_node_id) for link in found.connections)
    context = {
        "title": _l("Remove this concept?"),
        "name": node.title,
        "consequence": ngettext(
            "“%(title)s” and its %(num)s connection leave the board of “%(page)s”.",
            "“%(title)s” and its %(num)s connections leave the board of “%(page)s”.",
            links,
            title=node.title,
            page=found.page.title,
        )
        if links
        else _("“%(title)s” leaves the board of “%(page)s”.", title=node.title, page=found.page.title),
        "action": url_for("notebook.board_remove_node", node_id=node.id),
        "error": None,
        "dialog_fragment": CONFIRM_DELETE,
    }
    return render_template(CONFIRM_DELETE if is_htmx() else DIALOG_PAGE, **context)


@bp.post("/board/nodes/<node_id>/delete")
@login_required
def board_remove_node(node_id):
    node = study_board.get_node(acting_user(), node_id)
    page_id = node.page_id
    study_board.remove_node(acting_user(), node.id)
    return done("notebook.page", page_id=page_id, _anchor="board")


@bp.post("/pages/<page_id>/board/connections")
@login_required
def board_connect(page_id):
    page = notebook.get_page(acting_user(), page_id)
    source, target = request.form.get("from_node"), request.form.get("to_node")
    return _board_write(
        page.id, lambda: study_board.connect(acting_user(), page.id, source, target), _("Concepts connected.")
    )


@bp.post("/pages/<page_id>/board/connections/delete")
@login_required
def board_disconnect(page_id):
    page = notebook.get_page(acting_user(), page_id)
    source, target = request.form.get("from_node"), request.form.get("to_node")
    return _board_write(page.id, lambda: study_board.disconnect(acting_user(), page.id, source, target))


def _board_url(page_id):
    return url_for("notebook.page", page_id=page_id, _anchor="board")


def _board_write(page_id, action, said=None):
    """A board button's write: nothing to swap when it worked (the board refreshes on
    `domain:notebook`), the refusal as a toast when it did not; a plain post goes back to the page."""
    try:
        action()
    except DomainError as error:
        if is_htmx():
            body = render_template("routines/_toast.html", kind="error", title=error.message)
            return body, error.status, {"HX-Reswap": "none"}
        flash(error.message, "error")
        return redirect(_board_url(page_id))
    if not is_htmx():
        return redirect(_board_url(page_id))
    if said:
        trigger("toast", {"message": said, "kind": "success"})
    return "", 204
