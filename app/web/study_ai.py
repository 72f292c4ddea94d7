"""The study notebook's AI on a page (/notebook/...): the tutor, the studio and the board's
planning, each in its own section below, all through app/services/study_ai.py."""

import re

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from markupsafe import Markup
from werkzeug.datastructures import MultiDict

from app.agent.markdown import render as render_markdown
from app.ai import study_model
from app.services import notebook, study_tutor
from app.services.errors import DomainError, message_for
from app.services.study_ai import Passage
from app.web.acting import acting_user
from app.web.catalogue import CONFIRM_DELETE, DIALOG_PAGE
from app.web.notebook import KIND_NAMES
from app.web.rendering import is_htmx, trigger

bp = Blueprint("study_ai", __name__, url_prefix="/notebook")

# -- the tutor --
# A chat on the study page. Each question is one form post; htmx swaps in a fresh form and the
# conversation refreshes on `domain:study_ai`; without JavaScript the page reloads at the answer. A refusal
# keeps the question typed. Citations are plain links: a note's to its block on this page
# (highlighted by `:target`), a source passage's to that passage shown in its source.

TUTOR_CONVERSATION = "notebook/ai/_tutor_conversation.html"
TUTOR_FORM = "notebook/ai/_tutor_form.html"
TUTOR_PASSAGE = "notebook/ai/tutor_passage.html"
STUDY_PAGE = "notebook/study_page.html"
PREVIEW_CHARS = 160  # of a cited passage, in its chip's title
_CITATION = re.compile(r"\[(\d+)\]")
_VERBATIM = re.compile(r"(<(?:code|pre)\b.*?</(?:code|pre)>|<[^>]+>)", re.DOTALL)


@bp.app_template_global()
def tutor_of(page):
    """The page's conversation and which cited notes and sources still exist."""
    user = acting_user()
    exchanges = study_tutor.exchanges(user, page)
    return {"exchanges": exchanges, "present": study_tutor.still_there(user, page, exchanges)}


@bp.app_template_global()
def study_ai_off():
    """Why no model can answer on this server (no key at all), so the page says so up front
    instead of offering to ask; None when the chain has a model."""
    return None if study_model().configured else message_for("STUDY_AI_NOT_CONFIGURED")


@bp.app_template_global()
def study_tutor_passage(data):
    """A cited passage as stored beside its answer."""
    return Passage.from_dict(data)


@bp.app_template_global()
def tutor_citation_url(page, passage, present):
    """Where a citation chip leads: the note block on the page, or the passage in its source;
    None when it was deleted since the answer was written."""
    if passage.kind == "note" and passage.block_id in present:
        return f"{url_for('notebook.page', page_id=page.id)}#block-{passage.block_id}"
    if passage.kind == "source" and passage.source_id in present:
        return url_for(
            "study_ai.tutor_passage",
            source_id=passage.source_id,
            at=passage.position,
            _anchor=f"passage-{passage.position}",
        )
    return None


@bp.app_template_filter("tutor_answer")
def tutor_answer(exchange, page, present):
    """An answer's Markdown as sanitised HTML, each `[n]` a chip linking to its passage (code
    and tags are left alone)."""
    cited = study_tutor.cited_passages(exchange)
    parts = _VERBATIM.split(render_markdown(exchange.answer))

    def chip(match):
        passage = cited.get(int(match.group(1)))
        if passage is None:
            return match.group()
        return _chip(page, passage, present)

    return Markup("".join(part if index % 2 else _CITATION.sub(chip, part) for index, part in enumerate(parts)))


def _chip(page, passage, present):
    """A citation as a small numbered link (a plain mark when its passage is gone), its title
    naming where the passage comes from and how it starts."""
    where = passage.label
    if passage.position is not None:
        where = _("%(source)s, passage %(position)s", source=passage.label, position=passage.position)
    preview = " ".join(passage.text.split())
    preview = preview if len(preview) <= PREVIEW_CHARS else preview[: PREVIEW_CHARS - 1].rstrip() + "…"
    url = tutor_citation_url(page, passage, present)
    if url is None:
        title = _("%(where)s (no longer on this page)", where=where)
        return str(
            Markup('<span class="tutor-cite tutor-cite-gone" title="{}">{}</span>').format(title, passage.number)
        )
    return str(
        Markup('<a class="tutor-cite" href="{}" title="{}" aria-label="{}" data-testid="tutor-cite">{}</a>').format(
            url,
            f"{where} — {preview}",
            _("Passage %(number)s: %(where)s", number=passage.number, where=where),
            passage.number,
        )
    )


@bp.get("/pages/<page_id>/tutor")
@login_required
def tutor(page_id):
    """The conversation alone (refreshed when the tutor changes); without JavaScript, the page."""
    page = notebook.get_page(acting_user(), page_id)
    if not is_htmx():
        return redirect(f"{url_for('notebook.page', page_id=page.id)}#tutor")
    return render_template(TUTOR_CONVERSATION, page=page)


@bp.post("/pages/<page_id>/tutor")
@login_required
def tutor_ask(page_id):
    """One question, answered and kept; the question box comes back empty (or, refused, as typed)."""
    page = notebook.get_page(acting_user(), page_id)
    question = request.form.get("question", "")
    try:
        study_tutor.ask(acting_user(), page.id, question)
    except DomainError as error:
        return _tutor_refused(page, question, error)
    if not is_htmx():
        return redirect(f"{url_for('notebook.page', page_id=page.id)}#tutor-latest")
    return render_template(TUTOR_FORM, page=page, answered=True)


def _tutor_refused(page, question, error):
    """The form again with the question as typed and the reason; the whole page without JS."""
    context = {"tutor_question": question[: study_tutor.QUESTION_MAX * 2], "tutor_error": error}
    if is_htmx():
        return render_template(TUTOR_FORM, page=page, **context), error.status
    page_context = {"page": page, "kinds": KIND_NAMES, "active": "notebook", "form": MultiDict(), "fields": {}}
    return render_template(STUDY_PAGE, error=None, **page_context, **context), error.status


@bp.get("/pages/<page_id>/tutor/clear")
@login_required
def tutor_confirm_clear(page_id):
    page = notebook.get_page(acting_user(), page_id)
    context = {
        "title": _l("Clear this conversation?"),
        "name": page.title,
        "consequence": _("Every question and answer on this page will be deleted. Your notes and sources stay."),
        "action": url_for("study_ai.tutor_clear", page_id=page.id),
        "error": None,
        "dialog_fragment": CONFIRM_DELETE,
    }
    return render_template(CONFIRM_DELETE if is_htmx() else DIALOG_PAGE, **context)


@bp.post("/pages/<page_id>/tutor/clear")
@login_required
def tutor_clear(page_id):
    page = notebook.get_page(acting_user(), page_id)
    study_tutor.clear(acting_user(), page.id)
    message = _("Conversation cleared.")
    if not is_htmx():
        flash(message, "success")
        return redirect(f"{url_for('notebook.page', page_id=page.id)}#tutor")
    trigger("dialog:close")
    trigger("toast", {"message": message, "kind": "success"})
    return "", 204


@bp.get("/sources/<source_id>/passage")
@login_required
def tutor_passage(source_id):
    """A cited passage highlighted in its source, between its neighbours."""
    source, passages, position = study_tutor.passage_in_source(acting_user(), source_id, request.args.get("at"))
    page = notebook.get_page(acting_user(), source.page_id)
    return render_template(TUTOR_PASSAGE, page=page, source=source, passages=passages, at=position, active="notebook")
