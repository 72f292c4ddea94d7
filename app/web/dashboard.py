"""The signed-in home, and the honest "coming soon" state of areas not built yet."""

from flask import Blueprint, abort, redirect, url_for
from flask_login import current_user, login_required

from app.web.navigation import BY_SLUG
from app.web.rendering import render_page

bp = Blueprint("dashboard", __name__)


@bp.get("/")
def home():
    if current_user.is_authenticated:
        return redirect(url_for("dashboard.index"))
    return redirect(url_for("auth.login"))


@bp.get("/dashboard")
@login_required
def index():
    return render_page("dashboard/page.html", active="dashboard")


@bp.get("/soon/<area>")
@login_required
def coming_soon(area):
    found = BY_SLUG.get(area)
    if found is None or found.endpoint:
        abort(404)
    return render_page("dashboard/coming_soon.html", area=found, active=found.slug)
