"""The study notebook: topics and their pages."""

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import login_required
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import RequestEntityTooLarge

from app.services import notebook, study_sources
from app.services.errors import DomainError, Invalid, message_for
from app.web.acting import acting_user
from app.web.catalogue import CONFIRM_DELETE, DIALOG_PAGE, done
from app.web.forms import ECHO_MAX, form_refused
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


# -- sources --
# A page's sources panel (templates/notebook/_sources.html, included by the study page): paste or
# upload a source, watch a long one being indexed, delete one, and search the page's passages.

SOURCES_PANEL = "notebook/_sources_panel.html"
SOURCE_ROW = "notebook/_sources_row.html"
SEARCH_RESULTS = "notebook/_sources_results.html"
SEARCH_PAGE = "notebook/_sources_search_page.html"
PASTE_FORM = "notebook/_sources_paste.html"
UPLOAD_FORM = "notebook/_sources_upload.html"
# Above these a request is cut short before it is read whole, and told the limit.
UPLOAD_REQUEST_MAX_BYTES = study_sources.FILE_MAX_BYTES + 64 * 1024
PASTE_FORM_MAX_BYTES = 4 * study_sources.PASTE_MAX_CHARS + 64 * 1024  # UTF-8, with room for the title
TOO_LARGE = {"notebook.upload_source": ("file", "NOTEBOOK_SOURCE_FILE_TOO_LARGE", UPLOAD_FORM),
             "notebook.paste_source": ("text", "NOTEBOOK_SOURCE_TOO_LONG", PASTE_FORM)}  # fmt: skip


@bp.url_value_preprocessor
def _source_body_limits(endpoint, _values):
    """An upload or a pasted source is bigger than the app's default request body. The limits
    are raised here because this runs before the CSRF check, which reads the body first."""
    if endpoint == "notebook.upload_source":
        request.max_content_length = UPLOAD_REQUEST_MAX_BYTES
    elif endpoint == "notebook.paste_source":
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
    """The panel's rows, loaded when the study page includes the panel."""
    return study_sources.sources_of(acting_user(), page)


@bp.app_template_global()
def notebook_source_state(source):
    return study_sources.state(source)


@bp.app_template_global()
def notebook_source_failure(source):
    return message_for(study_sources.failure_key(source))


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
        source = study_sources.paste(acting_user(), page.id, request.form.get("text"), request.form.get("title"))
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
        data = chosen.read(study_sources.FILE_MAX_BYTES + 1) if chosen else b""
        source = study_sources.upload(acting_user(), page.id, chosen.filename if chosen else "", data)
    except DomainError as error:
        return _source_refused(UPLOAD_FORM, page, error)
    return _source_added(UPLOAD_FORM, page, source)


@bp.get("/sources/<source_id>/progress")
@login_required
def source_progress(source_id):
    """One source's row: polled while it is being indexed, still once it is ready or failed."""
    return render_template(SOURCE_ROW, source=study_sources.get(acting_user(), source_id))


@bp.get("/sources/<source_id>/delete")
@login_required
def confirm_source_delete(source_id):
    source = study_sources.get(acting_user(), source_id)
    context = {
        "title": _l("Delete this source?"),
        "name": source.title,
        "consequence": _("The source and its passages will be deleted for good; search will no longer find them."),
        "action": url_for("notebook.delete_source", source_id=source.id),
        "error": None,
        "dialog_fragment": CONFIRM_DELETE,
    }
    return render_template(CONFIRM_DELETE if is_htmx() else DIALOG_PAGE, **context)


@bp.post("/sources/<source_id>/delete")
@login_required
def delete_source(source_id):
    source = study_sources.get(acting_user(), source_id)
    page_id = source.page_id
    study_sources.delete(acting_user(), source.id)
    return done("notebook.page", page_id=page_id)


@bp.get("/pages/<page_id>/search")
@login_required
def search_sources(page_id):
    """Ranked passages for the search box: the results alone for htmx; without JavaScript, the
    page's title and sources panel with them (the study page's other parts are not needed)."""
    page = notebook.get_page(acting_user(), page_id)
    query = request.args.get("q", "")
    try:
        hits, error = study_sources.search(acting_user(), page.id, query), None
    except DomainError as refusal:
        hits, error = [], refusal
    context = {"page": page, "query": query[: study_sources.SEARCH_MAX_CHARS], "hits": hits, "search_error": error}
    return render_page(SEARCH_PAGE, SEARCH_RESULTS, active="notebook", searched=True, **context)


def _source_refused(form, page, error, keep=True):
    """The form again with the reason, and what was typed unless the body was never read."""
    if is_htmx():
        if not keep:
            return render_template(form, page=page, form=MultiDict(), error=error, fields=error.field_messages), 413
        if form == PASTE_FORM:  # a pasted text is longer than a usual field: keep all of it that may be saved
            typed = MultiDict({"title": request.form.get("title", "")[:ECHO_MAX],
                               "text": request.form.get("text", "")[: study_sources.PASTE_MAX_CHARS]})  # fmt: skip
            return render_template(form, page=page, form=typed, error=error, fields=error.field_messages), error.status
        return form_refused(form, error, page=page)
    flash(error.message if not error.details else " ".join(error.field_messages.values()), "error")
    return redirect(url_for("notebook.page", page_id=page.id))


def _source_added(form, page, source):
    """An empty form again, and a toast: ready (searchable now) or being indexed, on its thread."""
    if source.status == "queued":
        study_sources.start_processing(current_app._get_current_object(), source.id)
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
