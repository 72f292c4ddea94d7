"""The admin area: reachable only by accounts granted with `flask users make-admin`.

Every admin page, fragment and action is written to the audit log (app/admin/services.py)
before it runs, so an attempt that is then refused is on record too.
"""

from functools import wraps

from flask import Blueprint, Response, abort, render_template, request
from flask_login import login_required
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.admin import services as accounts_admin
from app.feedback import services as feedback
from app.llm import current_chain
from app.shared.values import whole_number_from
from app.web.acting import acting_user
from app.web.rendering import render_page, trigger

bp = Blueprint("admin", __name__, url_prefix="/admin", template_folder="templates")


def admin_required(view):
    """Signed-out visitors go to the login page; signed-in non-admins get 403 (and no entry in
    the audit log: they saw nothing). An admin's request is recorded, then served."""

    @wraps(view)
    @login_required
    def guarded(*args, **kwargs):
        admin = acting_user()
        if not admin.is_admin:
            abort(403)
        changing = request.method not in ("GET", "HEAD")
        detail = ", ".join(f"{key}={value}" for key, value in sorted(request.form.items()) if key != "csrf_token")
        accounts_admin.record(admin, request.endpoint, request.full_path.rstrip("?"), change=changing, detail=detail)
        return view(*args, **kwargs)

    return guarded


def _page_number():
    """The ?page= of a paged list; anything but a positive whole number is the first page."""
    raw = request.args.get("page", "1")
    return whole_number_from(raw, 99_999) or 1


@bp.get("/")
@admin_required
def index():
    return render_page("admin/index.html")


@bp.get("/users")
@admin_required
def users():
    """Every account: counts, sign-up and last-activity dates, the admin flag. No content."""
    page = _page_number()
    return render_page("admin/users.html", page=page, **accounts_admin.users_overview(acting_user(), page))


@bp.get("/audit")
@admin_required
def audit():
    """What every admin viewed and changed in the admin area, the latest first."""
    page = _page_number()
    lines, more = accounts_admin.audit_log(acting_user(), page)
    return render_page("admin/audit.html", lines=lines, more=more, page=page)


@bp.get("/llm")
@admin_required
def llm_chain():
    """Each link of the chain: ready, cooling until …, skipped (no key) or blocked; last error, latency."""
    chain = current_chain()
    return render_page("admin/llm.html", "admin/_llm_links.html", links=chain.link_states(), chain=chain)


@bp.get("/metrics")
@admin_required
def metrics():
    """Prometheus metrics of this worker process, for admins (scrape with a session cookie)."""
    return Response(generate_latest(), mimetype=CONTENT_TYPE_LATEST)


@bp.get("/feedback")
@admin_required
def feedback_inbox():
    """Every user's feedback, newest first, filtered by status and kind."""
    filters = {"status": request.args.get("status", ""), "kind": request.args.get("kind", "")}
    return render_page(
        "admin/feedback.html",
        "admin/feedback_list.html",
        items=feedback.inbox(acting_user(), **filters),
        counts=feedback.counts(acting_user()),
        filters=filters,
    )


@bp.post("/feedback/<feedback_id>/status")
@admin_required
def feedback_status(feedback_id):
    """Change one submission's triage status in place; the count tiles refresh themselves."""
    item = feedback.set_status(acting_user(), feedback_id, request.form.get("status"))
    trigger("feedback:triaged")
    return render_template("admin/feedback_row.html", item=item)


@bp.get("/feedback/counts")
@admin_required
def feedback_counts():
    return render_template("admin/feedback_counts.html", counts=feedback.counts(acting_user()))
