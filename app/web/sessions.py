"""Flask-Login wiring: how a session cookie becomes the current user."""

import uuid

from flask import request
from flask_babel import lazy_gettext as _l

from app.extensions import db
from app.models import User


def init_app(app, login_manager):
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = _l("Please sign in to continue.")
    login_manager.login_message_category = "info"
    login_manager.session_protection = "basic"

    @login_manager.user_loader
    def load_user(session_id):
        """The session stores "<id>:<session version>"; an old version means signed out."""
        user_id, _, version = session_id.partition(":")
        try:
            user = db.session.get(User, uuid.UUID(user_id))
        except ValueError:
            return None
        if user is None or str(user.session_version) != version:
            return None
        return user

    @login_manager.unauthorized_handler
    def unauthorized():
        from flask import flash, redirect, url_for

        from app.web.rendering import is_htmx

        flash(login_manager.login_message, "info")
        target = url_for("auth.login", next=request.full_path.rstrip("?"))
        if is_htmx():  # a fragment request cannot show a login page inside a widget
            response = app.response_class(status=401)
            response.headers["HX-Redirect"] = target
            return response
        return redirect(target)
