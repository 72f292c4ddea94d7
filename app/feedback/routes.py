"""The feedback page: tell us about a bug, an idea, or anything else."""

from urllib.parse import urlsplit

from flask import Blueprint, render_template, request
from flask_login import login_required

from app.extensions import limiter
from app.feedback import services as feedback
from app.shared.errors import DomainError
from app.web.acting import acting_user
from app.web.forms import form_refused
from app.web.rendering import is_htmx, render_page

bp = Blueprint("feedback", __name__, url_prefix="/feedback", template_folder="templates")


def _per_user():
    return f"feedback:{acting_user().id}"


@bp.get("")
@login_required
def index():
    # The page the user came from (its path only), sent along to help reproduce what they saw.
    came_from = request.args.get("page") or urlsplit(request.referrer or "").path
    start = {"kind": request.args.get("kind", "BUG"), "page": came_from}
    context = {"form": start, "fields": {}, "error": None, "active": "feedback"}
    return render_page("feedback/page.html", "feedback/_form.html", **context)


@bp.post("")
@login_required
@limiter.limit("10 per hour", key_func=_per_user)
def submit():
    form = request.form
    try:
        feedback.submit(acting_user(), form.get("kind"), form.get("text"), form.get("page"))
    except DomainError as error:
        return form_refused("feedback/_form.html" if is_htmx() else "feedback/page.html", error, active="feedback")
    template = "feedback/_thanks.html" if is_htmx() else "feedback/page.html"
    return render_template(template, sent=True, form={}, fields={}, error=None, active="feedback")
