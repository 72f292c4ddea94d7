"""The study notebook's AI on a page (/notebook/...): the tutor, the studio and the board's
planning, each in its own section below, all through app/services/study_ai.py."""

import re
from functools import partial

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import login_required
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from app.agent.markdown import render as render_markdown
from app.services import notebook, study_board, study_planning
from app.services.errors import DomainError
from app.web.acting import acting_user
from app.web.rendering import is_htmx, trigger

bp = Blueprint("study_ai", __name__, url_prefix="/notebook")

# -- the tutor --

# -- planning --
# "Explain" on a note or a board concept, and the board's roadmap draft
# (app/services/study_planning.py). Every button is a form: htmx swaps the explanation under its
# note or concept and the roadmap panel in place; without JavaScript the study page is drawn again
# by its own view, with what the action left in `g.planning` (planning_panel(),
# planning_explanation()). A refusal changes nothing on the page and says why.

EXPLANATION = "notebook/ai/_planning_explanation.html"
ROADMAP = "notebook/ai/_planning_roadmap.html"
CITATION = re.compile(r"\[(\d+)\]")


@bp.post("/blocks/<page_block_id>/explain")
@login_required
def explain_block(page_block_id):
    block = notebook.get_block(acting_user(), page_block_id)
    explain = partial(study_planning.explain_block, acting_user(), block.id)
    return _explained(block.page_id, block.id, f"explain-block-{block.id}", explain)


@bp.post("/board/nodes/<node_id>/explain")
@login_required
def explain_node(node_id):
    node = study_board.get_node(acting_user(), node_id)
    explain = partial(study_planning.explain_node, acting_user(), node.id)
    return _explained(node.page_id, node.id, f"explain-node-{node.id}", explain)


@bp.post("/pages/<page_id>/roadmap")
@login_required
def draft_roadmap(page_id):
    """A new draft with every concept picked; a refusal keeps the draft the panel carried."""
    page = notebook.get_page(acting_user(), page_id)
    try:
        return _roadmap_panel(page, roadmap=study_planning.draft_roadmap(acting_user(), page.id))
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
        added = study_planning.add_suggestions(acting_user(), page.id, [drafted[i] for i in sorted(picked)])
    except DomainError as error:
        return _roadmap_panel(page, roadmap=_carried(page), picked=picked, error=error)
    if added.nodes:
        said = ngettext("%(num)s concept added to the board.", "%(num)s concepts added to the board.", len(added.nodes))
        trigger("toast", {"message": said, "kind": "success"})
    return _roadmap_panel(page, roadmap=study_planning.still_to_add(acting_user(), page.id, drafted), added=added)


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

    def chip(found):
        passage = by_number.get(int(found.group(1)))
        if passage is None:
            return found.group(0)
        return str(
            Markup('<a class="citation" href="#{slot}-passage-{n}" title="{label}">{n}</a>').format(
                slot=slot_id, n=passage.number, label=planning_passage_label(passage)
            )
        )

    return Markup(CITATION.sub(chip, render_markdown(explanation.text)))


@bp.app_template_global()
def planning_passage_label(passage):
    """Where a cited passage comes from: "Notes", or the source's title and the passage's place."""
    if passage.position is None:
        return passage.label
    return _("%(source)s, passage %(position)s", source=passage.label, position=passage.position)


@bp.app_template_global()
def planning_passage_url(passage):
    """A cited note is a block of this page; a source passage opens where the tutor opens it
    (/notebook/passages/<id>), when this server serves that address."""
    if passage.kind == "note":
        return f"#block-{passage.block_id}"
    address = f"{bp.url_prefix}/passages/{passage.passage_id}"
    try:
        current_app.url_map.bind("localhost").match(address, method="GET")
    except HTTPException:
        return None
    return address


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
    while f"title-{len(drafted)}" in form and len(drafted) < study_planning.ROADMAP_MAX:
        index = len(drafted)
        drafted.append(
            study_planning.Suggestion(
                form.get(f"title-{index}", ""),
                form.get(f"description-{index}") or None,
                tuple(form.getlist(f"leads_to-{index}")),
            )
        )
    return drafted


def _picked():
    """The indexes of the draft's checked concepts (any other value is ignored)."""
    count = len(_suggestions())
    return {int(value) for value in request.form.getlist("pick") if value.isdigit() and int(value) < count}


def _carried(page):
    """The draft as the form carried it, in its order (so its checkboxes still match), or none."""
    drafted = _suggestions()
    return study_planning.Roadmap(page=page, suggestions=drafted, on_board=[]) if drafted else None
