"""Study cycles at /notebook/cycles: the active cycles with their laps, a cycle's week and queue,
the editor, a block of the queue edited in the dialog its Edit button opens, archive and delete,
the sessions and the "Log session" dialog, and the "Studying:" choice on a Focus entry.

The editor is a plain form (it works without JavaScript): a refusal shows it again with what was
typed and the reasons. The lists refresh on `domain:study_cycles`.
"""

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from werkzeug.datastructures import MultiDict

from app.catalogue.dialogs import deletion_dialog, done, quiet, refused, show_dialog
from app.notebook import services as notebook
from app.routines import services as routines
from app.shared.days import today_for
from app.shared.errors import DomainError
from app.shared.fields import UNSET
from app.study_cycles import planner
from app.study_cycles import services as study_cycles
from app.web.acting import acting_user
from app.web.forms import form_refused
from app.web.rendering import is_htmx, render_page, trigger

bp = Blueprint("study_cycles", __name__, url_prefix="/notebook/cycles", template_folder="templates")

FORM_PAGE = "study_cycles/form.html"
LOG_SESSION = "study_cycles/_log_session.html"
BLOCK_FORM = "study_cycles/_block_form.html"
WEEKDAY_NAMES = (_l("Monday"), _l("Tuesday"), _l("Wednesday"), _l("Thursday"), _l("Friday"), _l("Saturday"),
                 _l("Sunday"))  # fmt: skip
MODES = (("TIME", _l("When their minutes are studied")), ("GOAL", _l("When you reach the next concept on the board")))
SCALE = ("1", "2", "3", "4", "5")


@bp.get("")
@login_required
def index():
    user = acting_user()
    context = {
        "cycles": [(cycle, study_cycles.lap_progress(cycle)) for cycle in study_cycles.active_cycles(user)],
        "archived": study_cycles.archived_cycles(user),
        "slices": {found.cycle.id: found for found in study_cycles.today(user)},
        "active": "notebook",
    }
    return render_page("study_cycles/page.html", "study_cycles/_cycles.html", **context)


@bp.get("/new")
@login_required
def new():
    starting = MultiDict({"default_mode": "TIME", "largest_block": "30"})
    return render_template(FORM_PAGE, **_form_context(starting, cycle=None))


@bp.post("")
@login_required
def create():
    try:
        cycle = study_cycles.create_cycle(acting_user(), _configuration(request.form))
    except DomainError as error:
        return form_refused(FORM_PAGE, error, **_form_context(None, cycle=None))
    flash(_("Cycle created: its queue is ready."), "success")
    return redirect(url_for("study_cycles.show", cycle_id=cycle.id))


@bp.get("/<cycle_id>")
@login_required
def show(cycle_id):
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    return render_page("study_cycles/cycle.html", "study_cycles/_cycle.html", **_cycle_context(cycle))


@bp.get("/<cycle_id>/edit")
@login_required
def edit_form(cycle_id):
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    return render_template(FORM_PAGE, **_form_context(_prefill(cycle), cycle=cycle))


@bp.post("/<cycle_id>/edit")
@login_required
def edit(cycle_id):
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    try:
        study_cycles.save_cycle(acting_user(), cycle.id, _configuration(request.form))
    except DomainError as error:
        return form_refused(FORM_PAGE, error, **_form_context(None, cycle=cycle))
    flash(_("Cycle saved."), "success")
    return redirect(url_for("study_cycles.show", cycle_id=cycle.id))


@bp.get("/<cycle_id>/blocks/edit")
@login_required
def edit_block_form(cycle_id):
    """A block of the queue in the dialog, chosen by its Edit button (?number=3)."""
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    block = _block_numbered(cycle, request.args.get("number", type=int))
    starting = MultiDict({"minutes": str(block.minutes), "mode": block.mode.value,
                          "concept": str(block.concept_page_id) if block.concept_page_id else "NEXT"})  # fmt: skip
    return show_dialog(BLOCK_FORM, form=starting, **_block_context(cycle, block))


@bp.post("/<cycle_id>/blocks")
@login_required
def edit_block(cycle_id):
    """One block, named by its number; the fields left empty stay as they are. Its concept counts
    only when the block ends at one (the dialog sends a concept either way)."""
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    form = request.form
    mode = form.get("mode") or UNSET
    try:
        block = study_cycles.edit_block(
            acting_user(),
            cycle.id,
            form.get("number", ""),
            minutes=form.get("minutes") or UNSET,
            mode=mode,
            concept=UNSET if mode == "TIME" else form.get("concept") or UNSET,
        )
    except DomainError as error:
        named = next((found for found in cycle.blocks if str(found.number) == form.get("number", "").strip()), None)
        if named is None:
            return _refused_here(error, cycle)
        return refused(BLOCK_FORM, error, **_block_context(cycle, named))
    message = _("Block %(number)s of %(count)s saved.", number=block.number, count=len(cycle.blocks))
    if is_htmx():
        trigger("toast", {"message": message, "kind": "success"})
    else:
        flash(message, "success")
    return done("study_cycles.show", cycle_id=cycle.id)


@bp.post("/<cycle_id>/archive")
@login_required
def archive(cycle_id):
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    study_cycles.archive_cycle(acting_user(), cycle.id)
    flash(_("Cycle archived: its laps stay in the history."), "success")
    return redirect(url_for("study_cycles.index"))


@bp.get("/<cycle_id>/delete")
@login_required
def confirm_delete(cycle_id):
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    return deletion_dialog(
        _l("Delete this cycle?"),
        cycle.name,
        _(
            "The cycle, its queue and its laps will be deleted for good; your sessions stay. "
            "To keep its history, archive it instead."
        ),
        url_for("study_cycles.delete", cycle_id=cycle.id),
    )


@bp.post("/<cycle_id>/delete")
@login_required
def delete(cycle_id):
    cycle = study_cycles.get_cycle(acting_user(), cycle_id)
    study_cycles.delete_cycle(acting_user(), cycle.id)
    if is_htmx():
        trigger("dialog:close")
        return "", 204, {"HX-Redirect": url_for("study_cycles.index")}
    return redirect(url_for("study_cycles.index"))


# Sessions --------------------------------------------------------------------------------------


@bp.get("/sessions")
@login_required
def sessions():
    user = acting_user()
    found = study_cycles.sessions(user, 31, source=None)
    return render_page("study_cycles/sessions.html", "study_cycles/_sessions.html", sessions=found, active="notebook")


@bp.get("/sessions/new")
@login_required
def new_session():
    user = acting_user()
    starting = MultiDict({"day": today_for(user).isoformat(), "page": request.args.get("page", "")})
    return show_dialog(LOG_SESSION, form=starting, **_session_choices(user))


@bp.post("/sessions")
@login_required
def log_session():
    user = acting_user()
    form = request.form
    try:
        session = study_cycles.log_session(user, form.get("page"), form.get("minutes"), day=form.get("day"))
    except DomainError as error:
        return refused(LOG_SESSION, error, **_session_choices(user))
    message = _("%(minutes)s minutes of %(page)s logged.", minutes=session.minutes, page=session.page.title)
    if is_htmx():
        trigger("toast", {"message": message, "kind": "success"})
    else:
        flash(message, "success")
    return done("study_cycles.index")


@bp.post("/sessions/<session_id>/delete")
@login_required
def delete_session(session_id):
    session = study_cycles.get_session(acting_user(), session_id)
    study_cycles.delete_session(acting_user(), session.id)
    if is_htmx():
        trigger("toast", {"message": _("Session deleted."), "kind": "success"})
    return quiet("study_cycles.sessions")


# The Focus entry -------------------------------------------------------------------------------


@bp.get("/entries/<entry_id>/studying")
@login_required
def studying(entry_id):
    """The "Studying:" choice shown on an entry's Focus page."""
    user = acting_user()
    entry = routines.get_entry(user, entry_id)
    return render_template(
        "study_cycles/_studying.html", entry=entry, page=study_cycles.page_for_entry(user, entry.id),
        pages=_page_choices(user), saved=False,
    )  # fmt: skip


@bp.post("/entries/<entry_id>/studying")
@login_required
def link_entry(entry_id):
    user = acting_user()
    entry = routines.get_entry(user, entry_id)
    page = study_cycles.link_entry(user, entry.id, request.form.get("page"))
    if not is_htmx():
        return redirect(url_for("focus.entry", entry_id=entry.id))
    return render_template("study_cycles/_studying.html", entry=entry, page=page, pages=_page_choices(user), saved=True)


# Helpers ---------------------------------------------------------------------------------------


def _configuration(form):
    """The editor's fields as the configuration the service takes."""
    chosen = set(form.getlist("subject"))
    subjects = [
        {
            "page": page_id,
            "importance": form.get(f"importance_{page_id}"),
            "mastery": form.get(f"mastery_{page_id}"),
            "minutes": form.get(f"subject_minutes_{page_id}"),
        }
        for page_id in [str(page.id) for _topic, pages in _page_choices(acting_user()) for page, _depth in pages]
        if page_id in chosen
    ]
    return {
        "name": form.get("name"),
        "days": {
            weekday: {"minutes": form.get(f"minutes_{weekday}"), "starts_at": form.get(f"starts_{weekday}")}
            for weekday in range(7)
        },
        "subjects": subjects,
        "largest_block": form.get("largest_block"),
        "default_mode": form.get("default_mode"),
    }


def _prefill(cycle):
    configuration = study_cycles.configuration_of(cycle)
    items = [("name", cycle.name), ("default_mode", configuration["default_mode"])]
    if cycle.largest_block:
        items.append(("largest_block", str(cycle.largest_block)))
    for weekday, day in configuration["days"].items():
        items.append((f"minutes_{weekday}", str(day["minutes"])))
        if day["starts_at"]:
            items.append((f"starts_{weekday}", routines.clock(day["starts_at"])))
    for subject in configuration["subjects"]:
        page_id = subject["page"]
        items += [("subject", page_id), (f"importance_{page_id}", str(subject["importance"])),
                  (f"mastery_{page_id}", str(subject["mastery"]))]  # fmt: skip
        if subject["minutes"]:
            items.append((f"subject_minutes_{page_id}", str(subject["minutes"])))
    return MultiDict(items)


def _form_context(form, cycle):
    context = {
        "cycle": cycle,
        "topics": _page_choices(acting_user()),
        "weekdays": list(enumerate(WEEKDAY_NAMES)),
        "modes": MODES,
        "scale": SCALE,
        "active": "notebook",
    }
    if form is not None:
        context.update(form=form, fields={}, error=None)
    return context


def _page_choices(user):
    """[(topic, [(page, depth)])]: every page in notebook order, nested pages under their parent."""
    choices = []
    for topic in notebook.topics(user):
        children = {}
        for page in topic.pages:
            children.setdefault(page.parent_id, []).append(page)
        ordered = []

        def walk(parent_id, depth, children=children, ordered=ordered):
            for page in children.get(parent_id, []):
                ordered.append((page, depth))
                walk(page.id, depth + 1)

        walk(None, 0)
        choices.append((topic, ordered))
    return choices


def _cycle_context(cycle):
    progress = study_cycles.lap_progress(cycle)
    return {"cycle": cycle, "progress": progress, "weekdays": WEEKDAY_NAMES,
            "finished_laps": [lap for lap in cycle.laps if lap.finished_at], "active": "notebook"}  # fmt: skip


def _block_numbered(cycle, number):
    """The block at `number` in the queue; a number past its end is a page that is not there."""
    block = next((block for block in cycle.blocks if block.number == number), None)
    if block is None or cycle.archived:
        abort(404)
    return block


def _block_context(cycle, block):
    inside = _pages_inside(block.subject.page)
    top = min((depth for _page, depth in inside), default=0)
    concepts = [(page, depth - top) for page, depth in inside]  # indented from the subject's own pages
    return {"cycle": cycle, "block": block, "concepts": concepts,
            "largest": cycle.largest_block or planner.DEFAULT_LARGEST_BLOCK, "active": "notebook"}  # fmt: skip


def _pages_inside(subject_page):
    user = acting_user()
    inside = notebook.pages_inside(user, subject_page)
    return [(page, depth) for topic, pages in _page_choices(user) for page, depth in pages if page.id in inside]


def _session_choices(user):
    holding = [page for _topic, pages in _page_choices(user) for page, _depth in pages]
    return {"pages": holding, "today": today_for(user)}


def _refused_here(error, cycle):
    if is_htmx():
        body = render_template("routines/_toast.html", kind="error", title=error.message)
        return body, error.status, {"HX-Reswap": "none"}
    flash(error.message, "error")
    return redirect(url_for("study_cycles.show", cycle_id=cycle.id))
