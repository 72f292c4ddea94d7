"""Which language and time zone a request is rendered in.

Outside a request (the CLI, a background turn) the caller chooses with force_locale();
the default is English.
"""

import flask_babel
from flask import current_app, has_request_context, request

from app.web.acting import acting_user, signed_in


def install_template_translations(app):
    """Templates translate through `catalogue()`: Flask-Babel's own callables find the request's
    catalogue anew at every string (its domain, its locale, the locale's name: ~14 µs), and a
    heavy page translates a few hundred strings. The locale is still read at every string, so
    `force_locale` and a signed-in user's language apply exactly as before."""
    catalogues = {}  # locale -> Flask-Babel's translations for it (the app has one domain)

    def catalogue():
        locale = flask_babel.get_locale()
        found = catalogues.get(locale)
        if found is None:
            found = flask_babel.get_translations()
            if locale is not None:  # outside an app context: English, not worth keeping
                catalogues[locale] = found
        return found

    app.jinja_env.install_gettext_callables(
        gettext=lambda string: catalogue().ugettext(string),
        ngettext=lambda singular, plural, n: catalogue().ungettext(singular, plural, n),
        pgettext=lambda context, string: catalogue().upgettext(context, string),
        npgettext=lambda context, singular, plural, n: catalogue().unpgettext(context, singular, plural, n),
        newstyle=True,
    )


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
