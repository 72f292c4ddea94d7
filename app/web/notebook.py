"""The study notebook: topics and their pages (/notebook), a page's blocks edited in place, and the
review of the flashcards that are due.

Every button is a form, so the notebook works without JavaScript; static/js/notebook.js adds the
Alt+arrow keys that move a block and draws the diagrams.
"""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import login_required
from markupsafe import Markup
from werkzeug.datastructures import MultiDict

from app.agent.markdown import render as render_markdown
from app.services import notebook
from app.services.entity_fields import UNSET
from app.services.errors import DomainError, Invalid
from app.web.acting import acting_user
from app.web.catalogue import CONFIRM_DELETE, DIALOG_PAGE, done, prefilled, quiet, refused, show_dialog
from app.web.forms import form_refused
from app.web.rendering import is_htmx, render_page

bp = Blueprint("notebook", __name__, url_prefix="/notebook")

NEW_TOPIC = "notebook/_new_topic.html"
NEW_BLOCK = "notebook/_new_block.html"
BLOCK = "notebook/_block.html"
BLOCK_FORM = "notebook/_block_form.html"
RENAME = "notebook/_rename.html"
KIND_NAMES = {"note": _l("Note"), "diagram": _l("Diagram"), "card": _l("Flashcard")}


@bp.app_template_filter("study_markdown")
def study_markdown(text):
    """A note's Markdown as sanitised HTML, the same way the chat renders the assistant's text."""
    return Markup(render_markdown(text))  # nh3 has sanitised it: safe to mark as such


# Topics and pages ----------------------------------------------------------------------------


def _index_context(**extra):
    user = acting_user()
    return {
        "topics": notebook.topics(user),
        "tree": notebook.page_tree,
        "due": len(notebook.due_cards(user)),
        "active": "notebook",
        **extra,
    }


@bp.get("")
@login_required
def index():
    return render_page("notebook/page.html", "notebook/_topics.html", **_index_context(form=MultiDict(), fields={}))


@bp.post("/topics")
@login_required
def create_topic():
    """A topic typed in place goes to the end of the list; a refusal keeps what was typed."""
    try:
        notebook.create_topic(acting_user(), request.form.get("name"))
    except DomainError as error:
        if is_htmx():
            return form_refused(NEW_TOPIC, error)
        return form_refused("notebook/page.html", error, **_index_context())
    if is_htmx():
        return render_template(NEW_TOPIC, form=MultiDict(), fields={}, error=None)
    return redirect(url_for("notebook.index"))


@bp.get("/topics/<topic_id>/rename")
@login_required
def rename_topic_form(topic_id):
    topic = notebook.get_topic(acting_user(), topic_id)
    return show_dialog(RENAME, form=prefilled({"name": topic.name}), **_renaming_topic(topic))


@bp.post("/topics/<topic_id>/rename")
@login_required
def rename_topic(topic_id):
    topic = notebook.get_topic(acting_user(), topic_id)
    try:
        notebook.rename_topic(acting_user(), topic.id, request.form.get("name"))
    except DomainError as error:
        return refused(RENAME, error, **_renaming_topic(topic))
    return done("notebook.index")


@bp.post("/topics/<topic_id>/move")
@login_required
def move_topic(topic_id):
    topic = notebook.get_topic(acting_user(), topic_id)
    return _acted(lambda: notebook.move_topic(acting_user(), topic.id, request.form.get("direction")))


@bp.get("/topics/<topic_id>/delete")
@login_required
def confirm_delete_topic(topic_id):
    topic = notebook.get_topic(acting_user(), topic_id)
    takes = notebook.what_topic_takes(acting_user(), topic.id)
    consequence = _(
        "The topic will be deleted for good, and with it %(pages)s and %(blocks)s, "
        "with every page's board and sources.",
        pages=ngettext("%(num)s page", "%(num)s pages", takes["pages"]),
        blocks=ngettext("%(num)s block", "%(num)s blocks", takes["blocks"]),
    )
    return _confirmation(
        _l("Delete this topic?"), topic.name, consequence, url_for("notebook.delete_topic", topic_id=topic.id)
    )


@bp.post("/topics/<topic_id>/delete")
@login_required
def delete_topic(topic_id):
    topic = notebook.get_topic(acting_user(), topic_id)
    notebook.delete_topic(acting_user(), topic.id)
    return done("notebook.index")


@bp.post("/topics/<topic_id>/pages")
@login_required
def create_page(topic_id):
    """A page at the end of its topic, or inside another page of it; a refusal keeps the title."""
    topic = notebook.get_topic(acting_user(), topic_id)
    try:
        page = notebook.create_page(acting_user(), topic.id, request.form.get("title"), request.form.get("parent_id"))
    except DomainError as error:
        if is_htmx():
            return form_refused("notebook/_new_page.html", error, topic=topic, tree=notebook.page_tree)
        return form_refused("notebook/page.html", error, refused_topic=topic.id, **_index_context())
    if is_htmx():
        return render_template(
            "notebook/_new_page.html", topic=topic, tree=notebook.page_tree, form=MultiDict(), fields={}, error=None
        )
    return redirect(url_for("notebook.page", page_id=page.id))


@bp.get("/pages/<page_id>")
@login_required
def page(page_id):
    page = notebook.get_page(acting_user(), page_id)
    return render_page(
        "notebook/study_page.html",
        "notebook/_blocks.html",
        form=MultiDict(),
        fields={},
        error=None,
        **_page_context(page),
    )


@bp.get("/pages/<page_id>/rename")
@login_required
def rename_page_form(page_id):
    page = notebook.get_page(acting_user(), page_id)
    return show_dialog(RENAME, form=prefilled({"title": page.title}), **_renaming_page(page))


@bp.post("/pages/<page_id>/rename")
@login_required
def rename_page(page_id):
    page = notebook.get_page(acting_user(), page_id)
    try:
        notebook.rename_page(acting_user(), page.id, request.form.get("title"))
    except DomainError as error:
        return refused(RENAME, error, **_renaming_page(page))
    return done("notebook.page", page_id=page.id)


@bp.post("/pages/<page_id>/move")
@login_required
def move_page(page_id):
    page = notebook.get_page(acting_user(), page_id)
    return _acted(lambda: notebook.move_page(acting_user(), page.id, request.form.get("direction")))


@bp.get("/pages/<page_id>/delete")
@login_required
def confirm_delete_page(page_id):
    page = notebook.get_page(acting_user(), page_id)
    takes = notebook.what_page_takes(acting_user(), page.id)
    consequence = _(
        "The page will be deleted for good, and with it %(pages)s inside it and %(blocks)s, "
        "with the board and the sources of each.",
        pages=ngettext("%(num)s page", "%(num)s pages", takes["pages"]),
        blocks=ngettext("%(num)s block", "%(num)s blocks", takes["blocks"]),
    )
    return _confirmation(
        _l("Delete this page?"), page.title, consequence, url_for("notebook.delete_page", page_id=page.id)
    )


@bp.post("/pages/<page_id>/delete")
@login_required
def delete_page(page_id):
    page = notebook.get_page(acting_user(), page_id)
    notebook.delete_page(acting_user(), page.id)
    if is_htmx():
        return "", 204, {"HX-Redirect": url_for("notebook.index")}
    return redirect(url_for("notebook.index"))


# Blocks --------------------------------------------------------------------------------------


@bp.post("/pages/<page_id>/blocks")
@login_required
def add_block(page_id):
    """A note, a diagram or a flashcard at the end of the page; a refusal keeps what was typed."""
    page = notebook.get_page(acting_user(), page_id)
    kind = request.form.get("kind")
    try:
        _add(page, kind)
    except DomainError as error:
        if is_htmx():
            return form_refused(NEW_BLOCK, error, page=page, kind=kind)
        return form_refused("notebook/study_page.html", error, kind=kind, **_page_context(page))
    if is_htmx():
        return render_template(NEW_BLOCK, page=page, kind=kind, form=MultiDict(), fields={}, error=None, added=True)
    return redirect(url_for("notebook.page", page_id=page.id))


def _add(page, kind):
    user, form = acting_user(), request.form
    if kind == "note":
        return notebook.add_note(user, page.id, form.get("text"))
    if kind == "diagram":
        return notebook.add_diagram(user, page.id, form.get("text"))
    if kind == "card":
        return notebook.add_card(user, page.id, form.get("text"), form.get("back"))
    raise Invalid("NOTEBOOK_BLOCK_KIND_INVALID")


@bp.get("/blocks/<page_block_id>")
@login_required
def block(page_block_id):
    """One block as the page shows it (Cancel on its editor brings it back)."""
    return render_template(BLOCK, block=notebook.get_block(acting_user(), page_block_id), kinds=KIND_NAMES)


@bp.get("/blocks/<page_block_id>/edit")
@login_required
def edit_block_form(page_block_id):
    """The block's editor, in place of the block (a page of its own without JavaScript)."""
    block = notebook.get_block(acting_user(), page_block_id)
    form = prefilled({"text": block.text, "back": block.back})
    if is_htmx():
        return render_template(BLOCK_FORM, block=block, form=form, fields={}, error=None, kinds=KIND_NAMES)
    return render_page(
        DIALOG_PAGE, dialog_fragment=BLOCK_FORM, block=block, form=form, fields={}, error=None, kinds=KIND_NAMES
    )


@bp.post("/blocks/<page_block_id>/edit")
@login_required
def edit_block(page_block_id):
    block = notebook.get_block(acting_user(), page_block_id)
    try:
        notebook.edit_block(acting_user(), block.id, request.form.get("text"), request.form.get("back", UNSET))
    except DomainError as error:
        template = BLOCK_FORM if is_htmx() else DIALOG_PAGE
        return form_refused(template, error, dialog_fragment=BLOCK_FORM, block=block, kinds=KIND_NAMES)
    if is_htmx():
        return render_template(BLOCK, block=block, kinds=KIND_NAMES)
    return redirect(url_for("notebook.page", page_id=block.page_id))


@bp.post("/blocks/<page_block_id>/move")
@login_required
def move_block(page_block_id):
    block = notebook.get_block(acting_user(), page_block_id)
    return _acted(
        lambda: notebook.move_block(acting_user(), block.id, request.form.get("direction")),
        "notebook.page",
        page_id=block.page_id,
    )


@bp.get("/blocks/<page_block_id>/delete")
@login_required
def confirm_delete_block(page_block_id):
    block = notebook.get_block(acting_user(), page_block_id)
    text = block.text if len(block.text) <= 60 else block.text[:59] + "…"
    consequence = _("“%(text)s” (%(kind)s) will be deleted for good.", text=text, kind=KIND_NAMES[block.kind])
    name = text
    return _confirmation(
        _l("Delete this block?"), name, consequence, url_for("notebook.delete_block", page_block_id=block.id)
    )


@bp.post("/blocks/<page_block_id>/delete")
@login_required
def delete_block(page_block_id):
    block = notebook.get_block(acting_user(), page_block_id)
    page_id = block.page_id
    notebook.delete_block(acting_user(), block.id)
    return done("notebook.page", page_id=page_id)


# Diagrams ------------------------------------------------------------------------------------

# The drawing frame's own policy: Mermaid's inline styles allowed here, and only here; it may be
# framed by the app's own pages and nothing else.
DIAGRAM_FRAME_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'self'",
    )
)


@bp.get("/diagram-frame")
def diagram_frame():
    """Where static/js/notebook_diagrams.js has Mermaid draw (see templates/notebook/diagram_frame.html).
    The same for everyone, and signed out too: it holds no data, only the drawing code."""
    headers = {"Content-Security-Policy": DIAGRAM_FRAME_POLICY, "X-Frame-Options": "SAMEORIGIN"}
    return render_template("notebook/diagram_frame.html"), 200, headers


# Review --------------------------------------------------------------------------------------


@bp.get("/review")
@login_required
def review():
    """The flashcards due today, one at a time: the front, then the back and the three answers."""
    due = notebook.due_cards(acting_user())
    return render_page(
        "notebook/review.html", "notebook/_review.html", card=due[0] if due else None, left=len(due), active="notebook"
    )


@bp.post("/blocks/<page_block_id>/review")
@login_required
def review_card(page_block_id):
    card = notebook.get_block(acting_user(), page_block_id)
    try:
        notebook.review_card(acting_user(), card.id, request.form.get("grade"))
    except DomainError as error:
        return _refusal(error, "notebook.review")
    if is_htmx():
        due = notebook.due_cards(acting_user())
        return render_template("notebook/_review.html", card=due[0] if due else None, left=len(due))
    return redirect(url_for("notebook.review"))


# Helpers -------------------------------------------------------------------------------------


def _page_context(page):
    return {"page": page, "kinds": KIND_NAMES, "active": "notebook"}


def _renaming_topic(topic):
    return {
        "action": url_for("notebook.rename_topic", topic_id=topic.id),
        "title": _("Rename the topic"),
        "field": "name",
        "label": _("Topic name"),
    }


def _renaming_page(page):
    return {
        "action": url_for("notebook.rename_page", page_id=page.id),
        "title": _("Rename the page"),
        "field": "title",
        "label": _("Page title"),
    }


def _acted(action, back_to="notebook.index", **values):
    """A button's write: nothing to swap when it worked (the lists refresh on `domain:notebook`),
    the refusal as a toast when it did not."""
    try:
        action()
    except DomainError as error:
        return _refusal(error, back_to, **values)
    return quiet(back_to, **values)


def _refusal(error, back_to, **values):
    if is_htmx():
        body = render_template("routines/_toast.html", kind="error", title=error.message)
        return body, error.status, {"HX-Reswap": "none"}
    flash(error.message, "error")
    return redirect(url_for(back_to, **values))


def _confirmation(title, name, consequence, action):
    context = {
        "title": title,
        "name": name,
        "consequence": consequence,
        "action": action,
        "error": None,
        "dialog_fragment": CONFIRM_DELETE,
    }
    return render_template(CONFIRM_DELETE if is_htmx() else DIALOG_PAGE, **context)
