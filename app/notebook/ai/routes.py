"""The study notebook's AI on a page (/notebook/...): the tutor, the studio and the board's
planning, each in its own section below, all through app/notebook/ai/services.py."""

import re
from functools import partial

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import login_required
from markupsafe import Markup
from werkzeug.datastructures import MultiDict

from app.catalogue.dialogs import deletion_dialog, done, prefilled, refused, show_dialog
from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.ai import reading_aid, studio, tutor
from app.notebook.ai import services as notebook_ai
from app.notebook.ai.services import Passage
from app.notebook.routes import KIND_NAMES
from app.shared.errors import DomainError, message_for
from app.shared.values import whole_number_from
from app.web.acting import acting_user
from app.web.forms import form_refused
from app.web.markdown import render as render_markdown
from app.web.rendering import is_htmx, trigger

bp = Blueprint("study_ai", __name__, url_prefix="/notebook", template_folder="templates")

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
    exchanges = tutor.exchanges(user, page)
    return {"exchanges": exchanges, "present": tutor.still_there(user, page, exchanges)}


@bp.app_template_global()
def study_ai_off():
    """Why no model can answer on this server (no key at all), so the page says so up front
    instead of offering to ask; None when the chain has a model."""
    return None if notebook_ai.study_model().configured else message_for("STUDY_AI_NOT_CONFIGURED")


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
    cited = tutor.cited_passages(exchange)
    return with_citation_chips(
        exchange.answer, lambda number: _chip(page, cited[number], present) if number in cited else None
    )


def with_citation_chips(text, chip_for):
    """`text`'s Markdown as sanitised HTML (nh3, like the chat), each `[n]` replaced by
    `chip_for(n)` where that answers a chip; tags and code are left alone. The tutor, the studio
    and "Explain" each draw their own chips."""

    def chip(match):
        made = chip_for(int(match.group(1)))
        return match.group() if made is None else made

    parts = _VERBATIM.split(render_markdown(text))
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


@bp.get("/pages/<page_id>/tutor", endpoint="tutor")  # the function's own name is the tutor module's
@login_required
def tutor_conversation(page_id):
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
        tutor.ask(acting_user(), page.id, question)
    except DomainError as error:
        return _tutor_refused(page, question, error)
    if not is_htmx():
        return redirect(f"{url_for('notebook.page', page_id=page.id)}#tutor-latest")
    return render_template(TUTOR_FORM, page=page, answered=True)


def _tutor_refused(page, question, error):
    """The form again with the question as typed and the reason; the whole page without JS."""
    context = {"tutor_question": question[: tutor.QUESTION_MAX * 2], "tutor_error": error}
    if is_htmx():
        return render_template(TUTOR_FORM, page=page, **context), error.status
    page_context = {"page": page, "kinds": KIND_NAMES, "active": "notebook", "form": MultiDict(), "fields": {}}
    return render_template(STUDY_PAGE, error=None, **page_context, **context), error.status


@bp.get("/pages/<page_id>/tutor/clear")
@login_required
def tutor_confirm_clear(page_id):
    page = notebook.get_page(acting_user(), page_id)
    return deletion_dialog(
        _l("Clear this conversation?"),
        page.title,
        _("Every question and answer on this page will be deleted. Your notes and sources stay."),
        url_for("study_ai.tutor_clear", page_id=page.id),
    )


@bp.post("/pages/<page_id>/tutor/clear")
@login_required
def tutor_clear(page_id):
    page = notebook.get_page(acting_user(), page_id)
    tutor.clear(acting_user(), page.id)
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
    source, passages, position = tutor.passage_in_source(acting_user(), source_id, request.args.get("at"))
    page = notebook.get_page(acting_user(), source.page_id)
    return render_template(TUTOR_PASSAGE, page=page, source=source, passages=passages, at=position, active="notebook")


# -- the studio --
# A page's studio (app/notebook/ai/templates/notebook/ai/_studio*.html, included by the study page): summaries,
# study guides and quizzes made from the page's passages only, and AI flashcard drafts to accept
# or discard (app/notebook/ai/studio.py). Every button is a form, so it works without
# JavaScript; with htmx a write swaps nothing but its own form, and the lists refresh themselves
# on `domain:study_ai` (from this tab, another, or the assistant), the outputs on `studio:outputs`
# too. Each output listed is hx-preserve'd: a quiz being answered, or an output folded, stays as
# it is while a new one arrives above it.

STUDIO_GENERATE = "notebook/ai/_studio_generate.html"
STUDIO_CARDS_FORM = "notebook/ai/_studio_cards_form.html"
STUDIO_OUTPUTS = "notebook/ai/_studio_outputs.html"
STUDIO_DRAFTS = "notebook/ai/_studio_drafts.html"
STUDIO_QUIZ = "notebook/ai/_studio_quiz.html"
STUDIO_PAGE = "notebook/ai/_studio_page.html"
STUDIO_DRAFT_FORM = "notebook/ai/_studio_draft_form.html"
STUDIO_KINDS = {"summary": _l("Summary"), "guide": _l("Study guide"), "quiz": _l("Quiz")}
STUDIO_READY = {
    "summary": _l("Summary ready: “%(title)s”."),
    "guide": _l("Study guide ready: “%(title)s”."),
    "quiz": _l("Quiz ready: “%(title)s”."),
}


@bp.app_template_filter("studio_cited")
def studio_cited(text, output):
    """A studio text's Markdown as sanitised HTML, each citation [n] of a passage the output keeps a
    chip linking to that passage, listed under the output (tags and code are left alone)."""
    cited = {passage.number: passage for passage in studio.passages_of(output)}

    def chip(number):
        passage = cited.get(number)
        if passage is None:
            return None
        label = _("Passage %(number)s: %(where)s", number=passage.number, where=studio_passage_label(passage, False))
        link = Markup('<a class="studio-cite" href="#output-{}-{}" aria-label="{}" data-testid="studio-cite">{}</a>')
        return str(link.format(output.id, passage.number, label, passage.number))

    return with_citation_chips(text, chip)


@bp.app_template_global()
def studio_outputs(page):
    return studio.outputs(acting_user(), page.id)


@bp.app_template_global()
def studio_drafts(page):
    return studio.drafts(acting_user(), page.id)


@bp.app_template_global()
def studio_has_material(page):
    return notebook_ai.has_something_to_read(acting_user(), page)


@bp.app_template_global()
def studio_passage_url(row, passage):
    """Where a passage an output cites (or a draft comes from) is now: its note block on the page,
    or the passage shown in its source; None once that was deleted."""
    still_there = g.setdefault("studio_still_there", {})  # one look per output or draft and request
    if row.id not in still_there:
        still_there[row.id] = tutor.still_there(acting_user(), row.page, [row])
    return tutor_citation_url(row.page, passage, still_there[row.id])


@bp.app_template_global()
def studio_kind_name(kind):
    return STUDIO_KINDS[kind]


@bp.app_template_global()
def studio_passages(row):
    return studio.passages_of(row)


@bp.app_template_global()
def studio_passage_label(passage, numbered=True):
    """Where a passage comes from, as its citation reads: "[2] Cell biology, passage 4"."""
    where = (
        _("%(source)s, passage %(position)s", source=passage.label, position=passage.position)
        if passage.position
        else passage.label
    )
    return f"[{passage.number}] {where}" if numbered else where


@bp.get("/pages/<page_id>/studio/outputs")
@login_required
def studio_outputs_list(page_id):
    """The outputs again, newest first: what the list fetches after one is made or deleted."""
    page = notebook.get_page(acting_user(), page_id)
    if not is_htmx():
        return redirect(url_for("notebook.page", page_id=page.id, _anchor="studio"))
    return render_template(STUDIO_OUTPUTS, page=page)


@bp.post("/pages/<page_id>/studio/outputs")
@login_required
def studio_generate(page_id):
    """A summary, a study guide or a quiz of the page. The form comes back empty with a toast and
    the list shows the new output open; a refusal comes back in the form, the focus kept."""
    page = notebook.get_page(acting_user(), page_id)
    try:
        output = studio.generate(acting_user(), page.id, request.form.get("kind"), request.form.get("focus"))
    except DomainError as error:
        return _studio_refused(STUDIO_GENERATE, page, error)
    message = STUDIO_READY[output.kind] % {"title": output.title}
    if not is_htmx():
        flash(message, "success")
        return redirect(url_for("study_ai.studio_output", output_id=output.id))
    trigger("studio:outputs")
    trigger("toast", {"message": message, "kind": "success"})
    return render_template(STUDIO_GENERATE, page=page, form=MultiDict(), fields={}, error=None)


@bp.get("/studio/outputs/<output_id>")
@login_required
def studio_output(output_id):
    """One output on a page of its own."""
    output = studio.get_output(acting_user(), output_id)
    return render_template(STUDIO_PAGE, output=output, active="notebook")


@bp.get("/studio/outputs/<output_id>/quiz")
@login_required
def studio_quiz(output_id):
    """A quiz unanswered again ("Try again")."""
    quiz = studio.get_output(acting_user(), output_id)
    if not is_htmx() or quiz.kind != "quiz":
        return redirect(url_for("study_ai.studio_output", output_id=quiz.id))
    return render_template(STUDIO_QUIZ, quiz=quiz, marks=None)


@bp.post("/studio/outputs/<output_id>/check")
@login_required
def studio_check_quiz(output_id):
    """The quiz marked: each question right or not, its answer and why, and the score."""
    quiz = studio.get_output(acting_user(), output_id)
    chosen = {int(name[1:]): value for name, value in request.form.items() if re.fullmatch(r"q\d{1,2}", name)}
    try:
        marks = studio.check_quiz(acting_user(), quiz.id, chosen)
    except DomainError as error:
        flash(error.message, "error")
        return redirect(url_for("study_ai.studio_output", output_id=quiz.id))
    if is_htmx():
        return render_template(STUDIO_QUIZ, quiz=quiz, marks=marks)
    return render_template(STUDIO_PAGE, output=quiz, marks=marks, active="notebook")


@bp.get("/studio/outputs/<output_id>/delete")
@login_required
def studio_confirm_delete(output_id):
    output = studio.get_output(acting_user(), output_id)
    return deletion_dialog(
        _l("Delete this output?"),
        output.title,
        _("“%(title)s” will be deleted for good.", title=output.title),
        url_for("study_ai.studio_delete", output_id=output.id),
    )


@bp.post("/studio/outputs/<output_id>/delete")
@login_required
def studio_delete(output_id):
    output = studio.get_output(acting_user(), output_id)
    page_id = output.page_id
    studio.delete_output(acting_user(), output.id)
    if is_htmx():
        trigger("studio:outputs")
        trigger("toast", {"message": _("Deleted."), "kind": "success"})
    return done("notebook.page", page_id=page_id, _anchor="studio")


@bp.get("/pages/<page_id>/studio/drafts")
@login_required
def studio_drafts_list(page_id):
    """The drafts again: what the list fetches when the notebook's AI changed something."""
    page = notebook.get_page(acting_user(), page_id)
    if not is_htmx():
        return redirect(url_for("notebook.page", page_id=page.id, _anchor="studio"))
    return render_template(STUDIO_DRAFTS, page=page)


@bp.post("/pages/<page_id>/studio/drafts")
@login_required
def studio_draft_cards(page_id):
    """Flashcard drafts from the page's passages, listed below the form for the student to settle."""
    page = notebook.get_page(acting_user(), page_id)
    try:
        made = studio.draft_cards(acting_user(), page.id, request.form.get("count"), request.form.get("focus"))
    except DomainError as error:
        return _studio_refused(STUDIO_CARDS_FORM, page, error)
    message = ngettext(
        "%(num)s flashcard drafted. Accept it if it's worth keeping.",
        "%(num)s flashcards drafted. Accept the ones worth keeping.",
        len(made),
    )
    if not is_htmx():
        flash(message, "success")
        return redirect(url_for("notebook.page", page_id=page.id, _anchor="studio-cards-title"))
    trigger("toast", {"message": message, "kind": "success"})
    return render_template(STUDIO_CARDS_FORM, page=page, form=MultiDict({"count": request.form.get("count", "")}),
                           fields={}, error=None)  # fmt: skip


@bp.post("/studio/drafts/<draft_id>/accept")
@login_required
def studio_accept_draft(draft_id):
    draft = studio.get_draft(acting_user(), draft_id)
    page_id = draft.page_id
    return _drafts_settled(page_id, lambda: [studio.accept_draft(acting_user(), draft.id)])


@bp.post("/pages/<page_id>/studio/drafts/accept")
@login_required
def studio_accept_all(page_id):
    page = notebook.get_page(acting_user(), page_id)
    return _drafts_settled(page.id, lambda: studio.accept_all(acting_user(), page.id))


@bp.post("/studio/drafts/<draft_id>/discard")
@login_required
def studio_discard_draft(draft_id):
    draft = studio.get_draft(acting_user(), draft_id)
    page_id = draft.page_id
    studio.discard_draft(acting_user(), draft.id)
    if not is_htmx():
        flash(_("Draft discarded."), "success")
        return redirect(url_for("notebook.page", page_id=page_id, _anchor="studio-cards-title"))
    trigger("toast", {"message": _("Draft discarded."), "kind": "success"})
    return "", 204


@bp.get("/pages/<page_id>/studio/drafts/discard")
@login_required
def studio_confirm_discard_all(page_id):
    page = notebook.get_page(acting_user(), page_id)
    waiting = len(studio.drafts(acting_user(), page.id))
    return deletion_dialog(
        _l("Discard every draft?"),
        page.title,
        ngettext(
            "%(num)s flashcard draft waiting on “%(page)s” will be discarded.",
            "%(num)s flashcard drafts waiting on “%(page)s” will be discarded.",
            waiting,
            page=page.title,
        ),
        url_for("study_ai.studio_discard_all", page_id=page.id),
    )


@bp.post("/pages/<page_id>/studio/drafts/discard")
@login_required
def studio_discard_all(page_id):
    page = notebook.get_page(acting_user(), page_id)
    gone = studio.discard_all(acting_user(), page.id)
    if is_htmx():
        trigger("toast", {"message": ngettext("%(num)s draft discarded.", "%(num)s drafts discarded.", gone),
                          "kind": "success"})  # fmt: skip
    return done("notebook.page", page_id=page.id, _anchor="studio-cards-title")


@bp.get("/studio/drafts/<draft_id>/edit")
@login_required
def studio_edit_draft_form(draft_id):
    draft = studio.get_draft(acting_user(), draft_id)
    return show_dialog(STUDIO_DRAFT_FORM, form=prefilled({"front": draft.front, "back": draft.back}), draft=draft)


@bp.post("/studio/drafts/<draft_id>/edit")
@login_required
def studio_edit_draft(draft_id):
    """The draft's new sides, kept as a draft, or accepted as they are now ("Accept card")."""
    draft = studio.get_draft(acting_user(), draft_id)
    page_id = draft.page_id
    front, back = request.form.get("front"), request.form.get("back")
    accepting = request.form.get("then") == "accept"
    try:
        if accepting:
            studio.accept_draft(acting_user(), draft.id, front, back)
        else:
            studio.edit_draft(acting_user(), draft.id, front, back)
    except DomainError as error:
        return refused(STUDIO_DRAFT_FORM, error, draft=draft)
    message = _accepted_message(1) if accepting else _("Draft saved.")
    if is_htmx():
        trigger("toast", _accepted_toast(1) if accepting else {"message": message, "kind": "success"})
    else:
        flash(message, "success")
    return done("notebook.page", page_id=page_id, _anchor="studio-cards-title")


def _drafts_settled(page_id, accepting):
    """Drafts accepted: a toast linking to the review; the drafts and the page's cards refresh."""
    try:
        cards = accepting()
    except DomainError as error:
        if is_htmx():
            body = render_template("routines/_toast.html", kind="error", title=error.message)
            return body, error.status, {"HX-Reswap": "none"}
        flash(error.message, "error")
        return redirect(url_for("notebook.page", page_id=page_id, _anchor="studio-cards-title"))
    if not is_htmx():
        flash(_accepted_message(len(cards)), "success")
        return redirect(url_for("notebook.page", page_id=page_id, _anchor="studio-cards-title"))
    trigger("toast", _accepted_toast(len(cards)))
    return "", 204


def _accepted_message(count):
    return ngettext(
        "Flashcard added to the page: it's due for review now.",
        "%(num)s flashcards added to the page: they're due for review now.",
        count,
    )


def _accepted_toast(count):
    link = {"href": url_for("notebook.review"), "label": _("Review now")}
    return {"message": _accepted_message(count), "kind": "success", "link": link}


def _studio_refused(template, page, error):
    """A studio form refused: again with the reason and what was chosen (the page stays as it
    was); without JavaScript, back to the page with the reason."""
    if is_htmx():
        return form_refused(template, error, page=page)
    flash(error.message if not error.details else " ".join(error.field_messages.values()), "error")
    return redirect(url_for("notebook.page", page_id=page.id, _anchor="studio"))


# -- planning --
# "Explain" on a note or a board concept, and the board's roadmap draft
# (app/notebook/ai/reading_aid.py). Every button is a form: htmx swaps the explanation under its
# note or concept and the roadmap panel in place; without JavaScript the study page is drawn again
# by its own view, with what the action left in `g.planning` (planning_panel(),
# planning_explanation()). A refusal changes nothing on the page and says why.

EXPLANATION = "notebook/ai/_planning_explanation.html"
ROADMAP = "notebook/ai/_planning_roadmap.html"


@bp.post("/blocks/<page_block_id>/explain")
@login_required
def explain_block(page_block_id):
    block = notebook.get_block(acting_user(), page_block_id)
    explain = partial(reading_aid.explain_block, acting_user(), block.id)
    return _explained(block.page_id, block.id, f"explain-block-{block.id}", explain)


@bp.post("/board/nodes/<node_id>/explain")
@login_required
def explain_node(node_id):
    node = boards.get_node(acting_user(), node_id)
    explain = partial(reading_aid.explain_node, acting_user(), node.id)
    return _explained(node.page_id, node.id, f"explain-node-{node.id}", explain)


@bp.post("/pages/<page_id>/roadmap")
@login_required
def draft_roadmap(page_id):
    """A new draft with every concept picked; a refusal keeps the draft the panel carried."""
    page = notebook.get_page(acting_user(), page_id)
    try:
        return _roadmap_panel(page, roadmap=reading_aid.draft_roadmap(acting_user(), page.id))
    except DomainError as error:
        return _roadmap_panel(page, roadmap=_carried(page), picked=_picked(), error=error)


@bp.post("/pages/<page_id>/roadmap/choose")
@login_required
def choose_roadmap(page_id):
    """The carried draft again with every concept picked, or none: "Select all", "Select none"."""
    page = notebook.get_page(acting_user(), page_id)
    roadmap = _carried(page)
    every = request.form.get("choose") == "all" and roadmap is not None
    return _roadmap_panel(page, roadmap=roadmap, picked=set(range(len(roadmap.suggestions))) if every else set())


@bp.post("/pages/<page_id>/roadmap/add")
@login_required
def add_roadmap(page_id):
    """The picked concepts go on the board; the draft stays with what is still to add."""
    page = notebook.get_page(acting_user(), page_id)
    drafted, picked = _suggestions(), _picked()
    try:
        added = reading_aid.add_suggestions(acting_user(), page.id, [drafted[i] for i in sorted(picked)])
    except DomainError as error:
        return _roadmap_panel(page, roadmap=_carried(page), picked=picked, error=error)
    if added.nodes:
        said = ngettext("%(num)s concept added to the board.", "%(num)s concepts added to the board.", len(added.nodes))
        trigger("toast", {"message": said, "kind": "success"})
    return _roadmap_panel(page, roadmap=reading_aid.still_to_add(acting_user(), page.id, drafted), added=added)


@bp.app_template_global()
def planning_panel(page):
    """What the roadmap panel shows: what an action on this page left, or only its button."""
    state = g.get("planning") or {}
    return state if state.get("page_id") == page.id and "roadmap" in state else {}


@bp.app_template_global()
def planning_explanation(row_id):
    """The explanation asked for about this note or concept, when the study page is drawn again
    without JavaScript."""
    state = g.get("planning") or {}
    return state.get("explanation") if state.get("explained") == row_id else None


@bp.app_template_global()
def planning_cited_text(explanation, slot_id):
    """The explanation's Markdown as sanitised HTML, each [n] a chip leading to the passage
    quoted under it."""
    by_number = {passage.number: passage for passage in explanation.cited}

    def chip(number):
        passage = by_number.get(number)
        if passage is None:
            return None
        return str(
            Markup('<a class="citation" href="#{slot}-passage-{n}" title="{label}">{n}</a>').format(
                slot=slot_id, n=passage.number, label=planning_passage_label(passage)
            )
        )

    return with_citation_chips(explanation.text, chip)


@bp.app_template_global()
def planning_passage_label(passage):
    """Where a cited passage comes from: "Notes", or the source's title and the passage's place."""
    if passage.position is None:
        return passage.label
    return _("%(source)s, passage %(position)s", source=passage.label, position=passage.position)


@bp.app_template_global()
def planning_passage_url(passage):
    """A cited note is a block of this page; a source passage opens where the tutor's citations
    open it, highlighted in its source."""
    if passage.kind == "note":
        return f"#block-{passage.block_id}"
    return url_for(
        "study_ai.tutor_passage",
        source_id=passage.source_id,
        at=passage.position,
        _anchor=f"passage-{passage.position}",
    )


def _explained(page_id, row_id, slot_id, explain):
    try:
        explanation, error = explain(), None
    except DomainError as refusal:
        explanation, error = None, refusal
    if is_htmx():
        body = render_template(EXPLANATION, explanation=explanation, explain_error=error, explain_id=slot_id)
        return body, error.status if error else 200
    if error:
        flash(error.message, "error")
        return redirect(url_for("notebook.page", page_id=page_id, _anchor=slot_id))
    g.planning = {"page_id": page_id, "explained": row_id, "explanation": explanation}
    return current_app.view_functions["notebook.page"](page_id=page_id)


def _roadmap_panel(page, roadmap=None, picked=None, added=None, error=None):
    """The panel for htmx; without JavaScript, the study page with the panel filled in."""
    g.planning = {"page_id": page.id, "roadmap": roadmap, "picked": picked, "added": added, "error": error}
    status = error.status if error else 200
    if is_htmx():
        return render_template(ROADMAP, page=page), status
    body, _shown = current_app.view_functions["notebook.page"](page_id=page.id)
    return body, status


def _suggestions():
    """The draft the panel's form carries back: title-N, description-N and leads_to-N each."""
    form, drafted = request.form, []
    while f"title-{len(drafted)}" in form and len(drafted) < reading_aid.ROADMAP_MAX:
        index = len(drafted)
        drafted.append(
            reading_aid.Suggestion(
                form.get(f"title-{index}", ""),
                form.get(f"description-{index}") or None,
                tuple(form.getlist(f"leads_to-{index}")),
            )
        )
    return drafted


def _picked():
    """The indexes of the draft's checked concepts (any other value is ignored)."""
    last = len(_suggestions()) - 1
    picked = (whole_number_from(value, last) for value in request.form.getlist("pick"))
    return {index for index in picked if index is not None}


def _carried(page):
    """The draft as the form carried it, in its order (so its checkboxes still match), or none."""
    drafted = _suggestions()
    return reading_aid.Roadmap(page=page, suggestions=drafted, on_board=[]) if drafted else None
