"""The study notebook: topics and their pages."""

from flask import Blueprint
from flask_login import login_required

from app.services import notebook
from app.web.acting import acting_user
from app.web.rendering import render_page

bp = Blueprint("notebook", __name__, url_prefix="/notebook")


@bp.get("")
@login_required
def index():
    return render_page("notebook/page.html", topics=notebook.topics(acting_user()), active="notebook")


@bp.get("/pages/<page_id>")
@login_required
def page(page_id):
    return render_page("notebook/study_page.html", page=notebook.get_page(acting_user(), page_id), active="notebook")
