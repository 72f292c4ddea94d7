"""Flask-Login wiring: how a session cookie becomes the current user."""

from flask import request
from flask_babel import lazy_gettext as _l

from app.profile import accounts


def init_app(app, login_manager):
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = _l("Please sign in to continue.")
    login_manager.login_message_category = "info"
    login_manager.session_protection = "basic"

    @login_manager.user_loader
    def load_user(session_id):
        """The session and the remember-me cookie store "<id>:<sign-in key>": a sign-in that
        ended on the server (signed out, signed out everywhere, password reset) loads nobody."""
        return accounts.user_for_session(session_id)

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
