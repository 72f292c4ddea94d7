"""The study notebook: topics and their pages (/notebook), a page's blocks edited in place, and the
review of the flashcards that are due.

Every button is a form, so the notebook works without JavaScript; app/notebook/static/js/notebook.js adds the
Alt+arrow keys that move a block and draws the diagrams.
"""

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import login_required
from markupsafe import Markup
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import RequestEntityTooLarge

from app.catalogue.dialogs import DIALOG_PAGE, deletion_dialog, done, prefilled, quiet, refused, show_dialog
from app.notebook import boards, embeddings, sources, web_sources
from app.notebook import services as notebook
from app.shared.errors import DomainError, Invalid, message_for
from app.shared.fields import UNSET
from app.shared.values import whole_number_from
from app.web.acting import acting_user
from app.web.forms import ECHO_MAX, echoed_form, form_refused
from app.web.markdown import render as render_markdown
from app.web.rendering import is_htmx, render_page, trigger

bp = Blueprint("notebook", __name__, url_prefix="/notebook", template_folder="templates")

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
    return deletion_dialog(
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
    return deletion_dialog(
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
    return deletion_dialog(
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
        "sandbox allow-scripts",  # opaque even when opened alone, outside the page's sandboxed iframe
    )
)


@bp.get("/diagram-frame")
def diagram_frame():
    """Where static/js/notebook_diagrams.js has Mermaid draw (see notebook/diagram_frame.html). The
    same for everyone, and signed out too: it holds no data, only the drawing code."""
    headers = {"Content-Security-Policy": DIAGRAM_FRAME_POLICY, "X-Frame-Options": "SAMEORIGIN"}
    return render_template("notebook/diagram_frame.html"), 200, headers


# Google's Search Suggestions of a search with Gemini: their own styles, and links that open a
# tab of their own; no script, and framed by the app's own pages only.
SUGGESTIONS_FRAME_POLICY = "; ".join(
    (
        "default-src 'none'",
        "style-src 'unsafe-inline'",
        "img-src data: https:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'self'",
        "sandbox allow-popups allow-popups-to-escape-sandbox",
    )
)


@bp.get("/search-suggestions/<suggestions_id>")
@login_required
def search_suggestions(suggestions_id):
    """The Search Suggestions a search with Gemini answered, beside its results, as Google gave
    them (its terms ask for them unchanged): in a frame of their own, since they carry their own
    styles, which the app's pages allow nowhere."""
    html = web_sources.suggestions(acting_user(), suggestions_id)
    headers = {"Content-Security-Policy": SUGGESTIONS_FRAME_POLICY, "X-Frame-Options": "SAMEORIGIN"}
    return render_template("notebook/search_suggestions_frame.html", html=html), 200, headers


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
    return boards.board_of_page(acting_user(), page.id)


@bp.app_template_global()
def study_node_statuses():
    """The statuses as the board's buttons and pickers offer them: (stored value, translated name)."""
    return list(NODE_STATUSES.items())


@bp.get("/pages/<page_id>/board")
@login_required
def board(page_id):
    """The board's concepts and connections: what the panel fetches again when the notebook changes."""
    found = boards.board_of_page(acting_user(), page_id)
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
        boards.add_node(acting_user(), study_page.id, form.get("title"), form.get("description"), form.get("status"))
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
    node = boards.get_node(acting_user(), node_id)
    values = {"title": node.title, "description": node.description, "status": node.status.value}
    return show_dialog(BOARD_FORM, form=prefilled(values), node=node)


@bp.post("/board/nodes/<node_id>/edit")
@login_required
def board_edit_node(node_id):
    node = boards.get_node(acting_user(), node_id)
    form = request.form
    try:
        boards.edit_node(
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
    node = boards.get_node(acting_user(), node_id)
    status = request.form.get("status")
    return _board_write(node.page_id, lambda: boards.set_status(acting_user(), node.id, status))


@bp.post("/board/nodes/<node_id>/move")
@login_required
def board_move_node(node_id):
    """One place up or down the board: the arrow buttons beside each concept."""
    node = boards.get_node(acting_user(), node_id)
    offset = -1 if request.form.get("direction") == "up" else 1
    return _board_write(node.page_id, lambda: boards.move_node(acting_user(), node.id, offset))


@bp.get("/board/nodes/<node_id>/delete")
@login_required
def board_confirm_remove(node_id):
    node = boards.get_node(acting_user(), node_id)
    found = boards.board_of_page(acting_user(), node.page_id)
    links = sum(node.id in (link.from_node_id, link.to_node_id) for link in found.connections)
    return deletion_dialog(
        _l("Remove this concept?"),
        node.title,
        ngettext(
            "“%(title)s” and its %(num)s connection leave the board of “%(page)s”.",
            "“%(title)s” and its %(num)s connections leave the board of “%(page)s”.",
            links,
            title=node.title,
            page=found.page.title,
        )
        if links
        else _("“%(title)s” leaves the board of “%(page)s”.", title=node.title, page=found.page.title),
        url_for("notebook.board_remove_node", node_id=node.id),
    )


@bp.post("/board/nodes/<node_id>/delete")
@login_required
def board_remove_node(node_id):
    node = boards.get_node(acting_user(), node_id)
    page_id = node.page_id
    boards.remove_node(acting_user(), node.id)
    return done("notebook.page", page_id=page_id, _anchor="board")


@bp.post("/pages/<page_id>/board/connections")
@login_required
def board_connect(page_id):
    page = notebook.get_page(acting_user(), page_id)
    source, target = request.form.get("from_node"), request.form.get("to_node")
    return _board_write(
        page.id, lambda: boards.connect(acting_user(), page.id, source, target), _("Concepts connected.")
    )


@bp.post("/pages/<page_id>/board/connections/delete")
@login_required
def board_disconnect(page_id):
    page = notebook.get_page(acting_user(), page_id)
    source, target = request.form.get("from_node"), request.form.get("to_node")
    return _board_write(page.id, lambda: boards.disconnect(acting_user(), page.id, source, target))


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


# -- sources --
# A page's sources panel (app/notebook/templates/notebook/_sources.html, included by the study page): paste or
# upload a source, watch a long one being indexed (and embedded, when embeddings are configured),
# delete one, search the page's passages, and find sources on the web to accept into the page.

SOURCES_PANEL = "notebook/_sources_panel.html"
SOURCE_ROW = "notebook/_sources_row.html"
SEARCH_RESULTS = "notebook/_sources_results.html"
SEARCH_PAGE = "notebook/_sources_search_page.html"
PASTE_FORM = "notebook/_sources_paste.html"
UPLOAD_FORM = "notebook/_sources_upload.html"
WEB_RESULTS = "notebook/_sources_web_results.html"
WEB_CANDIDATE = "notebook/_sources_web_candidate.html"
# Above these a request is cut short before it is read whole, and told the limit.
UPLOAD_REQUEST_MAX_BYTES = sources.FILE_MAX_BYTES + 64 * 1024
PASTE_FORM_MAX_BYTES = 4 * sources.PASTE_MAX_CHARS + 64 * 1024  # UTF-8, with room for the title
TOO_LARGE = {"notebook.upload_source": ("file", "NOTEBOOK_SOURCE_FILE_TOO_LARGE", UPLOAD_FORM),
             "notebook.paste_source": ("text", "NOTEBOOK_SOURCE_TOO_LONG", PASTE_FORM)}  # fmt: skip


@bp.url_value_preprocessor
def _source_body_limits(endpoint, _values):
    """An upload or a pasted source is bigger than the app's default request body. The limits
    are raised here because this runs before the CSRF check, which reads the body first."""
    if endpoint == "notebook.upload_source":
        request.max_content_length = UPLOAD_REQUEST_MAX_BYTES
    elif endpoint in ("notebook.paste_source", "notebook.accept_web_source"):
        request.max_form_memory_size = PASTE_FORM_MAX_BYTES


@bp.errorhandler(RequestEntityTooLarge)
def _source_too_large(error):
    """Over the limit: the form's own message (the file's size, the paste's length)."""
    if request.endpoint not in TOO_LARGE:
        return error
    field, key, form = TOO_LARGE[request.endpoint]
    page = notebook.get_page(acting_user(), request.view_args["page_id"])
    return _source_refused(form, page, Invalid("INVALID_INPUT", details={field: key}), keep=False)


@bp.app_template_global()
def notebook_sources(page):
    """The panel's rows, loaded when the study page includes the panel. Showing them also starts
    the embedding of any ready source that lacks vectors (one from before the key was set, or
    one whose thread was lost, or whose failure is old enough to try again)."""
    rows = sources.sources_of(acting_user(), page)
    if embeddings.configured():
        embeddings.catch_up(rows)
    return rows


@bp.app_template_global()
def notebook_source_embedding(source):
    """The source's embedding progress, or None when embeddings are off or it is not ready."""
    return embeddings.progress_of([source]).get(source.id)


@bp.app_template_global()
def notebook_web_search_on():
    return web_sources.configured()


@bp.app_template_global()
def notebook_source_state(source):
    return sources.state(source)


@bp.app_template_global()
def notebook_source_failure(source):
    return message_for(sources.failure_key(source))


@bp.get("/pages/<page_id>/sources")
@login_required
def sources_panel(page_id):
    """The list of sources, refreshed when the notebook changes."""
    page = notebook.get_page(acting_user(), page_id)
    return render_template(SOURCES_PANEL, page=page)


@bp.post("/pages/<page_id>/sources")
@login_required
def paste_source(page_id):
    """A pasted source; a refusal keeps the typed title and text."""
    page = notebook.get_page(acting_user(), page_id)
    try:
        source = sources.paste(acting_user(), page.id, request.form.get("text"), request.form.get("title"))
    except DomainError as error:
        return _source_refused(PASTE_FORM, page, error)
    return _source_added(PASTE_FORM, page, source)


@bp.post("/pages/<page_id>/sources/upload")
@login_required
def upload_source(page_id):
    """An uploaded .txt, .md or .pdf: short ones are searchable on return, long ones show progress."""
    page = notebook.get_page(acting_user(), page_id)
    chosen = request.files.get("file")
    try:
        data = chosen.read(sources.FILE_MAX_BYTES + 1) if chosen else b""
        source = sources.upload(acting_user(), page.id, chosen.filename if chosen else "", data)
    except DomainError as error:
        return _source_refused(UPLOAD_FORM, page, error)
    return _source_added(UPLOAD_FORM, page, source)


@bp.get("/sources/<source_id>/progress")
@login_required
def source_progress(source_id):
    """One source's row: polled while it is being indexed or embedded, still once it is done
    (a failed embedding is polled slowly, and started again once its retry is due)."""
    source = sources.get(acting_user(), source_id)
    if embeddings.configured():
        embeddings.catch_up([source])
    return render_template(SOURCE_ROW, source=source)


@bp.get("/sources/<source_id>/delete")
@login_required
def confirm_source_delete(source_id):
    source = sources.get(acting_user(), source_id)
    return deletion_dialog(
        _l("Delete this source?"),
        source.title,
        _("The source and its passages will be deleted for good; search will no longer find them."),
        url_for("notebook.delete_source", source_id=source.id),
    )


@bp.post("/sources/<source_id>/delete")
@login_required
def delete_source(source_id):
    source = sources.get(acting_user(), source_id)
    page_id = source.page_id
    sources.delete(acting_user(), source.id)
    return done("notebook.page", page_id=page_id)


@bp.get("/pages/<page_id>/search")
@login_required
def search_sources(page_id):
    """Ranked passages for the search box: the results alone for htmx; without JavaScript, the
    page's title and sources panel with them (the study page's other parts are not needed)."""
    page = notebook.get_page(acting_user(), page_id)
    query = request.args.get("q", "")
    try:
        hits, error = sources.search(acting_user(), page.id, query), None
    except DomainError as refusal:
        hits, error = [], refusal
    context = {"page": page, "query": query[: sources.SEARCH_MAX_CHARS], "hits": hits, "search_error": error}
    return render_page(SEARCH_PAGE, SEARCH_RESULTS, active="notebook", searched=True, **context)


@bp.get("/pages/<page_id>/web-search")
@login_required
def search_web_sources(page_id):
    """Candidate sources from the web for the words typed: the results alone for htmx; without
    JavaScript, the page's sources panel with them."""
    page = notebook.get_page(acting_user(), page_id)
    query = request.args.get("q", "")
    try:
        found, error = web_sources.find(acting_user(), page.id, query), None
    except DomainError as refusal:
        found, error = web_sources.Found([]), refusal
    context = {"page": page, "web_query": query[: web_sources.QUERY_MAX_CHARS], "candidates": found.candidates,
               "suggestions_id": found.suggestions_id, "web_error": error}  # fmt: skip
    status = error.status if error else 200
    return render_page(SEARCH_PAGE, WEB_RESULTS, status=status, active="notebook", web_searched=True, **context)


@bp.post("/pages/<page_id>/web-search/accept")
@login_required
def accept_web_source(page_id):
    """A proposed source into the page: the candidate's row says it was added (a toast too)."""
    page = notebook.get_page(acting_user(), page_id)
    form = request.form
    candidate = web_sources.Candidate(
        title=form.get("title", "")[: sources.SOURCE_TITLE_MAX],
        url=form.get("url", "")[: web_sources.URL_MAX_CHARS],
        snippet=form.get("snippet", "")[: web_sources.SNIPPET_MAX_CHARS],
        text=form.get("text", "")[: sources.PASTE_MAX_CHARS],
    )
    try:
        source = web_sources.accept(acting_user(), page.id, candidate.title, candidate.url, candidate.text)
    except DomainError as error:
        if not is_htmx():
            flash(error.message if not error.details else " ".join(error.field_messages.values()), "error")
            return redirect(url_for("notebook.page", page_id=page.id))
        context = {"page": page, "candidate": candidate, "error": error, "added": None}
        return render_template(WEB_CANDIDATE, index=_candidate_index(), **context), error.status
    _start_background_work(source)
    message = _("“%(title)s” added to this page's sources.", title=source.title)
    if not is_htmx():
        flash(message, "success")
        return redirect(url_for("notebook.page", page_id=page.id))
    trigger("toast", {"message": message, "kind": "success"})
    context = {"page": page, "candidate": candidate, "error": None, "added": source}
    return render_template(WEB_CANDIDATE, index=_candidate_index(), **context)


def _start_background_work(source):
    """A new source's thread: indexing if it is queued (its embedding follows on that thread),
    else its embedding, when embeddings are configured."""
    if source.status == "queued":
        sources.start_processing(source.id)
    elif embeddings.configured():
        embeddings.start(source.id)


def _candidate_index():
    """Which proposed source the form was (its row's id); digits only, as the page wrote it."""
    return str(whole_number_from(request.form.get("index"), 99) or 0)


def _source_refused(form, page, error, keep=True):
    """The form again with the reason, and what was typed unless the body was never read."""
    if is_htmx():
        if not keep:
            return render_template(form, page=page, form=MultiDict(), error=error, fields=error.field_messages), 413
        if form == PASTE_FORM:  # a pasted text is longer than a usual field: keep all of it that may be saved
            typed = MultiDict({"title": request.form.get("title", "")[:ECHO_MAX],
                               "text": request.form.get("text", "")[: sources.PASTE_MAX_CHARS]})  # fmt: skip
            return render_template(form, page=page, form=typed, error=error, fields=error.field_messages), error.status
        return form_refused(form, error, page=page)
    flash(error.message if not error.details else " ".join(error.field_messages.values()), "error")
    return redirect(url_for("notebook.page", page_id=page.id))


def _source_added(form, page, source):
    """An empty form again, and a toast: ready (searchable now) or being indexed, on its thread."""
    _start_background_work(source)
    if source.status == "ready":
        message = ngettext(
            "Source added: %(num)s passage is searchable.",
            "Source added: %(num)s passages are searchable.",
            source.passages_total,
        )
    else:
        message = _("Source added. Its passages are being indexed; search finds them once it is ready.")
    if not is_htmx():
        flash(message, "success")
        return redirect(url_for("notebook.page", page_id=page.id))
    trigger("toast", {"message": message, "kind": "success"})
    return render_template(form, page=page, form=MultiDict(), fields={}, error=None)
