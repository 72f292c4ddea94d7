"""The admin area: reachable only by accounts granted with `flask users make-admin`."""

from functools import wraps

from flask import Blueprint, abort
from flask_login import current_user, login_required

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
