"""The admin area: reachable only by accounts granted with `flask users make-admin`."""

from functools import wraps

from flask import Blueprint, Response, abort
from flask_login import current_user, login_required
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.llm import current_chain
from app.web.rendering import render_page

bp = Blueprint("admin", __name__, url_prefix="/admin")


def admin_required(view):
    """Signed-out visitors go to the login page; signed-in non-admins get 403."""

    @wraps(view)
    @login_required
    def guarded(*args, **kwargs):
        if not current_user.is_admin:
            abort(403)
        return view(*args, **kwargs)

    return guarded


@bp.get("/")
@admin_required
def index():
    return render_page("admin/index.html")


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
