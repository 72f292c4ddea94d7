"""Which language and time zone a request is rendered in.

Outside a request (the CLI, a background turn) the caller chooses with force_locale();
the default is English.
"""

from flask import current_app, has_request_context, request

from app.web.acting import acting_user, signed_in


def select_locale():
    """The user's setting when signed in, else the browser's best match, else English."""
    if not has_request_context():
        return None
    if signed_in():
        return acting_user().language
    return request.accept_languages.best_match(current_app.config["LANGUAGES"])


def select_timezone():
    if signed_in():
        return acting_user().timezone
    return None
